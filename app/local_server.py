"""Start the app (`tokenprism serve`) as a child process on a free loopback port, for tests and benchmarks.

`start_server` returns the process and its base URL once `/healthz` answers; stopping it is
the caller's job (`stop_server`); `server_log` reads what it has logged so far. Nothing here
is used by the app itself.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO

import httpx

from app.settings import REPO_ROOT


class ServerProcess(subprocess.Popen[bytes]):
    """A server started by `start_server`, with the file its stdout and stderr go to."""

    log_file: IO[bytes]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(
    data_dir: Path | str, extra_env: dict | None = None, wait_seconds: float = 30, workers: int = 1
) -> tuple[ServerProcess, str]:
    """`tokenprism serve` (the README's way to run the app) as a child process."""
    port = free_port()
    # a file, not a pipe: a pipe nobody reads would block a chatty server; it lives as long as the server
    log = tempfile.TemporaryFile()  # noqa: SIM115
    env = {**os.environ, "TOKENPRISM_DATA_DIR": str(data_dir), **(extra_env or {})}
    process = ServerProcess(
        [
            sys.executable,
            "-m",
            "app.cli",
            "serve",
            "--workers",
            str(workers),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
            "--no-access-log",
        ],
        cwd=REPO_ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    process.log_file = log
    base_url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + wait_seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log.seek(0)
            output = log.read().decode(errors="replace")
            raise RuntimeError(f"the server exited early with status {process.returncode}:\n{output}")
        try:
            if httpx.get(f"{base_url}/healthz", timeout=1).status_code == 200:
                return process, base_url
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"the server did not answer /healthz within {wait_seconds:.0f} s")


def server_log(process: ServerProcess) -> str:
    """What the server started by `start_server` has written to stdout and stderr so far."""
    process.log_file.seek(0)
    return process.log_file.read().decode(errors="replace")


def stop_server(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
