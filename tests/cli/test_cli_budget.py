"""`tokenprism count --model`, run as a process with model facts the test sets (tests/pricing/facts_rows.py):
the cost and context columns per file, the total under each model for a dataset, --json's exact sums,
a model without facts, and the refusal of a name that is no model's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from tests.pricing.facts_rows import facts_env, price, write_facts

ROOT = Path(__file__).resolve().parents[2]
SHORT = "Hello world, what will this cost?\n"  # 8 tokens with o200k_base and with cl100k_base
LONG = "budget " * 9_000  # past gpt-4's 8,192 in these facts


@pytest.fixture()
def cli(tmp_path):
    env = {
        **os.environ,
        **facts_env(write_facts(tmp_path / "facts.tsv")),
        "TOKENPRISM_DATA_DIR": str(tmp_path / "data"),
    }

    def run(*args: str) -> subprocess.CompletedProcess:
        # the module of this checkout, as a user's `tokenprism` runs it (the console script would import the
        # editable install's)
        return subprocess.run(
            [sys.executable, "-m", "app.cli", "count", *args],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
            timeout=120,
        )

    return run


@pytest.fixture()
def files(tmp_path) -> list[Path]:
    (tmp_path / "in").mkdir()
    short, long = tmp_path / "in" / "short.txt", tmp_path / "in" / "long.txt"
    short.write_text(SHORT, encoding="utf-8")
    long.write_text(LONG, encoding="utf-8")
    return [short, long]


def table(stdout: str) -> dict[str, list[str]]:
    """The first table's rows by their first cell (cells are separated by two or more spaces)."""
    import re

    lines = stdout.split("\n\n")[0].splitlines()
    return {cells[0]: cells for cells in (re.split(r"\s{2,}", line.strip()) for line in lines)}


def test_files_get_cost_and_context_columns(cli, files):
    result = cli("--model", "gpt-4o", "--model", "gpt-4", "-t", "gpt2", *map(str, files))
    assert result.returncode == 0, result.stderr
    rows = table(result.stdout)
    assert rows["FILE"] == [
        "FILE",
        "gpt2",
        "o200k_base",
        "cl100k_base",
        "gpt-4o INPUT",
        "gpt-4o CONTEXT",
        "gpt-4 INPUT",
        "gpt-4 CONTEXT",
    ]
    short = rows[str(files[0])]
    assert short[2:4] == ["8", "8"]
    assert short[4:] == ["$0.00002", "<0.1%", "$0.00024", "<0.1%"]  # 8 x 2.50 / 1e6; 8 x 30.00 / 1e6
    long = rows[str(files[1])]
    tokens = int(long[3].replace(",", ""))
    assert tokens > 8_192 and long[7] == f"{tokens / 8_192:.1%} over"
    total = rows["TOTAL"]
    assert total[4] == "$0.0225"  # (8 + 9,001) x 2.50 / 1e6 = 0.0225225, shown to three significant digits
    assert "note: not published for gpt-4: cached-input price" in result.stdout


def test_json_carries_the_exact_sums(cli, files):
    result = cli("--model", "gpt-4o-mini", "--json", *map(str, files))
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["tokenizers"] == ["o200k_base"]  # the model decides the tokenizer
    [budget] = report["models"]
    tokens = report["total"]["o200k_base"]
    assert budget["used"] == tokens and budget["tokenizer"] == "o200k_base"
    assert Decimal(budget["cached_input_usd"]) == tokens * price("gpt-4o-mini", 3) / 1_000_000
    assert budget["cached_input_usd"] == format(tokens * Decimal("0.075") / 1_000_000, "f").rstrip("0")


def test_a_dataset_gets_the_total_under_each_model(cli, files, tmp_path):
    records = tmp_path / "in" / "docs.jsonl"
    records.write_text(json.dumps({"text": SHORT}) + "\n" + json.dumps({"text": SHORT}) + "\n", encoding="utf-8")
    result = cli("--model", "gpt-4.1", "--model", "o3", "--model", "gpt-4", str(tmp_path / "in"))
    assert result.returncode == 0, result.stderr
    models = {
        line.split()[0]: line.split()
        for line in result.stdout.splitlines()
        if line.split() and line.split()[0] in ("gpt-4.1", "o3", "gpt-4")
    }
    o200k = int(models["gpt-4.1"][2].replace(",", ""))
    assert o200k == 9_001 + 3 * 8
    assert models["gpt-4.1"][3:] == ["$0.0181", "$0.00451"]  # 9,025 x 2.00 / 1e6 = 0.01805; x 0.50 = 0.0045125
    assert models["o3"][3:] == ["-", "-"] and "no facts are listed for model o3" in result.stdout
    assert models["gpt-4"][1] == "cl100k_base" and models["gpt-4"][4] == "-"


def test_a_name_that_is_no_model_is_refused(cli, files):
    result = cli("--model", "cl100k_base", str(files[0]))
    assert result.returncode == 2 and result.stdout == ""
    assert "unknown model 'cl100k_base'" in result.stderr and "-t" in result.stderr
    assert cli("--model", "gpt-99-ultra", str(files[0])).returncode == 2


def test_a_chat_prompt_is_priced(cli, tmp_path):
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([{"role": "user", "content": "hi there"}]), encoding="utf-8")
    result = cli("--messages", str(chat), "--model", "gpt-4o", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    tokens = report["o200k_base"]["prompt_tokens"]
    assert report["models"][0]["used"] == tokens
    assert Decimal(report["models"][0]["input_usd"]) == tokens * Decimal("2.50") / 1_000_000
