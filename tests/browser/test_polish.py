"""Issue 12's newcomer walk, point by point, in Chromium: one number format on every page,
a result marked busy while a newer one is on its way, and the small things (no dead Copy
button without JavaScript, a skip link to the tokens, the Ids view not listing ids twice)."""

from __future__ import annotations

import re
from urllib.parse import quote, urlencode

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import engine_ids, expect_count, open_playground

LONG = "Tokenizers cut text into pieces; every piece costs. " * 100


def test_counts_have_thousands_separators_on_both_pages(page, registry):
    count = len(engine_ids(registry, "cl100k_base", LONG))
    assert count >= 1000
    open_playground(page, "cl100k_base", LONG)
    expect_count(page, count)
    playground = page.locator("[data-role=token-count]").inner_text()
    expect(page.locator("[data-role=char-count]")).to_have_text(f"{len(LONG):,}")
    page.goto(
        "/compare?"
        + urlencode([("tokenizers", "cl100k_base"), ("tokenizers", "gpt2"), ("text", LONG)], quote_via=quote)
    )
    column = page.locator('article[data-tokenizer="cl100k_base"]')
    expect_count(column, count)
    assert column.locator("[data-role=token-count]").inner_text() == playground == f"{count:,}"
    expect(page.locator('[data-role=metrics] tr[data-tokenizer="cl100k_base"] [data-role=metric-tokens]')).to_have_text(
        playground
    )


def test_a_result_waiting_for_its_answer_is_marked_busy(page, registry):
    open_playground(page, "cl100k_base", "hello")
    expect_count(page, len(engine_ids(registry, "cl100k_base", "hello")))
    held = []
    page.route("**/", lambda route: held.append(route) if route.request.method == "POST" else route.continue_())
    page.locator("textarea[name=text]").press("End")
    page.locator("textarea[name=text]").press_sequentially(" world, typed fast", delay=25)
    result = page.locator("#result")
    expect(result).to_have_attribute("aria-busy", "true")  # the answer is held back: the old count is stale
    page.wait_for_timeout(300)
    for route in held:
        route.continue_()
    page.unroute("**/")
    expect_count(page, len(engine_ids(registry, "cl100k_base", "hello world, typed fast")))
    expect(result).not_to_have_attribute("aria-busy", "true")


def test_copy_needs_javascript_so_it_hides_without(make_page):
    page = make_page(java_script_enabled=False)
    page.goto("/?tokenizer=gpt2&text=hi")
    expect(page.locator("button[data-copy]")).to_be_hidden()
    scripted = make_page()
    scripted.goto("/?tokenizer=gpt2&text=hi")
    expect(scripted.locator("button[data-copy]")).to_be_visible()


def test_ids_view_lists_the_ids_once(page, registry):
    text = "Ids, once."
    open_playground(page, "cl100k_base", text, view="ids")
    ids = engine_ids(registry, "cl100k_base", text)
    expect(page.locator("[data-tokens].view-ids .tok")).to_have_count(len(ids))
    expect(page.locator("[data-role=ids]")).to_be_hidden()
    visible = page.locator("main").inner_text()
    assert visible.count(str(ids[0])) == 1
    expect(page.locator("button[data-copy]")).to_be_visible()  # copying the ids still works


def test_skip_link_reaches_the_tokens(page, registry):
    open_playground(page, "cl100k_base", "Skip here")
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    expect(page.locator(":focus")).to_have_text("Skip to the tokens")
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    expect(page.locator(":focus")).to_have_class(re.compile(r"\btok\b"))
    assert page.evaluate("document.activeElement.dataset.id") == str(
        engine_ids(registry, "cl100k_base", "Skip here")[0]
    )


def test_docs_lead_back_to_the_app_and_follow_dark_mode(make_page):
    page = make_page(color_scheme="dark")
    page.goto("/docs")
    expect(page.locator(".swagger-ui .info").first).to_be_visible(timeout=15_000)
    bar = page.locator("[data-role=docs-bar]")
    expect(bar.get_by_role("link", name="Playground")).to_have_attribute("href", "/")
    background = page.evaluate("getComputedStyle(document.querySelector('[data-role=docs-bar]')).backgroundColor")
    assert background == "rgb(22, 25, 33)"
    assert "invert" in page.evaluate("getComputedStyle(document.getElementById('swagger-ui')).filter")
    bar.get_by_role("link", name="Compare").click()
    expect(page).to_have_url(re.compile(r"/compare$"))


@pytest.mark.parametrize(
    "viewport", [{"width": 1280, "height": 900}, {"width": 390, "height": 844}], ids=["desktop", "phone"]
)
def test_token_detail_shows_where_the_eye_is(make_page, viewport):
    page = make_page(viewport=viewport)
    open_playground(page, "cl100k_base", LONG)
    tokens = page.locator("[data-tokens] .tok")
    expect(tokens.first).to_be_visible()
    page.locator("[data-tokens]").scroll_into_view_if_needed()  # on a phone the tokens are below the input
    last_visible = page.evaluate("""() => {
        const all = [...document.querySelectorAll('[data-tokens] .tok')];
        const seen = all.filter(t => { const r = t.getBoundingClientRect(); return r.bottom <= innerHeight && r.top >= 0 && r.width; });
        return all.indexOf(seen[seen.length - 1]);
    }""")
    assert last_visible > 0
    tokens.nth(last_visible).hover()
    detail = page.locator("[data-role=detail]")
    expect(detail).to_contain_text("id ")
    box = detail.bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"], box
    assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"], box
    # keyboard: the card follows focus too
    tokens.first.focus()
    box = detail.bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"], box
