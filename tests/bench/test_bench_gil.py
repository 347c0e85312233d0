"""bench/bench_gil.py: it ticks while each contender counts, prints both and their ratio for
each class, and exits 1 when the counts differ."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import bench_gil


def test_it_prints_both_contenders_and_their_ratio_for_each_class(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["bench_gil.py", "--mb", "0.02", "--calls", "2"])
    interval = sys.getswitchinterval()
    assert bench_gil.main() == 0
    out = capsys.readouterr().out
    for name in bench_gil.CLASSES:
        assert f"o200k_base {name}: p99 tick, tiktoken's over ours:" in out
        assert out.count(f"o200k_base {name} (") == 2
    assert sys.getswitchinterval() == interval  # given back


@pytest.mark.parametrize(("name", "library"), [("llama3", "llama-models"), ("deepseek_v4", "tokenizers")])
def test_the_other_paths_compare_with_their_own_reference_library(monkeypatch, capsys, name, library):
    # 60 KB: over llama-models' 25,000-character runs, so its texts are counted in pieces
    monkeypatch.setattr(sys, "argv", ["bench_gil.py", "--mb", "0.06", "--calls", "1", "--tokenizer", name])
    assert bench_gil.main() == 0
    out = capsys.readouterr().out
    for text_class in bench_gil.CLASSES:
        assert f"{name} {text_class}: p99 tick, {library}'s over ours:" in out


def test_differing_counts_are_a_bug(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["bench_gil.py", "--mb", "0.01", "--calls", "1"])
    real = bench_gil.tick_gaps
    calls = iter(range(100))
    monkeypatch.setattr(bench_gil, "tick_gaps", lambda count, text, n: (real(count, text, n)[0], {next(calls)}))
    assert bench_gil.main() == 1
    assert "the counts differ" in capsys.readouterr().out


def test_a_fresh_copy_is_equal_but_another_object():
    text = "Привет"
    copy = bench_gil.fresh(text)
    assert copy == text and copy is not text
