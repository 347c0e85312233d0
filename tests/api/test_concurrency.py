"""Tokenizer work runs off the event loop: a slow request does not stall the others.

Over real HTTP: while one request tokenizes a 400,000-character text with o200k_base
(and serialises its ~100,000 tokens), /healthz is polled on other connections. Each poll
must come back quickly compared with the slow request; if the slow work ran on the event
loop, the polls sent meanwhile would wait for it to finish. Durations are compared with
each other, never with a fixed number of seconds.
"""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from .helpers import stdlib_texts

pytestmark = pytest.mark.serial  # times the server's answers: run alone, not beside another test worker


def test_healthz_answers_while_a_slow_request_runs(live_server):
    text = "".join(t for _, t in stdlib_texts(count=40, max_chars=50_000))[:400_000]
    assert len(text) == 400_000

    async def scenario():
        async with httpx.AsyncClient(base_url=live_server, timeout=120) as client:
            await client.get("/healthz")  # connection warmed, tokenizer loaded below
            await client.post("/api/count", json={"text": "warm up", "tokenizers": ["o200k_base"]})

            async def slow():
                start = time.perf_counter()
                response = await client.post("/api/tokenize", json={"tokenizer": "o200k_base", "text": text})
                assert response.status_code == 200
                return start, time.perf_counter()

            task = asyncio.create_task(slow())
            polls = []  # (sent, answered)
            while not task.done():
                sent = time.perf_counter()
                response = await client.get("/healthz")
                answered = time.perf_counter()
                assert response.json() == {"status": "ok"}
                polls.append((sent, answered))
            slow_start, slow_end = await task
            return slow_start, slow_end, polls

    slow_start, slow_end, polls = asyncio.run(scenario())
    slow_duration = slow_end - slow_start
    during = [(sent, answered) for sent, answered in polls if answered < slow_end]
    latencies = [answered - sent for sent, answered in during]
    assert len(during) >= 3, (slow_duration, polls)
    latencies.sort()
    median = latencies[len(latencies) // 2]
    print(
        f"slow request {slow_duration:.3f} s; {len(during)} /healthz polls meanwhile, median {median:.4f} s, slowest {latencies[-1]:.4f} s"
    )
    # Polls answered meanwhile took a small fraction of the slow request: the typical one a tiny
    # fraction, the worst (which waits for the GIL a few times while the worker runs Python) a small one.
    assert median < slow_duration / 10, (median, slow_duration)
    assert latencies[-1] < slow_duration / 3, (latencies[-1], slow_duration)
