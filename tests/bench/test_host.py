"""bench/host.py: the two-core ceiling's arithmetic (stand-in loops) and its loops in real
processes; the machine's facts name what is missing."""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import host


def test_the_loops_run_at_once_in_separate_processes_and_time_themselves():
    seconds = host._loops_at_once(2, 200_000)
    assert len(seconds) == 2 and all(0 < s < 5 for s in seconds)


def test_the_ceiling_is_two_loops_work_over_one_from_each_sides_best_round(monkeypatch):
    rounds = iter([[1.2], [1.0], [1.1], [1.3, 1.25], [1.4, 1.5], [1.9, 1.2]])  # alone x3, both x3
    monkeypatch.setattr(host, "_loops_at_once", lambda processes, steps: next(rounds))
    # best alone 1.0 s; best round of two 1.3 s (its slower process): 2 x 1.0 / 1.3
    assert host.two_core_ceiling(rounds=3) == 2 * 1.0 / 1.3


def test_the_ceiling_of_this_machine_is_a_positive_ratio():
    # not bounded below by the cores: the test run's other workers may hold them
    assert 0 < host.two_core_ceiling(rounds=1, steps=200_000) < 10


def test_machine_facts_name_the_cores_and_each_library_or_its_absence():
    facts = host.machine_facts(("pytest", "no-such-library-here"))
    assert facts["cores"] == str(os.cpu_count())
    assert facts["cpu"] and facts["python"].count(".") == 2
    assert facts["pytest"][0].isdigit() and facts["no-such-library-here"] == "not installed"
