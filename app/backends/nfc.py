"""NFC where it can change, and the user's bytes for tokens of the NFC form of their text
(tokenizers that normalize first).

`nfc(text)` is `unicodedata.normalize("NFC", text)`, normalizing only the pieces of the text
around the characters NFC may change or join (`_nfc.c`, with a table of Python's own Unicode
data: `nfc_tables.py`). Python's normalize, once its quick check fails anywhere, rebuilds the
whole text: 1 MB of translations with a few combining marks took 24.6 ms that way.

A tokenizer that NFC-normalizes its input (qwen3_6) gives ids, and byte pieces, of
`NFC(text)`; the visualizer needs, for each id, the bytes of the text the user typed.

The rule: cut the text into normalization-stable segments, each one character that can
start a segment followed by every character after it that cannot. A character cannot
start one when NFC may join it to what precedes it: a non-zero combining class (reordered
and composed with the base), NFC_Quick_Check=Maybe (the second half of a composition:
U+0301, Hangul vowel and trailing jamo, U+0B3E...), or a decomposition that begins with
a non-starter (U+0F73, U+0F75, U+0F81, the only such starters). NFC then never works
across a segment boundary, so NFC(text) is the concatenation of the segments' NFC forms.

A segment NFC leaves alone maps byte for byte. A segment NFC rewrites ("e" + U+0301 ->
"é", U+212B -> U+00C5, jamo -> a Hangul syllable) maps as a whole: a token boundary that
falls inside its normalized bytes moves to the segment's end. So the token in which the
rewritten segment starts holds all of the user's bytes for it, and a token lying wholly
inside it holds none (an empty range at the segment's end). The segments are checked:
if their NFC forms did not join to NFC(text) (no known input does that), the whole text
would be one segment.
"""

from __future__ import annotations

import unicodedata
from bisect import bisect_left
from itertools import accumulate, pairwise

import regex

from app.backends._nfc import nfc

__all__ = ["JOINS_BACK", "nfc", "nfc_pieces", "rewritten_segments"]

JOINS_BACK = r"\P{ccc=0}\p{NFC_QC=Maybe}\u0F73\u0F75\u0F81"  # characters that cannot start a segment
# The segments NFC may rewrite: a starter with the characters that join it, or one character
# NFC replaces on its own (U+212B, a CJK compatibility ideograph); every other segment is
# already NFC.
_MAY_CHANGE = regex.compile(rf"[^{JOINS_BACK}]?[{JOINS_BACK}]+|\p{{NFC_QC=No}}")


def nfc_pieces(text: str, normalized: str, pieces: list[bytes]) -> list[bytes]:
    """For byte `pieces` that join to `normalized` (= NFC of `text`), the bytes of `text`
    each stands for; they join to `text`'s UTF-8 (see the module's rule)."""
    if normalized == text:
        return pieces
    original = text.encode("utf-8")
    rewritten = rewritten_segments(text, normalized)  # (normalized start, end, original start, end), bytes
    if rewritten is None:  # the rule failed (no known input does this): the whole text is one segment
        rewritten = [(0, len(normalized.encode("utf-8")), 0, len(original))]
    starts = [segment[0] for segment in rewritten]

    def original_offset(position: int) -> int:
        k = bisect_left(starts, position) - 1  # the last rewritten segment starting before `position`
        if k < 0:
            return position
        _, end, _, original_end = rewritten[k]
        return original_end if position < end else position + original_end - end

    boundaries = [original_offset(p) for p in accumulate(map(len, pieces), initial=0)]
    return [original[a:b] for a, b in pairwise(boundaries)]


def rewritten_segments(text: str, normalized: str) -> list[tuple[int, int, int, int]] | None:
    """The segments NFC rewrites, as byte offsets (normalized start, end, original start, end);
    None if their NFC forms and the text between them do not join to `normalized`."""
    segments: list[tuple[int, int, int, int]] = []
    assembled: list[str] = []
    char_position = byte_position = normalized_position = 0  # where the last segment ended
    for match in _MAY_CHANGE.finditer(text):
        segment = match.group()
        segment_nfc = unicodedata.normalize("NFC", segment)
        if segment_nfc == segment:
            continue
        between = text[char_position : match.start()]
        between_bytes = len(between.encode("utf-8"))
        original_start = byte_position + between_bytes
        normalized_start = normalized_position + between_bytes
        original_end = original_start + len(segment.encode("utf-8"))
        normalized_end = normalized_start + len(segment_nfc.encode("utf-8"))
        segments.append((normalized_start, normalized_end, original_start, original_end))
        assembled += [between, segment_nfc]
        char_position, byte_position, normalized_position = match.end(), original_end, normalized_end
    assembled.append(text[char_position:])
    return segments if "".join(assembled) == normalized else None
