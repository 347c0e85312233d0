"""bench/bench_engine.py's exactness column, with stand-in engines (no timings, no real
tokenizer): a peer that differs is reported per mode and is never the best peer; a
difference of ours is a bug the script lists; a run that raises is reported, not timed; each
run's engine is built once the last run's is let go (ours would share it, cache and all)."""

from __future__ import annotations

import sys
import weakref
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import bench_engine
import engines
import pytest
import texts


@pytest.fixture(autouse=True)
def no_full_collections(monkeypatch):
    """Each timed run's gc.collect() walks every object of the process: ~1-2 s in a test worker
    that ran other files first (20-25 s a test here), a few ms in the bench's own process."""
    monkeypatch.setattr(bench_engine.gc, "collect", lambda generation=2: 0)


def ids_of(text: str) -> list[int]:
    return [ord(c) for c in text]


def engine(label: str, role: str, encode, counts: bool = False) -> engines.Engine:
    return engines.Engine(label, role, lambda: engines.one_by_one(encode), counts)


def wrong_on_long_texts(text: str) -> list[int]:
    return ids_of(text) if len(text) < 2000 else [*ids_of(text)[:-1], 0]


def raising(text: str) -> list[int]:
    if len(text) > 2000:
        raise ValueError("cannot")
    return ids_of(text)


def run(monkeypatch, ours: list[engines.Engine], peers: list[engines.Engine]) -> tuple[list[dict], list[str], str]:
    monkeypatch.setattr(engines, "reference_engine", lambda name: engine("ref", "reference", ids_of))
    monkeypatch.setattr(engines, "ours", lambda name: ours)
    monkeypatch.setattr(engines, "peers", lambda name: (peers, ["other: not installed"]))
    text = texts.Text("prose", "word " * 500, 1, short=False)
    bugs: list[str] = []
    rows = bench_engine.bench_encoding("fake", [text], 1, bugs)
    return rows, bugs, text.text


def test_a_differing_peer_is_marked_in_that_mode_and_is_not_the_best_peer(monkeypatch, capsys):
    ours = [engine("tokenprism encode", "ours", ids_of), engine("tokenprism count", "ours", len, counts=True)]
    peers = [engine("wrong", "peer", wrong_on_long_texts), engine("broken", "peer", raising)]
    rows, bugs, _ = run(monkeypatch, ours, peers)
    assert bugs == []
    out = capsys.readouterr().out
    assert "other: not installed" in out
    wrong = {row["mode"]: row for row in rows if row["engine"] == "wrong"}
    assert not wrong["1 text"]["exact"] and "id 2499" in wrong["1 text"]["difference"]
    assert wrong["1KB x1"]["exact"] and wrong["1KB x2"]["exact"]  # its 1 KB documents are short enough
    broken = {row["mode"]: row for row in rows if row["engine"] == "broken"}
    assert "failed: ValueError: cannot" in broken["1 text"]["difference"] and broken["1 text"]["mb_per_s"] == 0
    best_peer = next(line for line in out.splitlines() if "ours x best peer" in line)
    assert best_peer.split()[4] == "-"  # no exact peer for the one text


def test_our_difference_is_a_bug_listed_with_where_it_is(monkeypatch):
    ours = [engine("tokenprism encode", "ours", wrong_on_long_texts)]
    ours.append(engine("tokenprism count", "ours", lambda text: len(text) + (len(text) > 2000), counts=True))
    _, bugs, _ = run(monkeypatch, ours, [])
    assert len(bugs) == 2
    assert bugs[0].startswith("fake, prose, tokenprism encode: differs in 1 text (1 text: id 2499:")
    assert "2501 ids, not 2500" in bugs[1]


