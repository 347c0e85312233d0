"""The counts behind each merge in Chromium: a model trained in the test through the API shows,
on the replay, each merge's count in training (the naive trainer's get_stats values), a bar per
merge and the sparkline; stepping with the buttons moves the counts listed; its job page lists
the first merges with their counts."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from app.bpe.model import PATTERNS
from tests.bpe.test_bpe_vs_naive import naive_train_counted
from tests.reference import stdlib_texts

pytestmark = pytest.mark.browser
TEXTS = [text for _, text in stdlib_texts(5, 3_000)[2:5]]
MERGES = 30


def train(page, name: str) -> str:
    response = page.request.post("/api/train", data={"name": name, "texts": TEXTS, "vocab_size": 256 + MERGES})
    assert response.status == 202, response.text()
    status_url = response.json()["status_url"]
    deadline = time.monotonic() + 60
    while (state := page.request.get(status_url).json())["status"] in ("queued", "running"):
        assert time.monotonic() < deadline, state
        time.sleep(0.1)
    assert state["status"] == "done", state
    return state["job"]


def test_replay_shows_the_counts_of_a_model_trained_here(page):
    name = "browser-counts"
    job = train(page, name)
    try:
        _, counts = naive_train_counted(TEXTS, PATTERNS["gpt4"], MERGES)
        page.goto(f"/train/jobs/{job}")
        first = page.locator("[data-role=first-merges] [data-role=first-merge-count]")
        expect(first).to_have_count(10)
        assert [int(c) for c in first.evaluate_all("els => els.map(e => e.dataset.count)")] == counts[:10]
        page.goto(f"/train/replay?tokenizer={name}&k=2")
        shown = page.locator("[data-role=merges] [data-role=merge-count]")
        expect(shown).to_have_count(6)
        assert [int(c) for c in shown.evaluate_all("els => els.map(e => e.dataset.count)")] == counts[:6]
        expect(shown.first).to_have_text(f"{counts[0]:,}× in training")
        expect(page.locator("[data-role=merge-count-bar]")).to_have_count(6)
        assert page.locator("[data-role=merge-count-bar] .fill").first.bounding_box()["width"] > 0
        expect(page.locator("[data-role=merge-count-spark]")).to_be_visible()
        page.click("[data-role=step-next10]")
        expect(page.locator("output[data-role=k]")).to_have_text("12")
        assert [int(c) for c in shown.evaluate_all("els => els.map(e => e.dataset.count)")] == counts[8:16]
    finally:
        page.request.delete(f"/api/tokenizers/{name}")
