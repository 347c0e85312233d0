"""The budget's view code (app/web/pages/budget_view.py), without a page: which model the
playground prices, the reply field, the bar's widths and the fit sentence, and the comparison's
cost lines and column order. Every figure must be `model_budget`'s (the API's) own."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

import pytest

from app.errors import InvalidInput
from app.pricing.budget import model_budget
from app.web.pages.budget_view import (
    Budget,
    cheapest_first,
    cost_lines,
    parse_reply,
    playground_model,
    priced_models,
    rank_columns,
)


def test_the_models_priced_for_a_tokenizer_are_those_with_facts_in_the_tables_order(registry):
    o200k = priced_models(registry, "o200k_base")
    assert {"gpt-4o", "gpt-4o-mini", "gpt-5", "o3"} <= set(o200k) and "gpt-4" not in o200k
    assert o200k[0] == "gpt-5"  # the facts file's first o200k_base row
    assert priced_models(registry, "cl100k_base")[:3] == ["gpt-4", "gpt-4-turbo", "gpt-3.5-turbo"]
    assert "llama-3.1-8b-instruct" in priced_models(registry, "llama3")
    assert priced_models(registry, "gpt2") == [] and priced_models(registry, "tokenprism_4k") == []


def test_the_playground_prices_the_model_named_or_the_select_s_choice(registry):
    named = playground_model(registry, "gpt-4o-mini", "o200k_base", "gpt-5")
    assert (named.model, named.named, named.options) == ("gpt-4o-mini", True, [])
    chosen = playground_model(registry, "o200k_base", "o200k_base", "GPT-4O")
    assert (chosen.model, chosen.named, chosen.default) == ("gpt-4o", False, "gpt-5")
    assert playground_model(registry, "o200k_base", "o200k_base", "").model == "gpt-5"
    assert playground_model(registry, "o200k_base", "o200k_base", "gpt-4").model == "gpt-5"  # another tokenizer's
    no_facts = playground_model(registry, "gpt2", "gpt2", "")
    assert no_facts.model is None and no_facts.has_models  # gpt2's models publish nothing
    assert not playground_model(registry, "tokenprism_4k", "tokenprism_4k", "").has_models
    assert playground_model(registry, "nonsense", None, "gpt-4o").model is None


@pytest.mark.parametrize(
    ("typed", "tokens"),
    [
        ("", None),
        ("  ", None),
        ("500", 500),
        ("0", 0),
        ("1,000", 1000),
        (" 16384 ", 16384),
        ("1000000000", 1_000_000_000),
    ],
)
def test_the_reply_field_takes_a_whole_number_of_tokens(typed, tokens):
    assert parse_reply(typed) == tokens


@pytest.mark.parametrize("typed", ["-5", "abc", "1e3", "2.5", "²", "١٢", "1000000001", "<b>9</b>"])
def test_a_reply_field_that_is_no_number_says_what_to_type(typed):
    with pytest.raises(InvalidInput) as caught:
        parse_reply(typed)
    assert repr(typed) in caught.value.message and "whole number from 0 to 1,000,000,000" in caught.value.message


def test_a_budget_is_model_budget_s_answer_and_its_bar_follows_it():
    budget = Budget.of("gpt-4o", 1_000, 500)
    assert budget.figures == model_budget("gpt-4o", 1_000, 500)
    assert budget.exact["input_usd"] == "0.0025" and budget.exact["output_usd"] == "0.005"
    assert budget.total_usd == Decimal("0.0075")
    assert budget.widths() == (0.78, 0.39) and not budget.over
    assert budget.fit_line() == (
        True,
        "prompt + reply = 1,500 of 128,000 tokens; up to 16,384 tokens left for the reply.",
    )
    assert Budget.of("gpt-4o", 1_000).fit_line() == (
        True,
        "127,000 of 128,000 tokens free; up to 16,384 tokens left for the reply.",
    )
    assert Budget.of("gpt-4o", 3).widths()[0] == 0.5  # a few tokens still show


def test_over_the_window_and_over_the_largest_output_are_said_apart():
    over = Budget.of("gpt-4", 9_000)
    assert over.over and over.widths() == (100.0, 0.0)
    assert over.fit_line() == (False, "the prompt alone is over the window of 8,192 tokens.")
    both = Budget.of("gpt-4", 8_000, 1_000)
    assert not both.over and both.widths() == (97.66, 2.34)
    assert both.fit_line() == (False, "prompt + reply = 9,000 tokens, over the window of 8,192.")
    long_reply = Budget.of("gpt-4", 10, 5_000)
    assert long_reply.fit_line() == (False, "a reply of 5,000 tokens is over the largest output, 4,096 tokens here.")


def test_unknown_facts_are_not_guessed():
    llama = Budget.of("llama-3.1-8b", 100, 50)  # a window, no prices, no largest output
    assert llama.known and llama.figures["input_usd"] is None and llama.total_usd is None
    assert llama.fit_line() == (
        None,
        "Whether a reply of 50 tokens fits is unknown: the largest output is not published.",
    )
    unknown = Budget.of("gpt-3.5", 100)  # a model name with no facts row
    assert not unknown.known and unknown.widths() == (0.0, 0.0) and unknown.fit_line() == (None, "")


@dataclass
class FakeColumn:
    name: str
    costs: list = field(default_factory=list)


def test_the_comparison_ranks_priced_columns_cheapest_first_and_keeps_the_others_after(registry):
    asked = ["gpt2", "llama-3.1-8b", "gpt-4", "gpt-4o", "GPT-4O", "gpt-4o-mini"]
    counts = {"gpt2": 40, "llama3": 30, "cl100k_base": 20, "o200k_base": 10}
    lines = cost_lines(registry, asked, counts)
    assert [(line.budget.model, line.tokenizer) for line in lines] == [
        ("llama-3.1-8b", "llama3"),
        ("gpt-4", "cl100k_base"),
        ("gpt-4o", "o200k_base"),
        ("gpt-4o-mini", "o200k_base"),
    ]
    assert lines[2].budget.figures == model_budget("gpt-4o", 10)
    assert [line.budget.model for line in cheapest_first(lines)] == ["gpt-4o-mini", "gpt-4o", "gpt-4", "llama-3.1-8b"]
    columns = rank_columns([FakeColumn(name) for name in counts], lines)
    assert [c.name for c in columns] == ["o200k_base", "cl100k_base", "gpt2", "llama3"]
    assert [line.budget.model for line in columns[0].costs] == ["gpt-4o-mini", "gpt-4o"]  # one column, two lines
    assert columns[2].costs == [] and [line.cost for line in columns[3].costs] == [None]


def test_without_a_model_the_columns_keep_their_order(registry):
    columns = [FakeColumn(name) for name in ("gpt2", "o200k_base", "cl100k_base")]
    assert rank_columns(columns, cost_lines(registry, ["gpt2", "o200k_base", "cl100k_base"], {"gpt2": 1})) == columns
    assert cost_lines(registry, ["gpt-4o"], {"gpt2": 1}) == []  # its column was not counted
