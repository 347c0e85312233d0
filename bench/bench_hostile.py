"""The hostile suite of issue "Bounded, fast serving", against one real server, with figures.

Starts `tokenprism serve` (1 process) on a free loopback port with an empty data directory,
then, while a monitor samples the server's resident memory every 50 ms and times GET
/healthz every 100 ms over its own connection:

1. one 500,000-character CJK text through POST /api/compare (every built-in), /api/tokenize
   (cl100k_base), the playground fragment and the comparison fragment;
2. 20 concurrent 400,000-character POST /api/tokenize (half CJK, half English prose);
3. the playground fragment (20 KB of text, HX-Request) from one client sending one request
   after another for `--seconds`, then from 64 connections (wrk) for `--seconds`.

It prints each request's status, time and size, the fragment requests/s at 64 connections
as a ratio of the one-client rate, the server's peak RSS and /healthz's p50/p99/max, and
exits non-zero when a criterion of the issue is missed (peak RSS < 1 GB, every answer a
200 or a 413/503 in the error shape within 15 s, /healthz p99 < 250 ms, fragment ratio
>= 0.8). Loopback only; every loop is bounded in time.

    .venv/bin/python bench/bench_hostile.py [--seconds 10]
"""

from __future__ import annotations

import argparse
import http.client
import json
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlencode, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import mixed_text
from wrk_runner import run_wrk

from app.local_server import start_server, stop_server

LIMIT_S = 15.0


def cjk(n: int) -> str:
    return "".join(chr(0x4E00 + (i * 7919) % 20000) for i in range(n))


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Monitor(threading.Thread):
    """Peak RSS every 50 ms; /healthz latency every 100 ms on one keep-alive connection."""

    def __init__(self, base_url: str, pid: int):
        super().__init__(daemon=True)
        self.host, self.port = urlsplit(base_url).hostname, urlsplit(base_url).port
        self.pid = pid
        self.peak_mb = 0.0
        self.health_ms: list[float] = []
        self.health_failures = 0
        self.stopping = threading.Event()

    def run(self) -> None:
        connection = http.client.HTTPConnection(self.host, self.port, timeout=LIMIT_S)
        next_probe = 0.0
        while not self.stopping.is_set():
            self.peak_mb = max(self.peak_mb, rss_mb(self.pid))
            now = time.perf_counter()
            if now >= next_probe:
                next_probe = now + 0.1
                try:
                    connection.request("GET", "/healthz")
                    response = connection.getresponse()
                    response.read()
                    ok = response.status == 200
                except (OSError, http.client.HTTPException):
                    ok = False
                    connection.close()
                    connection = http.client.HTTPConnection(self.host, self.port, timeout=LIMIT_S)
                self.health_ms.append((time.perf_counter() - now) * 1000)
                self.health_failures += not ok
            time.sleep(0.05)
        connection.close()

    def percentile(self, p: float) -> float:
        ordered = sorted(self.health_ms) or [float("nan")]
        return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def post(base_url: str, path: str, body: bytes, content_type: str, htmx: bool = False) -> dict:
    parts = urlsplit(base_url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=LIMIT_S + 30)
    headers = {"Content-Type": content_type, "Accept-Encoding": "gzip"}
    if htmx:
        headers["HX-Request"] = "true"
    started = time.perf_counter()
    try:
        connection.request("POST", path, body=body, headers=headers)
        response = connection.getresponse()
        data = response.read()
        status, kind = response.status, response.getheader("content-type", "")
        code = ""
        if status >= 400 and kind.startswith("application/json"):
            code = json.loads(data)["error"]["code"]
    except (OSError, http.client.HTTPException) as error:
        status, data, code = 0, b"", type(error).__name__
    finally:
        connection.close()
    return {"path": path, "status": status, "code": code, "seconds": time.perf_counter() - started, "bytes": len(data)}


def multipart(fields: list[tuple[str, str]]) -> tuple[bytes, str]:
    """A multipart/form-data body, as the pages' htmx form sends it (text is not percent-encoded)."""
    boundary = "tokenprism-bench-boundary"
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n' for name, value in fields
    ]
    return ("".join(parts) + f"--{boundary}--\r\n").encode("utf-8"), f"multipart/form-data; boundary={boundary}"


def acceptable(result: dict) -> bool:
    in_shape = result["status"] == 200 or (result["status"] in (413, 503) and result["code"])
    return in_shape and result["seconds"] <= LIMIT_S


