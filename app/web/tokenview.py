"""What `templates/_tokens.html` draws: token segments as display items, escaped once here.

From a `TokenizeResult` this builds the segments to draw (at most a budget of tokens, the
rest is counted but not drawn), with, per segment: its ids, character range, a stable
color class, the bytes of each token in hex, and the content for the chosen view
(text, ids or bytes) as safe HTML. No HTTP here, and no tokenizer work.

Segments come from the engine's `segments(tokens, text)`: tokens that split one
user-perceived character (an emoji cut into byte tokens, a ZWJ family, a flag, a letter
with a combining accent) form one segment, so the character shows once with all its ids.

Escapes: control, format (zero-width, bidi), line/paragraph separator and filler
characters are always drawn as a visible `\\u202e`-style escape, never raw, except the
joiners and selectors inside an emoji sequence, which are part of the picture. With
"show whitespace" on, spaces, tabs and newlines get visible marks too.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import regex
from markupsafe import Markup, escape

from app.tokenizers.tokens import Token, segments

VIEWS = ("text", "ids", "bytes")
PALETTE_SIZE = 10

# Characters never drawn raw: they are invisible or reorder the text around them.
_HIDDEN = regex.compile(
    r"[[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Variation_Selector}\u115f\u1160\u3164\uffa0\u2800]--[\t\n]]", regex.V1
)
_HIDDEN_OR_SPACE = regex.compile(
    r"[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Zs}\p{Variation_Selector}\u115f\u1160\u3164\uffa0\u2800]", regex.V1
)
_EMOJI = regex.compile(r"[\p{Extended_Pictographic}\p{Regional_Indicator}\u20e3]")
_CLUSTER = regex.compile(r"\X")
_WHITESPACE_MARKS = {" ": "·", "\t": "→\t", "\n": "↵\n"}


@dataclass(slots=True)
class SegmentView:
    index: int
    ids: list[int]
    start: int
    end: int
    color: str  # css classes: "c3", or "c3 alt" when the neighbour before has the same hue
    hex: str  # the bytes of each token in hex, tokens separated by spaces
    special: bool
    content: Markup
    title: str

    @property
    def id(self) -> int:
        return self.ids[0]

    @property
    def multi(self) -> bool:
        return len(self.ids) > 1

    @property
    def data_ids(self) -> str:
        return " ".join(map(str, self.ids))


@dataclass(slots=True)
class TokenView:
    segments: list[SegmentView]
    total_tokens: int
    shown_tokens: int
    view: str
    rest_ids: list[int]  # ids past the drawing budget: listed in the ids panel as plain text

    @property
    def truncated(self) -> bool:
        return self.shown_tokens < self.total_tokens


def color_index(token_id: int) -> int:
    """A hue for an id: the same id always gets the same hue (Knuth's multiplicative hash)."""
    return ((token_id * 2654435761) & 0xFFFFFFFF) % PALETTE_SIZE


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
    pattern = _HIDDEN_OR_SPACE if show_ws else _HIDDEN
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


def _content(view: str, text: str, toks: tuple[Token, ...], show_ws: bool) -> Markup:
    if view == "ids":
        return Markup(" ").join(str(t.id) for t in toks)
    if view == "bytes":
        if all(not t.bytes for t in toks):
            return Markup('<span class="esc nothing">∅</span>')
        return Markup("").join(
            Markup('<span class="b">{}</span>').format(" ".join(f"{b:02X}" for b in t.bytes)) for t in toks if t.bytes
        )
    if not text:
        return Markup('<span class="esc nothing">∅</span>')
    if "\ufffd" in text:
        joined = b"".join(t.bytes for t in toks)
        try:
            joined.decode("utf-8")
        except UnicodeDecodeError:  # ids that decode to broken UTF-8: show the bytes, not U+FFFD
            return Markup('<span class="esc bad">{}</span>').format(byte_label(joined))
    return render_text(text, show_ws)


def _title(toks: tuple[Token, ...]) -> str:
    """A tooltip for the segments that need one: several tokens, a piece of a character,
    a special token, or a token with no bytes. Plain tokens get none (the detail line and
    the ids panel show their id), which keeps a 5,000-token list light."""
    if len(toks) == 1:
        t = toks[0]
        if t.special:
            return f"id {t.id} · special token"
        if not t.bytes:
            return f"id {t.id} · adds no bytes here"
        if t.is_partial:
            return f"id {t.id} · {byte_label(t.bytes)}"
        return ""
    return f"{len(toks)} tokens: " + " · ".join(f"{t.id} {byte_label(t.bytes) if t.is_partial else repr(t.text)}" for t in toks)


def build_view(text: str, tokens: list[Token], view: str = "text", show_ws: bool = False, budget: int = 5000) -> TokenView:
    """The segments of the first `budget` tokens (never cutting a segment), ready to draw."""
    shown = tokens[:budget]
    if len(shown) < len(tokens):
        reach = max((t.end for t in shown), default=0)
        extra = len(shown)
        while extra < len(tokens) and tokens[extra].start < reach:
            reach = max(reach, tokens[extra].end)
            extra += 1
        shown = tokens[:extra]
    items: list[SegmentView] = []
    previous_hue = -1
    for index, segment in enumerate(segments(shown, text)):
        start, end, toks = segment.start, segment.end, segment.tokens
        hue = color_index(toks[0].id)
        color = f"c{hue} alt" if hue == previous_hue else f"c{hue}"
        previous_hue = hue if color == f"c{hue}" else -1
        items.append(
            SegmentView(
                index=index,
                ids=[t.id for t in toks],
                start=start,
                end=end,
                color=color,
                hex=" ".join(t.bytes.hex() or "-" for t in toks),
                special=any(t.special for t in toks),
                content=_content(view, text[start:end], toks, show_ws),
                title=_title(toks),
            )
        )
    return TokenView(
        segments=items,
        total_tokens=len(tokens),
        shown_tokens=len(shown),
        view=view if view in VIEWS else "text",
        rest_ids=[t.id for t in tokens[len(shown) :]],
    )


def render_decoded(text: str, show_ws: bool = False) -> Markup:
    """Decoded text as safe HTML: escapes as in `render_text`, and each U+FFFD that decoding
    put in (ids that stop inside a character) marked, so it is not mistaken for input."""
    mark = Markup('<span class="esc bad" title="U+FFFD: these ids end inside a character">\ufffd</span>')
    return mark.join(render_text(part, show_ws) for part in text.split("\ufffd"))
