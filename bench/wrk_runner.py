"""Run `wrk` (Debian's package) against a local URL and read its figures as numbers.

A small Lua script sets the method, body and headers and, when wrk is done, prints one
JSON line with requests, duration, errors, non-2xx answers and latency percentiles; `run_wrk`
returns that as a `WrkResult`. Only loopback URLs are accepted: these benches never send
traffic anywhere else. `make bench` installs wrk with apt when it is missing.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

_LUA = r"""
local body_file = os.getenv("TP_BODY_FILE")
if body_file and body_file ~= "" then
  local f = io.open(body_file, "rb"); wrk.body = f:read("*a"); f:close()
end
wrk.method = os.getenv("TP_METHOD") or "GET"
for header in string.gmatch(os.getenv("TP_HEADERS") or "", "[^\n]+") do
  local name, value = header:match("^([^:]+):%s*(.*)$")
  if name then wrk.headers[name] = value end
end
function done(summary, latency, requests)
  io.write(string.format(
    'TP_RESULT {"requests":%d,"duration_us":%d,"errors":%d,"non2xx":%d,"p50_us":%d,"p99_us":%d,"max_us":%d}\n',
    summary.requests, summary.duration,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.errors.status, latency:percentile(50), latency:percentile(99), latency.max))
end
"""


@dataclass
class WrkResult:
    requests: int
    seconds: float
    errors: int  # socket errors (connect, read, write, timeout)
    p50_ms: float
    p99_ms: float
    max_ms: float
    non_2xx: int  # responses with a status outside 200-399

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0


def wrk_path() -> str:
    path = shutil.which("wrk")
    if not path:
        raise SystemExit("wrk is not installed: `apt-get install wrk` (make bench does it)")
    return path


def run_wrk(
    url: str,
    seconds: float,
    connections: int,
    threads: int = 1,
    method: str = "GET",
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    timeout_s: int = 20,
) -> WrkResult:
    if urlsplit(url).hostname not in ("127.0.0.1", "localhost", "::1"):
        raise ValueError(f"{url}: benches only load this machine's loopback")
    with tempfile.TemporaryDirectory(prefix="tokenprism-wrk-") as scratch:
        script = Path(scratch) / "tp.lua"
        script.write_text(_LUA)
        body_file = ""
        if body is not None:
            body_file = str(Path(scratch) / "body")
            Path(body_file).write_bytes(body)
        env = {
            "TP_METHOD": method,
            "TP_BODY_FILE": body_file,
            "TP_HEADERS": "\n".join(f"{k}: {v}" for k, v in (headers or {}).items()),
            "PATH": "/usr/bin:/bin",
        }
        command = [
            wrk_path(),
            f"-t{max(1, min(threads, connections))}",
            f"-c{connections}",
            f"-d{seconds:g}s",
            f"--timeout={timeout_s}s",
            "-s",
            str(script),
            url,
        ]
        output = subprocess.run(command, env=env, capture_output=True, text=True, timeout=seconds + timeout_s + 30)
    line = next((line for line in output.stdout.splitlines() if line.startswith("TP_RESULT ")), None)
    if line is None:
        raise RuntimeError(f"wrk printed no result:\n{output.stdout}\n{output.stderr}")
    data = json.loads(line[len("TP_RESULT ") :])
    return WrkResult(
        requests=data["requests"],
        seconds=data["duration_us"] / 1e6,
        errors=data["errors"],
        p50_ms=data["p50_us"] / 1000,
        p99_ms=data["p99_us"] / 1000,
        max_ms=data["max_us"] / 1000,
        non_2xx=data["non2xx"],
    )
