"""Reading a model-facts file (the shipped `model_facts.tsv` or a deployer's override) and
refusing a bad one.

A facts file is UTF-8, tab separated, its first line the header naming COLUMNS in order;
then one row per model name. Blank lines and lines starting with '#' are skipped. Every
problem is a `FactsFileError` whose message names the file, the line and the field, says
what is wrong and how to fix it. Checked: the header; the number of cells; a model name that
`app.tokenizers.models.find` resolves (a '*' only after a prefix rule's name), said once (any
case); whole numbers of tokens and non-negative decimal prices, or empty (not published); a
context window at least the largest output; a source that is an http(s) URL; a read_on date
as YYYY-MM-DD. Bounded: a file over MAX_BYTES or MAX_ROWS rows is refused unread past the bound.
Left out: merging the shipped table with an override, and which table the app uses (facts.py).
"""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal
from pathlib import Path

from app.errors import TokenprismError
from app.pricing.fact import COLUMNS, ModelFact
from app.tokenizers import models

MAX_BYTES = 1_000_000
MAX_ROWS = 10_000
MAX_TOKENS = 1_000_000_000  # a window or output larger than this is a typo, not a model
MAX_PRICE = Decimal(1_000_000)  # USD per 1,000,000 tokens
MAX_MODEL_CHARS = 200

_WHOLE = re.compile(r"[0-9]+")
_DECIMAL = re.compile(r"-?[0-9]+(\.[0-9]+)?")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_URL = re.compile(r"https?://[^\s/]+\S*")
_HEADER_FIX = "the first line must name the columns, tab separated: " + " ".join(COLUMNS)


class FactsFileError(TokenprismError):
    """A model-facts file that cannot be used; the server and the CLI refuse to start with it."""

    code = "model_facts_invalid"
    status = 500


def _shown(cell: str) -> str:
    return repr(cell if len(cell) <= 60 else cell[:57] + "...")


class _Where:
    def __init__(self, path: Path):
        self.path = path

    def fail(self, line: int | None, field: str | None, problem: str) -> FactsFileError:
        at = "".join([f" line {line}" if line else "", f", field {field}" if field else ""])
        return FactsFileError(f"model facts file {self.path}{at}: {problem}")


