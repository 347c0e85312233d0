"""tokenprism's own byte-level BPE (kind "bpe"): minbpe's algorithm, made fast.

A model is a split pattern, a table of the 256 byte ids, the merges in order (with
each merge's count in the training corpus when it was trained here, `merge_counts`) and
optional special tokens; the vocabulary is derived from the merges, never stored.
Encoding (`encoder.BPEEncoder`, the base class) splits text with the pattern and hands the
chunks to the C extension's `Merger` (`_core.c`), which merges each chunk by repeatedly
applying the merge of lowest rank (its new id), leftmost first, on a heap over a linked
list of positions when the chunk is long. This module builds models; the same class holds models
trained here (`train`, see `train`), saved ones (`load`, see `model_file`) and models recovered from
tiktoken ranks (`from_tiktoken_ranks`), which encode exactly as tiktoken does.

A model from a file is not trusted: `vocab` checks its merges and sizes, and a split
pattern that is not one of PATTERNS runs under `split`'s checks (bounded in time, chunks
that cover the text).

Left out: normalisation, dropout, byte-fallback, and any I/O other than the model file.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import regex

from app.bpe import model_file, split, train
from app.bpe.encoder import BPEEncoder
from app.bpe.model_file import Header
from app.bpe.patterns import CUSTOM_PATTERN, PATTERNS, resolve_pattern
from app.bpe.vocab import MAX_VOCAB_SIZE, BadMerge, build_vocab, check_merges, check_specials
from app.errors import InvalidInput, excerpt
from app.tokenizers import chunks
from app.tokenizers.storage.files import write_atomically

try:
    from app.bpe import _core as _bpe_core
except ImportError as error:
    raise ImportError(
        f"tokenprism's BPE is a C extension that is not built ({error}); "
        "run `pip install -e .` (or `python setup.py build_ext --inplace`) in the repository"
    ) from None

_IDENTITY = tuple(range(256))

__all__ = ["PATTERNS", "BPETokenizer", "Header", "read_header"]


def read_header(path: Path) -> Header:
    """Name, vocab size, description and pattern of a model file, reading only its header."""
    return model_file.read_header(path)


def recover_pairs(ranks: dict[bytes, int], name: str) -> tuple[list[int], list[tuple[int, int]]]:
    """The byte ids and the merges (pair i makes id 256 + i) behind tiktoken ranks, whose
    ranks 0..255 must be the single bytes: each token's pair is what BPE with only lower
    ranks makes of its bytes. Merging by them gives tiktoken's ids."""
    by_rank = sorted(ranks, key=ranks.__getitem__)
    if (
        len(by_rank) < 256
        or [ranks[t] for t in by_rank] != list(range(len(ranks)))
        or any(len(t) != 1 for t in by_rank[:256])
    ):
        raise InvalidInput(f"ranks for {name!r} must be 0..n-1 with the 256 single bytes first; these are not")
    byte_ids = [0] * 256
    for rank, token in enumerate(by_rank[:256]):
        byte_ids[token[0]] = rank
    pairs = _bpe_core.recover_merges(bytes(byte_ids), by_rank[256:])
    if len(pairs) < len(by_rank) - 256:
        rank = 256 + len(pairs)
        raise InvalidInput(f"token {by_rank[rank]!r} (rank {rank}) is not the merge of two lower-ranked tokens")
    return byte_ids, pairs


