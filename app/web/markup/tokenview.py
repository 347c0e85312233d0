"""What `templates/shared/_tokens.html` draws: token segments as ready HTML, escaped once here.

From the head of a text's tokens this builds the segments to draw (at most a budget of
tokens, the rest is counted but not drawn) as one string of `<bdi>` elements, each with
its ids, character range, a stable color class, the bytes of each token in hex, and the
content for the chosen view (text, ids or bytes), plus the ids panel's list. The markup
is built in one pass here rather than in a template loop: a page draws thousands of
segments, and per-segment objects and Jinja's per-attribute escaping cost several times
the tokenizing. No HTTP here, and no tokenizer work.

Segments come from the engine's `segments(tokens, text)`: tokens that split one
user-perceived character (an emoji cut into byte tokens, a ZWJ family, a flag, a letter
with a combining accent) form one segment, so the character shows once with all its ids.

Text and its escapes (hidden characters, whitespace marks): text_escapes.py.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

import regex
from markupsafe import Markup

from app.tokenizers.tokens import Token, segments
from app.web.markup.number import num
from app.web.markup.text_escapes import HIDDEN, HIDDEN_OR_SPACE, HTML_ESCAPES, byte_label, escape_html, render_text

VIEWS = ("text", "ids", "bytes")
PALETTE_SIZE = 10

_NEWLINE = regex.compile(r"\n")


@dataclass(slots=True)
class TokenView:
    html: Markup  # the segments, one <bdi> each
    ids_html: Markup  # the ids panel's list
    total_tokens: int
    shown_tokens: int
    view: str
    lines: bool = False  # segments wrapped per line, with a gutter of counts

    @property
    def truncated(self) -> bool:
        return self.shown_tokens < self.total_tokens


_NOTHING = '<span class="esc nothing">∅</span>'


def _content(view: str, text: str, toks: tuple[Token, ...], show_ws: bool, plain: bool) -> str:
    """A segment's content as HTML; `plain`: the segment has no character to draw as an escape."""
    if view == "ids":
        return " ".join(str(t.id) for t in toks)
    if view == "bytes":
        if all(not t.bytes for t in toks):
            return _NOTHING
        return "".join('<span class="b">' + t.bytes.hex(" ").upper() + "</span>" for t in toks if t.bytes)
    if not text:
        return _NOTHING
    if "\ufffd" in text:
        joined = b"".join(t.bytes for t in toks)
        try:
            joined.decode("utf-8")
        except UnicodeDecodeError:  # ids that decode to broken UTF-8: show the bytes, not U+FFFD
            return f'<span class="esc bad">{byte_label(joined).translate(HTML_ESCAPES)}</span>'
    if plain:
        return escape_html(text)
    return str(render_text(text, show_ws))


def _is_partial(piece: bytes) -> bool:
    return not piece.isascii() and Token(0, piece, 0, 0).is_partial


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
        if _is_partial(t.bytes):
            return f"id {t.id} · {byte_label(t.bytes)}"
        return ""
    return f"{len(toks)} tokens: " + " · ".join(
        f"{t.id} {byte_label(t.bytes) if _is_partial(t.bytes) else repr(t.text)}" for t in toks
    )


def segment_cut(tokens: list, budget: int) -> int:
    """How many of `tokens` to draw: at most `budget`, cut where a segment ends (a character
    split over tokens is drawn whole or not at all); past `budget` only when the first segment
    alone is longer."""
    if len(tokens) <= budget:
        return len(tokens)
    reach, reaches = 0, []  # reaches[k]: the furthest end of tokens[:k + 1]
    for token in tokens[:budget]:
        reach = max(reach, token.end)
        reaches.append(reach)
    cut = budget
    while cut > 0 and tokens[cut].start < reaches[cut - 1]:
        cut -= 1
    if cut > 0:
        return cut
    extra = budget  # one segment longer than the budget: draw it whole
    while extra < len(tokens) and tokens[extra].start < reach:
        reach = max(reach, tokens[extra].end)
        extra += 1
    return extra


