"""Model facts: for a model name, its context window, largest output and prices in USD per
million input, cached-input and output tokens, each row with its source and the date read.

The shipped table is `model_facts.tsv` beside this module, one row per model name, tab
separated, with a header line naming the columns (COLUMNS); an empty cell is a fact the
vendor does not publish (None, never a guess). A deployer's file of the same shape,
`<data_dir>/model_facts.tsv`, replaces the shipped rows of the models it names and adds the
others. Both are read and checked once at start (`install_facts`, called by create_app and
`tokenprism serve`; facts_file.py refuses a bad row naming file, line and field); after that
`get_facts()` is the table the app uses, everywhere. Changing a file takes a restart.
Left out: the budget of a count (what a prompt costs under these facts).
"""

from __future__ import annotations

from pathlib import Path

from app.pricing.fact import COLUMNS, ModelFact
from app.pricing.facts_file import read_facts_file
from app.tokenizers import models

__all__ = ["COLUMNS", "FactsTable", "ModelFact", "get_facts", "install_facts", "load_facts"]

SHIPPED = Path(__file__).with_name("model_facts.tsv")
OVERRIDE_NAME = "model_facts.tsv"  # in the data directory


class FactsTable:
    def __init__(self, rows: dict[str, ModelFact]):
        self._rows = {name.lower(): fact for name, fact in rows.items()}

    def get(self, model: str) -> ModelFact | None:
        """The facts of a model name (any case), or None when none are known."""
        return self._rows.get(model.lower())

    def lookup(self, name: str) -> ModelFact | None:
        """The facts for a name as a request gives it: its own row (after a known Hub organisation), else the
        row naming the prefix rule that `models.find` picks for it ("gpt-4o-*"), else None."""
        bare = models.bare(name)
        fact = self._rows.get(bare)
        if fact is not None:
            return fact
        model = models.find(bare)
        return self._rows.get(model.label.lower()) if model is not None and model.prefix else None

    def rows(self) -> list[ModelFact]:
        return list(self._rows.values())


def load_facts(data_dir: Path | None) -> FactsTable:
    """The shipped rows with `<data_dir>/model_facts.tsv`'s over them (when that file exists).
    FactsFileError (a TokenprismError) names the file, line and field of a bad row."""
    rows = {name.lower(): fact for name, fact in read_facts_file(SHIPPED).items()}
    override = None if data_dir is None else data_dir / OVERRIDE_NAME
    if override is not None and (override.exists() or override.is_symlink()):
        rows.update({name.lower(): fact for name, fact in read_facts_file(override).items()})
    return FactsTable(rows)


_installed: FactsTable | None = None


def install_facts(data_dir: Path | None) -> FactsTable:
    """Read and check the facts for `data_dir` and make them what `get_facts()` answers."""
    global _installed
    _installed = load_facts(data_dir)
    return _installed


def get_facts() -> FactsTable:
    """The table installed at start; when nothing installed one yet (a CLI command, a test), the one for
    the configured data directory."""
    if _installed is None:
        from app.settings import get_settings

        return install_facts(get_settings().data_dir)
    return _installed
