"""A/B of builds of the C engine (app/bpe/_engine*.so) in one process: which of two builds of
the same engine is faster, and whether the difference is larger than this machine's noise.

    python bench/engine_ab.py BASE.so OTHER.so [...] [--encoding o200k_base|deepseek_v4] [--classes prose,latin]
                              [--rounds 21] [--mode encode|count|docs|x2] [--size-mb 1] [--no-control] [--warm]

Each round builds a fresh Engine from every build (so no chunk cache is warm) and times one
call on the class's text (`docs`: count_batch of its 1 KB documents; `x2`: of their two halves,
one on this thread and one on a pool thread at once), the builds' order
reversed every other round so that none always runs first (--warm: the call timed is the
fresh engine's second, as a long-lived engine's, its chunk cache filled by the first). Prints,
for each class, each build's median and best milliseconds and their ratio to the base build's
(above 1: faster than the base). Unless --no-control, a byte-identical copy of the base build runs too: on a shared
virtual machine the copy's ratio (its distance from 1.00) is the noise floor of that run, and a
change is kept only when it stands clear of it (docs/performance.md, nineteenth session: up to
1.08x on medians). Every build's result on the first round must equal the base's (exit 1).

A build of another source tree, without touching the installed one, e.g.:

    gcc -O3 -fPIC -shared -Ibuild/generated -ITREE/app/bpe/csrc -ITREE/app/bpe/csrc/{engine,split,train} \\
        -I$(python -c 'import sysconfig; print(sysconfig.get_paths()["include"])') \\
        TREE/app/bpe/csrc/engine/_engine.c TREE/app/bpe/csrc/split/pretokenize{,_deepseek}.c -o OTHER.so

(setup.py's flags and include directories for app.bpe._engine; build/generated comes from a
`pip install -e .` of this tree.)
"""

from __future__ import annotations

import argparse
import ctypes
import importlib.util
import json
import shutil
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import texts  # noqa: E402

from app.bpe.engine import family_of  # noqa: E402
from tests.reference import tiktoken_reference  # noqa: E402

MODES = ("encode", "count", "docs", "x2")
POOL = ThreadPoolExecutor(1)  # x2's second thread, alive through the run
TIKTOKEN_ENCODINGS = ("gpt2", "cl100k_base", "o200k_base")


def engine_args(encoding: str) -> tuple[Any, ...]:
    """What a build's Engine is made from for `encoding`: a tiktoken encoding's family and tokens,
    or deepseek_v4's (a Hugging Face file under the listed-merge rule) as its backend makes it."""
    if encoding in TIKTOKEN_ENCODINGS:
        reference = tiktoken_reference(encoding)
        family = family_of(reference._pat_str)
        assert family is not None
        return family, sorted(reference._mergeable_ranks, key=reference._mergeable_ranks.__getitem__)
    from engines import _plain_file

    import tokenizers
    from app.backends.huggingface.engine import ListedMergesEngine

    library = tokenizers.Tokenizer.from_file(str(_plain_file(f"{encoding}.tokenizer.json.gz")))
    return ListedMergesEngine.engine_args(library, json.loads(library.to_str())["model"])


def load_build(path: Path) -> ModuleType:
    """The engine module built at `path` (its init function is PyInit__engine, whatever the file's name)."""
    spec = importlib.util.spec_from_file_location("_engine", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"{path}: not a loadable extension module")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def with_utf8(text: str) -> str:
    """`text` after CPython made its UTF-8 (as tiktoken's calls leave a bench text): the engine reads it."""
    as_utf8 = ctypes.pythonapi.PyUnicode_AsUTF8
    as_utf8.argtypes, as_utf8.restype = [ctypes.py_object], ctypes.c_void_p
    as_utf8(text)
    return text


def one_run(
    build: ModuleType, made_from: tuple[Any, ...], mode: str, text: str, docs: list[str], warm: bool
) -> tuple[float, Any]:
    """Seconds of one call on a fresh Engine of `build` (its second call when `warm`), and its result."""
    engine = build.Engine(*made_from)
    half = (len(docs) + 1) // 2

    def call() -> Any:
        if mode == "x2":  # the second half on the pool's thread meanwhile
            later = POOL.submit(engine.count_batch, docs[half:])
            return engine.count_batch(docs[:half]) + later.result()
        return engine.count_batch(docs) if mode == "docs" else getattr(engine, mode)(text)

    if warm:
        call()
    started = time.perf_counter()
    result = call()
    return time.perf_counter() - started, result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("builds", nargs="+", type=Path, help="engine .so files; the first is the base")
    parser.add_argument("--encoding", default="o200k_base", choices=(*TIKTOKEN_ENCODINGS, "deepseek_v4"))
    parser.add_argument("--classes", default="prose,latin,cyrillic,multilingual")
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--mode", default="encode", choices=MODES)
    parser.add_argument("--size-mb", type=float, default=1.0)
    parser.add_argument("--no-control", action="store_true", help="leave out the copy of the base build")
    parser.add_argument("--warm", action="store_true", help="time each fresh engine's second call, not its first")
    args = parser.parse_args()
    if args.mode == "x2":
        POOL.submit(int).result()  # its thread started before the first timed round
    paths = list(args.builds)
    with tempfile.TemporaryDirectory() as scratch:
        if not args.no_control:
            paths.append(Path(shutil.copy(paths[0], Path(scratch) / f"copy-of-{paths[0].name}")))
        builds = [load_build(path) for path in paths]
        made_from = engine_args(args.encoding)
        for name in args.classes.split(","):
            text = with_utf8(texts.load(name, int(args.size_mb * 1_000_000)).text)
            docs = [with_utf8(doc) for doc in texts.documents(text)]
            times: list[list[float]] = [[] for _ in builds]
            for round_ in range(args.rounds):
                order = range(len(builds)) if round_ % 2 == 0 else reversed(range(len(builds)))
                results = {}
                for k in order:
                    seconds, results[k] = one_run(builds[k], made_from, args.mode, text, docs, args.warm)
                    times[k].append(seconds)
                if round_ == 0 and any(results[k] != results[0] for k in results):
                    print(f"{args.encoding} {name}: the builds' results differ: a bug")
                    return 1
            base_median, base_best = statistics.median(times[0]), min(times[0])
            cells = [
                f"{path.name} {1000 * statistics.median(t):.2f} ms (best {1000 * min(t):.2f}), "
                f"x base {base_median / statistics.median(t):.3f} (best {base_best / min(t):.3f})"
                for path, t in zip(paths, times, strict=True)
            ]
            print(
                f"{args.encoding} {name} {args.mode}{' warm' if args.warm else ''}, {args.rounds} rounds: "
                + "; ".join(cells),
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
