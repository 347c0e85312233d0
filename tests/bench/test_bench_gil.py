"""bench/bench_gil.py: it ticks while each contender counts, prints both and their ratio for
each class, and exits 1 when the counts differ."""

from __future__ import annotations

import sys
from pathlib import Path

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
