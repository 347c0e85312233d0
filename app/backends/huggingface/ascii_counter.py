"""Counting ASCII text without the library's pre-tokenizer, for files with DeepSeek's rules.

For a file whose rules are the proven ones (`cuts.proven`), an ASCII text with
no control character other than tab, line feed and carriage return, and no added token's
string in it, is cut into the library's own chunks by one regex (`PIECES`), and each
distinct chunk is counted once: from a bounded cache, or by the library (its batch
encoder, without offsets) for the chunks not seen yet. The sum is the library's count.

Why `PIECES` gives the library's chunks on such a text: there is no added token to split
out and no normalizer; the digit split isolates runs of up to three ASCII digits (the only
ASCII \\p{N}), which is `PIECES`' first alternative, and nothing else takes a digit; the CJK
split finds nothing; on each stretch between digits, DeepSeek's regex with its classes
written out for this alphabet (\\p{L}: A-Z a-z, \\p{P} and \\p{S}: the 32 ASCII punctuation
characters, \\s: tab, line feed, carriage return and space, no \\p{M}; vertical tab and form
feed, whose \\s membership differs between regex engines, send the text to the library)
matches every character, and its one look past a match, `(?!\\S)`, sees the end of the
stretch where `PIECES` sees a digit, so it is written `(?![^\\t\\n\\r 0-9])`. A chunk
encoded alone is cut by the library into that one chunk (an alternative that failed in
the text fails on a prefix of it; `\\s+(?!\\S)` may succeed alone where `\\s+` won, but that
chunk is one character), so the chunk's count is its count in the text. ByteLevel and the
BPE model work within a chunk.

Left out: non-ASCII text (the library counts it). Holds the GIL while it cuts (the regex
is ~0.1 s for 5 MB); the chunks not in the cache are counted with the GIL let go.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Callable
from operator import mul

import tokenizers
from app.backends.huggingface import cuts
from app.tokenizers import chunks

CACHE_ENTRIES = 1 << 16  # distinct chunks kept (then the cache starts over): a few MB at most
CACHE_CHUNK_CHARS = 64  # a longer chunk (a long run of spaces) is counted but not kept
_PUNCT = re.escape(string.punctuation)
PIECES = re.compile(
    r"[0-9]{1,3}"
    rf"|[{_PUNCT}][A-Za-z]+"
    r"|[\t ]?[A-Za-z]+"
    rf"| ?[{_PUNCT}]+[\r\n]*"
    r"|[\t\n\r ]*[\r\n]+"
    r"|[\t\n\r ]+(?![^\t\n\r 0-9])"
    r"|[\t\n\r ]+"
)
_NOT_HERE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")

CountMany = Callable[[list[str]], list[int]]  # the library's count of each chunk


class AsciiCounter:
    def __init__(self, library: tokenizers.Tokenizer):
        tokens = library.get_added_tokens_decoder().values()
        self._added = chunks.specials_pattern(t.content for t in tokens if t.content and t.content.isascii())
        self._cache: dict[str, int] = {}

    @classmethod
    def for_library(cls, library: tokenizers.Tokenizer) -> AsciiCounter | None:
        return cls(library) if cuts.proven(library) else None

    def count(self, text: str, count_many: CountMany) -> int | None:
        """The library's count of `text`, or None when the text is not for this path."""
        if not text.isascii() or _NOT_HERE.search(text) or (self._added and self._added.search(text)):
            return None
        found = PIECES.findall(text)
        if len("".join(found)) != len(text):
            return None  # a character no alternative takes (none, by the module's argument): the library counts
        chunks = Counter(found)
        cache = self._cache
        missing = [chunk for chunk in chunks if chunk not in cache]
        total = 0
        if missing:
            counted = dict(zip(missing, count_many(missing), strict=True))
            for chunk in missing:
                total += counted[chunk] * chunks.pop(chunk)
            keep = {chunk: n for chunk, n in counted.items() if len(chunk) <= CACHE_CHUNK_CHARS}
            if len(cache) + len(keep) > CACHE_ENTRIES:
                self._cache = keep  # start over; a thread counting with the old dict keeps it
            else:
                cache.update(keep)
        return total + sum(map(mul, map(cache.__getitem__, chunks), chunks.values()))
