"""Storing a checked upload and removing user tokenizers.

An accepted file is stored as one `NAME.tokenizer` file in the user tokenizer folder: a
first line of JSON facts (`Facts`), then the file's bytes, written atomically under the
name's lock (`user_models.name_lock`), never replacing another tokenizer unless asked, and
at most MAX_STORED files of MAX_STORED_BYTES together. Trained models stay `NAME.bpe`
(user_models.py lists both). Leaves checking the file to uploads.py.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from app.errors import InvalidInput, TokenprismError
from app.tokenizers.storage.files import write_atomically
from app.tokenizers.storage.stored_file import MAX_FACTS_BYTES, Facts
from app.tokenizers.user.user_models import UPLOAD_SUFFIX, USER_MODEL_SUFFIX, check_name, name_lock

MAX_STORED = 100  # added tokenizers in one data directory
MAX_STORED_BYTES = 4 << 30  # their files together


def store(folder: Path, name: str, facts: Facts, data: bytes, replace: bool = False) -> Path:
    """Write `NAME.tokenizer`; a name taken by another file is a 409 unless `replace`."""
    path = folder / f"{check_name(name)}{UPLOAD_SUFFIX}"
    with name_lock(folder, name):
        trained = folder / f"{name}{USER_MODEL_SUFFIX}"
        if not replace and (path.exists() or trained.exists()):
            raise TokenprismError(
                f"a tokenizer named {name} exists already; choose another name or replace it",
                code="name_taken",
                status=409,
            )
        _check_room(folder, len(data), replacing=path)
        line = json.dumps(asdict(facts), ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
        if len(line) > MAX_FACTS_BYTES:
            raise InvalidInput(
                f"the file's facts (special tokens, chat template) take {len(line):,} bytes, over "
                f"{MAX_FACTS_BYTES:,}; send fewer special tokens or a shorter template"
            )
        write_atomically(path, line + data, overwrite=replace)
        if replace:
            trained.unlink(missing_ok=True)
    return path


def _check_room(folder: Path, size: int, replacing: Path) -> None:
    others = [p for p in folder.glob(f"*{UPLOAD_SUFFIX}") if p != replacing and p.is_file()]
    held = sum(p.stat().st_size for p in others)
    if len(others) >= MAX_STORED or held + size > MAX_STORED_BYTES:
        raise TokenprismError(
            f"the data directory holds {len(others)} added tokenizers ({held:,} bytes); the limits are {MAX_STORED} "
            f"and {MAX_STORED_BYTES:,} bytes: remove some first",
            code="store_full",
            status=409,
        )


def remove(folder: Path, name: str) -> bool:
    """Delete a user tokenizer (uploaded or trained); whether there was one. No folder: nothing
    to delete, and no folder or lock file made."""
    if not any((folder / f"{check_name(name)}{suffix}").exists() for suffix in (UPLOAD_SUFFIX, USER_MODEL_SUFFIX)):
        return False
    with name_lock(folder, name):
        removed = False
        for suffix in (UPLOAD_SUFFIX, USER_MODEL_SUFFIX):
            try:
                (folder / f"{name}{suffix}").unlink()
                removed = True
            except FileNotFoundError:
                pass
    return removed
