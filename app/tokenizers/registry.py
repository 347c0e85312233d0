"""The registry: tokenizer names -> lazily built, cached tokenizers.

Built-in tokenizers are registered with their facts (kind, vocab size, description) so
listing them costs nothing; each is built on first use, under a lock, once. Tokenizers
trained by users are `.bpe` files in the data directory (see `user_models`): the listing
is refreshed whenever that folder changes, so one trained with the CLI shows up in a
running server, and a file replaced in place is reloaded on its next lookup. A user file
that cannot be loaded fails only its own requests, with an error naming the file (and the
failure is remembered until the file changes). An unknown name raises `UnknownTokenizer`
listing the valid names.

What is built is kept in the process's memory budget (`budget.py`): its cost is the RSS
growth while it was built (at least a floor from its vocabulary size), room is made
before a build, and the least recently used tokenizer is dropped past the budget (and
built again on its next use). A user file that is removed or replaced is forgotten when
the folder is next listed, and its memory given back.

Every name a user gives goes through `resolve`, the one place names become canonical: a
tokenizer name or alias first, then a model name (`models.find`: exact, then prefix rules,
case-insensitive), so "gpt-4o" works wherever "o200k_base" does (API, pages, CLI). A model
whose tokenizer this registry does not have (text-davinci-003 on p50k_base) is an
`UnknownTokenizer` that names the model and the tokenizer it needs.

A new tokenizer's name must mean nothing yet (`check_new_name`: not a built-in, an alias
or a model name, prefix rules included); every path that creates one calls it. A user file
that has such a name anyway (made before names were checked, or copied in by hand) is left
out, as one named like a built-in is: the name keeps its one meaning, the one GET
/api/models shows. Its file stays until removed (DELETE /api/tokenizers/NAME).
"""

from __future__ import annotations

import threading
from functools import lru_cache
from pathlib import Path
from typing import NoReturn

from app.bpe.model import BPETokenizer
from app.chat.formats.template_files import from_facts
from app.chat.render import formats_for
from app.errors import InvalidInput, NameTaken, TokenizerFileError, UnknownTokenizer, excerpt
from app.settings import Settings, get_settings
from app.tokenizers import budget as memory
from app.tokenizers import models
from app.tokenizers.base import Tokenizer
from app.tokenizers.builtins import builtin_entries
from app.tokenizers.entry import Entry
from app.tokenizers.user import uploads
from app.tokenizers.user.user_models import (
    NAME_PATTERN,
    USER_MODEL_SUFFIX,
    UserModel,
    UserModels,
    check_name,
    identity_of,
)

__all__ = ["NAME_PATTERN", "USER_MODEL_SUFFIX", "Entry", "Registry", "check_name", "default_registry", "get_registry"]


