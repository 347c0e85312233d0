"""`tokenprism count --by script` as a user runs it (a subprocess): the table and --json."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def count(tmp_path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "TOKENPRISM_DATA_DIR": str(tmp_path / "data")}
    return subprocess.run(
        [sys.executable, "-m", "app.cli", "count", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )


def corpus(tmp_path) -> list[str]:
    (tmp_path / "ko.txt").write_text("안녕하세요 hello world", encoding="utf-8")
    (tmp_path / "docs.jsonl").write_text(json.dumps({"text": "Привет 🦜"}) + "\n", encoding="utf-8")
    return [str(tmp_path / "ko.txt"), str(tmp_path / "docs.jsonl")]


def test_count_by_script_table(tmp_path):
    done = count(tmp_path, "--by", "script", "-t", "cl100k_base", "-t", "gpt2", *corpus(tmp_path))
    assert done.returncode == 0, done.stderr
    rows = {line.split()[0]: line.split()[1:] for line in done.stdout.splitlines()[1:]}
    assert done.stdout.splitlines()[0].split() == [
        "SCRIPT",
        "CHARACTERS",
        "cl100k_base",
        "TOKENS/CHAR",
        "gpt2",
        "TOKENS/CHAR",
    ]
    assert rows["Hangul"][:3] == ["5", "5", "1.000"]  # cl100k_base: 안 and 녕 in two byte pieces each, 하세요
    assert rows["Latin"][:3] == ["10", "2", "0.200"]
    assert list(rows) == ["Latin", "Cyrillic", "Hangul", "Common", "Emoji", "TOTAL"]
    assert rows["TOTAL"][0] == "25"


def test_count_by_script_json_sums(tmp_path, registry):
    done = count(tmp_path, "--by", "script", "--json", "-t", "o200k_base", "-t", "mistral_v1", *corpus(tmp_path))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    texts = ["안녕하세요 hello world", "Привет 🦜"]
    assert report["characters"] == sum(row["characters"] for row in report["by_script"]) == sum(map(len, texts))
    for name in ("o200k_base", "mistral_v1"):
        expected = sum(len(registry.get(name).encode(text)) for text in texts)
        assert report["tokens"][name] == sum(row["tokens"][name] for row in report["by_script"]) == expected
    assert report["problems"]["bad_files"] == 0


def test_count_by_script_refuses_models(tmp_path):
    done = count(tmp_path, "--by", "script", "--model", "gpt-4o", *corpus(tmp_path))
    assert done.returncode == 2
    assert "--by script goes without --model" in done.stderr
