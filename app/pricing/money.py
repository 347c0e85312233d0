"""Showing an exact amount of dollars to a person: `usd(Decimal("0.0001234"))` -> "$0.000123".

The one money formatter (the CLI's columns, and the pages' when they show costs): at least
cents, and below that as many places as three significant digits need, so a prompt that costs
a fraction of a cent does not read "$0.00". Rounding is half up, for display only; the sums
themselves stay exact (budget.py). `percent` shows a context share the same way everywhere.
Left out: other currencies.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

SIGNIFICANT = 3


def usd(amount: Decimal | None, unknown: str = "-") -> str:
    """ "$1,234.57", "$0.0123", "$0.000123", "$0.005", "$0.00"; `unknown` for None."""
    if amount is None:
        return unknown
    places = 2
    if amount and abs(amount) < 1:
        places = max(places, SIGNIFICANT - 1 - abs(amount).adjusted())
    rounded = amount.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    exponent = rounded.normalize().as_tuple().exponent
    assert isinstance(exponent, int)  # finite: a NaN or infinite amount has raised above
    places = max(2, -exponent)  # "$0.005", not "$0.00500"
    return f"{'-' if rounded < 0 else ''}${abs(rounded):,.{places}f}"


def percent(share: float | None, unknown: str = "-") -> str:
    """A context share: "0.1%", "87.5%", "112.0%"; below 0.1% as "<0.1%" (not "0.0%"); `unknown` for None."""
    if share is None:
        return unknown
    if 0 < share < 0.001:
        return "<0.1%"
    return f"{share:.1%}"
