"""`tokenprism count` as a user runs it (from this tree): its counts equal len(encode) for every
built-in, --workers N runs N processes on a corpus under one default task size, and the counts do
not change with the number of workers; `tokenprism train --workers N` spreads its counting the same
way, with the same merges."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.backends.test_counting import TEXTS
from tests.reference import BUILTIN_NAMES, stdlib_texts

ROOT = Path(__file__).resolve().parents[2]


def count_json(*args: str, data_dir: Path) -> dict:
    env = {**os.environ, "TOKENPRISM_DATA_DIR": str(data_dir)}
    result = subprocess.run(
        [sys.executable, "-m", "app.cli", "count", "--json", *args],
        capture_output=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr.decode()
    return json.loads(result.stdout)


def test_cli_counts_equal_len_encode_for_every_builtin(registry, tmp_path):
    path = tmp_path / "docs.jsonl"
    texts = [text for text in TEXTS if text]
    path.write_text("".join(json.dumps({"text": text}) + "\n" for text in texts), encoding="utf-8")
    names = [arg for name in BUILTIN_NAMES for arg in ("-t", name)]
    report = count_json(*names, "--allow-special", "--workers", "1", str(path), data_dir=tmp_path / "data")
    for name in BUILTIN_NAMES:
        tokenizer = registry.get(name)
        assert report["total"][name] == sum(len(tokenizer.encode(text, True)) for text in texts), name


def test_workers_split_a_corpus_under_one_task_size_and_counts_do_not_change(tmp_path):
    path = tmp_path / "code.jsonl"
    texts = [text for _, text in stdlib_texts(count=40, max_chars=40_000)]
    path.write_text("".join(json.dumps({"text": text}) + "\n" for text in texts), encoding="utf-8")
    assert 512 << 10 < path.stat().st_size < 8 << 20  # under the 8 MiB that used to be one task
    args = ("-t", "cl100k_base", "-t", "deepseek_v4", "-t", "mistral_v1", str(path))
    one = count_json("--workers", "1", *args, data_dir=tmp_path / "data")
    two = count_json("--workers", "2", *args, data_dir=tmp_path / "data")
    assert (one["runner"], one["workers"]) == ("this process", 1)
    assert (two["runner"], two["workers"]) == ("2 local processes", 2)
    assert two["total"] == one["total"] and two["documents"] == one["documents"] == len(texts)


def test_train_workers_split_a_small_corpus_and_the_merges_do_not_change(tmp_path):
    from app.bpe.model import BPETokenizer

    path = tmp_path / "code.jsonl"
    texts = [text for _, text in stdlib_texts(count=40, max_chars=40_000)]
    path.write_text("".join(json.dumps({"text": text}) + "\n" for text in texts), encoding="utf-8")
    merges = {}
    for workers in ("1", "2"):
        data = tmp_path / f"data{workers}"
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "app.cli",
                "train",
                "--vocab-size",
                "400",
                "--name",
                "t",
                "--workers",
                workers,
                str(path),
            ],
            capture_output=True,
            env={**os.environ, "TOKENPRISM_DATA_DIR": str(data)},
            cwd=ROOT,
            timeout=300,
        )
        assert result.returncode == 0, result.stderr.decode()
        said = "this process" if workers == "1" else "2 local processes"
        assert f"counted on {said}" in result.stderr.decode()
        merges[workers] = BPETokenizer.load(data / "tokenizers" / "t.bpe").merges
    assert merges["1"] == merges["2"] and len(merges["1"]) == 400 - 256
