"""One vocabulary index and one lineage per tokenizer, each built on first use, under a lock,
and kept within the process's memory budget (app/tokenizers/budget.py).

An index is kept with its tokenizer as parent in the budget: when the registry's tokenizer
is dropped (least recently used, or its user file removed or replaced), its index and
lineage go with it, and a replaced file's new tokenizer object gets a new index. The index
of a tokenizer the budget does not keep (one the registry dropped while a request still
held it, or one built outside the registry) is built for that call and not kept. Two
requests for the same tokenizer build once (the second waits for the first); different
tokenizers build at the same time.
"""

from __future__ import annotations

import threading

from app.inspect.lineage import Lineage
from app.inspect.lineage_of import lineage_for
from app.inspect.vocab import VocabIndex
from app.tokenizers import budget as memory
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
        lineage = self._lineage
        if lineage is None:
            with self._lock:
                lineage = self._lineage
                if lineage is None:
                    with memory.measure() as grown:
                        lineage = lineage_for(self.tokenizer, self.index)
                    part = "sentencepiece-lineage" if self.tokenizer.kind == "sentencepiece" else "lineage"
                    cost = max(grown.grown, memory.floor(part, len(self.index)))
                    if memory.shared().keep(lineage, cost, parent=self.index, drop=self._drop_lineage):
                        self._lineage = lineage
        memory.shared().touch(lineage)
        return lineage

    def _drop_lineage(self) -> None:
        self._lineage = None


_built: dict[int, Inspected] = {}  # id(tokenizer) -> its index, while the budget keeps the index
_locks: dict[int, tuple[Tokenizer, threading.Lock]] = {}
_guard = threading.Lock()


def inspected(tokenizer: Tokenizer) -> Inspected:
    budget = memory.shared()
    found = _built.get(id(tokenizer))
    if found is not None and found.tokenizer is tokenizer:
        budget.touch(found.index)
        return found
    with _guard:
        held = _locks.get(id(tokenizer))
        if held is None or held[0] is not tokenizer:
            held = _locks[id(tokenizer)] = (tokenizer, threading.Lock())
    try:
        with held[1]:
            found = _built.get(id(tokenizer))
            if found is not None and found.tokenizer is tokenizer:
                budget.touch(found.index)
                return found
            with memory.measure() as grown:
                found = Inspected(tokenizer, VocabIndex(tokenizer))
            cost = max(grown.grown, memory.floor("index", len(found.index)))
            with _guard:
                _built[id(tokenizer)] = found  # before keep(), which may drop it at once
            if not budget.keep(found.index, cost, parent=tokenizer, drop=lambda: _drop(found)):
                _drop(found)
            return found
    finally:
        with _guard:
            if _locks.get(id(tokenizer)) is held:
                del _locks[id(tokenizer)]


def _drop(found: Inspected) -> None:
    with _guard:
        if _built.get(id(found.tokenizer)) is found:
            del _built[id(found.tokenizer)]
