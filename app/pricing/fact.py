"""One model's facts (ModelFact) and the columns of a facts file (COLUMNS): the row type that the
facts file reader (facts_file.py) builds and the table (facts.py) holds, apart from both.
Left out: reading a file and choosing the table the app uses.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

COLUMNS = ("model", "context_window", "max_output", "input_usd", "cached_input_usd", "output_usd", "source", "read_on")


@dataclass(frozen=True)
class ModelFact:
    model: str
    context_window: int | None  # tokens
    max_output: int | None  # tokens
    input_usd: Decimal | None  # per 1,000,000 tokens
    cached_input_usd: Decimal | None
    output_usd: Decimal | None
    source: str | None  # URL of what was read (None: no facts, budget's stand-in for an unlisted model)
    read_on: str | None  # ISO date it was read

    def info(self) -> dict:
        """As GET /api/models lists it; prices as strings of their exact decimals."""

        def price(value: Decimal | None) -> str | None:
            return None if value is None else str(value)

        return {
            "context_window": self.context_window,
            "max_output": self.max_output,
            "input_usd_per_mtok": price(self.input_usd),
            "cached_input_usd_per_mtok": price(self.cached_input_usd),
            "output_usd_per_mtok": price(self.output_usd),
            "source": self.source,
            "read_on": self.read_on,
        }
