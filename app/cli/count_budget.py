"""`tokenprism count --model NAME`: what the counted text costs as a prompt to each model, and its
share of the model's context window.

Each --model adds its tokenizer to the count (the model decides the tokenizer) and, per file
(the one-row-per-file table), two columns: the input cost and the share of the context window
("over" past the window);
for a dataset, one row per model with the tokens and the total input (and cached-input) cost.
Sums are exact (app/pricing/budget.py) and shown rounded by the one money formatter
(app/pricing/money.py); --json carries the exact decimal strings. A model with no facts shows
"-" and its note. Left out: output costs (a count has no reply).
"""

from __future__ import annotations

from collections.abc import Sequence

from app.cli.io import CliError
from app.pricing.budget import as_json, model_budget
from app.pricing.money import percent, usd
from app.tokenizers import models as model_names
from app.tokenizers.registry import Registry

Asked = Sequence[tuple[str, str]]  # (model name as given, its canonical tokenizer)


def models_asked(names: list[str] | None, registry: Registry) -> Asked:
    """Each --model once (any case), with its tokenizer; a name that is no model's is a CliError."""
    asked: dict[str, tuple[str, str]] = {}
    for name in names or []:
        if model_names.find(name) is None:
            hint = f"; {name} is a tokenizer: give it with -t" if registry.has(name) else ""
            raise CliError(
                f"unknown model {name!r}: --model takes a model name such as gpt-4o (GET /api/models lists them){hint}"
            )
        asked.setdefault(model_names.bare(name), (name, registry.resolve(name)))
    return list(asked.values())


def tokenizers_with(tokenizers: list[str] | None, asked: Asked) -> list[str]:
    """The -t names, then the models' tokenizers; cl100k_base only when neither is given."""
    names = [*(tokenizers or []), *(tokenizer for _, tokenizer in asked)]
    return names or ["cl100k_base"]


def budgets(asked: Asked, tokens: dict[str, int]) -> list[dict]:
    """The budget of each model for its tokenizer's count in `tokens` (canonical name -> tokens)."""
    return [model_budget(model, tokens[tokenizer]) for model, tokenizer in asked]


def columns(asked: Asked) -> list[str]:
    return [title for model, _ in asked for title in (f"{model} INPUT", f"{model} CONTEXT")]


def cells(asked: Asked, tokens: dict[str, int]) -> list[str]:
    """A row's cost and context share under each model (the order of `columns`)."""
    return [
        cell
        for b in budgets(asked, tokens)
        for cell in (usd(b["input_usd"]), percent(b["share"]) + (" over" if b["fits"] is False else ""))
    ]


def model_rows(asked: Asked, tokens: dict[str, int]) -> tuple[list[str], list[list[str]]]:
    """A dataset's table: per model its tokenizer, tokens and total input and cached-input cost."""
    rows = [
        [b["model"], tokenizer, f"{b['used']:,}", usd(b["input_usd"]), usd(b["cached_input_usd"])]
        for b, (_, tokenizer) in zip(budgets(asked, tokens), asked, strict=True)
    ]
    return ["MODEL", "TOKENIZER", "TOKENS", "INPUT COST", "CACHED INPUT"], rows


def notes(asked: Asked, tokens: dict[str, int]) -> list[str]:
    """Why some costs show "-": the budgets' notes, once each."""
    return [b["note"] for b in budgets(asked, tokens) if b["note"]]


def as_report(asked: Asked, tokens: dict[str, int]) -> list[dict]:
    """For --json: each model's budget of the whole count, sums as exact decimal strings."""
    return [
        {**as_json(b), "tokenizer": tokenizer} for b, (_, tokenizer) in zip(budgets(asked, tokens), asked, strict=True)
    ]
