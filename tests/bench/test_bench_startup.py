"""bench/bench_startup.py: every engine of an encoding is built in fresh processes and timed,
ours is compared with the reference, and the CLI's whole command is timed too."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_gpt2s_engines_are_timed_in_fresh_processes():
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_startup.py"), "--encodings", "gpt2", "--repeat", "1"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[1] == "== gpt2: ready to encode, in a fresh process (median, fastest-slowest of 1)"
    rows = {line.strip().split("  ")[0]: line for line in lines[2:] if line.startswith("   ") and " s (" in line}
    assert {"tokenprism", "tiktoken", "tokenprism count (CLI)"} <= set(rows)
    for row in rows.values():
        seconds = float(re.search(r" (\d+\.\d+) s \(", row)[1])
        assert 0 < seconds < 60
    assert re.search(r"^   ours / tiktoken: \d+\.\d\dx the time$", done.stdout, re.M)


def test_an_unknown_encoding_is_refused_by_name():
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_startup.py"), "--encodings", "gpt5"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "unknown encodings gpt5; choose from" in done.stderr


@pytest.mark.parametrize("label", ["tokenprism", "tiktoken"])
def test_a_child_prints_the_seconds_of_one_build(label):
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_startup.py"), "--child", "gpt2", label],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert 0 < float(done.stdout.strip()) < 60
