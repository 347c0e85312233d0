"""What a training job is, and the checks it passes before it may run.

`TrainSpec` holds the choices (name, vocab size, split pattern, special tokens, replace,
description); the corpus travels beside it as a list of documents, each split on its
own. `check_spec` applies the rules every trainer obeys (CLI and web): a valid name that
means nothing yet (`Registry.check_new_name`: no built-in, alias or model name), a vocabulary of the 256 bytes plus the specials plus at least one
merge, a known pattern, well-formed special tokens. `check_limits` adds the web's bounds
(settings: corpus bytes; documents and special tokens by count; the vocab size through
`check_spec`'s `max_vocab`). `preview`
counts what the merge loop will start from: chunks, distinct chunks, and an upper bound on
the merges the text can give.

Left out: custom regex split patterns (a pattern from the web would need `split`'s
time-bounded checks in the trainer; the three named ones cover the lecture).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from app.bpe.model import MAX_VOCAB_SIZE, PATTERNS
from app.bpe.train import count_chunks
from app.errors import InvalidInput, TextTooLarge, excerpt
from app.settings import Settings
from app.tokenizers.tokens import clean_text

MAX_SPECIAL_TOKENS = 256
MAX_SPECIAL_CHARS = 100
MAX_DOCUMENTS = 10_000
MAX_DESCRIPTION_CHARS = 200
TRAIN_PATTERNS = tuple(PATTERNS)  # gpt2, gpt4, none


@dataclass(frozen=True)
class TrainSpec:
    name: str
    vocab_size: int
    pattern: str = "gpt4"
    special_tokens: tuple[str, ...] = field(default_factory=tuple)
    replace: bool = False
    description: str = ""

    @property
    def merges_wanted(self) -> int:
        return self.vocab_size - 256 - len(self.special_tokens)

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> TrainSpec:
        values = json.loads(text)
        values["special_tokens"] = tuple(values.get("special_tokens") or ())
        return cls(**values)


def check_spec(spec: TrainSpec, registry, max_vocab: int = MAX_VOCAB_SIZE) -> TrainSpec:
    """`spec` if a trainer may run it, else an error naming the bad field and the fix; the web
    passes its own `max_vocab` (TOKENPRISM_MAX_TRAIN_VOCAB)."""
    registry.check_new_name(spec.name)
    if spec.pattern not in TRAIN_PATTERNS:
        raise InvalidInput(f"pattern {excerpt(spec.pattern)} is unknown; use one of: {', '.join(TRAIN_PATTERNS)}")
    seen: set[str] = set()
    for position, token in enumerate(spec.special_tokens):
        if not isinstance(token, str) or not token:
            raise InvalidInput(f"special token {position} is empty; give each as text like '<|endoftext|>'")
        if token in seen:
            raise InvalidInput(f"special token {excerpt(token)} is given twice; list each special token once")
        seen.add(token)
    least = 257 + len(spec.special_tokens)
    if isinstance(spec.vocab_size, bool) or not isinstance(spec.vocab_size, int) or spec.vocab_size < least:
        raise InvalidInput(
            f"vocab_size {spec.vocab_size!r} is too small; it must be at least {least:,} "
            f"(256 byte tokens + {len(spec.special_tokens)} special tokens + at least one merge)"
        )
    if spec.vocab_size > max_vocab:
        limit = (
            f"a model has at most {MAX_VOCAB_SIZE:,} ids"
            if max_vocab >= MAX_VOCAB_SIZE
            else f"this server trains at most {max_vocab:,} (TOKENPRISM_MAX_TRAIN_VOCAB); choose a smaller one, "
            "or train with the CLI"
        )
        raise InvalidInput(f"vocab_size {spec.vocab_size:,} is too large; {limit}")
    if len(spec.description) > MAX_DESCRIPTION_CHARS:
        raise InvalidInput(f"description has {len(spec.description):,} characters; use at most {MAX_DESCRIPTION_CHARS}")
    return spec


def corpus_limit(settings: Settings) -> tuple[int, str]:
    """The most corpus bytes a web job takes, and the setting that says so: TOKENPRISM_MAX_TRAIN_BYTES,
    unless the body bytes one process may hold (TOKENPRISM_MAX_INFLIGHT_BODY_BYTES) are fewer."""
    if settings.max_inflight_body_bytes < settings.max_train_bytes:
        return settings.max_inflight_body_bytes, "TOKENPRISM_MAX_INFLIGHT_BODY_BYTES"
    return settings.max_train_bytes, "TOKENPRISM_MAX_TRAIN_BYTES"


def check_limits(spec: TrainSpec, documents: list[str], settings: Settings) -> list[str]:
    """The web's bounds on a job's corpus and special tokens (its vocab size: `check_spec`).
    Returns the documents with lone surrogates replaced (they cannot be written as UTF-8)."""
    if len(spec.special_tokens) > MAX_SPECIAL_TOKENS:
        raise InvalidInput(f"{len(spec.special_tokens):,} special tokens given; give at most {MAX_SPECIAL_TOKENS}")
    if any(isinstance(t, str) and len(t) > MAX_SPECIAL_CHARS for t in spec.special_tokens):
        raise InvalidInput(f"a special token is over {MAX_SPECIAL_CHARS} characters; use short markers like '<|end|>'")
    if len(documents) > MAX_DOCUMENTS:
        raise TextTooLarge(
            f"{len(documents):,} texts or files given; send at most {MAX_DOCUMENTS:,} (join small files into one)",
            code="too_many_texts",
        )
    documents = [clean_text(d) for d in documents]
    size = sum(len(d.encode("utf-8")) for d in documents)
    limit, setting = corpus_limit(settings)
    if size > limit:
        raise TextTooLarge(
            f"the corpus is {size:,} bytes of UTF-8; this server trains on at most {limit:,} "
            f"({setting}). Send less text, or train with the CLI",
            code="corpus_too_large",
        )
    if not any(documents):
        raise InvalidInput("the corpus is empty; paste some text or add UTF-8 text files")
    return documents


@dataclass(frozen=True)
class Preview:
    characters: int
    bytes: int
    chunks: int  # pre-tokens the pattern cuts the corpus into
    distinct_chunks: int
    merges_wanted: int
    merges_at_most: int  # each merge shortens a distinct chunk by at least one token

    def to_dict(self) -> dict:
        return asdict(self)


def preview(documents: list[str], pattern: str, merges_wanted: int) -> Preview:
    """What training on `documents` starts from (the merge loop's input); runs the split once."""
    counts = count_chunks(documents, PATTERNS[pattern])
    possible = sum(len(chunk.encode("utf-8", errors="surrogatepass")) - 1 for chunk in counts)
    return Preview(
        characters=sum(map(len, documents)),
        bytes=sum(len(d.encode("utf-8", errors="surrogatepass")) for d in documents),
        chunks=sum(counts.values()),
        distinct_chunks=len(counts),
        merges_wanted=max(merges_wanted, 0),
        merges_at_most=max(min(merges_wanted, possible), 0),
    )
