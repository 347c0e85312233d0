"""Llama 3 and Llama 4 (llama3, llama4): tiktoken vocabularies as Meta's llama-models builds them.

Facts from llama-models 0.3.0 (`llama_models/llama3/tokenizer.py`, `llama4/tokenizer.py`):
- llama3: 128,000 ranks, its own split pattern (LLAMA3_PATTERN), then 256 special tokens
  from id 128,000: twelve named ones (two of them reserved_0 and reserved_1), then
  `<|reserved_special_token_2|>` to `<|reserved_special_token_245|>`.
- llama4: 200,000 ranks, o200k_base's split pattern, then 2,048 special tokens from id
  200,000: five basic ones, 75 text post-training ones (header, eom/eot, python, reserved),
  1,054 vision ones, ten reasoning ones, then `<|reserved_special_token_0|>` to `_903|>`.
- Its `encode` cuts the text before encoding: into blocks of 400,000 characters, and each
  block wherever a run of whitespace (or of non-whitespace, `str.isspace`) reaches 25,000
  characters, the run going on in a new piece; the pieces are encoded one by one. We cut
  at the same places, so ids equal `Tokenizer.get_instance().encode(text, bos=False,
  eos=False)` on every text (its default: special-token strings are text), or with
  `allowed_special="all"` when special tokens are allowed.
Left out: bos/eos (the chat formats add `<|begin_of_text|>` themselves).
"""

from __future__ import annotations

import itertools

from app.backends.tiktoken_backend import TiktokenTokenizer
from app.bpe._engine import run_cuts
from app.tokenizers.chunks import shifted

LLAMA3_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)


def _numbered(stem: str, first: int, count: int) -> list[str]:
    return [f"<|{stem}{i}|>" for i in range(first, first + count)]


def _ids(names: list[str], first_id: int) -> dict[str, int]:
    return {name: first_id + i for i, name in enumerate(names)}


LLAMA3_SPECIALS = _ids(
    [
        "<|begin_of_text|>",
        "<|end_of_text|>",
        "<|reserved_special_token_0|>",
        "<|reserved_special_token_1|>",
        "<|finetune_right_pad_id|>",
        "<|step_id|>",
        "<|start_header_id|>",
        "<|end_header_id|>",
        "<|eom_id|>",
        "<|eot_id|>",
        "<|python_tag|>",
        "<|image|>",
        *_numbered("reserved_special_token_", 2, 244),
    ],
    128000,
)

_LLAMA4_NAMED = [
    "<|begin_of_text|>",
    "<|end_of_text|>",
    "<|fim_prefix|>",
    "<|fim_middle|>",
    "<|fim_suffix|>",
    "<|header_start|>",
    "<|header_end|>",
    "<|eom|>",
    "<|eot|>",
    "<|step|>",
    *_numbered("text_post_train_reserved_special_token_", 0, 6),
    "<|python_start|>",
    "<|python_end|>",
    "<|finetune_right_pad|>",
    *_numbered("text_post_train_reserved_special_token_", 8, 61),
    "<|image_start|>",
    "<|image_end|>",
    "<|vision_reserved_special_token_0|>",
    "<|vision_reserved_special_token_1|>",
    "<|tile_x_separator|>",
    "<|tile_y_separator|>",
    *_numbered("vision_reserved_special_token_", 2, 4),
    "<|image|>",
    "<|vision_reserved_special_token_6|>",
    "<|patch|>",
    *_numbered("vision_reserved_special_token_", 7, 1041),
    *_numbered("reasoning_reserved_special_token_", 0, 8),
    "<|reasoning_thinking_start|>",
    "<|reasoning_thinking_end|>",
]
LLAMA4_SPECIALS = _ids(_LLAMA4_NAMED + _numbered("reserved_special_token_", 0, 2048 - len(_LLAMA4_NAMED)), 200000)

BLOCK_CHARS = 400_000
RUN_CHARS = 25_000


def cut_points(text: str) -> list[int]:
    """Where llama-models' encode cuts `text`, 0 and len(text) excluded: every BLOCK_CHARS
    characters, and within each block inside every run of whitespace (str.isspace) or of other
    characters longer than RUN_CHARS, every RUN_CHARS characters from the run's start. In C
    (app/bpe/csrc/split/run_cuts.h): Python's regex over the runs was ~10-40 MB/s."""
    return run_cuts(text, BLOCK_CHARS, RUN_CHARS)


class LlamaTokenizer(TiktokenTokenizer):
    def encode(self, text: str, allow_special: bool = False) -> list[int]:
        if len(text) <= RUN_CHARS:
            return super().encode(text, allow_special)
        if self._engine is not None and self._plain_encode is not None and not allow_special:
            return self._engine.encode_cut(text, cut_points(text))  # one C call, no slices
        bounds = [0, *cut_points(text), len(text)]
        ids: list[int] = []
        for start, end in itertools.pairwise(bounds):
            ids += super().encode(text[start:end], allow_special)
        return ids

    def count(self, text: str, allow_special: bool = False) -> int:
        if len(text) <= RUN_CHARS:
            return super().count(text, allow_special)
        if self._engine is not None and self._plain_count is not None and not allow_special:
            return self._engine.count_cut(text, cut_points(text))
        bounds, count = [0, *cut_points(text), len(text)], super().count
        return sum(count(text[start:end], allow_special) for start, end in itertools.pairwise(bounds))

    def encode_batch(self, texts: list[str], allow_special: bool = False) -> list[list[int]]:
        if all(len(text) <= RUN_CHARS for text in texts):  # none is cut into pieces: one engine call
            return super().encode_batch(texts, allow_special)
        return [self.encode(text, allow_special) for text in texts]

    def count_batch(self, texts: list[str], allow_special: bool = False) -> list[int]:
        if all(len(text) <= RUN_CHARS for text in texts):
            return super().count_batch(texts, allow_special)
        return [self.count(text, allow_special) for text in texts]

    def chunks(self, text: str, allow_special: bool = False) -> list[tuple[int, int]]:
        """The pattern's chunks within each of the pieces `encode` cuts the text into."""
        bounds = [0, *cut_points(text), len(text)] if len(text) > RUN_CHARS else [0, len(text)]
        found: list[tuple[int, int]] = []
        for start, end in itertools.pairwise(bounds):
            found += shifted(super().chunks(text[start:end], allow_special), start)
        return found
