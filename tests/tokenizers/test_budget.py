"""The memory budget's LRU (app/tokenizers/budget.py) with fake items, and the caches that use it."""

from __future__ import annotations

import pytest

from app.inspect import cache
from app.tokenizers import budget as memory
from app.tokenizers.budget import Budget
from app.tokenizers.builtins import register_builtins
from app.tokenizers.registry import Registry


class Thing:
    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


@pytest.fixture
def made():
    released = []
    dropped = []
    budget = Budget(100, release=lambda: released.append(1))

    def keep(name: str, cost: int, parent: Thing | None = None) -> Thing:
        thing = Thing(name)
        budget.keep(thing, cost, parent, drop=lambda: dropped.append(name))
        return thing

    return budget, keep, dropped, released


def test_least_recently_used_goes_first_and_memory_is_given_back(made):
    budget, keep, dropped, released = made
    a, b, c = keep("a", 40), keep("b", 40), keep("c", 10)
    budget.touch(a)
    assert budget.order() == [b, c, a] and budget.total == 90 and not dropped
    d = keep("d", 30)
    assert dropped == ["b"] and budget.order() == [c, a, d] and budget.total == 80
    assert released == [1]


def test_a_child_goes_with_its_parent_and_touching_it_touches_the_parent(made):
    budget, keep, dropped, _ = made
    tokenizer = keep("tokenizer", 30)
    index = keep("index", 20, parent=tokenizer)
    other = keep("other", 30)
    budget.touch(index)  # using the index keeps its tokenizer too
    assert budget.order() == [other, tokenizer, index]
    keep("big", 30)
    assert dropped == ["other"]
    keep("bigger", 45)
    assert sorted(dropped) == ["index", "other", "tokenizer"] and budget.total == 75


def test_a_child_of_an_object_not_kept_is_not_kept(made):
    budget, keep, dropped, _ = made
    gone = Thing("dropped tokenizer")
    index = keep("index", 10, parent=gone)
    assert not budget.keeps(index) and budget.total == 0 and not dropped


def test_an_object_larger_than_the_budget_is_not_kept_and_drops_nothing_it_fits_beside(made):
    budget, keep, dropped, _ = made
    small = keep("small", 10)
    huge = keep("huge", 101)
    assert not budget.keeps(huge) and dropped[-1] == "huge" and budget.total <= 100
    assert not budget.keeps(small)  # everything older went first: the total never passes the limit


def test_forget_drops_the_object_and_its_children_and_gives_memory_back(made):
    budget, keep, dropped, released = made
    tokenizer = keep("tokenizer", 30)
    keep("index", 20, parent=tokenizer)
    keep("other", 10)
    budget.forget(tokenizer)
    assert sorted(dropped) == ["index", "tokenizer"] and budget.total == 10 and released == [1]


def test_keeping_again_updates_the_cost(made):
    budget, _keep, _, _ = made
    thing = Thing("t")
    budget.keep(thing, 10)
    budget.keep(thing, 25)
    assert budget.total == 25 and budget.order() == [thing]


def test_growing_adds_to_the_cost_marks_used_and_drops_the_least_recently_used(made):
    budget, keep, dropped, _ = made
    a, b = keep("a", 40), keep("b", 40)
    budget.grow(a, 15)  # a part `a` made on first use
    assert budget.total == 95 and budget.order() == [b, a] and not dropped
    budget.grow(a, 10)
    assert dropped == ["b"] and budget.order() == [a] and budget.total == 65
    budget.grow(Thing("not kept"), 50)
    assert budget.total == 65 and budget.order() == [a]


def test_the_registry_drops_least_recently_used_tokenizers_and_their_indexes(settings, monkeypatch):
    budget = Budget(10 * memory.MB, release=lambda: None)
    monkeypatch.setattr(memory, "_shared", budget)
    registry = Registry(None, budget)  # its own: what it builds here is never seen by other tests
    register_builtins(registry, settings.tokenizer_dir)
    monkeypatch.setattr(memory, "floor", lambda part, ids: 4 * memory.MB)
    monkeypatch.setattr(memory, "measure", _no_growth)
    own = registry.get("tokenprism_4k")
    found = cache.inspected(own)
    assert budget.order() == [own, found.index] and registry.is_loaded("tokenprism_4k")
    assert cache.inspected(own) is found
    mistral = registry.get("mistral_v1")  # 12 MB with the others: the least recently used go
    assert budget.order() == [mistral] and not registry.is_loaded("tokenprism_4k")
    assert cache.inspected(own) is not found  # an index of a dropped tokenizer is built, not kept
    assert budget.order() == [mistral]
    assert registry.get("tokenprism_4k") is not own


class _no_growth:
    grown = 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
