"""One memory budget for everything heavy a process keeps: one LRU over built tokenizers,
their vocabulary indexes (and the index's search tables and decoded texts), and lineages.

Each cache that keeps such an object tells the budget with `keep(obj, cost, parent, drop)`
and marks it used with `touch(obj)` (which marks its parents too); an object that makes a
part of itself on first use adds that part's cost with `grow(obj, extra)`. When the costs together
pass the limit (`memory_budget_mb`), the least recently used objects are dropped: their
`drop` callback removes the cache's reference, and everything kept with that object as
parent is dropped with it (an index goes with its tokenizer). Then the freed memory is
given back to the system (`give_back`: a garbage collection, and glibc's `malloc_trim`,
without which RSS would not fall).

Dropping only removes a cache's reference: a request that holds the object keeps using it
until it finishes. It is never cached again: `keep` refuses an object whose parent is not
kept (an index built for a tokenizer the registry has already dropped is used once and
not kept), and an object that costs more than the whole budget is served to the request
that built it and not kept (the next request builds it again); so the figure holds after
any sequence of requests, plus what requests in flight hold.

Costs are measured, not guessed: `measure` gives the growth of the process's RSS while a
block ran (builds of tokenizers are serialized by the registry's lock; an index built at
the same time as another object counts some of it too, which only drops things earlier),
and callers take the larger of that and a floor from the vocabulary size (`floor`), so a
build that reuses memory freed before it still counts. Left out: knowing what a running
request holds, and memory that is not in these caches (request bodies, results).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

MB = 1 << 20
# Bytes per id, about 80% of what each part measured on the built-ins (docs/serving.md, "Scale"):
# a tokenizer by kind, then the index, its substring tables, its decoded texts, a lineage.
PER_ID = {
    "tiktoken": 320,
    "huggingface": 550,
    "huggingface-ids": 130,  # each id's string and bytes, made on first use (backends/huggingface/id_maps.py)
    "sentencepiece": 190,
    "bpe": 240,
    "index": 16,
    "tables": 40,
    "lineage": 10,
    "sentencepiece-lineage": 260,
}
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def floor(part: str, ids: int) -> int:
    """The least a part of `ids` ids costs (`part`: a tokenizer kind or a PER_ID key)."""
    return PER_ID.get(part, PER_ID["huggingface"]) * ids


def rss() -> int:
    """This process's resident memory in bytes (0 where /proc is missing)."""
    try:
        with open("/proc/self/statm", "rb") as handle:
            return int(handle.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0


class Measure:
    grown: int = 0


@contextmanager
def measure() -> Iterator[Measure]:
    """`with measure() as m: build()` then `m.grown`: the RSS growth while it ran (>= 0)."""
    found, before = Measure(), rss()
    try:
        yield found
    finally:
        found.grown = max(0, rss() - before)


def _malloc_trim() -> Callable[[int], object] | None:
    """glibc's malloc_trim (None elsewhere: musl and macOS have none). Also fixes glibc's mmap
    and trim thresholds at 128 KiB: left dynamic, they grow up to 32 and 64 MB after a large
    block is freed, and a worker thread's heap then keeps that much after every drop
    (measured: a removed 200,000-token upload left 75 MB held instead of ~30 MB)."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):
        return None
    mallopt = getattr(libc, "mallopt", None)
    if mallopt is not None:
        mallopt(-1, 128 << 10)  # M_TRIM_THRESHOLD
        mallopt(-3, 128 << 10)  # M_MMAP_THRESHOLD
    return trim


_TRIM = _malloc_trim()


def give_back() -> None:
    """Free unreachable objects, then hand free heap pages back to the system (glibc)."""
    gc.collect()
    if _TRIM is not None:
        _TRIM(0)


@dataclass(eq=False)
class _Item:
    obj: object
    cost: int
    parent: int | None
    drop: Callable[[], object] | None
    children: set[int] = field(default_factory=set)


class Budget:
    def __init__(self, limit_bytes: int, release: Callable[[], None] = give_back):
        self.limit = limit_bytes
        self._release = release
        self._items: OrderedDict[int, _Item] = OrderedDict()  # id(obj) -> item, least recently used first
        self._total = 0
        self._lock = threading.Lock()

    @property
    def total(self) -> int:
        return self._total

    def keeps(self, obj: object) -> bool:
        return id(obj) in self._items and self._items[id(obj)].obj is obj

    def order(self) -> list[object]:
        """The kept objects, least recently used first (for tests and the bench)."""
        with self._lock:
            return [item.obj for item in self._items.values()]

    def keep(self, obj: object, cost: int, parent: object = None, drop: Callable[[], object] | None = None) -> bool:
        """Keep `obj` (most recently used) at `cost` bytes; False, and nothing kept, when its
        parent is not kept or it does not fit in the budget even alone. Then drops the least
        recently used objects until the total fits; `drop` is called when `obj` is dropped."""
        with self._lock:
            if parent is not None and not self.keeps(parent):
                return False
            if self.keeps(obj):  # kept already: a new cost
                item = self._items[id(obj)]
                self._total -= item.cost
                item.cost = max(0, int(cost))
            else:
                item = _Item(obj, max(0, int(cost)), id(parent) if parent is not None else None, drop)
                self._items[id(obj)] = item
                if item.parent is not None:
                    self._items[item.parent].children.add(id(obj))
            self._total += item.cost
            self._touch(id(obj))
            dropped = self._drop_past_limit()
        self._finish(dropped)
        return self.keeps(obj)

    def grow(self, obj: object, extra: int) -> None:
        """`obj`, if kept, costs `extra` bytes more (a part it made on first use) and is marked
        used; then the least recently used objects are dropped until the total fits, as `keep`."""
        with self._lock:
            if not self.keeps(obj):
                return
            added = max(0, int(extra))
            self._items[id(obj)].cost += added
            self._total += added
            self._touch(id(obj))
            dropped = self._drop_past_limit()
        self._finish(dropped)

    def make_room(self, cost: int) -> None:
        """Before building an object of about `cost` bytes: drop the least recently used objects
        until it would fit, and give their memory back first, so the build reuses it."""
        dropped: list[_Item] = []
        with self._lock:
            while self._items and self._total + cost > self.limit:
                self._remove(next(iter(self._items)), dropped)
        self._finish(dropped)

    def touch(self, obj: object) -> None:
        """Mark `obj` (and its parents) as just used."""
        with self._lock:
            if self.keeps(obj):
                self._touch(id(obj))

    def forget(self, obj: object) -> None:
        """Drop `obj` and what depends on it now (a removed or replaced file), and give the memory back."""
        dropped: list[_Item] = []
        with self._lock:
            if self.keeps(obj):
                self._remove(id(obj), dropped)
        self._finish(dropped)

    def _drop_past_limit(self) -> list[_Item]:
        """Under the lock: the least recently used objects removed until the total fits."""
        dropped: list[_Item] = []
        while self._total > self.limit and self._items:
            self._remove(next(iter(self._items)), dropped)
        return dropped

    def _touch(self, key: int) -> None:
        chain = []
        at: int | None = key
        while at is not None:
            chain.append(at)
            at = self._items[at].parent
        for key in reversed(chain):  # the object itself ends up most recent, right after its parents
            self._items.move_to_end(key)

    def _remove(self, key: int, dropped: list[_Item]) -> None:
        item = self._items.pop(key)
        self._total -= item.cost
        dropped.append(item)
        for child in list(item.children):
            if child in self._items:
                self._remove(child, dropped)
        if item.parent is not None and item.parent in self._items:
            self._items[item.parent].children.discard(key)

    def _finish(self, dropped: list[_Item]) -> None:
        """Outside the lock: the callbacks take their caches' locks."""
        if not dropped:
            return
        for item in dropped:
            if item.drop is not None:
                item.drop()
        dropped.clear()  # the last references to the objects go here
        self._release()


_shared: Budget | None = None
_shared_lock = threading.Lock()


def shared(limit_mb: int | None = None) -> Budget:
    """The process's one budget; `limit_mb` (from settings) sets its limit."""
    global _shared
    with _shared_lock:
        if _shared is None:
            if limit_mb is None:
                from app.settings import get_settings

                limit_mb = get_settings().memory_budget_mb
            _shared = Budget(limit_mb * MB)
        elif limit_mb is not None:
            _shared.limit = limit_mb * MB
        return _shared
