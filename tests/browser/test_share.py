"""Sharing in headless Chromium: a 50 KB text shared from the playground or the comparison
reopens through /s/{id} in a fresh browser context with the same count and the engine's
ids; Copy link copies (or, without a clipboard, selects the link and says how to copy it);
an edited view forgets its link; without JavaScript, Share is a form post that lands on
the link."""

from __future__ import annotations

import re
from urllib.parse import quote, urlencode

import pytest
from playwright.sync_api import expect

from .helpers import drawn_ids, engine_ids, expect_count, open_playground, paste

pytestmark = pytest.mark.browser

LINE = "The quick brown fox 1234567 naïve café 안녕하세요 Привет 🦊👍🏽\tend\n"
TEXT_50K = LINE * (50_000 // len(LINE.encode()) + 1)  # just over 50 KB of UTF-8
SHARED = re.compile(r"http://127\.0\.0\.1:\d+/s/[0-9a-f]{32}")


def bar(page):
    return page.locator("[data-share]")


def share(page) -> str:
    """Press Share and return the link it shows."""
    bar(page).get_by_role("button", name="Share").click()
    link = bar(page).locator("[data-share-link]")
    expect(link).to_be_visible()
    expect(bar(page).locator("[data-share-status]")).to_contain_text("Link ready")
    return link.input_value()


def listed_ids(scope) -> list[int]:
    return [int(n) for n in re.findall(r"\d+", scope.locator("[data-role=ids]").inner_text())]


def open_compare(page, names, text="", **params):
    page.goto(
        "/compare?" + urlencode([*(("tokenizers", n) for n in names), ("text", text), *params.items()], quote_via=quote)
    )


def test_a_50kb_playground_text_reopens_in_a_fresh_context(make_page, registry):
    assert len(TEXT_50K.encode()) >= 50_000
    expected = engine_ids(registry, "cl100k_base", TEXT_50K)
    first = make_page()
    open_playground(first, "cl100k_base", "", view="text")
    paste(first, TEXT_50K)
    expect_count(first, len(expected), timeout=20_000)
    expect(first.locator("[data-role=url-note]")).to_be_visible()  # too long for the address
    link = share(first)
    assert SHARED.fullmatch(link), link

    fresh = make_page()  # a new browser context: no cookies, storage or history in common
    fresh.goto(link)
    expect_count(fresh, len(expected), timeout=20_000)
    drawn = drawn_ids(fresh.locator("#result"))
    assert len(drawn) >= 5_000 and drawn == expected[: len(drawn)]
    assert listed_ids(fresh) == expected
    assert fresh.locator("textarea[name=text]").input_value() == TEXT_50K
    expect(fresh.locator("select[name=tokenizer]")).to_have_value("cl100k_base")
    expect(fresh.locator("[data-role=url-note]")).to_have_count(0)
    expect(bar(fresh).locator("[data-share-link]")).to_have_value(link)  # the shared view shows its link


def test_a_50kb_comparison_reopens_with_its_tokenizers_and_options(make_page, registry):
    names = ["gpt2", "o200k_base", "mistral_v1"]
    first = make_page()
    open_compare(first, names, "", ws="1")
    paste(first, TEXT_50K)
    for name in names:
        expect_count(
            first.locator(f"article.column[data-tokenizer='{name}']"),
            len(engine_ids(registry, name, TEXT_50K)),
            timeout=20_000,
        )
    link = share(first)
    assert SHARED.fullmatch(link), link

    fresh = make_page()
    fresh.goto(link)
    expect(fresh.locator("article.column")).to_have_count(3)
    for name in names:
        column = fresh.locator(f"article.column[data-tokenizer='{name}']")
        expected = engine_ids(registry, name, TEXT_50K)
        expect_count(column, len(expected), timeout=20_000)
        drawn = drawn_ids(column)
        assert drawn and drawn == expected[: len(drawn)]
    expect(fresh.locator("input[name=ws]")).to_be_checked()
    assert fresh.locator("textarea[name=text]").input_value() == TEXT_50K


def test_copy_link_copies_a_short_views_address(make_page, registry):
    page = make_page(permissions=["clipboard-read", "clipboard-write"])
    open_playground(page, "gpt2", "")
    page.locator("textarea[name=text]").fill("Share me 🦊")
    expect_count(page, len(engine_ids(registry, "gpt2", "Share me 🦊")))
    bar(page).get_by_role("button", name="Copy link").click()
    expect(bar(page).locator("[data-share-status]")).to_have_text("Link copied.")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/\?tokenizer=gpt2&text=Share%20me%20%F0%9F%A6%8A", copied), copied
    fresh = make_page()
    fresh.goto(copied)
    expect_count(fresh, len(engine_ids(registry, "gpt2", "Share me 🦊")))


def test_without_a_clipboard_the_link_is_selected_with_a_hint(make_page, registry):
    page = make_page()
    page.add_init_script("Object.defineProperty(Navigator.prototype, 'clipboard', {get: () => undefined})")
    open_compare(page, ["gpt2", "cl100k_base"], "")
    paste(page, TEXT_50K)
    expect_count(
        page.locator("article.column[data-tokenizer='gpt2']"),
        len(engine_ids(registry, "gpt2", TEXT_50K)),
        timeout=20_000,
    )
    bar(page).get_by_role("button", name="Copy link").click()
    link = bar(page).locator("[data-share-link]")
    expect(link).to_be_visible()
    expect(link).to_be_focused()
    expect(bar(page).locator("[data-share-status]")).to_contain_text("Ctrl+C")
    value = link.input_value()
    assert SHARED.fullmatch(value), value
    assert link.evaluate("el => [el.selectionStart, el.selectionEnd]") == [0, len(value)]


@pytest.mark.parametrize("path", ["/?tokenizer=gpt2", "/compare?tokenizers=gpt2&tokenizers=o200k_base"])
def test_the_share_bar_fits_a_phone(make_page, path):
    page = make_page(viewport={"width": 390, "height": 844})
    page.goto(path)
    paste(page, "x " * 4000)
    expect(page.locator("[data-role=url-note]")).to_be_visible()
    link = share(page)
    assert SHARED.fullmatch(link)
    box = bar(page).locator("[data-share-link]").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_an_edited_view_forgets_its_link(page):
    open_playground(page, "gpt2", "x" * 7000)
    first = share(page)
    page.locator("textarea[name=text]").press("End")
    page.locator("textarea[name=text]").press_sequentially("y")
    expect(bar(page).locator("[data-share-out]")).to_be_hidden()
    expect(bar(page).locator("[data-share-status]")).to_have_text("")
    second = share(page)
    assert SHARED.fullmatch(second) and second != first


def test_enter_in_a_field_makes_no_link(page):
    """Share is its form's first submit button, so Enter in a field 'clicks' it: no link from that."""
    asked = []
    page.on("request", lambda request: asked.append(request.url) if "/api/share" in request.url else None)
    page.goto("/?mode=chat&tokenizer=o200k_base")
    page.locator("input[name=name]").first.press("Enter")
    # share.js says "Making a link…" in the same click that starts the request: nothing may be said
    assert bar(page).locator("[data-share-status]").text_content() == ""
    expect(bar(page).locator("[data-share-out]")).to_be_hidden()
    page.evaluate("new Promise(done => setTimeout(done, 200))")
    assert asked == [] and "/s/" not in page.url


def test_a_refused_share_says_why(page):
    open_compare(page, ["gpt2", "cl100k_base"], "x" * 100)
    page.locator("[data-role=picker] > summary").click()  # unfold the picker (issue 19)
    page.locator("label.pick", has_text="cl100k_base").click()  # one tokenizer left
    expect(page.locator("#compare-result [data-role=message]")).to_be_visible()
    bar(page).get_by_role("button", name="Share").click()
    status = bar(page).locator("[data-share-status]")
    expect(status).to_contain_text("choose 2 to")
    expect(status).to_have_attribute("data-kind", "error")
    expect(bar(page).locator("[data-share-out]")).to_be_hidden()


def test_without_javascript_share_is_a_form_post_to_the_link(make_page, registry):
    page = make_page(java_script_enabled=False)
    page.goto("/?tokenizer=o200k_base")
    expect(bar(page).get_by_role("button", name="Copy link")).to_be_hidden()  # it needs JavaScript
    page.locator("textarea[name=text]").fill(TEXT_50K)
    bar(page).get_by_role("button", name="Share").click()
    page.wait_for_url(re.compile(r".*/s/[0-9a-f]{32}$"))
    expected = engine_ids(registry, "o200k_base", TEXT_50K)
    expect_count(page, len(expected))
    assert drawn_ids(page.locator("#result")) == expected[: len(drawn_ids(page.locator("#result")))]
    expect(bar(page).locator("[data-share-link]")).to_have_value(page.url)  # the link, ready to select
    fresh = make_page(java_script_enabled=False)
    fresh.goto(page.url)
    expect_count(fresh, len(expected))
    # a short text: the plain address, as the page's own submit gives
    fresh.locator("textarea[name=text]").fill("short")
    bar(fresh).get_by_role("button", name="Share").click()
    fresh.wait_for_url(re.compile(r".*/\?tokenizer=o200k_base&text=short$"))
    expect_count(fresh, len(engine_ids(registry, "o200k_base", "short")))


def test_enter_without_javascript_updates_the_view_and_shares_nothing(make_page):
    page = make_page(java_script_enabled=False)
    page.goto("/?tokenizer=cl100k_base&mode=chat")
    page.locator("textarea[name=content]").first.fill("a long message " * 600)  # too long for an address
    name = page.locator("input[name=name]").first
    name.fill("ada")
    name.press("Enter")
    page.wait_for_load_state()
    assert "/s/" not in page.url and "/share" not in page.url, page.url  # Enter is not Share
    expect(page.locator("input[name=name]").first).to_have_value("ada")


def test_the_update_of_typing_before_share_keeps_the_link(page):
    """Typing is sent 150 ms after the last key; a link made in between is for that same view."""
    open_playground(page, "gpt2", "x" * 7000)
    box = page.locator("textarea[name=text]")
    box.press("End")
    box.press_sequentially("y")
    link = share(page)  # before the typing's own update has gone out, as a fast click is
    page.wait_for_timeout(600)  # it goes out now
    expect(bar(page).locator("[data-share-status]")).to_contain_text("Link ready")
    assert bar(page).locator("[data-share-link]").input_value() == link
