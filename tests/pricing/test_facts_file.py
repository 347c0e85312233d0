"""A deployer's model-facts file: read over the shipped rows, and every kind of bad file refused
with the file, the line and the field named (facts_file.py)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from app.pricing import facts_file
from app.pricing.facts import COLUMNS, load_facts
from app.pricing.facts_file import FactsFileError

HEADER = "\t".join(COLUMNS)
SOURCE = "https://example.com/pricing"


def row(
    model="gpt-4o",
    window="128000",
    largest="16384",
    price="2.50",
    cached="1.25",
    output="10.00",
    source=SOURCE,
    read_on="2026-11-25",
) -> str:
    return "\t".join([model, window, largest, price, cached, output, source, read_on])


def write(tmp_path, *lines: str, raw: bytes | None = None):
    path = tmp_path / "model_facts.tsv"
    path.write_bytes(raw if raw is not None else ("\n".join(lines) + "\n").encode())
    return path


def test_an_override_replaces_a_price_and_adds_a_row(tmp_path):
    write(
        tmp_path,
        HEADER,
        "# our contract price",
        row(price="2.00"),
        "",
        row(model="gpt-4o-2024-08-06", price="2.25", cached="", output=""),
        row(model="gpt-4.1-*", price="1.00"),
    )
    facts = load_facts(tmp_path)
    assert facts.get("gpt-4o").input_usd == Decimal("2.00") and facts.get("gpt-4o").source == SOURCE
    assert facts.get("gpt-4o-2024-08-06").cached_input_usd is None
    assert facts.get("gpt-4.1").context_window == 1_047_576  # shipped rows the file does not name stay
    assert facts.lookup("gpt-4.1-2025-04-14").input_usd == Decimal("1.00")  # a rule's row: names it covers
    assert facts.lookup("gpt-4.1-mini").input_usd == Decimal("0.40")  # ... that have no row of their own
    assert load_facts(tmp_path / "nothing-here").get("gpt-4o").input_usd == Decimal("2.50")


BAD = [  # (what, lines after the header or None for the header itself, line, field, words in the message)
    ("unknown column", ["model\tcontext_window\tprice"], 1, "price", "unknown column 'price'"),
    ("header not COLUMNS", ["\t".join(reversed(COLUMNS))], 1, None, "out of order"),
    ("a missing column", ["\t".join(COLUMNS[:-1])], 1, None, "column read_on is missing"),
    ("no header", [row()], 1, "gpt-4o", "unknown column"),
    ("too few cells", [HEADER, row(), "gpt-4\t8192"], 3, None, "has 2 cells, 8 expected"),
    ("a number with letters", [HEADER, row(window="128k")], 2, "context_window", "'128k' is not a number of tokens"),
    ("a separator", [HEADER, row(window="128,000")], 2, "context_window", "without separators"),
    ("a price that is no number", [HEADER, row(price="$2.50")], 2, "input_usd", "'$2.50' is not a number"),
    ("NaN", [HEADER, row(output="NaN")], 2, "output_usd", "'NaN' is not a number"),
    ("a negative price", [HEADER, row(cached="-1.25")], 2, "cached_input_usd", "'-1.25' is negative"),
    (
        "window under the output",
        [HEADER, row(window="8192")],
        2,
        "max_output",
        "16,384 is over the context_window 8,192",
    ),
    ("a missing source", [HEADER, row(source="")], 2, "source", "is missing"),
    ("a source that is no URL", [HEADER, row(source="our contract")], 2, "source", "is not an http(s) URL"),
    ("a bad date", [HEADER, row(read_on="2026-13-01")], 2, "read_on", "'2026-13-01' is not a date"),
    ("a date in another shape", [HEADER, row(read_on="25/11/2026")], 2, "read_on", "YYYY-MM-DD"),
    ("a missing date", [HEADER, row(read_on="")], 2, "read_on", "is missing"),
    ("a duplicated model", [HEADER, row(), "# again", row(model="GPT-4o")], 4, "model", "is already on line 2"),
    ("an unknown model", [HEADER, row(model="claude-9")], 2, "model", "no model name tokenprism knows"),
    ("a Hub organisation", [HEADER, row(model="openai/gpt-4o")], 2, "model", "without it"),
    ("a star that is no rule", [HEADER, row(model="gpt-4o-mini*")], 2, "model", "is no prefix rule"),
    ("an empty model", [HEADER, row(model="")], 2, "model", "is not a model name"),
]


@pytest.mark.parametrize("what, lines, line, field, words", BAD, ids=[case[0] for case in BAD])
def test_a_bad_file_is_refused_naming_file_line_and_field(tmp_path, what, lines, line, field, words):
    path = write(tmp_path, *lines)
    with pytest.raises(FactsFileError) as caught:
        load_facts(tmp_path)
    message = caught.value.message
    where = f"model facts file {path} line {line}" + (f", field {field}:" if field else ":")
    assert message.startswith(where), message
    assert words in message, message


def test_not_utf8_names_the_line(tmp_path):
    path = write(tmp_path, raw=(HEADER + "\n" + row()).encode() + b"\n\xff\xfe\n")
    with pytest.raises(FactsFileError, match=f"^model facts file {path} line 3: is not UTF-8 text"):
        load_facts(tmp_path)


def test_a_file_that_is_no_file_is_refused(tmp_path):
    (tmp_path / "model_facts.tsv").mkdir()
    with pytest.raises(FactsFileError, match="cannot be read"):
        load_facts(tmp_path)


def test_a_large_file_is_refused_unread(tmp_path, monkeypatch):
    write(tmp_path, raw=HEADER.encode() + b"\n" + b"#" * facts_file.MAX_BYTES)
    with pytest.raises(FactsFileError, match=r"is over 1,000,000 bytes"):
        load_facts(tmp_path)
    monkeypatch.setattr(facts_file, "MAX_ROWS", 3)  # 10,000 rows fit in 1 MB only when tiny: the bound is tried small
    path = write(tmp_path, HEADER, *(row(model=name) for name in ("gpt-4o", "gpt-4", "o3", "o1")))
    with pytest.raises(FactsFileError, match=r"line 5: more than 3 rows"):
        facts_file.read_facts_file(path)