def build_view(
    text: str,
    tokens: list[Token],
    view: str = "text",
    show_ws: bool = False,
    budget: int = 5000,
    ids: list[int] | None = None,
    list_limit: int | None = None,
    groups: list[tuple[int, str]] | None = None,
    lines: bool = False,
    cuts: frozenset[int] = frozenset(),
    chunk_ends: frozenset[int] = frozenset(),
) -> TokenView:
    """The segments of the first `budget` tokens at most (`segment_cut`), ready to draw. `ids` are all the text's ids (default:
    the tokens'); those past the drawn ones are listed as plain ids, up to `list_limit` in all.
    `groups`, (character offset, attributes) in text order, wraps the segments from each offset
    on in a `<span attributes>` (a chat prompt's messages); a segment belongs to the group it starts in.
    `lines` (without `groups`) groups the segments by the line they start in, each line with its
    token count and characters per token for the gutter; `cuts` are character offsets where a
    segment starting there is marked as a cut that other tokenizers do not make; `chunk_ends` are
    those where a pre-tokenizer chunk ends, marked under the segment ending there (chunk_view.py)."""
    ids = [t.id for t in tokens] if ids is None else ids
    view = view if view in VIEWS else "text"
    shown = tokens[: segment_cut(tokens, budget)]
    drawn_end = max((t.end for t in shown), default=0)
    if lines and groups is None:
        groups = line_groups(text, [t.start for t in shown], drawn_end)
    marked = [m.start() for m in (HIDDEN_OR_SPACE if show_ws else HIDDEN).finditer(text, 0, drawn_end)]
    parts: list[str] = []
    id_parts: list[str] = []
    previous_hue = -1
    plain_text_view = view == "text" and not marked
    opened = -1  # the group whose <span> is open
    for index, (start, end, toks) in enumerate(segments(shown, text)):
        if groups and opened + 1 < len(groups) and start >= groups[opened + 1][0]:
            close = "</span>" if opened >= 0 else ""
            while opened + 1 < len(groups) and start >= groups[opened + 1][0]:
                opened += 1
            parts.append(f"{close}<span {groups[opened][1]}>")
        first = toks[0]
        # The same id always gets the same hue (Knuth's multiplicative hash).
        hue = ((first.id * 2654435761) & 0xFFFFFFFF) % PALETTE_SIZE
        if hue == previous_hue:
            color, previous_hue = f"c{hue} alt", -1
        else:
            color, previous_hue = f"c{hue}", hue
        if start in cuts:
            color += " cut"
        if end in chunk_ends:
            color += " chunk-end"
        data = first.bytes
        if plain_text_view and len(toks) == 1 and data.isascii() and data and not first.special:
            # the common segment, one plain ASCII token (its text is its bytes): what the general
            # path below would write, with none of its checks
            id_parts.append(f'<span class="tid {color}" data-seg="{index}">{first.id}</span>')
            parts.append(
                f'<bdi class="tok {color}" data-id="{first.id}" data-seg="{index}" data-start="{start}" '
                f'data-end="{end}" data-hex="{data.hex()}" tabindex="{"0" if index == 0 else "-1"}">'
                f"{escape_html(text[start:end])}</bdi>"
            )
            continue
        if len(toks) == 1:
            special, multi_attr = first.special, ""
            hex_bytes = first.bytes.hex() or "-"
            id_parts.append(f'<span class="tid {color}" data-seg="{index}">{first.id}</span>')
        else:
            special = any(t.special for t in toks)
            multi_attr = f' data-ids="{" ".join(str(t.id) for t in toks)}"'
            hex_bytes = " ".join(t.bytes.hex() or "-" for t in toks)
            id_parts.extend(f'<span class="tid {color}" data-seg="{index}">{t.id}</span>' for t in toks)
        classes = color + (" special" if special else "") + (" multi" if multi_attr else "")
        special_attr = ' data-special="true"' if special else ""
        title = _title(toks) if special or multi_attr or not first.bytes or not first.bytes.isascii() else ""
        title_attr = f'title="{title.translate(HTML_ESCAPES)}" ' if title else ""
        at = bisect_left(marked, start) if marked else 0
        content = _content(view, text[start:end], toks, show_ws, plain=at == len(marked) or marked[at] >= end)
        parts.append(
            f'<bdi class="tok {classes}" data-id="{first.id}"{multi_attr} data-seg="{index}" data-start="{start}" '
            f'data-end="{end}" data-hex="{hex_bytes}"{special_attr} {title_attr}tabindex="{"0" if index == 0 else "-1"}">'
            f"{content}</bdi>"
        )
    if opened >= 0:
        parts.append("</span>")
    listed = len(ids) if list_limit is None else max(list_limit, len(shown))
    rest = ids[len(shown) : listed]
    id_parts.extend(map(str, rest))
    more = len(ids) - len(shown) - len(rest)
    tail = f'<span class="muted" data-role="ids-more"> … and {num(more)} more ids</span>' if more > 0 else ""
    return TokenView(
        html=Markup("".join(parts) or '<span class="empty-note">No tokens: the text is empty.</span>'),
        ids_html=Markup("[" + ", ".join(id_parts) + tail + "]"),
        total_tokens=len(ids),
        shown_tokens=len(shown),
        view=view,
        lines=bool(groups) and lines,
    )


def line_groups(text: str, starts: list[int], drawn_end: int) -> list[tuple[int, str]]:
    """For `build_view`'s `groups`: each line that drawn tokens start in (`starts`, in order), with
    how many start there and its characters per token. A line the drawing stops inside is
    counted as far as it is drawn and says so ("+")."""
    out: list[tuple[int, str]] = []
    line_starts = [0, *(m.end() for m in _NEWLINE.finditer(text, 0, drawn_end))]
    for number, begin in enumerate(line_starts, 1):
        end = text.find("\n", begin)
        end = len(text) if end < 0 else end
        count = bisect_left(starts, end + 1) - bisect_left(starts, begin)
        if count == 0:
            continue
        chars = end - begin
        partial = end > drawn_end
        label = num(count) + ("+" if partial else "")
        out.append(
            (
                begin,
                f'class="line" data-line="{number}" data-count="{count}" data-label="{label}" '
                f'data-cpt="{chars / count:.1f}" title="line {number}: {label} tokens, {num(chars)} characters, '
                f'{chars / count:.2f} characters per token"',
            )
        )
    return out
