"""The "Chunks" option of the playground and the comparison: where the pre-tokenizer's chunks end.

`chunk_marks` asks the tokenizer for its chunks of the page's text (`Tokenizer.chunks`: the text
is the one the page already checked against the text limit, and this runs on the work pool
with the rest of the page) and keeps the character offsets where a chunk ends inside the text:
the token segment ending there gets a mark under its end (`.tok.chunk-end` in app.css, drawn
by `tokenview.build_view`), and `shared/_chunks.html` writes the count, or for a tokenizer with no
split its sentence (`chunks_note`). Left out: chat mode (its prompt is the rendered template,
not the page's text) and the decoder mode.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.tokenizers.base import Tokenizer


@dataclass(frozen=True)
class ChunkMarks:
    ends: frozenset[int] = frozenset()  # where a chunk ends before the end of the text
    count: int | None = None  # None: the tokenizer has no split
    note: str | None = None  # then: what it does instead


NO_MARKS = ChunkMarks()


def chunk_marks(tokenizer: Tokenizer, text: str, allow_special: bool) -> ChunkMarks:
    found = tokenizer.chunks(text, allow_special)
    if found is None:
        return ChunkMarks(note=tokenizer.chunks_note)
    return ChunkMarks(ends=frozenset(end for _, end in found if end < len(text)), count=len(found))
