"""Tokenizer files users bring (`tokenprism add`, POST /api/tokenizers): detect, check, store.

Four kinds of file: a Hugging Face `tokenizer.json`, a `.tiktoken` ranks file (with a split
pattern and special tokens given alongside), a SentencePiece `.model`, and our `.bpe`. The
kind is detected from the content when not given.

A file is hostile until checked. `check` copies it to a temp file and runs
`app.tokenizers.user.upload_check` on it in a child process that first limits its own memory
and CPU time, and is killed after CHECK_WALL_S: a parser that crashes (sentencepiece has had
model-parsing CVEs), loops or eats memory takes down only the child. At most
MAX_CONCURRENT_CHECKS run at once; more is a 503. The child checks the regexes a Hugging
Face file brings, builds the tokenizer and tokenizes a probe text whose pieces must join
to it. A vocabulary over `max_vocab` entries is refused: a .tiktoken file's ranks are
counted here before the child starts, a tokenizer.json's entries in the child before the
library builds it, and every kind's built vocabulary in the child.

An accepted file is stored as one `NAME.tokenizer` file in the user tokenizer folder
(`upload_store.store`, kept importable here as `store` and `remove`). Left out: fetching files from
anywhere (nothing is downloaded), and editing a stored tokenizer in place.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
from datetime import UTC, datetime

from app import sandbox
from app.errors import InvalidInput, TokenprismError, excerpt
from app.tokenizers.base import Tokenizer
from app.tokenizers.storage.stored_file import KINDS, MAX_FACTS_BYTES, Facts, read_facts, read_stored, stored_limit
from app.tokenizers.user.upload_store import remove, store
from app.tokenizers.user.user_models import check_name

__all__ = [
    "KINDS",
    "MAX_FACTS_BYTES",
    "Facts",
    "build",
    "check",
    "detect_kind",
    "read_facts",
    "read_stored",
    "remove",
    "store",
    "stored_limit",
]

PATTERN_NAMES = ("gpt2", "gpt4", "o200k")  # --pattern names for .tiktoken files; anything else is a regex
CHECK_WALL_S = 60.0
CHECK_CPU_S = 45
CHECK_MEMORY_BYTES = 4 << 30  # address space of the child; the o200k vocabulary needs ~1 GB
MAX_CONCURRENT_CHECKS = 2
CHECK_MODULE = "app.tokenizers.user.upload_check"  # what the child runs (tests point it at one that crashes)
MAX_SPECIAL_TOKENS = 10_000
_checks = threading.BoundedSemaphore(MAX_CONCURRENT_CHECKS)
_TIKTOKEN_LINE = re.compile(rb"[A-Za-z0-9+/]+=* [0-9]+\r?\n")


def detect_kind(data: bytes) -> str:
    """The kind of a tokenizer file, from its first bytes; `InvalidInput` when none fits."""
    head = data[:4096].lstrip()
    if head.startswith(b"tokenprism-bpe "):
        return "bpe"
    if head.startswith(b"{"):
        return "huggingface"
    if _TIKTOKEN_LINE.match(head):
        return "tiktoken"
    if data[:1] == b"\x0a":  # a protobuf whose first field is 1, length-delimited: SentencePiece's `pieces`
        return "sentencepiece"
    raise InvalidInput(
        "cannot tell what kind of tokenizer file this is; send a Hugging Face tokenizer.json, a .tiktoken "
        "ranks file, a SentencePiece .model or a tokenprism .bpe file, or give the kind"
    )


def build(
    kind: str,
    data: bytes,
    name: str,
    description: str,
    pattern: str | None = None,
    special_tokens: dict[str, int] | None = None,
) -> Tokenizer:
    """A tokenizer of `kind` from a file's bytes. Runs the parsers: call it on checked data only,
    or in the checking child."""
    if kind == "bpe":
        from app.bpe.model import BPETokenizer

        return BPETokenizer.loads(data, name, name=name)
    if kind == "sentencepiece":
        from app.backends.sentencepiece_backend import SentencePieceTokenizer

        return SentencePieceTokenizer(name, description, data)
    if kind == "huggingface":
        from app.backends.huggingface.backend import HuggingFaceTokenizer

        return HuggingFaceTokenizer(name, description, data)
    if kind == "tiktoken":
        from app.backends.tiktoken_backend import TiktokenTokenizer
        from app.tokenizers.openai_encodings import OpenAIEncoding
        from app.tokenizers.storage.files import parse_tiktoken_ranks

        spec = OpenAIEncoding(
            name=name,
            file=name,
            pattern=resolve_pattern(pattern),
            description=description,
            special_tokens=dict(special_tokens or {}),
        )
        return TiktokenTokenizer(spec, parse_tiktoken_ranks(data, name))
    raise InvalidInput(f"kind {excerpt(kind)} is not one of {', '.join(KINDS)}")


def resolve_pattern(pattern: str | None) -> str:
    """A .tiktoken file's split pattern: a name from PATTERN_NAMES, or a regex checked by `split`."""
    from app.bpe import split
    from app.tokenizers.openai_encodings import CL100K_PATTERN, GPT2_PATTERN, O200K_PATTERN

    named = {"gpt2": GPT2_PATTERN, "gpt4": CL100K_PATTERN, "o200k": O200K_PATTERN}
    if pattern is None:
        raise InvalidInput("a .tiktoken file needs its split pattern: gpt2, gpt4 (cl100k), o200k, or a regex")
    if pattern in named:
        return named[pattern]
    split.compile_custom(pattern)  # refuses capturing groups, patterns that drop text or backtrack
    # tiktoken runs it with no time limit of ours: refuse one that backtracks on adversarial text too
    sandbox.check_pattern(pattern, "split pattern", split.FIX, probe=True)
    return pattern


