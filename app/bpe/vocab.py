"""A bpe model's vocabulary, derived from its merges, and the checks that bound it.

A model from a file is not trusted: no token may be longer than MAX_TOKEN_BYTES, nor all
together longer than MAX_VOCAB_BYTES (checked from the lengths, before any bytes are
joined), nor the vocabulary larger than MAX_VOCAB_SIZE. Leaves encoding, training and the
file format to the model, `train` and `model_file`.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.errors import InvalidInput, excerpt

MAX_TOKEN_BYTES = 4096  # the longest token of gpt2, cl100k_base and o200k_base has 128 bytes
MAX_VOCAB_BYTES = 64 << 20  # all tokens together; o200k_base's take 1.5 MB
MAX_VOCAB_SIZE = 1 << 20


def check_specials(specials: list[str]) -> None:
    seen = set()
    for token in specials:
        if not isinstance(token, str) or not token:
            raise InvalidInput(
                f"special token {excerpt(token)} is not a non-empty string; give each as text like '<|endoftext|>'"
            )
        if token in seen:
            raise InvalidInput(f"special token {excerpt(token)} is given twice; list each special token once")
        seen.add(token)


class BadMerge(InvalidInput):
    def __init__(self, index: int, message: str):
        super().__init__(message)
        self.index = index  # which merge, counting from 0


def check_merges(merges: dict[tuple[int, int], int]) -> None:
    """`BadMerge` for the first merge that does not build on earlier ids or goes over
    MAX_TOKEN_BYTES or MAX_VOCAB_BYTES, computed from lengths: no bytes are joined."""
    lengths = [1] * 256  # id -> token length
    total = 256
    for index, ((left, right), token_id) in enumerate(merges.items()):
        if token_id != 256 + index or not (0 <= left < token_id and 0 <= right < token_id):
            raise BadMerge(index, f"merge {index} ({left}, {right}) -> {token_id} does not build on earlier ids")
        lengths.append(lengths[left] + lengths[right])
        total += lengths[-1]
        if lengths[-1] > MAX_TOKEN_BYTES or total > MAX_VOCAB_BYTES:
            raise BadMerge(
                index,
                f"merge {index} ({left} {right}) makes a token of {lengths[-1]:,} bytes, the tokens up to it "
                f"{total:,} bytes; a token may have at most {MAX_TOKEN_BYTES:,}, all together {MAX_VOCAB_BYTES:,}",
            )


def build_vocab(merges: dict[tuple[int, int], int], byte_ids: Sequence[int]) -> list[bytes]:
    if sorted(byte_ids) != list(range(256)):
        raise InvalidInput("the byte table must give the 256 bytes the ids 0..255, each once")
    check_merges(merges)
    vocab = [b""] * (256 + len(merges))  # id -> bytes
    for byte, token_id in enumerate(byte_ids):
        vocab[token_id] = bytes([byte])
    for (left, right), token_id in merges.items():
        vocab[token_id] = vocab[left] + vocab[right]
    return vocab
