"""The common paths under load, as ratios against a reference measured in the same run.

Starts `tokenprism serve` (1 process) on a free loopback port with an empty data directory,
then measures:

1. throughput: `wrk` with 32 connections (2 threads) for `--seconds` on GET /healthz, then on
   POST /api/count with ~1 KB of text (the start of the stdlib's textwrap.py, cl100k_base),
   `--rounds` times in turn; prints requests/s, latency and errors of each, and the ratios of
   /api/count's requests/s to /healthz's and their median (the figures vary run to run here);
2. cost per request: the 4 KB playground fragment (POST / with HX-Request, cl100k_base) and
   a JSON POST /api/tokenize of the same text, each sent `--requests` times one after another
   (in turns of 10 of each);
   prints the median server time of each (the app's `Server-Timing` header) and their ratio.

The issue's targets: ratio 1 at least 0.5 with no errors; ratio 2 at most 3. Exits non-zero
when one is missed. Loopback only; bounded in time.

    .venv/bin/python bench/bench_load.py [--seconds 10] [--requests 200] [--rounds 5]
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import sys
import sysconfig
import tempfile
from pathlib import Path
from urllib.parse import urlencode, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))

from wrk_runner import run_wrk

from app.local_server import start_server, stop_server


def sample_text(size: int) -> str:
    """`size` characters of code and prose nobody here wrote: the start of textwrap.py."""
    return (Path(sysconfig.get_paths()["stdlib"]) / "textwrap.py").read_text(encoding="utf-8")[:size]


def server_times(base_url: str, path: str, body: bytes, headers: dict, requests: int) -> list[float]:
    """The `Server-Timing: app;dur=` of `requests` identical POSTs, sent one after another."""
    parts = urlsplit(base_url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    times = []
    try:
        for _ in range(requests):
            connection.request("POST", path, body=body, headers=headers)
            response = connection.getresponse()
            response.read()
            if response.status != 200:
                raise RuntimeError(f"{path} answered {response.status}")
            timing = response.getheader("server-timing", "")
            times.append(float(timing.partition("dur=")[2]))
    finally:
        connection.close()
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="wrk run per endpoint (default 10)")
    parser.add_argument("--requests", type=int, default=200, help="sequential requests per path in part 2")
    parser.add_argument(
        "--rounds",
        type=int,
        default=5,
        help="alternating wrk rounds in part 1 (default 5); "
        "this machine's figures vary run to run, so the target is judged on the median ratio",
    )
    args = parser.parse_args(argv)
    if not 0 < args.seconds <= 120 or not 1 <= args.requests <= 10_000 or not 1 <= args.rounds <= 20:
        parser.error("keep --seconds in (0, 120], --requests in [1, 10000] and --rounds in [1, 20]")
    count_body = json.dumps({"text": sample_text(1024), "tokenizers": ["cl100k_base"]}).encode()
    text4k = sample_text(4096)
    missed = []
    with tempfile.TemporaryDirectory(prefix="tokenprism-bench-") as data_dir:
        process, base_url = start_server(data_dir)
        try:
            json_headers = {"Content-Type": "application/json"}
            server_times(base_url, "/api/count", count_body, json_headers, 3)  # load cl100k_base first
            print(f"server: tokenprism serve, 1 process, {base_url}")
            print(f"1. wrk, 32 connections, {args.seconds:g} s each, {args.rounds} rounds of /healthz then /api/count")
            ratios = []
            for round_number in range(1, args.rounds + 1):
                healthz = run_wrk(f"{base_url}/healthz", args.seconds, 32, 2)
                count = run_wrk(f"{base_url}/api/count", args.seconds, 32, 2, "POST", count_body, json_headers)
                for label, result in (("GET /healthz", healthz), ("POST /api/count, 1 KB", count)):
                    print(
                        f"   {round_number}. {label:<24} {result.rps:8.0f} req/s  p50 {result.p50_ms:6.2f} ms  "
                        f"p99 {result.p99_ms:6.2f} ms  non-2xx {result.non_2xx}  errors {result.errors}"
                    )
                ratios.append(count.rps / healthz.rps if healthz.rps else 0.0)
                if count.non_2xx or count.errors:
                    missed.append("count errors")
            ratio = statistics.median(ratios)
            print(
                f"   ratio /api/count / /healthz requests/s: {', '.join(f'{r:.2f}' for r in ratios)}; "
                f"median {ratio:.2f}x (target >= 0.5)"
            )
            if ratio < 0.5:
                missed.append("count ratio")
            print(f"2. {len(text4k):,} characters, {args.requests} requests each, one after another")
            fragment, tokenize = [], []
            for _ in range(0, args.requests, 10):  # in turns of 10, so that a slow spell of the VM hits both
                fragment += server_times(
                    base_url,
                    "/",
                    urlencode({"tokenizer": "cl100k_base", "text": text4k}).encode(),
                    {
                        "Content-Type": "application/x-www-form-urlencoded",
                        "HX-Request": "true",
                        "Accept-Encoding": "gzip",
                    },
                    10,
                )
                tokenize += server_times(
                    base_url,
                    "/api/tokenize",
                    json.dumps({"tokenizer": "cl100k_base", "text": text4k}).encode(),
                    {**json_headers, "Accept-Encoding": "gzip"},
                    10,
                )
            for label, times in (("playground fragment", fragment), ("POST /api/tokenize", tokenize)):
                print(
                    f"   {label:<24} median server time {statistics.median(times):6.2f} ms  "
                    f"(p90 {sorted(times)[int(0.9 * len(times))]:.2f} ms)"
                )
            cost = statistics.median(fragment) / statistics.median(tokenize)
            print(f"   ratio fragment / tokenize: {cost:.2f}x (target <= 3)")
            if cost > 3:
                missed.append("fragment cost ratio")
        finally:
            stop_server(process)
    print("criteria: " + ("all met" if not missed else "MISSED: " + ", ".join(missed)))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
