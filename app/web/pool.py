"""The one bounded pool for CPU work (tokenizing, building token lists, rendering pages).

A fixed number of threads (`Settings.workers`) does the work; requests wait for a free
thread in a bounded queue (`max_queue` waiting, each for at most `queue_wait_s`). A request
that cannot start in time is refused with `ServerBusy` (503 with Retry-After) instead of
queueing without end. A thread is given back only when its work has really finished, so a
client that hangs up cannot make more work run at once than there are threads; and a
request whose client hung up while it waited is dropped when its turn comes (uvicorn does
not cancel it), so a burst of abandoned requests does not delay the ones that follow.

The event loop runs no tokenizer work but the counting of small texts (`api/count.py:INLINE_CHARS`,
~0.1 ms, cheaper than a hand-over), so `/healthz` and static files answer while every
thread is busy. Left out: priorities and per-client fairness.
"""

from __future__ import annotations

import asyncio
import contextvars
import math
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from starlette.requests import Request

from app.errors import TokenprismError

T = TypeVar("T")


class ServerBusy(TokenprismError):
    code = "server_busy"
    status = 503

    def __init__(self, message: str, retry_after: int):
        super().__init__(message)
        self.headers = {"Retry-After": str(retry_after)}


class ClientGone(TokenprismError):
    """Nobody reads this answer; the status is for the logs (nginx's 499)."""

    code = "client_gone"
    status = 499


class WorkPool:
    def __init__(self, threads: int, max_queue: int, wait_s: float):
        self.threads = threads
        self.max_queue = max_queue
        self.wait_s = wait_s
        self._executor = ThreadPoolExecutor(threads, thread_name_prefix="tokenprism-work")
        self._free = threads
        self._waiters: list[asyncio.Future] = []  # FIFO of requests waiting for a thread

    @property
    def busy(self) -> int:
        return self.threads - self._free

    @property
    def waiting(self) -> int:
        return len(self._waiters)

    async def run(self, work: Callable[..., T], *args, request: Request | None = None) -> T:
        """`work(*args)` on a pool thread, once one is free; `ServerBusy` if none frees up in time.
        With the `request`, work whose client has gone while it waited is dropped, not done."""
        await self._acquire()
        if request is not None and await request.is_disconnected():
            self._release()
            raise ClientGone("the client closed the connection while its request waited")
        try:
            future = asyncio.get_running_loop().run_in_executor(
                self._executor, contextvars.copy_context().run, work, *args
            )
        except BaseException:
            self._release()
            raise
        try:
            return await asyncio.shield(future)
        finally:
            if future.done():
                self._release()
            else:  # the client went away: the thread is given back when the work really ends
                future.add_done_callback(lambda _: self._release())

    async def _acquire(self) -> None:
        if self._free > 0 and not self._waiters:
            self._free -= 1
            return
        if len(self._waiters) >= self.max_queue:
            raise self._busy("the queue is full")
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await asyncio.wait_for(asyncio.shield(waiter), self.wait_s)
        except (TimeoutError, asyncio.CancelledError):
            if waiter.done() and not waiter.cancelled():
                self._release()  # the thread was handed over just as we gave up: pass it on
            else:
                waiter.cancel()
            if waiter in self._waiters:
                self._waiters.remove(waiter)
            task = asyncio.current_task()
            if task is not None and task.cancelling():  # a task always runs this
                raise
            raise self._busy(f"no worker was free within {self.wait_s:g} s") from None

    def _release(self) -> None:
        while self._waiters:
            waiter = self._waiters.pop(0)
            if not waiter.done():
                waiter.set_result(None)  # the thread goes straight to the next in line
                return
        self._free += 1

    def _busy(self, why: str) -> ServerBusy:
        retry = max(1, math.ceil(self.wait_s / 2))
        return ServerBusy(
            f"the server is busy ({why}: {self.busy} requests running, {self.waiting} waiting); "
            f"try again in {retry} s, or send shorter texts",
            retry,
        )