def read_facts_file(path: Path) -> dict[str, ModelFact]:
    """The rows of the facts file at `path`, by model name as written; FactsFileError if any is bad."""
    where = _Where(path)
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as error:
        raise where.fail(
            None, None, f"cannot be read ({error.strerror or error}); make it a readable file or remove it"
        ) from None
    if len(data) > MAX_BYTES:
        raise where.fail(
            None,
            None,
            f"is over {MAX_BYTES:,} bytes; a facts file holds at most {MAX_ROWS:,} rows "
            "of a few hundred bytes, keep only the rows you change or add",
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        bad_line = data[: error.start].count(b"\n") + 1
        raise where.fail(bad_line, None, "is not UTF-8 text; save the file as UTF-8") from None
    lines = text.removeprefix("\ufeff").splitlines()
    _check_header(where, lines[0] if lines else "")
    rows: dict[str, ModelFact] = {}
    first_line: dict[str, int] = {}  # lower-case model name -> line it is on
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip() or line.startswith("#"):
            continue
        if len(rows) == MAX_ROWS:
            raise where.fail(number, None, f"more than {MAX_ROWS:,} rows; keep only the rows you change or add")
        fact = _row(where, number, line)
        key = fact.model.lower()
        if key in first_line:
            raise where.fail(
                number, "model", f"{_shown(fact.model)} is already on line {first_line[key]}; give each model one row"
            )
        first_line[key] = number
        rows[fact.model] = fact
    return rows


def _check_header(where: _Where, header: str) -> None:
    names = header.split("\t")
    for index, name in enumerate(names):
        if name not in COLUMNS:
            raise where.fail(1, name or f"#{index + 1}", f"unknown column {_shown(name)}; {_HEADER_FIX}")
    if tuple(names) != COLUMNS:
        missing = [name for name in COLUMNS if name not in names]
        problem = f"column {missing[0]} is missing" if missing else "the columns are out of order or repeated"
        raise where.fail(1, None, f"{problem}; {_HEADER_FIX}")


def _row(where: _Where, number: int, line: str) -> ModelFact:
    cells = line.split("\t")
    if len(cells) != len(COLUMNS):
        raise where.fail(
            number,
            None,
            f"has {len(cells)} cells, {len(COLUMNS)} expected (one per column, tab "
            f"separated: {' '.join(COLUMNS)}); leave a cell empty for a fact not published",
        )
    cell = dict(zip(COLUMNS, cells, strict=True))
    model = cell["model"]
    if not model or model != model.strip() or len(model) > MAX_MODEL_CHARS or any(c.isspace() for c in model):
        raise where.fail(
            number,
            "model",
            f"{_shown(model)} is not a model name; give a name such as gpt-4o "
            "(GET /api/models lists them), without spaces",
        )
    if models.bare(model) != model.lower():
        raise where.fail(
            number,
            "model",
            f"{_shown(model)} names a Hub organisation; give the model name without it, as GET /api/models lists it",
        )
    if "*" in model and not any(rule.prefix and rule.label.lower() == model.lower() for rule in models.MODELS):
        raise where.fail(
            number,
            "model",
            f"{_shown(model)} is no prefix rule; name a rule as GET /api/models "
            "lists it, with '*' after its name (gpt-4o-*)",
        )
    if models.find(model) is None:
        raise where.fail(
            number,
            "model",
            f"{_shown(model)} is no model name tokenprism knows, so no count would "
            "ever use it; use a name from GET /api/models, or one that starts like a prefix rule there",
        )
    window = _tokens(where, number, "context_window", cell["context_window"])
    largest = _tokens(where, number, "max_output", cell["max_output"])
    if window is not None and largest is not None and largest > window:
        raise where.fail(
            number,
            "max_output",
            f"{largest:,} is over the context_window {window:,}; the reply "
            "shares the window with the prompt, so check both figures",
        )
    input_usd, cached_input_usd, output_usd = (
        _price(where, number, field, cell[field]) for field in ("input_usd", "cached_input_usd", "output_usd")
    )
    source = cell["source"]
    if not _URL.fullmatch(source):
        problem = "is missing" if not source else f"{_shown(source)} is not an http(s) URL"
        raise where.fail(number, "source", f"{problem}; give the URL of the page the figures were read from")
    read_on = cell["read_on"]
    try:
        if not _DATE.fullmatch(read_on):
            raise ValueError
        date.fromisoformat(read_on)
    except ValueError:
        problem = "is missing" if not read_on else f"{_shown(read_on)} is not a date"
        raise where.fail(number, "read_on", f"{problem}; give the day the source was read as YYYY-MM-DD") from None
    return ModelFact(model, window, largest, input_usd, cached_input_usd, output_usd, source, read_on)


def _tokens(where: _Where, number: int, field: str, value: str) -> int | None:
    if value == "":
        return None
    if not _WHOLE.fullmatch(value) or not 1 <= int(value) <= MAX_TOKENS:
        raise where.fail(
            number,
            field,
            f"{_shown(value)} is not a number of tokens; give a whole number from 1 to "
            f"{MAX_TOKENS:,} without separators, or leave it empty when not published",
        )
    return int(value)


def _price(where: _Where, number: int, field: str, value: str) -> Decimal | None:
    if value == "":
        return None
    if not _DECIMAL.fullmatch(value):
        raise where.fail(
            number,
            field,
            f"{_shown(value)} is not a number; give USD per 1,000,000 tokens as a "
            "decimal such as 2.50 (no $ or separators), or leave it empty when not published",
        )
    price = Decimal(value)
    if price < 0:
        raise where.fail(number, field, f"{_shown(value)} is negative; a price is 0 or more")
    if price > MAX_PRICE:
        raise where.fail(number, field, f"{_shown(value)} is over {MAX_PRICE:,}; give USD per 1,000,000 tokens")
    return price
