"""The playground's "Fewest tokens" option: the shortest encoding (app/tokenizers/lecture/shortest.py)
drawn like the BPE tokens, both counts, and the places where the two cut the text differently
(each with its text and how each encoding spells it); the comparison shows the counts only
(`fewest_counts`), one line per column."""

from __future__ import annotations

from dataclasses import dataclass

from app.errors import TokenprismError
from app.tokenizers.lecture import shortest
from app.tokenizers.tokens import char_ranges, make_tokens
from app.web.markup.tokenview import TokenView, build_view
from app.web.pages.common import HEAD_SLACK

MAX_LISTED = 50  # differences listed under the drawing; the count is of all


@dataclass
class Difference:
    text: str
    bpe: list[str]  # each token's text
    fewest: list[str]


@dataclass
class FewestView:
    count: int = 0
    bpe_count: int = 0
    view: TokenView | None = None
    differences: list[Difference] | None = None
    total_differences: int = 0
    error: TokenprismError | None = None
    bpe_only_cuts: frozenset[int] = frozenset()  # character offsets where only BPE starts a token


def fewest_view(tokenizer, text: str, allow_special: bool, state_view: str, ws: bool, settings) -> FewestView:
    try:
        found = shortest.shortest(tokenizer, text, allow_special)
    except TokenprismError as error:
        return FewestView(error=error)
    head = settings.render_tokens + HEAD_SLACK  # only these are drawn; the ids list and counts are of all
    tokens = make_tokens(found.ids[:head], found.pieces[:head], char_ranges(found.pieces[:head]), tokenizer.special_ids)
    bpe_starts = _starts(found.bpe_pieces)
    own_starts = _starts(found.pieces[:head])
    bpe_set, own_set = set(bpe_starts), set(own_starts)
    mine = frozenset(t.start for t, at in zip(tokens, own_starts, strict=True) if at not in bpe_set)
    theirs = frozenset(
        r[0] for r, at in zip(char_ranges(found.bpe_pieces), bpe_starts, strict=True) if at not in own_set
    )
    view = build_view(
        text, tokens, state_view, ws, settings.render_tokens, found.ids, settings.max_response_tokens, cuts=mine
    )
    spans = found.differences()
    listed = [
        Difference(_text(text, found.pieces, a, b), _spelled(found.bpe_pieces, a, b), _spelled(found.pieces, a, b))
        for a, b in spans[:MAX_LISTED]
    ]
    return FewestView(len(found.ids), len(found.bpe_ids), view, listed, len(spans), bpe_only_cuts=theirs)


def fewest_counts(tokenizer, text: str, allow_special: bool) -> FewestView:
    """Both counts and the number of places, nothing drawn (the comparison's columns)."""
    try:
        found = shortest.shortest(tokenizer, text, allow_special)
    except TokenprismError as error:
        return FewestView(error=error)
    return FewestView(len(found.ids), len(found.bpe_ids), total_differences=len(found.differences()))


def _starts(pieces: list[bytes]) -> list[int]:
    """Each piece's byte offset."""
    out, at = [], 0
    for piece in pieces:
        out.append(at)
        at += len(piece)
    return out


def _text(text: str, pieces: list[bytes], start: int, end: int) -> str:
    return b"".join(pieces)[start:end].decode("utf-8", "replace")


def _spelled(pieces: list[bytes], start: int, end: int) -> list[str]:
    out, at = [], 0
    for piece in pieces:
        if start <= at < end:
            out.append(piece.decode("utf-8", "replace"))
        at += len(piece)
    return out
