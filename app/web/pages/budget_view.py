"""The budget on the pages: which model the playground prices and the reply length it is given,
and the comparison's costs and ranking. Every figure is app/pricing/budget.py's `model_budget`,
the function the API answers with (one source); this module picks the model, reads the reply
field, draws the bar's widths and orders the comparison. Rounding is the templates' (`usd`,
`percent`); the exact sums ride along in data attributes.

The playground prices the model the user named (`?tokenizer=gpt-4o`); otherwise one of the
models that use the tokenizer and have facts (`priced_models`, in the facts table's order),
chosen in a small select (`budget` in the address, left out when it is the first). The reply
field (`reply`) is a whole number of tokens or empty; anything else is an InvalidInput shown by
the field (the page answers 422 and still draws the tokens).

The comparison prices the model names among its `tokenizers`, each under the count of its
tokenizer's column. Two models of one tokenizer share that column, one cost line each: their
tokens are the same, so a second column would repeat them and spend a place of max_compare.
When a model was asked, the columns with a price come first, cheapest first, and the others
keep their order after them. Left out: a reply length on the comparison.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from app.errors import InvalidInput, excerpt
from app.pricing.budget import as_json, find_fact, model_budget
from app.pricing.facts import ModelFact, get_facts
from app.tokenizers import models
from app.tokenizers.registry import Registry
from app.web.markup.number import num
from app.web.pages.common import canonical, model_named
from app.web.schemas.budget import MAX_REPLY_TOKENS

MIN_VISIBLE = 0.5  # percent: a prompt of a few tokens still shows on the bar (its text gives the share)


@dataclass
class Budget:
    """One model's budget for `used` tokens, as `model_budget` answers it (`figures`, exact Decimals)."""

    model: str
    figures: dict
    fact: ModelFact | None  # the row the figures come from, for the facts panel

    @classmethod
    def of(cls, model: str, used: int, reply_tokens: int | None = None) -> Budget:
        return cls(model, model_budget(model, used, reply_tokens), find_fact(model))

    @property
    def exact(self) -> dict:
        """The figures as the API writes them (each sum its exact decimal string), for data attributes."""
        return as_json(self.figures)

    @property
    def known(self) -> bool:
        """Whether any facts are listed for the model (a source is given for every row)."""
        return self.figures["source"] is not None

    @property
    def over(self) -> bool:
        """The prompt alone is larger than the context window."""
        window = self.figures["context_window"]
        return window is not None and self.figures["used"] > window

    def widths(self) -> tuple[float, float]:
        """The bar's two parts in percent of the window: the prompt, and the reply asked for after it."""
        window = self.figures["context_window"]
        if not window:
            return 0.0, 0.0
        used = min(100.0, 100 * self.figures["used"] / window)
        used = max(used, MIN_VISIBLE) if self.figures["used"] else used
        reply = min(100.0 - used, 100 * (self.figures.get("reply_tokens") or 0) / window)
        return round(used, 2), round(reply, 2)

    def fit_line(self) -> tuple[bool | None, str]:
        """Whether prompt (+ the reply asked for) fit, and the sentence that says so ("" when the window is unknown)."""
        f = self.figures
        fits, window, used, reply, room = f["fits"], f["context_window"], f["used"], f.get("reply_tokens"), f["room"]
        if window is None:
            return None, ""
        if fits is None:
            return (
                None,
                f"Whether a reply of {num(reply or 0)} tokens fits is unknown: the largest output is not published.",
            )
        if not fits:
            if used > window:
                return False, f"the prompt alone is over the window of {num(window)} tokens."
            if used + (reply or 0) > window:
                return False, f"prompt + reply = {num(used + (reply or 0))} tokens, over the window of {num(window)}."
            return (
                False,
                f"a reply of {num(reply or 0)} tokens is over the largest output, {num(room or 0)} tokens here.",
            )
        left = "" if room is None else f"; up to {num(room)} tokens left for the reply"
        if reply is None:
            return True, f"{num(window - used)} of {num(window)} tokens free{left}."
        return True, f"prompt + reply = {num(used + reply)} of {num(window)} tokens{left}."

    @property
    def total_usd(self) -> Decimal | None:
        """The prompt as input plus the reply asked for, exact; None when either is unknown or no reply was asked."""
        inp, out = self.figures["input_usd"], self.figures.get("output_usd")
        return None if inp is None or out is None else inp + out


