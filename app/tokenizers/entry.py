"""One tokenizer as the registry lists it (`Entry`): its name, kind, vocabulary size and
description, and the factory that builds it on first use. Below both the registry and the
built-ins' list (builtins.py), which make these. Left out: building, caching, name lookup.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from app.tokenizers import models
from app.tokenizers.base import Tokenizer


@dataclass
class Entry:
    name: str
    kind: str
    vocab_size: int
    description: str
    factory: Callable[[], Tokenizer]
    version: tuple[int, int, int, int] | None = (
        None  # a user file's identity (device, inode, size, mtime_ns): a new value means rebuild
    )
    user: bool = False
    path: Path | None = None  # a user file
    chat_template: bool = False  # it was added with a chat template (the `template` chat format)

    def info(self) -> dict:
        return {
            "name": self.name,
            "kind": self.kind,
            "vocab_size": self.vocab_size,
            "description": self.description,
            "models": models.models_for(self.name),
        }
