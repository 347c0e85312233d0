"""A count's budget under one model: does the prompt fit its context, and what does it cost.

`budget(fact, used, reply_tokens)` is pure arithmetic on a `ModelFact` (facts.py): money is
`decimal.Decimal`, exact (tokens x price per million, shifted six places; never a float),
and `as_json` writes each sum as its exact decimal string ("0.0000175"), for the API.
`share` is a ratio, not money: a JSON number. A fact the vendor does not publish leaves
the fields that need it null, and a model with no facts at all gets null fields and a
`note`; nothing is guessed. `model_budget(name, ...)` looks the facts up by model name.

What `fits` and `room` mean:
- `fits`: the prompt (`used`) plus the reply asked for (`reply_tokens`, 0 when not asked)
  fit in the context window, and that reply is within the largest output. null when a fact
  it needs is unknown (the window; the largest output when a reply is asked).
- `room`: tokens left for the reply, `min(window - used, largest output)`, never below 0;
  null when unknown (0 whenever the prompt fills the window, known or not the largest output).
Left out: rounding for display (money.py) and the models' names (app/tokenizers/models.py).
"""

from __future__ import annotations

from decimal import Decimal, localcontext

from app.pricing.facts import ModelFact, get_facts

MILLION_PLACES = -6  # prices are per 1,000,000 tokens
REPLY_1K = 1_000  # output_usd_per_1k prices a reply of this many tokens
MONEY_FIELDS = ("input_usd", "cached_input_usd", "output_usd_per_1k", "output_usd")


def cost(tokens: int, per_million: Decimal | None) -> Decimal | None:
    """`tokens` x `per_million` / 1,000,000, exact; None when the price is unknown."""
    if per_million is None:
        return None
    with localcontext() as context:
        context.prec = 60  # far more digits than any count times any price: no rounding happens
        return (per_million * tokens).scaleb(MILLION_PLACES).normalize()


def budget(fact: ModelFact | None, used: int, reply_tokens: int | None = None, *, model: str | None = None) -> dict:
    """The budget of a prompt of `used` tokens (and, when given, a reply of `reply_tokens`) under
    `fact`; `model` names it when there is no fact. Keys: the issue's fields, `note`, and with
    `reply_tokens` also `reply_tokens` and `output_usd`."""
    fact = fact or ModelFact(model or "", None, None, None, None, None, None, None)
    window, largest = fact.context_window, fact.max_output
    reply = reply_tokens or 0
    room = None
    if window is not None:
        left = max(window - used, 0)
        room = min(left, largest) if largest is not None else (0 if left == 0 else None)
    fits = None
    if window is not None:
        if used + reply > window or (largest is not None and reply > largest):
            fits = False
        elif reply == 0 or largest is not None:
            fits = True
    result = {
        "model": model or fact.model,
        "context_window": window,
        "used": used,
        "share": None if not window else used / window,
        "fits": fits,
        "room": room,
        "input_usd": cost(used, fact.input_usd),
        "cached_input_usd": cost(used, fact.cached_input_usd),
        "output_usd_per_1k": cost(REPLY_1K, fact.output_usd),
        "prices_as_of": fact.read_on or None,
        "source": fact.source or None,
        "note": _note(fact, model or fact.model),
    }
    if reply_tokens is not None:
        result["reply_tokens"] = reply_tokens
        result["output_usd"] = cost(reply_tokens, fact.output_usd)
    return result


def _note(fact: ModelFact, name: str) -> str | None:
    if fact.source is None:
        return (
            f"no facts are listed for model {name}: its context window and prices are unknown here "
            "(GET /api/models lists the models that have them); the token count is exact"
        )
    missing = [
        label
        for label, value in (
            ("context window", fact.context_window),
            ("largest output", fact.max_output),
            ("input price", fact.input_usd),
            ("cached-input price", fact.cached_input_usd),
            ("output price", fact.output_usd),
        )
        if value is None
    ]
    return f"not published for {name}: {', '.join(missing)}" if missing else None


def find_fact(name: str) -> ModelFact | None:
    """The facts of model `name` by the table's one rule (FactsTable.lookup): its own row (any case,
    after a Hub organisation), else a row naming its prefix rule ("gpt-4o-*"), else None; never
    another model's row (gpt-4o-mini is not priced as gpt-4o)."""
    return get_facts().lookup(name)


def model_budget(name: str, used: int, reply_tokens: int | None = None) -> dict:
    """`budget` for model `name` by its facts, named as asked."""
    return budget(find_fact(name), used, reply_tokens, model=name)


def as_json(result: dict) -> dict:
    """`result` with each sum as its exact decimal string ("0.0000175", never "1.75E-5")."""
    return {key: (format(value, "f") if isinstance(value, Decimal) else value) for key, value in result.items()}
