"""The work pool's admission control, driven step by step with events (no timing guesses).

One thread, a queue of one: a second request waits, a third is refused at once (queue
full), a waiter that outlives `wait_s` is refused, and a thread whose client went away is
given back only when its work has really finished.
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from app.web.pool import ServerBusy, WorkPool


def run(coroutine):
    """asyncio.run on a thread of its own: the browser tests' Playwright keeps an event loop
    running on the main thread, where asyncio.run would refuse to start."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, coroutine).result()


def blocker():
    started, release = threading.Event(), threading.Event()

    def work(value):
        started.set()
        release.wait(10)
        return value

    return started, release, work


def test_work_runs_on_a_pool_thread_and_returns_its_value():
    pool = WorkPool(threads=2, max_queue=4, wait_s=1)

    async def scenario():
        return threading.get_ident(), await pool.run(threading.get_ident)

    loop_thread, work_thread = run(scenario())
    assert work_thread != loop_thread
    assert run(pool.run(lambda a, b: a + b, 2, 3)) == 5


def test_errors_of_the_work_reach_the_caller_and_free_the_thread():
    pool = WorkPool(threads=1, max_queue=0, wait_s=0.1)

    async def scenario():
        with pytest.raises(ZeroDivisionError):
            await pool.run(lambda: 1 / 0)
        return await pool.run(lambda: "free again")

    assert run(scenario()) == "free again"


def test_a_full_queue_refuses_at_once_and_a_long_wait_is_refused_with_retry_after():
    pool = WorkPool(threads=1, max_queue=1, wait_s=0.3)
    started, release, work = blocker()

    async def scenario():
        first = asyncio.create_task(pool.run(work, "first"))
        await asyncio.to_thread(started.wait, 10)
        second = asyncio.create_task(pool.run(lambda: "second"))
        await asyncio.sleep(0)
        assert pool.waiting == 1
        with pytest.raises(ServerBusy, match="queue is full") as full:
            await pool.run(lambda: "third")
        assert full.value.status == 503 and int(full.value.headers["Retry-After"]) >= 1
        with pytest.raises(ServerBusy, match="no worker was free"):
            await second
        release.set()
        assert await first == "first"
        assert pool.busy == 0 and pool.waiting == 0
        return await pool.run(lambda: "after")

    assert run(scenario()) == "after"


def test_a_waiter_gets_the_thread_as_soon_as_it_is_free():
    pool = WorkPool(threads=1, max_queue=1, wait_s=10)
    started, release, work = blocker()

    async def scenario():
        first = asyncio.create_task(pool.run(work, 1))
        await asyncio.to_thread(started.wait, 10)
        second = asyncio.create_task(pool.run(lambda: 2))
        await asyncio.sleep(0)
        release.set()
        return await first, await second

    assert run(scenario()) == (1, 2)


def test_a_cancelled_request_keeps_its_thread_until_the_work_ends():
    pool = WorkPool(threads=1, max_queue=2, wait_s=10)
    started, release, work = blocker()

    async def scenario():
        first = asyncio.create_task(pool.run(work, "abandoned"))
        await asyncio.to_thread(started.wait, 10)
        first.cancel()
        await asyncio.sleep(0.05)
        assert pool.busy == 1  # the thread still works for the request that went away
        second = asyncio.create_task(pool.run(lambda: "next"))
        await asyncio.sleep(0.05)
        assert not second.done() and pool.waiting == 1
        release.set()
        return await second

    assert run(scenario()) == "next"


class FakeRequest:
    def __init__(self, gone: bool):
        self.gone = gone

    async def is_disconnected(self) -> bool:
        return self.gone


def test_work_of_a_client_that_left_while_waiting_is_dropped_not_done():
    from app.web.pool import ClientGone

    pool = WorkPool(threads=1, max_queue=1, wait_s=10)
    done = []

    async def scenario():
        with pytest.raises(ClientGone):
            await pool.run(done.append, "gone", request=FakeRequest(gone=True))
        await pool.run(done.append, "here", request=FakeRequest(gone=False))
        return pool.busy

    assert run(scenario()) == 0 and done == ["here"]
