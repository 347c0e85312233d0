"""Long-lived child processes that run user regexes for the server (see child.py).

`Sandbox(children)` keeps up to `children` child processes (`python -m app.sandbox.child`,
talking pickles over its stdin and stdout), each answering one request at a time
under an address-space cap of CHILD_MEMORY_BYTES and its own per-request bounds. `call`
takes a free child, waiting at most WAIT_S (then a 503 `server_busy` with Retry-After),
sends the request and waits at most `timeout_s` for the answer: a child that does not answer
in time is killed (`SandboxTimeout`), one that dies is noticed (`SandboxDied`), and either is
replaced by a fresh one on the next call. Callers run on worker threads (app/web/pool.py) or
in the CLI, never on the event loop: `call` blocks.

`run_inline()` makes this process answer its own requests (`child.handle` under its memory
bounds), for a process that is itself a limited child (app/tokenizers/user/upload_check.py).
Left out: sharing children between server processes (each has its own).
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
from multiprocessing.connection import Connection

from app.errors import TokenprismError
from app.sandbox import child as child_module

CHILD_MEMORY_BYTES = 1 << 30
START_S = 30.0  # a spawned child imports Python and `regex`: slow on a loaded machine
WAIT_S = 5.0
CHILD_MODULE = "app.sandbox.child"


class SandboxTimeout(Exception):
    pass


class SandboxDied(Exception):
    pass


class _Child:
    def __init__(self):
        self.process = subprocess.Popen(
            [sys.executable, "-m", CHILD_MODULE, str(CHILD_MEMORY_BYTES)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "PYTHONHASHSEED": "0"},
            start_new_session=True,
        )
        assert self.process.stdin is not None and self.process.stdout is not None  # both PIPE
        self.sending = Connection(os.dup(self.process.stdin.fileno()), readable=False)
        self.connection = Connection(os.dup(self.process.stdout.fileno()), writable=False)
        self.process.stdin.close()
        self.process.stdout.close()
        try:
            self._answer(START_S)
        except BaseException:
            self.kill()
            raise

    def call(self, request: tuple, timeout_s: float):
        try:
            self.sending.send(request)
        except (OSError, ValueError):
            raise SandboxDied from None
        return self._answer(timeout_s)

    def _answer(self, timeout_s: float):
        try:
            if not self.connection.poll(timeout_s):
                self.kill()
                raise SandboxTimeout
            return self.connection.recv()
        except (EOFError, OSError):
            self.kill()
            raise SandboxDied from None

    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(5)
        self.sending.close()
        self.connection.close()


class Sandbox:
    def __init__(self, children: int = 2):
        self.children = children
        self._idle: queue.LifoQueue[_Child | None] = queue.LifoQueue()
        for _ in range(children):
            self._idle.put(None)

    def call(self, request: tuple, timeout_s: float):
        """The child's answer to `request` (see child.handle); SandboxTimeout, SandboxDied, or a 503."""
        try:
            child = self._idle.get(timeout=WAIT_S)
        except queue.Empty:
            busy = TokenprismError(
                f"all {self.children} sandbox processes that run user regular expressions and chat templates are "
                "busy; try again in a few seconds",
                code="server_busy",
                status=503,
            )
            busy.headers = {"Retry-After": "5"}
            raise busy from None
        try:
            if child is None or not child.alive():
                child = _Child()
            return child.call(request, timeout_s)
        except (SandboxTimeout, SandboxDied):
            child = None
            raise
        finally:
            self._idle.put(child)

    def close(self) -> None:
        while True:
            try:
                child = self._idle.get_nowait()
            except queue.Empty:
                return
            if child is not None:
                child.kill()


class _Inline:
    """This process answers its own requests (it is a limited child already)."""

    def call(self, request: tuple, timeout_s: float):
        return child_module.handle(request)


_shared: Sandbox | _Inline | None = None
_shared_lock = threading.Lock()


def shared() -> Sandbox | _Inline:
    """This process's sandbox, started on first use."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = Sandbox()
        return _shared


def run_inline() -> None:
    global _shared
    with _shared_lock:
        _shared = _Inline()