def test_the_script_exits_1_when_our_ids_differ(monkeypatch, tmp_path):
    monkeypatch.setattr(bench_engine.host, "machine_facts", lambda libraries: {"cores": "2"})
    monkeypatch.setattr(bench_engine.host, "two_core_ceiling", lambda rounds: 1.5)
    monkeypatch.setattr(bench_engine.texts, "load", lambda name, limit: texts.Text(name, "word " * 50, 1, False))
    monkeypatch.setattr(
        bench_engine,
        "bench_encoding",
        lambda name, classes, repeat, bugs, warm: bugs.append(f"{name}: differs") or [],
    )
    monkeypatch.setattr(sys, "argv", ["bench_engine.py", "--encodings", "cl100k_base", "--json", str(tmp_path / "out")])
    try:
        bench_engine.main()
    except SystemExit as stop:
        assert stop.code == 1
    else:
        raise AssertionError("main() returned although our ids differed")
    written = (tmp_path / "out").read_text()
    assert '"rows": []' in written and '"two_core_ceiling": "1.50"' in written


def test_warm_times_the_builds_second_pass_over_the_same_input():
    def build() -> engines.Runner:
        passes: list[str] = []

        def encode(text: str) -> list[int]:
            passes.append(text)
            return [len(passes)]  # which call of this build gave the ids

        return engines.one_by_one(encode)

    counted = engines.Engine("passes", "peer", build)
    fresh, _ = bench_engine.timed_run(counted, "1 text", "abc", 3)
    warm, _ = bench_engine.timed_run(counted, "1 text", "abc", 3, warm=True)
    assert fresh == [2] and warm == [3]  # after WARM_UP: the first call on the text, then the second
    docs, _ = bench_engine.timed_run(counted, "1KB x1", ["a", "b"], 2, warm=True)
    assert docs == [[4], [5]]  # WARM_UP, the two documents untimed, then the two again


def test_a_peer_that_ran_threads_in_a_one_thread_mode_is_compared_per_core_and_says_so(capsys):
    assert bench_engine.one_thread_speed((100.0, 2.0), "1 text") == 50.0  # two cores: 50 MB/s a core
    assert bench_engine.one_thread_speed((100.0, 1.1), "1 text") == 100.0  # one core and the GIL's hand-offs
    assert bench_engine.one_thread_speed((100.0, 2.0), "1KB x2") == 100.0  # two threads are that mode's point
    one = dict.fromkeys(bench_engine.MODES, (40.0, 1.0))
    threaded = one | {"1 text": (100.0, 2.0)}
    exact = dict.fromkeys(bench_engine.MODES)
    ours_rounds = {"1 text": [80.0], "1KB x1": [80.0], "1KB x2": [120.0]}  # each mode's one round
    threaded_rounds = {"1 text": [100.0], "1KB x1": [40.0], "1KB x2": [40.0]}
    table = [
        (engine("ref", "reference", ids_of), dict.fromkeys(bench_engine.MODES, (10.0, 1.0)), exact, threaded_rounds),
        (
            engine("tokenprism encode", "ours", ids_of),
            dict.fromkeys(bench_engine.MODES, (80.0, 1.0)) | {"1KB x2": (120.0, 2.0)},
            exact,
            ours_rounds,
        ),
        (engine("threaded", "peer", ids_of), threaded, exact, threaded_rounds),
    ]
    rows = bench_engine.print_case("fake", texts.Text("prose", "word " * 5, 1, short=False), table)
    out = capsys.readouterr().out
    assert "(used 2.0 cores in 1 text)" in next(line for line in out.splitlines() if "threaded" in line)
    best_peer = next(line for line in out.splitlines() if "ours x best peer" in line).split()
    assert best_peer[4:7] == ["1.60x", "2.00x", "3.00x"]  # 80 / (100 / 2 cores), 80 / 40, 120 / 40
    by_rounds = next(line for line in out.splitlines() if "rounds, median" in line).split()
    assert by_rounds[2:5] == ["1.60x", "2.00x", "3.00x"]  # its rounds per core as its best run was
    assert next(line for line in out.splitlines() if "ours x2 / x1" in line).split()[4] == "1.50x;"  # 120 / 80
    assert {row["cores"] for row in rows if row["engine"] == "threaded" and row["mode"] == "1 text"} == {2.0}


