"""The stored form of an added tokenizer (`NAME.tokenizer`): a first line of JSON facts
(`Facts`), then the file's bytes; reading one back (`read_facts`, `read_stored`) and the most
bytes one may have (`stored_limit`), a damaged or oversized file refused as a
TokenizerFileError that names it. Below both uploads.py (which writes these files) and
user_models.py (which lists them). Left out: checking and storing an upload (uploads.py).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from app.errors import TokenizerFileError
from app.settings import get_settings
from app.tokenizers.storage.files import open_regular

KINDS = ("huggingface", "tiktoken", "sentencepiece", "bpe")
MAX_FACTS_BYTES = 1 << 20  # the first line; special tokens can be many


@dataclass(frozen=True)
class Facts:
    """What is known of a stored file: given by the user, found by the check, or measured."""

    kind: str
    vocab_size: int
    description: str
    sha256: str
    size: int
    source_name: str  # the uploaded file's own name, for people
    added: str  # ISO 8601, UTC
    pattern: str | None = None  # tiktoken only: an uploads.PATTERN_NAMES name or a regex
    special_tokens: dict[str, int] = field(default_factory=dict)  # tiktoken only
    chat_template: dict | None = None  # given with the file: app.chat.formats.template_files.to_facts


def read_facts(path: Path) -> Facts:
    """The facts line of a stored file (the bytes after it are not read)."""
    with open_regular(path) as handle:
        _check_stored_size(handle, path)
        line = handle.readline(MAX_FACTS_BYTES + 1)
    return _parse_facts(line, path)


def stored_limit() -> int:
    """The most bytes a stored file may have: the upload limit and its facts line."""
    return get_settings().max_upload_bytes + MAX_FACTS_BYTES


def read_stored(path: Path) -> tuple[Facts, bytes]:
    """A stored file's facts and bytes; one larger than `stored_limit` is refused unread."""
    with open_regular(path) as handle:
        limit = _check_stored_size(handle, path)
        data = handle.read(limit + 1)
    if len(data) > limit:  # it grew since
        _check_stored_size(None, path, len(data))
    line, _, body = data.partition(b"\n")
    return _parse_facts(line + b"\n", path), body


def _check_stored_size(handle, path: Path, size: int | None = None) -> int:
    """The stored-file limit; TokenizerFileError, naming the file and the limit, past it."""
    limit = stored_limit()
    size = os.fstat(handle.fileno()).st_size if size is None else size
    if size > limit:
        raise TokenizerFileError(
            f"stored tokenizer {path} is {size:,} bytes, over the {limit:,} bytes an added "
            "tokenizer may have; it is not read: remove it and add the file again"
        )
    return limit


def _parse_facts(line: bytes, path: Path) -> Facts:
    problem = f"stored tokenizer {path.name} is damaged"
    if not line.endswith(b"\n") or len(line) > MAX_FACTS_BYTES:
        raise TokenizerFileError(f"{problem} (no facts line); remove it and add the file again")
    try:
        fields = json.loads(line)
        facts = Facts(**fields)
    except (ValueError, TypeError) as error:
        raise TokenizerFileError(f"{problem} ({error}); remove it and add the file again") from None
    if facts.kind not in KINDS or not isinstance(facts.vocab_size, int):
        raise TokenizerFileError(f"{problem} (kind {facts.kind!r}); remove it and add the file again")
    template = facts.chat_template
    if template is not None and not (
        isinstance(template, dict)
        and isinstance(template.get("template"), str)
        and isinstance(template.get("others", {}), dict)
    ):
        raise TokenizerFileError(f"{problem} (its chat template); remove it and add the file again")
    return facts
