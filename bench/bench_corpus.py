"""Corpus scale: counting and chunk counting on 1 and 2 workers, with peak memory.

    python bench/bench_corpus.py [--size-mb 200] [--keep DIR] [--rate-mb 8] [--repeat 2]   (~15 min here)

Generates a corpus of --size-mb in a temp dir (text files in folders, .jsonl shards, one
.jsonl.gz, and Parquet shards when pyarrow is installed); each document joins 1-4 random
slices of a ~40 MB pool (this Python's standard library sources, its pydoc topics, and text
across scripts), so no document repeats another. Then, each run in a fresh child process
(so that its peak memory is its own: VmHWM; the workers' peak is ru_maxrss of the children):

1. `count -t cl100k_base` on 1 worker (this process) and on 2 (a local pool): the speed-up,
   and the counts, which must be equal (runs interleaved, best of --repeat);
2. the chunk-counting pass of `train` (gpt4 pattern): one process against 2 workers, whose
   merged Counter must equal the single-process one, entry for entry and in order;
3. the same 2-worker count on a quarter of the corpus (a quarter of each format's files):
   peak memory does not grow with the corpus;
4. what one worker counts per second with each built-in tokenizer (on --rate-mb of the text
   files, best of --repeat).

Tokenizers are built before timing starts (a pool forks after building them). Each run
prints wall time and CPU time (this process and its workers): the machine's load average
is printed too, as other processes share the CPU, and a 2-core machine shared with them
cannot show a clean 2x; the CPU time shows what splitting the work costs, and the rates
per CPU second what a worker does on a core of its own.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from corpus import STDLIB, unicode_text  # noqa: E402


def pool_text() -> str:
    parts = [path.read_text(encoding="utf-8", errors="replace") for path in sorted(STDLIB.rglob("*.py"))]
    parts.append((STDLIB / "pydoc_data" / "topics.py").read_text(encoding="utf-8"))
    parts.append(unicode_text(1_000_000, seed=1))
    return "".join(parts)


def generate(folder: Path, size: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    pool = pool_text()

    def document() -> str:
        return "".join(
            pool[(o := rng.randrange(len(pool) - 9000)) : o + rng.randint(200, 8000)] for _ in range(rng.randint(1, 4))
        )

    def documents(budget: int):
        while budget > 0:
            text = document()
            budget -= len(text.encode("utf-8"))
            yield text

    for i, text in enumerate(documents(size * 30 // 100)):  # 30%: text files, 100 per folder
        path = folder / "text" / f"{i // 100:04d}" / f"{i % 100:02d}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (folder / "jsonl").mkdir()
    lines, held, shards = [], 0, 0
    for text in documents(size * 40 // 100):  # 40%: .jsonl shards of ~10 MB
        lines.append(json.dumps({"text": text}, ensure_ascii=False) + "\n")
        held += len(lines[-1])
        if held > 10_000_000:
            (folder / "jsonl" / f"shard-{shards:03d}.jsonl").write_text("".join(lines), encoding="utf-8")
            lines, held, shards = [], 0, shards + 1
    (folder / "jsonl" / f"shard-{shards:03d}.jsonl").write_text("".join(lines), encoding="utf-8")
    with gzip.open(folder / "jsonl" / "extra.jsonl.gz", "wt", encoding="utf-8", compresslevel=1) as out:
        out.writelines(json.dumps({"text": t}) + "\n" for t in documents(size * 10 // 100))  # 10%
    texts = list(documents(size * 20 // 100))  # 20%: Parquet shards (or more .jsonl without pyarrow)
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq

        (folder / "parquet").mkdir()
        for n, start in enumerate(range(0, len(texts), 4000)):
            pq.write_table(
                pa.table({"text": texts[start : start + 4000]}),
                folder / "parquet" / f"part-{n:03d}.parquet",
                row_group_size=1000,
            )
    except ImportError:
        (folder / "jsonl" / "no-pyarrow.jsonl").write_text("".join(json.dumps({"text": t}) + "\n" for t in texts))


# -- child runs (one per measurement, so that ru_maxrss is that run's) ------------------------


def child(kind: str, paths: list[str], names: list[str], workers: int) -> dict:
    from app.corpus import work
    from app.corpus.count import count_corpus
    from app.corpus.portable import specs_for
    from app.corpus.runner import make_runner
    from app.corpus.sources import CorpusOptions, open_plan
    from app.corpus.training import chunk_counts
    from app.tokenizers.openai_encodings import CL100K_PATTERN

    specs = specs_for(names)
    work.prepare(specs)
    with open_plan(paths, CorpusOptions()) as plan, make_runner(workers, None, len(plan.tasks())) as runner:
        started, cpu = time.perf_counter(), time.process_time()
        if kind == "count":
            report = count_corpus(plan, specs, runner)
            result = {"tokens": report.tokens, "bytes": report.total[1], "problems": report.problems.total}
        else:
            counts = chunk_counts(plan, CL100K_PATTERN, runner)
            result = {"bytes": counts.bytes, "distinct": len(counts.counts)}
        result["seconds"] = time.perf_counter() - started
        result["cpu_self"] = time.process_time() - cpu
        if kind != "count":  # after timing: the Counter's entries, in order
            digest = hashlib.blake2b()
            for chunk, count in counts.counts.items():
                digest.update(f"{chunk}\0{count}\0".encode("utf-8", "surrogatepass"))
            result["digest"] = digest.hexdigest()
        result["runner"] = runner.name
    children = resource.getrusage(resource.RUSAGE_CHILDREN)  # the pool's workers, waited for when it closed
    result["cpu"] = result.pop("cpu_self") + children.ru_utime + children.ru_stime
    result["rss_self_mb"] = peak_rss_mb()
    result["rss_children_mb"] = children.ru_maxrss / 1024
    return result


def peak_rss_mb() -> float:
    """This process's peak RSS: VmHWM, which starts anew at exec (ru_maxrss would keep the
    parent's peak across the exec, on Linux)."""
    try:
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) / 1024
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(kind: str, paths: list[str], names: list[str], workers: int) -> dict:
    command = [sys.executable, __file__, "--child", kind, "--workers", str(workers), "--names", ",".join(names), *paths]
    out = subprocess.run(command, capture_output=True, text=True, env=os.environ)
    if out.returncode:
        raise SystemExit(out.stderr)
    return json.loads(out.stdout)


