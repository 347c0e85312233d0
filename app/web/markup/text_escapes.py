"""Text as safe HTML, escaped once: hidden characters drawn as visible escapes, whitespace marked
when asked, U+FFFD from decoding marked, bytes labelled `<0xE2>`; and the patterns and escapes
tokenview.py builds its segments with. Leaves out tokens and segments (tokenview.py).

Control, format (zero-width, bidi), line/paragraph separator and filler
characters are always drawn as a visible `\\u202e`-style escape, never raw, except the
joiners and selectors inside an emoji sequence, which are part of the picture. With
"show whitespace" on, spaces, tabs and newlines get visible marks too.
"""

from __future__ import annotations

import unicodedata

import regex
from markupsafe import Markup, escape

# Characters never drawn raw: they are invisible or reorder the text around them.
HIDDEN = regex.compile(
    r"[[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Variation_Selector}\u115f\u1160\u3164\uffa0\u2800]--[\t\n]]", regex.V1
)
HIDDEN_OR_SPACE = regex.compile(
    r"[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Zs}\p{Variation_Selector}\u115f\u1160\u3164\uffa0\u2800]", regex.V1
)
_EMOJI = regex.compile(r"[\p{Extended_Pictographic}\p{Regional_Indicator}\u20e3]")
_CLUSTER = regex.compile(r"\X")
_WHITESPACE_MARKS = {" ": "·", "\t": "→\t", "\n": "↵\n"}


def byte_label(data: bytes) -> str:
    return "".join(f"<0x{byte:02X}>" for byte in data)


def escape_code(char: str) -> str:
    code = ord(char)
    if char == "\r":
        return "\\r"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _escape_span(char: str) -> str:
    name = unicodedata.name(char, "") or unicodedata.category(char)
    return f'<span class="esc" title="U+{ord(char):04X} {escape(name)}">{escape_code(char)}</span>'


def _mark_char(char: str, show_ws: bool) -> str:
    if show_ws and char in _WHITESPACE_MARKS:
        return f'<span class="ws">{escape(_WHITESPACE_MARKS[char])}</span>'
    return _escape_span(char)


def render_text(text: str, show_ws: bool = False) -> Markup:
    """`text` as safe HTML with hidden characters escaped (and whitespace marked if asked)."""
    pattern = HIDDEN_OR_SPACE if show_ws else HIDDEN
    if not pattern.search(text):
        return escape(text)
    if _EMOJI.search(text):
        parts = []
        for cluster in _CLUSTER.findall(text):
            if _EMOJI.search(cluster):
                parts.append(str(escape(cluster)))  # ZWJ and selectors belong to the picture
            else:
                parts.append(_render_plain(cluster, pattern, show_ws))
        return Markup("".join(parts))
    return Markup(_render_plain(text, pattern, show_ws))


def _render_plain(text: str, pattern, show_ws: bool) -> str:
    out, position = [], 0
    for match in pattern.finditer(text):
        out.append(str(escape(text[position : match.start()])))
        out.append(_mark_char(match.group(), show_ws))
        position = match.end()
    out.append(str(escape(text[position:])))
    return "".join(out)


HTML_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&#34;", "'": "&#39;"})


def escape_html(text: str) -> str:
    """markupsafe's escapes (a chain of replaces: on a token-sized string, the fastest way here)."""
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&#34;").replace("'", "&#39;")
    )


def render_decoded(text: str, show_ws: bool = False) -> Markup:
    """Decoded text as safe HTML: escapes as in `render_text`, and each U+FFFD that decoding
    put in (ids that stop inside a character) marked, so it is not mistaken for input."""
    mark = Markup('<span class="esc bad" title="U+FFFD: these ids end inside a character">\ufffd</span>')
    return mark.join(render_text(part, show_ws) for part in text.split("\ufffd"))
