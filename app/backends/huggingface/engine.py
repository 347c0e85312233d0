"""Our C engine for a Hugging Face file with DeepSeek's rules: the library's ids at C speed.

`ListedMergesEngine.for_library(library, file_text)` gives one when the file's rules are the proven
ones (`cuts.proven`: no normalizer, DeepSeek's three Splits and ByteLevel), its
model is plain byte-level BPE (no dropout, unknown token, affixes, byte fallback or
ignore_merges), its merges make ids in the order they are listed (the C engine checks), and
the installed `tokenizers` is the version whose Unicode classes the build asked for
(`_engine.DEEPSEEK_CLASSES_OF`); else None, and the library encodes as before.

The engine (app/bpe/csrc/engine/_engine.c with family DEEPSEEK and the merge list, merge_tables.h) cuts
text as the library's pre-tokenizer does (pretokenize_deepseek.c) and merges as its BPE model
does, the GIL let go. It takes a text (`encode_taken`, `count_taken`; `held` for many) when no
added token's string is in it (the library matches those, special or not, so such a text stays
with the library; the engine looks for them in the text's UTF-8, stop_strings.h) and the text
has no lone surrogate (the library refuses those; so does the caller's path, with its error).

Left out: offsets (the playground's pieces still come from the library's encoding).
"""

from __future__ import annotations

import json

import tokenizers
from app.backends.huggingface import cuts
from app.backends.huggingface.pieces import byte_level_bytes
from app.bpe import _engine, families, heap

_PLAIN_BPE: dict[str, object] = {"dropout": None, "unk_token": None, "byte_fallback": False}
_PLAIN_BPE |= {"continuing_subword_prefix": None, "end_of_word_suffix": None}
_NOT_UTF8 = b"\xff"  # starts the stand-in bytes of a vocabulary entry that is not byte-level: no text has them
heap.keep()  # the lists of ids are reused memory, not fresh pages (app/bpe/heap.py)


class ListedMergesEngine:
    def __init__(self, library: tokenizers.Tokenizer, model: dict):
        self._engine = _engine.Engine(*self.engine_args(library, model))

    @staticmethod
    def engine_args(library: tokenizers.Tokenizer, model: dict) -> tuple[int, list[bytes], int, list, list[bytes]]:
        """The C engine's arguments for this file (bench/engine_ab.py builds other engines from them)."""
        vocab: dict[str, int] = model["vocab"]
        strings = {i: s for s, i in vocab.items()}
        tokens = [_token_bytes(strings[i], i) if i in strings else _NOT_UTF8 + b"%d" % i for i in range(len(vocab))]
        merges = [
            (vocab[left], vocab[right])
            for left, right in (m.split(" ", 1) if isinstance(m, str) else m for m in model["merges"])
        ]
        added = sorted({t.content.encode() for t in library.get_added_tokens_decoder().values() if t.content})
        return families.DEEPSEEK, tokens, 0, merges, added

    @classmethod
    def for_library(cls, library: tokenizers.Tokenizer, file_text: str | None = None) -> ListedMergesEngine | None:
        """`file_text`, the JSON the library was loaded from, is read instead of the library's
        own serialization when given (the same model: deepseek_v4's `to_str` took 0.16 s)."""
        if not cuts.proven(library) or tokenizers.__version__ != _engine.DEEPSEEK_CLASSES_OF:
            return None
        config = json.loads(library.to_str() if file_text is None else file_text)
        model = config.get("model") or {}
        if (
            model.get("type") != "BPE"
            or model.get("ignore_merges")
            or any(model.get(key, value) != value for key, value in _PLAIN_BPE.items())
        ):
            return None
        if sorted(model.get("vocab", {}).values()) != list(range(len(model.get("vocab", {})))):
            return None  # the engine numbers tokens 0..n-1
        try:
            return cls(library, model)
        except (ValueError, KeyError, TypeError):  # merges that make ids out of order, or a pair not in the vocabulary
            return None

    def held(self, texts: list[str]) -> set[int]:
        """The indices of the texts this engine does not take: those holding an added token's
        string (found by the engine in their UTF-8) or a lone surrogate."""
        try:
            return set(self._engine.stopped(texts))
        except UnicodeEncodeError:
            return {n for n, text in enumerate(texts) if not _utf8(text) or self._engine.stopped([text])}

    def encode(self, text: str) -> list[int]:
        """The library's ids of a text `held` would not name."""
        return self._engine.encode(text)

    def encode_taken(self, text: str) -> list[int] | None:
        """The library's ids of a text `held` would not name, None for one it would: one call for both."""
        try:
            return self._engine.encode_unstopped(text)
        except UnicodeEncodeError:
            return None

    def count_taken(self, text: str) -> int | None:
        """As `encode_taken`, the number of ids."""
        try:
            return self._engine.count_unstopped(text)
        except UnicodeEncodeError:
            return None

    def encode_batch(self, texts: list[str]) -> list[list[int]]:
        """The library's ids of texts none of which `held` names, in one call without the GIL."""
        return self._engine.encode_batch(texts)

    def count_batch(self, texts: list[str]) -> list[int]:
        """The library's counts of texts none of which `held` names."""
        return self._engine.count_batch(texts)


def _utf8(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def _token_bytes(string: str, token_id: int) -> bytes:
    """A byte-level vocabulary entry's bytes; an entry that is not byte-level (a special token's
    name kept in the vocabulary) gets bytes no UTF-8 text holds, so no chunk is ever taken for it."""
    found = byte_level_bytes(string)
    return _NOT_UTF8 + b"%d" % token_id if found is None else found
