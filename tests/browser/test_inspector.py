"""The vocabulary browser and the token inspector in Chromium: live search, modes and paging
(with and without JavaScript), the merge tree, and the links between the pages in both
directions (tokenizer list -> vocabulary -> token -> vocabulary, the tree's nodes, "try it
in the playground", the same bytes in other tokenizers). No horizontal scroll at 390 px."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.reference import tiktoken_reference

from .helpers import drawn_ids, query

pytestmark = pytest.mark.browser

RESULTS = "[data-role=vocab-table] tbody tr"


def row_ids(page) -> list[int]:
    return [int(i) for i in page.locator(RESULTS).evaluate_all("rows => rows.map(r => r.dataset.id)")]


def test_live_search_modes_and_paging(page, registry):
    page.goto("/tokenizers/gpt2")
    expect(page.locator("[data-role=match-count]")).to_have_attribute("data-total", "50257")
    assert row_ids(page) == list(range(50))
    page.locator("#vocab-q").press_sequentially("Magikarp", delay=20)
    # A pause while typing may send "Magika" first, which finds the same three tokens: wait
    # for the address of the last request, which htmx replaces after that answer's swap.
    expect(page).to_have_url(re.compile(r"[?&]q=Magikarp(&|$)"))  # the address follows the search
    expect(page.locator("[data-role=match-count]")).to_have_attribute("data-total", "3")
    assert row_ids(page) == [41538, 42202, 43453]

    page.locator("#vocab-q").fill("ing")
    index = registry.get("gpt2")
    expected = [i for i in range(50257) if b"ing" in index.id_to_bytes(i)]
    expect(page.locator("[data-role=match-count]")).to_have_attribute("data-total", str(len(expected)))
    assert row_ids(page) == expected[:50]
    page.locator("[data-role=next]").click()
    expect(page.locator(RESULTS).first).to_have_attribute("data-id", str(expected[50]))
    assert row_ids(page) == expected[50:100] and query(page)["offset"] == ["50"]
    page.locator("[data-role=prev]").click()
    expect(page.locator(RESULTS).first).to_have_attribute("data-id", str(expected[0]))

    page.select_option("#vocab-mode", "regex")
    page.locator("#vocab-q").fill("(ing")
    expect(page.locator("[data-role=message]")).to_contain_text("not a valid regular expression")
    page.locator("#vocab-q").fill("^ing$")
    expect(page.locator("[data-role=match-count]")).to_have_attribute("data-total", "1")
    assert row_ids(page) == [278]


def test_search_and_paging_without_javascript(make_page):
    page = make_page(java_script_enabled=False)
    page.goto("/tokenizers/cl100k_base")
    page.fill("#vocab-q", " the")
    page.select_option("#vocab-mode", "prefix")
    page.click("[data-role=vocab-form] button[type=submit]")
    expect(page).to_have_url(re.compile(r"q=\+the|q=%20the"))
    first = row_ids(page)
    assert first and first[0] == 279  # " the" in cl100k_base
    page.click("[data-role=next]")  # a whole page load: wait for it before reading the rows
    expect(page).to_have_url(re.compile(r"offset=50"))
    expect(page.locator(RESULTS).first).not_to_have_attribute("data-id", str(first[0]))
    assert query(page)["offset"] == ["50"] and row_ids(page)[0] > first[-1]


def test_token_page_tree_and_links_both_ways(page):
    page.goto("/tokenizers")
    page.locator("tr[data-name=gpt2] [data-role=vocab-link]").click()
    expect(page).to_have_url(re.compile(r"/tokenizers/gpt2$"))
    page.wait_for_load_state("load")  # htmx binds the search box once its script ran; a key typed before is lost
    page.locator("#vocab-q").fill("SolidGold")
    # The first search builds gpt2's vocabulary index: seconds on a loaded CI machine.
    expect(page.locator("[data-role=match-count]")).to_have_attribute("data-total", "1", timeout=20_000)
    page.locator(f"{RESULTS} a").first.click()  # vocabulary -> token
    expect(page).to_have_url(re.compile(r"/tokenizers/gpt2/tokens/43453$"))
    expect(page.locator("[data-role=token-text]")).to_contain_text("SolidGoldMagikarp")
    tree = page.locator("[data-role=merge-tree]")
    expect(tree.locator(":scope > li")).to_have_attribute("data-id", "43453")
    assert tree.locator(":scope > li > ul > li").evaluate_all("els => els.map(e => +e.dataset.id)") == [15831, 42202]
    leaves = tree.locator("li:not([data-how])").evaluate_all("els => els.map(e => +e.dataset.id)")
    assert len(leaves) == 18 and all(i < 256 for i in leaves)  # down to the bytes
    expect(page.locator("[data-role=depth]")).to_contain_text("6")
    expect(page.locator("[data-role=under-trained]")).to_have_attribute("data-flag", "false")

    tree.locator(":scope > li > ul > li[data-id='42202'] > a").click()  # a node of the tree -> its own page
    expect(page).to_have_url(re.compile(r"/tokens/42202$"))
    expect(page.locator("[data-role=token-text]")).to_contain_text("GoldMagikarp")
    page.locator("[data-role=containing-link]").click()  # token -> the tokens that contain it
    expect(page.locator("[data-role=match-count]")).to_have_attribute("data-total", "2")
    assert row_ids(page) == [42202, 43453]
    page.goto("/tokenizers/gpt2/tokens/42202")
    page.locator("[data-role=vocab-link]").click()  # token -> its vocabulary
    expect(page).to_have_url(re.compile(r"/tokenizers/gpt2$"))


def test_try_it_in_the_playground(page):
    page.goto("/tokenizers/gpt2/tokens/43453")
    page.locator("[data-role=try-link]").click()
    expect(page.locator("[data-role=token-count]")).to_have_attribute("data-count", "1")
    assert drawn_ids(page) == [43453] and query(page)["tokenizer"] == ["gpt2"]
    page.goto("/tokenizers/gpt2/tokens/50256")
    page.locator("[data-role=decode-link]").click()
    expect(page.locator("[data-role=token-count]")).to_have_attribute("data-count", "1")
    assert drawn_ids(page) == [50256]


def test_same_bytes_in_other_tokenizers_link_there(page):
    page.goto("/tokenizers/gpt2/tokens/262")  # " the"
    section = page.locator("[data-role=same-in]")
    cl100k = section.locator("li[data-tokenizer=cl100k_base] [data-role=same-link]")
    expect(cl100k).to_have_text(re.compile(r"token \d+"), timeout=180_000)  # loads every built-in the first time
    the = tiktoken_reference("cl100k_base").encode_single_token(b" the")
    expect(cl100k).to_have_text(f"token {the}")
    expect(section.locator("li[data-tokenizer=mistral_v1] [data-role=same-link]")).to_have_count(1)
    cl100k.click()
    expect(page).to_have_url(re.compile(rf"/tokenizers/cl100k_base/tokens/{the}$"))
    back = page.locator("[data-role=same-in] li[data-tokenizer=gpt2] [data-role=same-link]")
    expect(back).to_have_text("token 262", timeout=60_000)  # and back again


def test_under_trained_and_unflagged_notes(page):
    page.goto("/tokenizers/gpt2/tokens/40241")
    note = page.locator("[data-role=under-trained]")
    expect(note).to_have_attribute("data-flag", "true")
    expect(note).to_contain_text("openai-community/gpt2")
    expect(note).to_contain_text("Fishing for Magikarp")
    page.goto("/tokenizers/cl100k_base/tokens/1000")
    expect(page.locator("[data-role=under-trained]")).to_have_attribute("data-flag", "null")
    page.goto("/tokenizers/mistral_v1/tokens/1")  # <s>: no merges, and the page says why
    expect(page.locator("[data-role=merge-note]")).to_contain_text("special token")


@pytest.mark.parametrize(
    "path", ["/tokenizers/o200k_base?q=ing", "/tokenizers/gpt2/tokens/72056", "/tokenizers/o200k_base/tokens/72056"]
)
def test_no_horizontal_scroll_on_a_phone(make_page, path):
    page = make_page(viewport={"width": 390, "height": 844})
    page.goto(path)
    expect(page.locator("h1")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_the_detail_card_links_each_id_to_its_inspector_page(page, registry):
    from tests.browser.helpers import engine_ids, open_playground

    text = "Hello tokenizers 👋"
    ids = engine_ids(registry, "cl100k_base", text)
    open_playground(page, "cl100k_base", text)
    tokens = page.locator("[data-tokens] .tok")
    expect(tokens.first).to_be_visible()
    tokens.first.click()  # pins the card
    detail = page.locator("[data-role=detail]")
    link = detail.locator('a[href^="/tokenizers/"]')
    expect(link).to_have_attribute("href", f"/tokenizers/cl100k_base/tokens/{ids[0]}")
    tokens.nth(1).hover()  # a pinned card stays while the pointer moves on
    expect(link).to_have_attribute("href", f"/tokenizers/cl100k_base/tokens/{ids[0]}")
    emoji = page.locator("[data-tokens] .tok.multi").last
    emoji.click()
    hrefs = detail.locator("a").evaluate_all("els => els.map(e => e.getAttribute('href'))")
    segment_ids = emoji.get_attribute("data-ids").split()
    assert len(segment_ids) > 1 and hrefs == [f"/tokenizers/cl100k_base/tokens/{i}" for i in segment_ids]
    detail.locator("a").first.click()
    expect(page).to_have_url(re.compile(rf"/tokenizers/cl100k_base/tokens/{segment_ids[0]}$"))
    page.keyboard.press("Escape")


def test_the_comparison_links_to_each_column_s_tokenizer(page, registry):
    from urllib.parse import quote, urlencode

    page.goto(
        "/compare?"
        + urlencode(
            [("tokenizers", "gpt2"), ("tokenizers", "o200k_base"), ("text", "SolidGoldMagikarp")], quote_via=quote
        )
    )
    for name in ("gpt2", "o200k_base"):
        token = page.locator(f'article[data-tokenizer="{name}"] .tok').first
        token.click()
        link = page.locator("[data-role=detail] a").first
        expect(link).to_have_attribute("href", f"/tokenizers/{name}/tokens/{token.get_attribute('data-id')}")
    page.keyboard.press("Escape")
    expect(page.locator("[data-role=detail].pinned")).to_have_count(0)
