"""Model facts the budget tests set themselves (the shipped table is filled elsewhere and may change):
a TSV in model_facts.tsv's shape, and how to make the app read it, in this process or in a child.

Prices such as 0.075 are chosen because a float gets them wrong (3 x 0.075 = 0.22499999999999998).
"""

from __future__ import annotations

import os
from decimal import Decimal
from pathlib import Path

from app.pricing import facts

HOOKS = Path(__file__).resolve().parent.parent / "hooks"  # sitecustomize.py reads TOKENPRISM_TEST_FACTS
SOURCE = "https://example.com/pricing"
READ_ON = "2025-06-01"
# model -> (context window, largest output, input, cached input, output per million tokens); "" is not published
ROWS = {
    "gpt-4o": ("128000", "16384", "2.50", "1.25", "10.00"),
    "gpt-4o-mini": ("128000", "16384", "0.15", "0.075", "0.60"),
    "gpt-4.1": ("1047576", "32768", "2.00", "0.50", "8.00"),
    "gpt-4": ("8192", "8192", "30.00", "", "60.00"),  # a small window; no cached-input price
    "llama-3.1-8b-instruct": ("131072", "", "", "", ""),  # open models: a window, no prices
    "mistral-7b-instruct-v0.3": ("32768", "", "", "", ""),
}


def write_facts(path: Path, rows: dict = ROWS) -> Path:
    lines = ["\t".join(facts.COLUMNS)]
    lines += ["\t".join([model, *cells, SOURCE, READ_ON]) for model, cells in rows.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def price(model: str, column: int) -> Decimal:
    """A price of ROWS as the exact Decimal (column 2: input, 3: cached input, 4: output)."""
    return Decimal(ROWS[model][column])


def facts_env(path: Path) -> dict:
    """What a child process (a server, the CLI) adds to its environment to read the facts at `path`."""
    return {
        "PYTHONPATH": os.pathsep.join(filter(None, [str(HOOKS), os.environ.get("PYTHONPATH")])),
        "TOKENPRISM_TEST_FACTS": str(path),
    }