def test_each_run_builds_its_engine_after_the_last_run_let_go_of_its_own_in_interleaved_rounds():
    built: list[weakref.ref] = []
    order: list[str] = []

    def tracked(label: str) -> engines.Engine:
        def build() -> engines.Runner:
            assert all(ref() is None for ref in built), "the last run's engine is still held"
            runner = engines.one_by_one(ids_of)
            built.append(weakref.ref(runner))
            order.append(label)
            return runner

        return engines.Engine(label, "ours", build)

    text = "word " * 500
    contenders = [tracked("ref"), tracked("a"), tracked("b")]
    measured = bench_engine.time_in_rounds(contenders, text, texts.documents(text), 2)
    assert len(built) == 18  # 2 rounds x 3 engines x 3 modes
    assert order == [
        *["ref", "ref", "ref", "a", "a", "a", "b", "b", "b"],
        *["a", "a", "a", "b", "b", "b", "ref", "ref", "ref"],
    ]
    for speeds, verdicts, rounds in measured:
        assert set(speeds) == set(bench_engine.MODES) and all(mb > 0 for mb, _ in speeds.values())
        assert verdicts == dict.fromkeys(bench_engine.MODES)
        assert all(len(rounds[mode]) == 2 and max(rounds[mode]) == speeds[mode][0] for mode in bench_engine.MODES)


def test_two_threads_over_one_and_ours_over_the_best_peer_are_also_given_round_by_round(capsys):
    """The best x2 over the best x1 can pair a fast swing of the host with a slow one; the ratio of
    each round's two runs, close in time, does not: its median and range are printed too, and so
    is the median of each round's ours over the best peer's run."""
    exact = dict.fromkeys(bench_engine.MODES)
    ours = {"1 text": [50.0, 50.0, 50.0], "1KB x1": [50.0, 90.0, 52.0], "1KB x2": [85.0, 95.0, 91.0]}
    best = {mode: (max(speeds), 1.0) for mode, speeds in ours.items()}
    reference = {mode: [10.0] * 3 for mode in bench_engine.MODES}
    peer = {"1 text": [100.0, 40.0, 40.0], "1KB x1": [40.0, 40.0, 40.0], "1KB x2": [40.0, 40.0, 40.0]}
    table = [
        (engine("ref", "reference", ids_of), dict.fromkeys(bench_engine.MODES, (10.0, 1.0)), exact, reference),
        (engine("tokenprism encode", "ours", ids_of), best, exact, ours),
        (engine("lucky", "peer", ids_of), {mode: (max(speeds), 1.0) for mode, speeds in peer.items()}, exact, peer),
    ]
    rows = bench_engine.print_case("fake", texts.Text("prose", "word " * 5, 1, short=False), table)
    out = capsys.readouterr().out.splitlines()
    assert next(line for line in out if "ours x best peer" in line).split()[4] == "0.50x"  # 50 / its one fast run
    assert next(line for line in out if "rounds, median" in line).split()[2] == "1.25x"  # 0.50, 1.25, 1.25
    line = next(line for line in out if "ours x2 / x1" in line)
    assert line.split()[4] == "1.06x;"  # 95 / 90: the best of each, from different rounds
    assert line.endswith("each round's: median 1.70x (1.06-1.75)")  # 85 / 50, 95 / 90, 91 / 52
    assert next(row for row in rows if row["engine"] == "tokenprism encode" and row["mode"] == "1KB x1")[
        "rounds_mb_per_s"
    ] == [50.0, 90.0, 52.0]


def test_a_verdict_names_the_first_differing_document_and_id():
    expected = {"1 text": [1, 2, 3, 4], "1KB x1": [[1, 2], [3, 4]]}
    assert bench_engine.verdict("1KB x2", [[1, 2], [3, 5]], expected, counts=False).startswith("document 1: id 1:")
    assert bench_engine.verdict("1KB x1", [2, 3], expected, counts=True) == "document 1: 3 ids, not 2"
    assert bench_engine.verdict("1 text", 4, expected, counts=True) is None
    assert "reference failed" in bench_engine.verdict("1 text", [1], {}, counts=False)