def parse_reply(raw: str) -> int | None:
    """The reply field: empty is None (no reply priced); a whole number of tokens within the API's bound."""
    value = raw.strip().replace(",", "").replace("_", "")
    if not value:
        return None
    if not value.isascii() or not value.isdigit() or int(value) > MAX_REPLY_TOKENS:
        raise InvalidInput(
            f"reply length {excerpt(raw)} is not a number of tokens; type a whole number from 0 to "
            f"{MAX_REPLY_TOKENS:,}, or leave the field empty to price only the prompt"
        )
    return int(value)


def priced_models(registry: Registry, tokenizer: str) -> list[str]:
    """The model names with facts whose tokenizer is `tokenizer` (canonical), in the facts table's order."""
    names = []
    for fact in get_facts().rows():
        model = models.find(fact.model)
        if "*" not in fact.model and model is not None and canonical(registry, model.tokenizer) == tokenizer:
            names.append(fact.model)
    return names


@dataclass
class PlaygroundBudget:
    """What the playground prices: `model` (None: nothing to price), whether the user `named` it,
    the select's `options` when not, and whether the tokenizer is any model's at all."""

    model: str | None
    named: bool
    options: list[str]
    has_models: bool

    @property
    def default(self) -> str:
        return self.options[0] if self.options else ""


def playground_model(registry: Registry, asked: str, chosen: str | None, wanted: str) -> PlaygroundBudget:
    """The model for the tokenizer name `asked` (canonical `chosen`) and the select's value `wanted`."""
    if chosen is None:
        return PlaygroundBudget(None, False, [], False)
    if model_named(registry, asked) is not None:
        return PlaygroundBudget(asked, True, [], True)
    options = priced_models(registry, chosen)
    lowered = {name.lower(): name for name in options}
    model = lowered.get(wanted.lower()) or (options[0] if options else None)
    return PlaygroundBudget(model, False, options, bool(models.models_for(chosen)))


@dataclass
class CostLine:
    """One model asked on the comparison, priced under its tokenizer's column."""

    tokenizer: str
    budget: Budget

    @property
    def cost(self) -> Decimal | None:
        return self.budget.figures["input_usd"]


def cost_lines(registry: Registry, asked: list[str], counts: dict[str, int]) -> list[CostLine]:
    """A line per model name among `asked` (each once, any case) whose tokenizer's column was
    counted (`counts`: canonical name -> tokens), in the order asked."""
    lines, seen = [], set()
    for name in asked:
        if model_named(registry, name) is None or models.bare(name) in seen:
            continue
        tokenizer = canonical(registry, name)
        if tokenizer in counts:
            seen.add(models.bare(name))
            lines.append(CostLine(tokenizer, Budget.of(name, counts[tokenizer])))
    return lines


def _known(cost: Decimal | None) -> Decimal:
    assert cost is not None  # only the priced are sorted by cost
    return cost


def cheapest_first(lines: list[CostLine]) -> list[CostLine]:
    """The lines by input cost for the text, cheapest first; those without a price after, in their order."""
    priced = sorted((line for line in lines if line.cost is not None), key=lambda line: _known(line.cost))
    return priced + [line for line in lines if line.cost is None]


def rank_columns(columns: list, lines: list[CostLine]) -> list:
    """`columns` (each with a `name` and a `costs` list, filled here) with the priced ones first,
    cheapest first; the others after, in their order. Unchanged when no model was asked."""
    for column in columns:
        column.costs = cheapest_first([line for line in lines if line.tokenizer == column.name])
    if not lines:
        return columns

    def cost(column) -> Decimal | None:
        return column.costs[0].cost if column.costs else None

    priced = sorted((c for c in columns if cost(c) is not None), key=lambda c: _known(cost(c)))
    return priced + [c for c in columns if cost(c) is None]
