"""The pricing tests' fixture: this process reads facts_rows.ROWS as the model facts table."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.pricing import facts
from tests.pricing.facts_rows import write_facts


@pytest.fixture
def priced(tmp_path, monkeypatch) -> Path:
    """This process reads ROWS as the facts table for the test."""
    monkeypatch.setattr(facts, "SHIPPED", write_facts(tmp_path / "model_facts.tsv"))
    monkeypatch.setattr(facts, "_installed", facts.load_facts(None))
    yield facts.SHIPPED