class BPETokenizer(BPEEncoder):
    kind = "bpe"

    def __init__(
        self,
        merges: dict[tuple[int, int], int],
        *,
        pattern_name: str,
        special_tokens: dict[str, int] | None = None,
        name: str = "custom",
        description: str | None = None,
        byte_ids: Sequence[int] = _IDENTITY,
        pattern_regex: str | None = None,
        merge_counts: Sequence[int] | None = None,
    ):
        """Build from merges whose new ids are 256, 257, ... in order; `byte_ids[b]` is
        the id of byte b (a permutation of 0..255; identity for models trained here);
        `merge_counts[i]`: how often merge i's pair occurred when training chose it (None: unknown)."""
        self.name = name
        self.merges = merges  # (int, int) -> int
        if merge_counts is not None and len(merge_counts) != len(merges):
            raise InvalidInput(f"{len(merge_counts)} merge counts for {len(merges)} merges; give one count per merge")
        self.merge_counts = None if merge_counts is None else tuple(merge_counts)
        self.pattern_name = pattern_name
        self.pattern_regex = pattern_regex if pattern_name == CUSTOM_PATTERN else PATTERNS[pattern_name]
        self.byte_ids = tuple(byte_ids)
        self._special_tokens = dict(special_tokens or {})  # str -> int
        size = max([255 + len(merges), *self._special_tokens.values()]) + 1
        if size > MAX_VOCAB_SIZE:
            raise InvalidInput(f"the vocabulary has {size:,} ids; tokenprism handles at most {MAX_VOCAB_SIZE:,}")
        self._vocab = build_vocab(merges, self.byte_ids)  # id -> bytes
        self._merger = _bpe_core.Merger(bytes(self.byte_ids), list(merges))  # checked by build_vocab
        if len(set(self._special_tokens.values())) != len(self._special_tokens):
            raise InvalidInput(f"special tokens {self._special_tokens} share an id; give each its own")
        for token, token_id in self._special_tokens.items():
            if token_id < len(self._vocab):
                raise InvalidInput(
                    f"special token {excerpt(token)} has id {token_id}, which a regular token already has"
                )
        self._special_by_id = {i: s.encode("utf-8") for s, i in self._special_tokens.items()}  # int -> bytes
        self._vocab_size = max([len(self._vocab) - 1, *self._special_tokens.values()]) + 1
        self.description = description or (f"byte-level BPE, {self._vocab_size:,} tokens, {pattern_name} split pattern")
        self._split: Callable[[str], list[str]] | None = None  # findall: str -> chunks; None: one chunk
        if pattern_name == CUSTOM_PATTERN:
            if self.pattern_regex is None:
                raise InvalidInput(f"the split pattern is {CUSTOM_PATTERN} but no pattern_regex was given; give one")
            self._split = split.compile_custom(self.pattern_regex).findall
        elif self.pattern_regex is not None:
            self._split = regex.compile(self.pattern_regex).findall
        specials = chunks.specials_source(self._special_tokens)  # the longest special token where several start
        self._special_split = regex.compile(f"({specials})") if specials is not None else None
        self._cache: dict[str, bytes] = {}  # chunk -> its ids as native int32s, filled by the Merger
        self.chunks_note = chunks.NO_PATTERN_NOTE if self._split is None else None

    def __reduce__(self):
        """Pickled as its model file's text (the C `Merger` does not pickle), loaded back on unpickling."""
        return (_from_model_file, (self.dumps(), self.name))

    def first_merges(self, pairs: list[tuple[int, int]], k: int) -> BPETokenizer:
        """This model with only its first `k` merges (`pairs`: its merges in rank order), for the replay.
        A shallow copy shares the pattern, byte table, special tokens and vocabulary; only what depends
        on the number of merges is replaced (see __init__ for each field)."""
        cut = BPETokenizer.__new__(BPETokenizer)
        cut.__dict__.update(
            self.__dict__,
            merges={pair: 256 + i for i, pair in enumerate(pairs[:k])},
            merge_counts=None if self.merge_counts is None else self.merge_counts[:k],
            _vocab=self._vocab[: 256 + k],
            _merger=_bpe_core.Merger(bytes(self.byte_ids), pairs[:k]),
            _vocab_size=max([255 + k, *self.special_tokens.values()]) + 1,
            _cache={},
        )
        return cut

    # -- training, saving, loading ---------------------------------------------------------

    @classmethod
    def train(
        cls,
        text: str | Iterable[str] | Counter[str],
        vocab_size: int,
        *,
        pattern: str = "gpt4",
        special_tokens: Sequence[str] = (),
        name: str = "custom",
        description: str | None = None,
        progress: Callable[[int, int], None] | None = None,
        on_merge: train.OnMerge | None = None,
    ) -> BPETokenizer:
        """Learn `vocab_size - 256 - len(special_tokens)` merges from `text` (a string, or
        documents that are split separately, or a Counter of their chunks made with this
        pattern by `train.count_chunks` or `train.add_counts`). Training stops early when no pair is left, or
        before the first merge over MAX_TOKEN_BYTES or MAX_VOCAB_BYTES (pattern "none" on
        long repetitive text). Special-token strings inside `text` are learnt as plain text.
        `progress(done, wanted)` and `on_merge(i, pair, count)` are called after each merge."""
        pattern_name, pattern_regex = resolve_pattern(pattern)
        specials = list(special_tokens)
        check_specials(specials)
        if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < 256 + len(specials):
            raise InvalidInput(
                f"vocab_size {vocab_size!r} is too small; it must be at least {256 + len(specials)} "
                f"(256 byte tokens + {len(specials)} special tokens)"
            )
        if vocab_size > MAX_VOCAB_SIZE:
            raise InvalidInput(f"vocab_size {vocab_size:,} is too large; it must be at most {MAX_VOCAB_SIZE:,}")
        num_merges = vocab_size - 256 - len(specials)
        if not isinstance(text, Counter):
            text = train.count_chunks([text] if isinstance(text, str) else text, pattern_regex)
        pairs, counts = train.counted_merges(text, num_merges, progress, on_merge)
        merges = {pair: 256 + i for i, pair in enumerate(pairs)}
        try:
            check_merges(merges)
        except BadMerge as error:
            merges = {pair: token_id for pair, token_id in merges.items() if token_id < 256 + error.index}
        first_special = 256 + len(merges)
        return cls(
            merges,
            pattern_name=pattern_name,
            special_tokens={s: first_special + i for i, s in enumerate(specials)},
            name=name,
            description=description,
            merge_counts=counts[: len(merges)],
        )

    @classmethod
    def from_tiktoken_ranks(
        cls, ranks: dict[bytes, int], pattern: str, special_tokens: dict[str, int], name: str
    ) -> BPETokenizer:
        """A model that encodes exactly as tiktoken does with these ranks (see `recover_pairs`)."""
        try:
            pattern_name, pattern_regex = resolve_pattern(pattern)
        except InvalidInput:
            pattern_name, pattern_regex = CUSTOM_PATTERN, pattern
        byte_ids, pairs = recover_pairs(ranks, name)
        merges = {pair: 256 + i for i, pair in enumerate(pairs)}
        return cls(
            merges,
            pattern_name=pattern_name,
            special_tokens=special_tokens,
            name=name,
            byte_ids=byte_ids,
            pattern_regex=pattern_regex,
        )

    def dumps(self) -> bytes:
        return model_file.dumps(
            Header(self.name, self._vocab_size, self.description, self.pattern_name),
            pattern_regex=self.pattern_regex if self.pattern_name == CUSTOM_PATTERN else None,
            byte_ids=None if self.byte_ids == _IDENTITY else self.byte_ids,
            special_tokens=self._special_tokens,
            merges=list(self.merges),
            merge_counts=self.merge_counts,
        )

    def save(self, path: Path) -> None:
        write_atomically(Path(path), self.dumps())

    def vocab_text(self) -> str:
        """A human-readable listing of the vocabulary, for people only (never loaded)."""
        return model_file.vocab_text(self._vocab, self.merges, self._special_tokens)

    @classmethod
    def loads(cls, data: bytes, source: str, name: str | None = None) -> BPETokenizer:
        """The model in `data` (read from `source`), named `name` if given, else as its header says."""
        model = model_file.loads(data, source)
        try:
            return cls(
                {pair: 256 + i for i, pair in enumerate(model.merges)},
                pattern_name=model.header.pattern_name,
                special_tokens=model.special_tokens,
                name=name or model.header.name,
                description=model.header.description,
                byte_ids=model.byte_ids or _IDENTITY,
                pattern_regex=model.pattern_regex,
                merge_counts=model.merge_counts,
            )
        except BadMerge as error:
            raise model_file.file_error(
                source, f"line {model.first_merge_line + error.index}: {error.message}"
            ) from None
        except (InvalidInput, regex.error) as error:
            raise model_file.file_error(source, str(error)) from None

    @classmethod
    def load(cls, path: Path, name: str | None = None) -> BPETokenizer:
        return cls.loads(model_file.read_file(Path(path)), str(path), name)


def _from_model_file(data: bytes, name: str) -> BPETokenizer:
    return BPETokenizer.loads(data, f"<pickled {name}>", name)
