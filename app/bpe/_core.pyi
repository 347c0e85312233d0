"""Types of the C extension app/bpe/csrc/train/_core.c (BPE training merge loop and encoder merge).

Written from the C source's argument parsing and return values; mypy reads this, Python never does.
"""

from collections.abc import Callable
from typing import Any

def merge_loop(
    chunks: list[bytes],
    weights: list[int],
    num_merges: int,
    progress: Callable[[int, int, int, int, int], Any] | None,
    /,
) -> list[tuple[int, int, int]]:
    """The merges in order, as (left, right, count); `progress(done, total, left, right, count)` after each."""

def recover_merges(byte_ids: bytes, tokens: list[bytes], /) -> list[tuple[int, int]]:
    """The pairs behind tokens of rank 256, 257, ...; shorter than `tokens` at the first that is no merge of two."""

class Merger:
    """BPE merges (pair i makes id 256 + i); byte_ids[b] is the id of byte b."""

    def __new__(cls, byte_ids: bytes, pairs: list[tuple[int, int]]) -> Merger: ...
    def merge(self, data: bytes, /) -> list[int]:
        """The ids of one chunk."""

    def encode_chunks(self, chunks: list[str], cache: dict[str, bytes], limit: int, /) -> list[int]:
        """The ids of all chunks, from `cache` (chunk -> native int32 bytes) or merged and added while it is short."""
