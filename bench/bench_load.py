"""Load on loopback: POST /api/count (a ~1 KB text, cl100k_base) next to GET /healthz.

Starts the app in a uvicorn subprocess (1 worker) on a free loopback port, then for each
endpoint keeps `--concurrency` requests in flight from one asyncio httpx client for
`--seconds` (or until `--max-requests`), and prints requests per second, p50 and p99
latency and the error count, plus /api/count's figures as a ratio of /healthz's, the
trivial endpoint of the same server in the same run. Stops by itself; no network beyond
127.0.0.1.

It also prints the CPU time the server process and this client spent per request. httpx
costs more CPU per request than the server does for /healthz, so on a small machine the
client, not the server, limits /healthz's requests per second; "server CPU/req" is the
figure that does not depend on the client.

    .venv/bin/python bench/bench_load.py            # ~10 s per endpoint
    .venv/bin/python bench/bench_load.py --quick    # ~2 s per endpoint
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from app.local_server import start_server, stop_server



def sample_text(size: int = 1024) -> str:
    """About `size` characters of prose and code nobody here wrote: the start of textwrap.py."""
    source = (Path(sysconfig.get_paths()["stdlib"]) / "textwrap.py").read_text(encoding="utf-8")
    return source[:size]


def process_cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process and all its threads (Linux /proc), or None elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


@dataclass
class Result:
    name: str
    requests: int
    errors: int
    seconds: float
    latencies: list[float]
    server_cpu: float | None = None  # seconds of CPU the server used during the run
    client_cpu: float = 0.0

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    def percentile(self, p: float) -> float:
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


async def run_load(base_url: str, server_pid: int, name: str, method: str, path: str, body: dict | None,
                   seconds: float, concurrency: int, max_requests: int) -> Result:
    latencies: list[float] = []
    errors = 0
    started = 0
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=base_url, timeout=30, limits=limits) as client:
        deadline = time.perf_counter() + seconds

        async def worker():
            nonlocal errors, started
            while time.perf_counter() < deadline and started < max_requests:
                started += 1
                begin = time.perf_counter()
                try:
                    response = await client.request(method, path, json=body)
                    ok = response.status_code == 200
                except httpx.HTTPError:
                    ok = False
                latencies.append(time.perf_counter() - begin)
                errors += not ok

        server_before, client_before = process_cpu_seconds(server_pid), time.process_time()
        begin = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        elapsed = time.perf_counter() - begin
        server_after, client_after = process_cpu_seconds(server_pid), time.process_time()
    server_cpu = server_after - server_before if server_before is not None and server_after is not None else None
    return Result(name, len(latencies), errors, elapsed, latencies, server_cpu, client_after - client_before)


def report(result: Result) -> None:
    requests = max(result.requests, 1)
    server = f"{result.server_cpu / requests * 1000:.2f} ms" if result.server_cpu is not None else "n/a"
    print(
        f"{result.name:<24} {result.requests:>7,} req  {result.rps:>6,.0f} req/s  "
        f"p50 {result.percentile(50) * 1000:>6.2f} ms  p99 {result.percentile(99) * 1000:>6.2f} ms  "
        f"errors {result.errors}  server CPU/req {server}  client CPU/req {result.client_cpu / requests * 1000:.2f} ms"
    )
    if result.server_cpu:
        print(f"{'':<24} the server alone could do about {requests / result.server_cpu:,.0f} req/s per core")


async def main_async(args) -> list[Result]:
    text = sample_text()
    count_body = {"text": text, "tokenizers": ["cl100k_base"]}
    with tempfile.TemporaryDirectory(prefix="tokenprism-bench-") as data_dir:
        process, base_url = start_server(data_dir)
        try:
            async with httpx.AsyncClient(base_url=base_url, timeout=30) as client:  # load cl100k_base once
                warm = await client.post("/api/count", json=count_body)
                warm.raise_for_status()
                tokens = warm.json()["counts"]["cl100k_base"]
            print(f"server: uvicorn, 1 worker, {base_url}; concurrency {args.concurrency}, "
                  f"{args.seconds:g} s or {args.max_requests:,} requests per endpoint")
            print(f"/api/count text: {len(text):,} characters, {len(text.encode()):,} bytes, "
                  f"{tokens} cl100k_base tokens")
            results = []
            for name, method, path, body in [
                ("GET /healthz", "GET", "/healthz", None),
                ("POST /api/count (1 KB)", "POST", "/api/count", count_body),
            ]:
                result = await run_load(
                    base_url, process.pid, name, method, path, body, args.seconds, args.concurrency, args.max_requests
                )
                report(result)
                results.append(result)
        finally:
            stop_server(process)
    healthz, count = results
    if healthz.rps and count.rps:
        ratios = (f"ratio /api/count vs /healthz: throughput {count.rps / healthz.rps:.2f}x, "
                  f"p50 latency {count.percentile(50) / healthz.percentile(50):.2f}x")
        if healthz.server_cpu and count.server_cpu:
            per_request = (count.server_cpu / count.requests) / (healthz.server_cpu / healthz.requests)
            ratios += f", server CPU per request {per_request:.2f}x"
        print(ratios)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="about 2 s per endpoint instead of 10")
    parser.add_argument("--seconds", type=float, default=None, help="seconds per endpoint (default 10, --quick 2)")
    parser.add_argument("--concurrency", type=int, default=16, help="requests in flight (default 16)")
    parser.add_argument("--max-requests", type=int, default=200_000, help="stop an endpoint after this many")
    args = parser.parse_args(argv)
    if args.seconds is None:
        args.seconds = 2.0 if args.quick else 10.0
    if not 0 < args.seconds <= 120 or not 1 <= args.concurrency <= 512 or args.max_requests < 1:
        parser.error("keep --seconds in (0, 120], --concurrency in [1, 512] and --max-requests >= 1")
    results = asyncio.run(main_async(args))
    return 1 if any(r.errors for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