def check_special_tokens(special_tokens: object) -> dict[str, int]:
    """Special tokens given with a .tiktoken file: {"<|endoftext|>": 100257, ...}."""
    if not isinstance(special_tokens, dict) or len(special_tokens) > MAX_SPECIAL_TOKENS:
        raise InvalidInput(
            f"special tokens must be a JSON object of at most {MAX_SPECIAL_TOKENS:,} "
            'string -> id pairs, such as {"<|endoftext|>": 100257}'
        )
    for token, token_id in special_tokens.items():
        if (
            not token
            or len(token) > 256
            or isinstance(token_id, bool)
            or not isinstance(token_id, int)
            or not 0 <= token_id < 1 << 24
        ):
            raise InvalidInput(
                f"special token {token[:60]!r}: {token_id!r} is not a 1-256 character string "
                "with an id from 0 to 16,777,215"
            )
    return special_tokens


def vocab_refusal(size: int, max_vocab: int) -> InvalidInput:
    return InvalidInput(
        f"the file's vocabulary has {size:,} entries, over the limit of {max_vocab:,} (the setting "
        "max_upload_vocab, TOKENPRISM_MAX_UPLOAD_VOCAB); send a smaller tokenizer, or raise the setting",
        code="vocab_too_large",
    )


def check(
    data: bytes,
    name: str,
    description: str,
    kind: str | None = None,
    pattern: str | None = None,
    special_tokens: dict[str, int] | None = None,
    source_name: str = "",
    max_vocab: int | None = None,
    chat_template: dict | None = None,
) -> tuple[Facts, bytes]:
    """Check a user's file in a limited child process; its facts and the bytes to store. A vocabulary
    over `max_vocab` entries (default: the max_upload_vocab setting) is refused. `chat_template`
    (checked already, see app/chat/formats/template_files.py) is kept in the facts."""
    if max_vocab is None:
        from app.settings import get_settings

        max_vocab = get_settings().max_upload_vocab
    check_name(name)
    kind = kind or detect_kind(data)
    if kind not in KINDS:
        raise InvalidInput(f"kind {excerpt(kind)} is not one of {', '.join(KINDS)}")
    if kind != "tiktoken" and (pattern is not None or special_tokens):
        raise InvalidInput(
            f"a split pattern and special tokens are given only with a .tiktoken file; a {kind} file carries its own"
        )
    if kind == "tiktoken":
        ranks = data.count(b"\n") + (not data.endswith(b"\n"))  # one rank a line: counted before any parsing
        if ranks > max_vocab:
            raise vocab_refusal(ranks, max_vocab)
        resolve_pattern(pattern)
        check_special_tokens(special_tokens or {})
    if not _checks.acquire(blocking=False):
        busy = TokenprismError(
            f"{MAX_CONCURRENT_CHECKS} tokenizer files are being checked right now; try again in a minute",
            code="server_busy",
            status=503,
        )
        busy.headers = {"Retry-After": "30"}
        raise busy
    try:
        found = _run_child(
            data,
            {
                "kind": kind,
                "name": name,
                "description": description,
                "pattern": pattern,
                "special_tokens": special_tokens or {},
                "max_vocab": max_vocab,
            },
        )
    finally:
        _checks.release()
    facts = Facts(
        kind=kind,
        vocab_size=found["vocab_size"],
        description=description or found["description"] or f"added from {source_name or 'a file'} ({kind})",
        sha256=hashlib.sha256(data).hexdigest(),
        size=len(data),
        source_name=source_name[:200],
        added=datetime.now(UTC).isoformat(timespec="seconds"),
        pattern=pattern,
        special_tokens=dict(special_tokens or {}),
        chat_template=chat_template,
    )
    return facts, data


def _run_child(data: bytes, args: dict) -> dict:
    with tempfile.NamedTemporaryFile(prefix="tokenprism-upload-", suffix=".bin") as temp:
        temp.write(data)
        temp.flush()
        request = json.dumps({**args, "path": temp.name, "memory": CHECK_MEMORY_BYTES, "cpu": CHECK_CPU_S})
        try:
            done = subprocess.run(
                [sys.executable, "-m", CHECK_MODULE],
                input=request.encode(),
                capture_output=True,
                timeout=CHECK_WALL_S,
                env={**os.environ, "PYTHONHASHSEED": "0"},
            )
        except subprocess.TimeoutExpired:
            raise InvalidInput(f"the file took over {CHECK_WALL_S:.0f} s to load and test; it is refused") from None
    if done.returncode < 0:
        raise InvalidInput(
            f"the file crashed the tokenizer library while loading (signal {-done.returncode}); "
            "it is refused, nothing was stored"
        )
    try:
        answer = json.loads(done.stdout.decode("utf-8").strip().splitlines()[-1])
    except (ValueError, IndexError):
        answer = None
    if done.returncode == 0 and isinstance(answer, dict) and "vocab_size" in answer:
        return answer
    if isinstance(answer, dict) and isinstance(answer.get("error"), str):
        raise InvalidInput(answer["error"])
    if b"MemoryError" in done.stderr or b"memory" in done.stderr.lower()[-2000:]:
        raise InvalidInput(f"the file needs over {CHECK_MEMORY_BYTES >> 30} GiB of memory to load; it is refused")
    raise InvalidInput(
        "the file could not be loaded by the tokenizer library (it stopped without an answer); "
        "it is refused, nothing was stored"
    )
