"""Model facts: for a model name, its context window, largest output and prices in USD per
million input, cached-input and output tokens, each row with its source and the date read.

The shipped table is `model_facts.tsv` beside this module, one row per model name, tab
separated, with a header line naming the columns (COLUMNS); an empty cell is a fact the
vendor does not publish (None, never a guess). `get_facts()` is the table the app uses.
Left out here (still to do): a deployer's override file in the data directory, and the
validation that refuses a bad row naming file, line and field.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from pathlib import Path

SHIPPED = Path(__file__).with_name("model_facts.tsv")
COLUMNS = ("model", "context_window", "max_output", "input_usd", "cached_input_usd", "output_usd",
           "source", "read_on")


@dataclass(frozen=True)
class ModelFact:
    model: str
    context_window: int | None  # tokens
    max_output: int | None  # tokens
    input_usd: Decimal | None  # per 1,000,000 tokens
    cached_input_usd: Decimal | None
    output_usd: Decimal | None
    source: str  # URL of what was read
    read_on: str  # ISO date it was read

    def info(self) -> dict:
        """As GET /api/models lists it; prices as strings of their exact decimals."""
        def price(value: Decimal | None) -> str | None:
            return None if value is None else str(value)

        return {"context_window": self.context_window, "max_output": self.max_output,
                "input_usd_per_mtok": price(self.input_usd), "cached_input_usd_per_mtok": price(self.cached_input_usd),
                "output_usd_per_mtok": price(self.output_usd), "source": self.source, "read_on": self.read_on}


class FactsTable:
    def __init__(self, rows: dict[str, ModelFact]):
        self._rows = {name.lower(): fact for name, fact in rows.items()}

    def get(self, model: str) -> ModelFact | None:
        """The facts of a model name (any case), or None when none are known."""
        return self._rows.get(model.lower())

    def rows(self) -> list[ModelFact]:
        return list(self._rows.values())


def _cell(value: str, kind):
    return None if value == "" else kind(value)


def read_table(path: Path) -> dict[str, ModelFact]:
    lines = path.read_text(encoding="utf-8").splitlines()
    rows: dict[str, ModelFact] = {}
    for line in lines[1:]:
        if not line.strip() or line.startswith("#"):
            continue
        cells = dict(zip(COLUMNS, line.split("\t")))
        rows[cells["model"]] = ModelFact(
            cells["model"], _cell(cells["context_window"], int), _cell(cells["max_output"], int),
            _cell(cells["input_usd"], Decimal), _cell(cells["cached_input_usd"], Decimal),
            _cell(cells["output_usd"], Decimal), cells["source"], cells["read_on"])
    return rows


@lru_cache(maxsize=1)
def get_facts() -> FactsTable:
    return FactsTable(read_table(SHIPPED))
