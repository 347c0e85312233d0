"""bench/engine_ab.py: it times every build and a copy of the base on fresh engines, prints
each one's ratio to the base, and exits 1 when the builds' results differ."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import engine_ab

from app.bpe import _engine


@pytest.fixture
def build(tmp_path) -> Path:
    """A copy of the installed build: loading the installed file again would run its module init twice."""
    return Path(shutil.copy(_engine.__file__, tmp_path / "base.so"))


def test_the_installed_build_against_its_copy(monkeypatch, capsys, build):
    argv = ["engine_ab.py", str(build), "--size-mb", "0.02", "--rounds", "2", "--classes", "prose,cyrillic"]
    for mode in ("encode", "docs"):
        monkeypatch.setattr(sys, "argv", [*argv, "--mode", mode, "--encoding", "cl100k_base"])
        assert engine_ab.main() == 0
        out = capsys.readouterr().out
        for name in ("prose", "cyrillic"):
            line = next(line for line in out.splitlines() if line.startswith(f"cl100k_base {name} {mode}, 2 rounds:"))
            assert line.count(" ms (best ") == 2  # the base and the copy of it
            assert "copy-of-base.so" in line and "x base 1.000 (best 1.000)" in line


def test_results_that_differ_are_a_bug(monkeypatch, capsys, build):
    real = engine_ab.one_run
    calls = iter(range(1000))
    monkeypatch.setattr(engine_ab, "one_run", lambda *args: (real(*args)[0], next(calls)))
    monkeypatch.setattr(
        sys, "argv", ["engine_ab.py", str(build), "--size-mb", "0.01", "--rounds", "1", "--classes", "prose"]
    )
    assert engine_ab.main() == 1
    assert "the builds' results differ: a bug" in capsys.readouterr().out


def test_without_the_control_only_the_named_builds_run(monkeypatch, capsys, build):
    monkeypatch.setattr(
        sys,
        "argv",
        ["engine_ab.py", str(build), "--size-mb", "0.01", "--rounds", "1", "--classes", "code", "--no-control"],
    )
    assert engine_ab.main() == 0
    assert capsys.readouterr().out.count(" ms (best ") == 1
