"""The registry: tokenizer names -> lazily built, cached tokenizers.

Built-in tokenizers are registered with their facts (kind, vocab size, description) so
listing them costs nothing; each is built on first use, under a lock, once. Tokenizers
trained by users are `.bpe` files in the data directory, found on every listing or
lookup, so one trained with the CLI shows up in a running server; a changed file is
reloaded. An unknown name raises `UnknownTokenizer` listing the valid names.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from app.errors import InvalidInput, UnknownTokenizer
from app.settings import Settings, get_settings
from app.tokenizers.base import Tokenizer

USER_MODEL_SUFFIX = ".bpe"
NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,47}$")


@dataclass
class Entry:
    name: str
    kind: str
    vocab_size: int
    description: str
    factory: Callable[[], Tokenizer]
    version: object = None  # a user file's mtime: a new value means rebuild
    user: bool = False

    def info(self) -> dict:
        return {"name": self.name, "kind": self.kind, "vocab_size": self.vocab_size, "description": self.description}


def check_name(name: str) -> str:
    if not NAME_PATTERN.match(name):
        raise InvalidInput(
            f"tokenizer name {name!r} is not allowed; use 1 to 48 characters from a-z, 0-9, '_', '.', '-', "
            "starting with a letter or digit"
        )
    return name


class Registry:
    def __init__(self, user_dir: Path | None = None):
        self._user_dir = user_dir
        self._entries: dict[str, Entry] = {}
        self._aliases: dict[str, str] = {}
        self._built: dict[str, tuple[object, Tokenizer]] = {}
        self._lock = threading.RLock()

    def register(self, entry: Entry, aliases: tuple[str, ...] = ()) -> None:
        with self._lock:
            self._entries[entry.name] = entry
            for alias in aliases:
                self._aliases[alias] = entry.name

    def entries(self) -> list[Entry]:
        """Built-ins first in registration order, then user-trained ones by name."""
        self._scan_user_dir()
        return list(self._entries.values())

    def names(self) -> list[str]:
        return [entry.name for entry in self.entries()]

    def infos(self) -> list[dict]:
        return [entry.info() for entry in self.entries()]

    def resolve(self, name: str) -> str:
        """The canonical name for `name` or an alias; raises `UnknownTokenizer`."""
        name = self._aliases.get(name, name)
        if name not in self._entries:
            self._scan_user_dir()
        if name not in self._entries:
            raise UnknownTokenizer(name, self.names())
        return name

    def get(self, name: str) -> Tokenizer:
        name = self.resolve(name)
        with self._lock:
            entry = self._entries[name]
            cached = self._built.get(name)
            if cached is None or cached[0] != entry.version:
                cached = (entry.version, entry.factory())
                self._built[name] = cached
            return cached[1]

    def user_model_path(self, name: str) -> Path:
        if self._user_dir is None:
            raise InvalidInput("this registry has no data directory for trained tokenizers")
        return self._user_dir / f"{check_name(name)}{USER_MODEL_SUFFIX}"

    def is_builtin(self, name: str) -> bool:
        name = self._aliases.get(name, name)
        return name in self._entries and not self._entries[name].user

    def _scan_user_dir(self) -> None:
        if self._user_dir is None:
            return
        found = {}
        paths = sorted(self._user_dir.glob(f"*{USER_MODEL_SUFFIX}")) if self._user_dir.is_dir() else []
        if paths:
            from app.tokenizers.bpe import read_header  # late import: bpe imports this package

            for path in paths:
                name = path.stem
                if not NAME_PATTERN.match(name) or self.is_builtin(name):
                    continue
                try:
                    version = path.stat().st_mtime_ns
                    header = read_header(path)
                except Exception:
                    continue  # a damaged or half-written file is reported when it is used, not listed
                found[name] = Entry(
                    name=name,
                    kind="bpe",
                    vocab_size=header.vocab_size,
                    description=header.description,
                    factory=_user_model_factory(path),
                    version=version,
                    user=True,
                )
        with self._lock:
            for name in [n for n, e in self._entries.items() if e.user and n not in found]:
                del self._entries[name]
                self._built.pop(name, None)
            for name, entry in found.items():
                old = self._entries.get(name)
                if old is None or old.version != entry.version:
                    self._entries[name] = entry


def _user_model_factory(path: Path) -> Callable[[], Tokenizer]:
    def build() -> Tokenizer:
        from app.tokenizers.bpe import BPETokenizer

        return BPETokenizer.load(path)

    return build


def default_registry(settings: Settings) -> Registry:
    """The five built-in tokenizers plus whatever the user trained into the data directory."""
    from app.tokenizers import builtins

    registry = Registry(settings.user_tokenizer_dir)
    builtins.register_builtins(registry, settings.tokenizer_dir)
    return registry


@lru_cache(maxsize=1)
def get_registry() -> Registry:
    return default_registry(get_settings())
