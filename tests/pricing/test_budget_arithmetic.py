"""app/pricing/budget.py and money.py: the budget's arithmetic to the cent and past it, against sums
worked by hand in Decimal; unknown facts; over the window; the money shown to people."""

from __future__ import annotations

from decimal import Decimal

import pytest

from app.pricing import budget as budgets
from app.pricing.budget import as_json, budget, cost, model_budget
from app.pricing.facts import ModelFact
from app.pricing.money import percent, usd

MADE_UP = ModelFact(
    "made-up-1",
    10_000,
    2_000,
    Decimal("2.50"),
    Decimal("0.075"),
    Decimal("10.00"),
    "https://example.com/made-up",
    "2025-06-01",
)
FIELDS = [
    "model",
    "context_window",
    "used",
    "share",
    "fits",
    "room",
    "input_usd",
    "cached_input_usd",
    "output_usd_per_1k",
    "prices_as_of",
    "source",
    "note",
]


def test_the_fields_and_the_sums_to_the_cent():
    result = budget(MADE_UP, 3)
    assert list(result) == FIELDS
    # 3 x 2.50 / 1,000,000 and 3 x 0.075 / 1,000,000, by hand
    assert result["input_usd"] == Decimal("0.0000075")
    assert result["cached_input_usd"] == Decimal("0.000000225")
    assert Decimal(3 * 0.075) != Decimal("0.225")  # a float would be off here already
    assert result["output_usd_per_1k"] == Decimal("0.01")  # 1,000 x 10.00 / 1,000,000
    assert (result["model"], result["context_window"], result["used"]) == ("made-up-1", 10_000, 3)
    assert result["share"] == 3 / 10_000 and result["fits"] is True
    assert result["room"] == 2_000  # 9,997 left, capped by the largest output
    assert (result["prices_as_of"], result["source"], result["note"]) == (
        "2025-06-01",
        "https://example.com/made-up",
        None,
    )


def test_large_counts_stay_exact():
    assert cost(123_456_789, Decimal("0.075")) == Decimal("9.259259175")
    assert cost(1_000_000, Decimal("2.50")) == Decimal("2.5")
    assert cost(0, Decimal("2.50")) == 0
    assert as_json({"x": cost(7, Decimal("2.50")), "y": cost(40_000_000, Decimal("0.075"))}) == {
        "x": "0.0000175",
        "y": "3",
    }


def test_the_json_writes_exact_decimal_strings_never_exponents():
    written = as_json(budget(MADE_UP, 1, reply_tokens=1))
    assert written["input_usd"] == "0.0000025" and written["cached_input_usd"] == "0.000000075"
    assert written["output_usd"] == "0.00001" and written["output_usd_per_1k"] == "0.01"
    assert all(not isinstance(value, Decimal) for value in written.values())


def test_a_reply_is_priced_and_counted_in_fits():
    result = budget(MADE_UP, 8_000, reply_tokens=1_500)
    assert result["reply_tokens"] == 1_500 and result["output_usd"] == Decimal("0.015")
    assert result["fits"] is True and result["room"] == 2_000
    assert budget(MADE_UP, 8_001, reply_tokens=2_000)["fits"] is False  # 10,001 > the window
    assert budget(MADE_UP, 10, reply_tokens=2_001)["fits"] is False  # over the largest output
    assert budget(MADE_UP, 8_000, reply_tokens=0)["output_usd"] == 0


def test_over_the_window():
    result = budget(MADE_UP, 12_500)
    assert result["fits"] is False and result["room"] == 0 and result["share"] == 1.25
    assert result["input_usd"] == Decimal("0.03125")  # still priced: it is what was sent
    edge = budget(MADE_UP, 10_000)
    assert edge["fits"] is True and edge["room"] == 0 and edge["share"] == 1


def test_no_facts_is_null_never_a_guess():
    result = budget(None, 42, reply_tokens=10, model="o3")
    assert result["model"] == "o3" and result["used"] == 42 and result["reply_tokens"] == 10
    for field in (
        "context_window",
        "share",
        "fits",
        "room",
        "input_usd",
        "cached_input_usd",
        "output_usd_per_1k",
        "prices_as_of",
        "source",
        "output_usd",
    ):
        assert result[field] is None, field
    assert "no facts" in result["note"] and "GET /api/models" in result["note"]


def test_facts_not_published_leave_their_fields_null_with_a_note():
    window_only = ModelFact("open-1", 8_192, None, None, None, None, "https://example.com/open", "2025-06-01")
    result = budget(window_only, 100)
    assert result["fits"] is True and result["share"] == 100 / 8_192
    assert result["room"] is None  # the largest output is unknown: no cap is guessed
    assert result["input_usd"] is None and result["output_usd_per_1k"] is None
    assert "largest output" in result["note"] and "input price" in result["note"]
    assert budget(window_only, 9_000)["room"] == 0  # nothing is left, whatever the largest output
    assert budget(window_only, 100, reply_tokens=50)["fits"] is None  # the reply's cap is unknown
    assert budget(window_only, 8_000, reply_tokens=500)["fits"] is False  # over the window anyway


def test_model_budget_looks_up_exact_names_only(priced):
    assert model_budget("GPT-4o", 4)["input_usd"] == Decimal("0.00001")  # 4 x 2.50 / 1,000,000; any case
    assert model_budget("gpt-4o-mini", 3)["cached_input_usd"] == Decimal("0.000000225")  # its own row, not gpt-4o's
    dated = model_budget("gpt-4o-2024-08-06", 4)  # a gpt-4o-* name with no row of its own
    assert dated["input_usd"] is None and dated["model"] == "gpt-4o-2024-08-06" and dated["note"]
    hub = model_budget("meta-llama/Llama-3.1-8B-Instruct", 10)
    assert hub["context_window"] == 131_072 and hub["model"] == "meta-llama/Llama-3.1-8B-Instruct"
    assert budgets.find_fact("o3") is None


@pytest.mark.parametrize(
    "amount, shown",
    [
        ("0.0001234", "$0.000123"),
        ("0.0123", "$0.0123"),
        ("0.005", "$0.005"),
        ("0", "$0.00"),
        ("17.5", "$17.50"),
        ("1234.567", "$1,234.57"),
        ("0.000000225", "$0.000000225"),
        ("0.9999", "$1.00"),
        ("0.00012350", "$0.000124"),
    ],
)
def test_money_is_shown_to_a_cent_fraction_that_makes_sense(amount, shown):
    assert usd(Decimal(amount)) == shown


def test_unknowns_and_shares_are_shown():
    assert usd(None) == "-" and percent(None) == "-"
    assert (
        percent(0.00001) == "<0.1%" and percent(0.875) == "87.5%" and percent(1.25) == "125.0%" and percent(0) == "0.0%"
    )