def show(label: str, result: dict) -> None:
    print(
        f"  {label:<44} {result['status']} {result['code'] or '':<16} {result['seconds']:6.2f} s "
        f"{result['bytes'] / 1e6:8.2f} MB {'ok' if acceptable(result) else 'MISSED'}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each fragment load (default 10)")
    args = parser.parse_args(argv)
    big = cjk(500_000)
    prose = mixed_text(400_000)[:400_000]
    fragment_text = mixed_text(20_000)[:20_000]
    results: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="tokenprism-hostile-") as data_dir:
        process, base_url = start_server(data_dir)
        try:
            print(
                f"server: tokenprism serve, 1 process, pid {process.pid}, {base_url}; "
                f"idle RSS {rss_mb(process.pid):.0f} MB"
            )
            monitor = Monitor(base_url, process.pid)
            monitor.start()
            form = "application/x-www-form-urlencoded"
            page, page_kind = multipart([("tokenizer", "o200k_base"), ("text", big)])
            names = ("gpt2", "cl100k_base", "o200k_base", "mistral_v1", "tokenprism_4k")
            compare_page, compare_kind = multipart([*(("tokenizers", n) for n in names), ("text", big)])
            print("1. one 500,000-character CJK text:")
            for label, path, body, kind, htmx in [
                (
                    "POST /api/compare (all built-ins)",
                    "/api/compare",
                    json.dumps({"text": big}).encode(),
                    "application/json",
                    False,
                ),
                (
                    "POST /api/tokenize (cl100k_base)",
                    "/api/tokenize",
                    json.dumps({"tokenizer": "cl100k_base", "text": big}).encode(),
                    "application/json",
                    False,
                ),
                ("playground fragment (o200k_base)", "/", page, page_kind, True),
                ("comparison fragment (5 tokenizers)", "/compare", compare_page, compare_kind, True),
            ]:
                result = post(base_url, path, body, kind, htmx)
                show(label, result)
                results.append(result)
            print(f"   after part 1: peak RSS {monitor.peak_mb:.0f} MB")
            print("2. 20 concurrent 400,000-character POST /api/tokenize (10 CJK, 10 prose):")
            bodies = [
                json.dumps({"tokenizer": name, "text": cjk(400_000) if i % 2 else prose}).encode()
                for i, name in enumerate(["cl100k_base", "o200k_base", "gpt2", "mistral_v1", "tokenprism_4k"] * 4)
            ]
            with ThreadPoolExecutor(20) as clients:
                burst = list(
                    clients.map(lambda body: post(base_url, "/api/tokenize", body, "application/json"), bodies)
                )
            for result in burst:
                results.append(result)
            statuses = {}
            for result in burst:
                statuses[(result["status"], result["code"])] = statuses.get((result["status"], result["code"]), 0) + 1
            print(
                f"   answers: {', '.join(f'{n} x {s} {c}'.strip() for (s, c), n in sorted(statuses.items()))}; "
                f"slowest {max(r['seconds'] for r in burst):.2f} s; all in shape and time: {all(map(acceptable, burst))}"
            )
            print(f"   after part 2: peak RSS {monitor.peak_mb:.0f} MB")
            print(f"3. playground fragment, {len(fragment_text):,} characters (cl100k_base):")
            fragment = urlencode({"tokenizer": "cl100k_base", "text": fragment_text}).encode()
            headers = {"Content-Type": form, "HX-Request": "true", "Accept-Encoding": "gzip"}
            one = run_wrk(f"{base_url}/", args.seconds, 1, 1, "POST", fragment, headers)
            many = run_wrk(f"{base_url}/", args.seconds, 64, 2, "POST", fragment, headers, timeout_s=int(LIMIT_S))
            ratio = many.rps / one.rps if one.rps else 0.0
            print(
                f"   1 client:        {one.rps:7.1f} req/s  p50 {one.p50_ms:7.1f} ms  p99 {one.p99_ms:7.1f} ms  "
                f"non-2xx {one.non_2xx}  errors {one.errors}"
            )
            print(
                f"   64 connections:  {many.rps:7.1f} req/s  p50 {many.p50_ms:7.1f} ms  p99 {many.p99_ms:7.1f} ms  "
                f"max {many.max_ms:7.1f} ms  non-2xx {many.non_2xx}  errors {many.errors}"
            )
            print(f"   ratio 64 connections / 1 client: {ratio:.2f}x")
            monitor.stopping.set()
            monitor.join()
        finally:
            stop_server(process)
    print(
        f"server peak RSS {monitor.peak_mb:.0f} MB; /healthz during the run: {len(monitor.health_ms)} probes, "
        f"p50 {monitor.percentile(50):.1f} ms, p99 {monitor.percentile(99):.1f} ms, max {max(monitor.health_ms):.1f} ms, "
        f"failures {monitor.health_failures}"
    )
    missed = []
    if monitor.peak_mb >= 1024:
        missed.append("peak RSS >= 1 GB")
    if not all(map(acceptable, results)):
        missed.append("an answer out of shape or over 15 s")
    if monitor.percentile(99) >= 250 or monitor.health_failures:
        missed.append("/healthz p99 >= 250 ms or a failed probe")
    if ratio < 0.8 or many.max_ms > LIMIT_S * 1000:
        missed.append("fragment ratio < 0.8 or a fragment over 15 s")
    print("criteria: " + ("all met" if not missed else "MISSED: " + "; ".join(missed)))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