class Registry:
    def __init__(self, user_dir: Path | None = None, budget: memory.Budget | None = None):
        self._user_dir = user_dir
        self._user_models = UserModels(user_dir) if user_dir is not None else None
        self._entries: dict[str, Entry] = {}  # the built-ins
        self._aliases: dict[str, str] = {}
        self._user_entries: dict[str, Entry] = {}
        self._listed: dict[str, UserModel] | None = None  # what _user_entries were made from
        self._built: dict[str, tuple[object, Tokenizer | TokenizerFileError]] = {}
        self._lock = threading.RLock()
        self._budget = budget or memory.shared()

    def register(self, entry: Entry, aliases: tuple[str, ...] = ()) -> None:
        with self._lock:
            self._entries[entry.name] = entry
            for alias in aliases:
                self._aliases[alias] = entry.name

    def entries(self) -> list[Entry]:
        """Built-ins first in registration order, then user-trained ones by name."""
        return [*self._entries.values(), *self._user().values()]

    def names(self) -> list[str]:
        return [entry.name for entry in self.entries()]

    def infos(self) -> list[dict]:
        return [entry.info() for entry in self.entries()]

    def resolve(self, name: str) -> str:
        """The canonical tokenizer name for a tokenizer name, an alias or a model name (in
        that order); raises `UnknownTokenizer`, or the `TokenizerFileError` of a user file
        of that name that cannot be used."""
        canonical = self._aliases.get(name, name)
        if canonical in self._entries or canonical in self._user():
            return canonical
        self._refuse_unusable(canonical)
        model = models.find(name)
        if model is None:
            self._missing(name)
        target = self._aliases.get(model.tokenizer, model.tokenizer)
        if target in self._entries or target in self._user():
            return target
        self._refuse_unusable(target)
        raise UnknownTokenizer(
            name,
            self.names(),
            message=(
                f"model {excerpt(name)} needs the {model.tokenizer} tokenizer, which tokenprism does not ship; use a model "
                f"whose tokenizer is available (GET /api/models), a tokenizer from GET /api/tokenizers, "
                f"or add a {model.tokenizer} file of your own (POST /api/tokenizers)"
            ),
        )

    def has(self, name: str) -> bool:
        """Whether `name` is a usable tokenizer name or alias (model names are not looked up)."""
        name = self._aliases.get(name, name)
        return name in self._entries or name in self._user()

    def aliases(self) -> dict[str, str]:
        """alias -> canonical name, for pickers that resolve names in the browser."""
        return dict(self._aliases)

    def get(self, name: str) -> Tokenizer:
        name = self.resolve(name)
        entry = self._entries.get(name) or self._current_user_entry(name)
        with self._lock:
            cached = self._built.get(name)
            if cached is not None and cached[0] != entry.version:
                self._forget(name)  # replaced: its memory goes back before the new one is built
                cached = None
            if cached is None:
                cached = self._build(name, entry)
        if isinstance(cached[1], TokenizerFileError):
            raise TokenizerFileError(cached[1].message)
        self._budget.touch(cached[1])
        return cached[1]

    def _build(self, name: str, entry: Entry) -> tuple[object, Tokenizer | TokenizerFileError]:
        """Build `entry` and keep it in the budget (which may drop it at once: see budget.py)."""
        self._budget.make_room(memory.floor(entry.kind, entry.vocab_size))
        try:
            with memory.measure() as grown:
                tokenizer = entry.factory()
        except TokenizerFileError as error:
            if not entry.user:
                raise
            self._built[name] = (entry.version, error)  # until the file changes
            return self._built[name]
        self._built[name] = cached = (entry.version, tokenizer)
        cost = max(grown.grown, memory.floor(entry.kind, tokenizer.vocab_size))
        self._budget.keep(tokenizer, cost, drop=lambda: self._dropped(name, tokenizer))
        return cached

    def _dropped(self, name: str, tokenizer: Tokenizer) -> None:
        """The budget dropped `tokenizer`: forget it here too (unless a newer one took its place)."""
        with self._lock:
            if self._built.get(name, (None, None))[1] is tokenizer:
                del self._built[name]

    def _forget(self, name: str) -> None:
        """Drop what was built for `name` (a user file removed or replaced) and give its memory back."""
        with self._lock:
            _, built = self._built.pop(name, (None, None))
        if built is not None and not isinstance(built, TokenizerFileError):
            self._budget.forget(built)

    def user_model_path(self, name: str) -> Path:
        if self._user_dir is None:
            raise InvalidInput("this registry has no data directory for trained tokenizers")
        return self._user_dir / f"{check_name(name)}{USER_MODEL_SUFFIX}"

    def is_loaded(self, name: str) -> bool:
        """Whether `get(name)` would answer from the cache (no file to read, nothing to build)."""
        name = self._aliases.get(name, name)
        entry = self._entries.get(name) or self._user_entries.get(name)
        if entry is not None and entry.user and _file_changed(entry):
            return False  # the file changed: get() reloads it
        return name in self._built and self._built[name][0] == getattr(entry, "version", None)

    def user_models(self) -> dict[str, UserModel]:
        """The files in the user tokenizer folder by name, usable or not (see user_models.py)."""
        return self._user_models.models() if self._user_models is not None else {}

    def chat_formats(self, name: str) -> list[str]:
        """The chat formats of tokenizer `name`, its default first ([] for none), without building it."""
        return formats_for(name, self.has_chat_template(name))

    def has_chat_template(self, name: str) -> bool:
        """Whether the tokenizer `name` was added with a chat template (built-ins never are)."""
        entry = None if name in self._entries else self._user().get(name)
        return entry is not None and entry.chat_template

    def is_builtin(self, name: str) -> bool:
        return self._aliases.get(name, name) in self._entries

    def meaning(self, name: str) -> str | None:
        """What `name` already means apart from user files (a built-in, an alias, a model name), or None."""
        if name in self._entries:
            return "a built-in tokenizer"
        if name in self._aliases:
            return f"another name of the built-in {self._aliases[name]}"
        return models.claim(name)

    def check_new_name(self, name: str) -> str:
        """`name` if a new user tokenizer may take it; else `InvalidInput` (the name rule) or a
        409 `NameTaken` saying what the name already means."""
        check_name(name)
        meaning = self.meaning(name)
        if meaning is not None:
            raise NameTaken(f"{name} is {meaning}; choose another name")
        return name

    def _user(self) -> dict[str, Entry]:
        """The usable user-trained tokenizers, by name, made again when the folder changed."""
        if self._user_models is None:
            return {}
        models = self._user_models.models()
        if models is not self._listed:
            old = self._user_entries
            self._user_entries = {
                name: old[name] if name in old and old[name].version == model.identity else _user_entry(model)
                for name, model in models.items()
                if model.header is not None and self.meaning(name) is None
            }
            self._listed = models
            for name, (version, _) in list(self._built.items()):
                if name not in self._entries and (name not in models or models[name].identity != version):
                    self._forget(name)  # removed or replaced since it was built
        return self._user_entries

    def _current_user_entry(self, name: str) -> Entry:
        """The entry of user file `name`, listed again if the file changed since it was listed."""
        entry = self._user_entries.get(name)
        if entry is None or _file_changed(entry):
            if self._user_models is not None:
                self._user_models.forget()
            entry = self._user().get(name) or self._missing(name)
        return entry

    def _refuse_unusable(self, name: str) -> None:
        """Raise the error of a user file named `name` that cannot be loaded, if there is one."""
        unusable = self._user_models.models().get(name) if self._user_models is not None else None
        if unusable is not None and unusable.error is not None and self.meaning(name) is None:
            raise TokenizerFileError(unusable.error.message)

    def _missing(self, name: str) -> NoReturn:
        self._refuse_unusable(name)
        raise UnknownTokenizer(name, self.names())

    # -- for pickers: pages list the built-ins and the recent user tokenizers, and search the rest

    def recent_user_entries(self, limit: int) -> list[Entry]:
        """The `limit` user tokenizers whose files changed last, newest first."""
        newest = sorted(self._user().values(), key=lambda entry: (_mtime(entry), entry.name), reverse=True)
        return newest[:limit]

    def search(self, query: str, limit: int) -> list[Entry]:
        """Up to `limit` tokenizers for a search box: the one `query` stands for (a tokenizer name,
        an alias or a model name), then those whose name contains it (any case), in listing order, then
        those of the models whose name contains it (`models.matching`, the rule the pages' search boxes use)."""
        found: dict[str, Entry] = {}
        try:
            name = self.resolve(query)
            found[name] = self._entries.get(name) or self._user()[name]
        except (UnknownTokenizer, TokenizerFileError):
            pass
        lower = query.lower()
        for entry in self.entries():
            if len(found) >= limit:
                break
            if lower in entry.name.lower():
                found.setdefault(entry.name, entry)
        for model in models.matching(query):  # then the tokenizers of the models whose name contains it
            if len(found) >= limit:
                break
            if model.tokenizer not in found and model.tokenizer in self._entries:
                found[model.tokenizer] = self._entries[model.tokenizer]
        return list(found.values())[:limit]


