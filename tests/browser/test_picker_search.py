"""The pickers' search with more trained tokenizers than a page lists, in headless Chromium, on a
server of its own: a name the page does not list is found through GET /api/tokenizers?q= and
then chosen on the playground (the select gets it) or added on the comparison page (Enter)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from app.bpe.model import BPETokenizer
from app.local_server import start_server, stop_server
from app.web.pages.common import RECENT_SHOWN
from tests.browser.conftest import _watch
from tests.reference import stdlib_texts

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def crowded_server(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("crowded-browser")
    folder = data_dir / "tokenizers"
    folder.mkdir()
    model = BPETokenizer.train([text for _, text in stdlib_texts(2, 2_000)], 256 + 10, name="m").dumps()
    for index in range(RECENT_SHOWN + 5):
        (folder / f"m{index:04d}.bpe").write_bytes(model)
    process, url = start_server(data_dir)
    yield url
    stop_server(process)


@pytest.fixture
def crowded_page(browser, crowded_server):
    context = browser.new_context(base_url=crowded_server, viewport={"width": 1280, "height": 900})
    context.set_default_timeout(10_000)
    page = _watch(context.new_page())
    yield page
    problems = page.problems
    context.close()
    assert problems == [], f"console errors or uncaught exceptions in the page: {problems}"


def hidden_name(page) -> str:
    """A trained tokenizer the page does not list."""
    listed = set(page.locator("select[name=tokenizer] option").evaluate_all("os => os.map(o => o.value)"))
    return next(f"m{i:04d}" for i in range(RECENT_SHOWN + 5) if f"m{i:04d}" not in listed)


def test_the_playground_search_finds_a_tokenizer_the_page_does_not_list(crowded_page):
    page = crowded_page
    page.goto("/?tokenizer=gpt2&text=hello%20there")
    name = hidden_name(page)
    page.locator("#model-search").press_sequentially(name, delay=20)
    expect(page.locator("select[name=tokenizer]")).to_have_value(name)
    expect(page.locator("#result .tokenizer-info")).to_contain_text(name)
    expect(page).to_have_url(re.compile(rf"[?&]tokenizer={name}&"))


def test_the_comparison_search_adds_a_tokenizer_the_page_does_not_list(crowded_page):
    page = crowded_page
    page.goto("/compare?tokenizers=gpt2&tokenizers=cl100k_base&text=hello")
    listed = set(page.locator("label.pick").evaluate_all("ls => ls.map(l => l.dataset.tokenizer)"))
    name = next(f"m{i:04d}" for i in range(RECENT_SHOWN + 5) if f"m{i:04d}" not in listed)
    page.locator("[data-role=picker] > summary").click()  # unfold the picker (issue 19)
    box = page.locator("#pick-search")
    box.press_sequentially(name, delay=20)
    expect(page.locator("[data-pick-search] [data-role=picker-note]")).to_contain_text("press Enter")
    box.press("Enter")
    expect(page.locator(f"article.column[data-tokenizer='{name}']")).to_have_count(1)
    expect(page.locator(f"label.pick[data-tokenizer='{name}'] input")).to_be_checked()
