"""The shipped model facts: every row sane and sourced, the figures the issue quotes, every
model resolving to a tokenizer we ship, the lookup rules, and GET /api/models listing them."""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal

import pytest

from app.pricing.facts import COLUMNS, SHIPPED, FactsTable, ModelFact, load_facts
from app.tokenizers import models
from app.web import schemas
from tests.reference import BUILTIN_NAMES

SHIPPED_ROWS = load_facts(None).rows()


def test_the_shipped_file_starts_with_the_columns():
    assert SHIPPED.read_text(encoding="utf-8").splitlines()[0].split("\t") == list(COLUMNS)
    assert len(SHIPPED_ROWS) >= 40


@pytest.mark.parametrize("fact", SHIPPED_ROWS, ids=lambda fact: fact.model)
def test_every_shipped_row_is_sane(fact: ModelFact):
    assert fact.context_window is not None, "a row without a window says nothing a budget can use"
    if fact.max_output is not None:
        assert 0 < fact.max_output <= fact.context_window
    for price in (fact.input_usd, fact.cached_input_usd, fact.output_usd):
        assert price is None or (price >= 0 and price.is_finite())
    if fact.cached_input_usd is not None:
        assert fact.input_usd is not None and fact.cached_input_usd <= fact.input_usd
    assert re.fullmatch(r"https://[a-z0-9.-]+\.[a-z]{2,}/\S*", fact.source), fact.source
    assert date(2026, 1, 1) <= date.fromisoformat(fact.read_on) <= date.today()


@pytest.mark.parametrize("fact", SHIPPED_ROWS, ids=lambda fact: fact.model)
def test_every_shipped_row_is_a_model_whose_tokenizer_we_ship(fact: ModelFact):
    model = models.find(fact.model)
    assert model is not None and model.tokenizer in BUILTIN_NAMES, (fact.model, model)


@pytest.mark.parametrize(
    "name, window",
    [
        ("gpt-4o", 128_000),
        ("gpt-4.1", 1_047_576),
        ("o3", 200_000),
        ("gpt-3.5-turbo", 16_385),
        ("gpt-4", 8_192),
        ("gpt-4.1-mini", 1_047_576),
        ("gpt-4o-mini", 128_000),
        ("o4-mini", 200_000),
        ("o1", 200_000),
        ("llama-3.1-8b-instruct", 131_072),
        ("llama-3.3-70b-instruct", 131_072),
        ("meta-llama-3-8b", 8_192),
        ("llama-4-scout-17b-16e-instruct", 10_485_760),
        ("llama-4-maverick-17b-128e-instruct", 1_048_576),
        ("deepseek-v4-pro", 1_000_000),
    ],
)
def test_the_published_windows(name, window):
    assert load_facts(None).get(name).context_window == window


def test_prices_are_the_published_decimals():
    facts = load_facts(None)
    gpt4o, mini = facts.get("gpt-4o"), facts.get("gpt-4o-mini")
    assert (gpt4o.input_usd, gpt4o.cached_input_usd, gpt4o.output_usd, gpt4o.max_output) == (
        Decimal("2.50"),
        Decimal("1.25"),
        Decimal("10.00"),
        16_384,
    )
    assert str(mini.cached_input_usd) == "0.075"  # as published, not 0.07500000000000001
    assert facts.get("gpt-4o").info()["input_usd_per_mtok"] == "2.50"
    embedding = facts.get("text-embedding-3-small")
    assert (embedding.context_window, embedding.input_usd, embedding.output_usd, embedding.max_output) == (
        8_191,
        Decimal("0.02"),
        None,
        None,
    )
    llama = facts.get("llama-3.1-70b-instruct")
    assert (llama.input_usd, llama.output_usd, llama.max_output) == (None, None, None)  # Meta publishes no prices


def test_lookup_takes_names_as_requests_give_them():
    gpt4o = ModelFact(
        "gpt-4o", 128_000, 16_384, Decimal("2.50"), None, Decimal("10.00"), "https://a.example/", "2026-11-25"
    )
    rule = ModelFact("gpt-4o-*", 128_000, None, None, None, None, "https://b.example/", "2026-11-25")
    table = FactsTable({"gpt-4o": gpt4o})
    assert table.get("GPT-4o") is gpt4o and table.lookup("openai/GPT-4o") is gpt4o
    assert table.lookup("gpt-4o-2024-08-06") is None  # the gpt-4o-* rule has no row
    table = FactsTable({"gpt-4o": gpt4o, "gpt-4o-*": rule})
    assert table.lookup("gpt-4o-2024-08-06") is rule and table.lookup("gpt-4o") is gpt4o
    assert table.lookup("no-such-model") is None


def test_models_lists_the_facts(client):
    body = client.get("/api/models").json()
    schemas.ModelsResponse.model_validate(body)
    rows = {(row["name"], row["prefix"]): row for row in body["models"]}
    assert rows[("gpt-4o", False)]["facts"] == load_facts(None).get("gpt-4o").info()
    assert rows[("gpt-4.1", False)]["facts"]["context_window"] == 1_047_576
    assert rows[("gpt-4o-", True)]["facts"] is None  # a prefix rule: only if a row names "gpt-4o-*"
    assert rows[("text-davinci-003", False)]["facts"] is None  # not published any more: null, never a guess
    mini = rows[("gpt-4o-mini", False)]  # a name only the facts table holds, after the model table
    assert (mini["covered_by"], mini["tokenizer"], mini["available"]) == ("gpt-4o-*", "o200k_base", True)
    assert mini["facts"]["input_usd_per_mtok"] == "0.15"
    table = [row for row in body["models"] if row["covered_by"] is None]
    assert [(row["name"], row["prefix"]) for row in table] == [(m.name, m.prefix) for m in models.MODELS]
    listed = {row["name"].lower() if not row["prefix"] else row["name"].lower() + "*" for row in body["models"]}
    assert {fact.model.lower() for fact in SHIPPED_ROWS} <= listed  # every shipped row is shown somewhere
