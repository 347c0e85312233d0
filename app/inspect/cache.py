"""One vocabulary index and one lineage per tokenizer, each built on first use, under a lock.

Keyed by the tokenizer object itself (weakly): a user file that is replaced is a new
tokenizer object in the registry, so it gets a new index, and the old one goes with the
old object. Two requests for the same tokenizer build once (the second waits for the
first); different tokenizers build at the same time.
"""

from __future__ import annotations

import threading
from weakref import WeakKeyDictionary

from app.inspect.lineage import Lineage, lineage_for
from app.inspect.vocab import VocabIndex
from app.tokenizers.base import Tokenizer


class Inspected:
    """A tokenizer with its index; its lineage is built on first use (looking bytes up needs none)."""

    def __init__(self, tokenizer: Tokenizer, index: VocabIndex):
        self.tokenizer = tokenizer
        self.index = index
        self._lineage: Lineage | None = None
        self._lock = threading.Lock()

    @property
    def lineage(self) -> Lineage:
        if self._lineage is None:
            with self._lock:
                if self._lineage is None:
                    self._lineage = lineage_for(self.tokenizer, self.index)
        return self._lineage


_built: WeakKeyDictionary[Tokenizer, Inspected] = WeakKeyDictionary()
_locks: WeakKeyDictionary[Tokenizer, threading.Lock] = WeakKeyDictionary()
_guard = threading.Lock()


def inspected(tokenizer: Tokenizer) -> Inspected:
    found = _built.get(tokenizer)
    if found is not None:
        return found
    with _guard:
        lock = _locks.setdefault(tokenizer, threading.Lock())
    with lock:
        found = _built.get(tokenizer)
        if found is None:
            found = Inspected(tokenizer, VocabIndex(tokenizer))
            with _guard:
                _built[tokenizer] = found
        return found
