"""The BPE lab in Chromium: train a small corpus from /train, watch the progress reach 100%,
step through the merges with the mouse and the keyboard, and open the playground with the new
tokenizer; the same without JavaScript (form posts, a refreshing job page); cancel from the page."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import expect

from app.bpe import replay
from app.bpe.model import PATTERNS
from app.bpe.train import count_chunks
from tests.reference import stdlib_texts

from .helpers import drawn_ids, expect_count, paste

pytestmark = pytest.mark.browser
CORPUS = stdlib_texts(12, 3_000)[4][1]


@pytest.fixture
def lab_name(page):
    names = []

    def make(name: str) -> str:
        names.append(name)
        return name

    yield make
    for name in names:
        page.request.delete(f"/api/tokenizers/{name}")


def k_in_url(page) -> str:
    return parse_qs(urlsplit(page.url).query).get("k", ["?"])[0]


def expect_replay(page, registry, name: str, k: int, text: str) -> None:
    expect(page.locator("output[data-role=k]")).to_have_text(f"{k:,}")
    expected = replay.with_first_merges(registry.get(name), k).encode(text)
    expect(page.locator("#replay-result [data-role=token-count]")).to_have_attribute("data-count", str(len(expected)))
    assert drawn_ids(page.locator("#replay-result")) == expected


def test_train_watch_step_and_open_the_playground(page, registry, lab_name):
    name = lab_name("browser-lab")
    page.goto("/train")
    page.fill("#train-name", name)
    page.fill("#train-vocab", "320")
    paste(page, CORPUS, "#train-text")
    chunks = count_chunks([CORPUS], PATTERNS["gpt4"])
    expect(page.locator("[data-role=preview-chunks]")).to_have_text(f"{sum(chunks.values()):,}")
    expect(page.locator("[data-role=preview-distinct]")).to_have_text(f"{len(chunks):,}")
    expect(page.locator("[data-role=preview-merges]")).to_have_text("64")
    page.click("[data-role=start]")
    expect(page).to_have_url(re.compile(r"/train/jobs/[A-Za-z0-9_-]{22}$"))
    job_url = page.url
    expect(page.locator("[data-role=percent]")).to_have_text("100", timeout=60_000)
    expect(page.locator("[data-role=job-status]")).to_have_text("done")
    expect(page.locator("[data-role=merges-made]")).to_have_text("64")
    expect(page.locator("[data-role=poll]")).to_have_count(0)  # polling has stopped

    page.click("[data-role=open-replay]")
    expect(page).to_have_url(re.compile(r"/train/replay\?"))
    text = page.locator("#replay-text").input_value()
    expect_replay(page, registry, name, 0, text)
    page.click("#step-next")
    expect_replay(page, registry, name, 1, text)
    assert k_in_url(page) == "1"
    page.focus("#k")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect_replay(page, registry, name, 3, text)
    expect(page).to_have_url(re.compile(r"[?&]k=3(&|$)"))
    page.focus("#step-next10")
    page.keyboard.press("Enter")
    expect_replay(page, registry, name, 13, text)
    page.keyboard.press("Enter")  # focus stays on the step after the swap
    expect_replay(page, registry, name, 23, text)
    expect(page.locator("#k")).to_have_value("23")  # the slider follows the steps
    expect(page.locator("[data-role=merges] li.next")).to_have_attribute("data-id", str(256 + 23))
    expect(page.locator("[data-role=chart]")).to_be_visible()
    page.click("#step-last")
    expect_replay(page, registry, name, 64, text)
    page.go_back()
    expect(page.locator("output[data-role=k]")).to_have_text("23")

    page.goto(job_url)
    page.click("[data-role=open-playground]")
    expect(page.locator("select[name=tokenizer]")).to_have_value(name)
    page.fill("textarea[name=text]", "def f(x): return x")
    expect_count(page, len(registry.get(name).encode("def f(x): return x")))
    page.goto(job_url)
    compare = page.locator("[data-role=open-compare]").get_attribute("href")
    assert parse_qs(urlsplit(compare).query)["tokenizers"][0] == name
    page.goto(compare, timeout=60_000)  # four columns: a slow page on a busy machine
    expect(page.locator(f"article.column[data-tokenizer='{name}']")).to_have_count(1)


def test_without_javascript_the_form_posts_and_the_job_page_refreshes(make_page, registry, lab_name):
    page = make_page(java_script_enabled=False)
    name = lab_name("browser-lab-nojs")
    page.goto("/train")
    page.fill("#train-name", name)
    page.fill("#train-vocab", "300")
    page.fill("#train-text", CORPUS[:1500])
    page.click("[data-role=start]")
    expect(page).to_have_url(re.compile(r"/train/jobs/"))
    expect(page.locator("[data-role=job-status]")).to_have_text("done", timeout=60_000)  # meta refresh
    page.click("[data-role=open-replay]")
    page.locator("#k").fill("5")
    page.get_by_role("button", name="Show").click()
    text = page.locator("#replay-text").input_value()
    expect_replay(page, registry, name, 5, text)
    page.click("#step-next")
    expect_replay(page, registry, name, 6, text)


def test_errors_keep_the_form_and_cancel_stops_a_job(page, lab_name):
    page.goto("/train")
    page.fill("#train-name", "gpt2")  # the browser checks the name's form; the server knows it is taken
    paste(page, "ab ab ab", "#train-text")
    page.click("[data-role=start]")
    expect(page.locator("[data-role=message]")).to_contain_text("gpt2 is a built-in tokenizer")
    expect(page.locator("#train-text")).to_have_value("ab ab ab")
    expect(page.locator("#train-name")).to_have_value("gpt2")
    name = lab_name("browser-lab-cancel")
    texts = [text for _, text in stdlib_texts(40, 40_000)]
    started = page.request.post("/api/train", data={"name": name, "texts": texts, "vocab_size": 30_000})
    assert started.status == 202, started.text()
    page.goto(started.json()["page_url"])
    expect(page.locator("[data-role=job-status]")).to_have_text(re.compile("queued|running"))
    page.click("[data-role=cancel]")
    expect(page.locator("[data-role=job-status]")).to_have_text("cancelled")
    expect(page.locator("[data-role=job-error]")).to_contain_text("nothing was saved")