def memory(run: dict) -> str:
    workers = f", each worker {run['rss_children_mb']:.0f} MB" if run["rss_children_mb"] > 1 else ""
    return f"{run['rss_self_mb']:.0f} MB{workers}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=200)
    parser.add_argument("--rate-mb", type=int, default=8, help="corpus used for the per-tokenizer rates")
    parser.add_argument("--repeat", type=int, default=2, help="best of N, for every timing")
    parser.add_argument("--keep", type=Path, help="generate into (or reuse) this folder and keep it")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--workers", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--names", default="cl100k_base", help=argparse.SUPPRESS)
    parser.add_argument("paths", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.paths, args.names.split(","), args.workers)))
        return
    folder = args.keep or Path(tempfile.mkdtemp(prefix="tokenprism-bench-corpus-"))
    try:
        if not any(folder.iterdir()) if folder.exists() else True:
            folder.mkdir(parents=True, exist_ok=True)
            started = time.perf_counter()
            generate(folder, args.size_mb * 1_000_000)
            print(f"generated {args.size_mb} MB in {time.perf_counter() - started:.0f} s in {folder}")
        paths = sorted(str(p) for p in folder.iterdir())
        size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
        print(
            f"corpus: {size / 1e6:.0f} MB on disk, {sum(1 for _ in folder.rglob('*.*')):,} files; "
            f"CPUs {os.cpu_count()}, load average {os.getloadavg()[0]:.1f} at start"
        )
        print(
            f"\n{'run':<44} {'seconds':>8} {'MB/s':>6} {'CPU s':>7} {'MB/CPU s':>8}  {'ran on':<18} peak memory (RSS)"
        )

        def show(label: str, run: dict) -> None:
            megabytes = run["bytes"] / 1e6
            print(
                f"{label:<44} {run['seconds']:>8.1f} {megabytes / run['seconds']:>6.1f} {run['cpu']:>7.1f} "
                f"{megabytes / run['cpu']:>8.2f}  {run['runner']:<18} {memory(run)}"
            )

        def best(kind: str, workers: int, runs: list[dict]) -> dict:
            runs.append(measure(kind, paths, ["cl100k_base"], workers))
            return min(runs, key=lambda run: run["seconds"])

        counts: dict[int, list[dict]] = {1: [], 2: []}
        chunks: dict[int, list[dict]] = {1: [], 2: []}
        for _ in range(args.repeat):  # interleaved, best of N: the runs least disturbed by other processes
            for workers in (1, 2):
                best("count", workers, counts[workers])
            for workers in (1, 2):
                best("chunks", workers, chunks[workers])
        one, two = (min(counts[w], key=lambda run: run["seconds"]) for w in (1, 2))
        chunks_one, chunks_two = (min(chunks[w], key=lambda run: run["seconds"]) for w in (1, 2))
        show("count cl100k_base, 1 worker (this process)", one)
        show("count cl100k_base, 2 workers (local pool)", two)
        show("train's chunk counting, 1 process", chunks_one)
        show("train's chunk counting, 2 workers", chunks_two)
        assert len({tuple(run["tokens"].items()) for run in counts[1] + counts[2]}) == 1, "counts differ"
        assert len({(run["distinct"], run["digest"]) for run in chunks[1] + chunks[2]}) == 1, "chunk counts differ"
        quarter = []  # the same mix of formats: a quarter of each folder's entries
        for sub in sorted(p for p in folder.iterdir() if p.is_dir()):
            entries = sorted(sub.iterdir())
            quarter += [str(p) for p in entries[: max(1, len(entries) // 4)]]
        small = measure("count", quarter, ["cl100k_base"], 2)
        show("count, 2 workers, a quarter of the corpus", small)
        print(
            f"\nspeed-up of 2 workers over 1 (wall time): counting {one['seconds'] / two['seconds']:.2f}x, "
            f"chunk counting {chunks_one['seconds'] / chunks_two['seconds']:.2f}x; counts and chunk counts "
            f"equal: yes ({chunks_one['distinct']:,} distinct chunks)"
        )
        print(
            f"CPU time of 2 workers against 1 (the cost of splitting; 1.00 = none): counting "
            f"{two['cpu'] / one['cpu']:.2f}, chunk counting {chunks_two['cpu'] / chunks_one['cpu']:.2f}; "
            f"load average {os.getloadavg()[0]:.1f} at the end (2 CPUs)"
        )

        from app.tokenizers.registry import get_registry

        rate_paths, held = [], 0
        for sub in sorted((folder / "text").iterdir()):
            if held >= args.rate_mb * 1_000_000:
                break
            rate_paths.append(str(sub))
            held += sum(p.stat().st_size for p in sub.iterdir())
        print(f"\none worker, each built-in tokenizer, on {held / 1e6:.0f} MB of the text files:")
        print(f"{'tokenizer':<16} {'MB/s':>7} {'tokens/s':>12} {'MB/CPU s':>9} {'tokens/CPU s':>13}")
        for entry in get_registry().entries():
            if entry.user:
                continue
            run = min(
                (measure("count", rate_paths, [entry.name], 1) for _ in range(args.repeat)), key=lambda r: r["seconds"]
            )
            tokens = run["tokens"][entry.name]
            print(
                f"{entry.name:<16} {run['bytes'] / 1e6 / run['seconds']:>7.2f} {tokens / run['seconds']:>12,.0f} "
                f"{run['bytes'] / 1e6 / run['cpu']:>9.2f} {tokens / run['cpu']:>13,.0f}"
            )
    finally:
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