def _file_changed(entry: Entry) -> bool:
    """Whether a user entry's file is no longer the one it was listed from."""
    return entry.path is None or identity_of(entry.path) != entry.version


def _mtime(entry: Entry) -> int:
    assert entry.version is not None  # a user entry's: its file's identity
    return entry.version[3]


def _user_entry(model: UserModel) -> Entry:
    def build() -> Tokenizer:
        if model.added:  # NAME.tokenizer, checked when it was added (uploads.py)
            facts, data = uploads.read_stored(model.path)
            tokenizer = uploads.build(
                facts.kind, data, model.name, facts.description, facts.pattern, facts.special_tokens
            )
            if facts.chat_template is not None:
                tokenizer.chat_template = from_facts(facts.chat_template)
            return tokenizer
        return BPETokenizer.load(model.path, name=model.name)

    header = model.header
    assert header is not None  # listed entries are of usable files, which have a header
    return Entry(
        model.name,
        model.kind,
        header.vocab_size,
        header.description,
        build,
        version=model.identity,
        user=True,
        path=model.path,
        chat_template=getattr(model.facts, "chat_template", None) is not None,
    )


def default_registry(settings: Settings) -> Registry:
    """The built-in tokenizers plus whatever the user trained into the data directory."""
    registry = Registry(settings.user_tokenizer_dir, memory.shared(settings.memory_budget_mb))
    for entry, aliases in builtin_entries(settings.tokenizer_dir):
        registry.register(entry, aliases)
    return registry


@lru_cache(maxsize=1)
def get_registry() -> Registry:
    return default_registry(get_settings())
