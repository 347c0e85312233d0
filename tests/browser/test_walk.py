"""Issue 19's second newcomer walk, in Chromium: a text too long for the address survives a
reload and Back; the chat editor keeps the focus on the control that moved; the replay
slider speaks its value; the detail card covers neither its token nor the next line; the
phone layout shows the text box and the API docs link."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import SEGMENTS, engine_ids, expect_count, open_playground, paste

pytestmark = pytest.mark.browser

LONG = "A text too long for any address, 안녕 🦊. " * 400  # ~17 KB of UTF-8: over the address limit


def test_a_long_text_survives_a_reload_and_back(page, registry):
    expected = len(engine_ids(registry, "cl100k_base", LONG))
    open_playground(page, "cl100k_base", "short")
    paste(page, LONG)
    expect_count(page, expected)
    note = page.locator("[data-role=url-note]")
    expect(note).to_be_visible()
    expect(note).to_contain_text("Share")
    assert "text=" not in page.url  # dropped from the address

    page.reload()
    expect(page.locator("textarea[name=text]")).to_have_value(LONG)
    expect_count(page, expected)

    page.goto("/compare")  # away and Back
    page.go_back()
    expect(page.locator("textarea[name=text]")).to_have_value(LONG)
    expect_count(page, expected)

    # a pushed change (the tokenizer), then Back: the earlier address, still the text
    page.locator("select[name=tokenizer]").select_option("gpt2")
    expect_count(page, len(engine_ids(registry, "gpt2", LONG)))
    page.go_back()
    expect(page.locator("select[name=tokenizer]")).to_have_value("cl100k_base")
    expect(page.locator("textarea[name=text]")).to_have_value(LONG)
    expect_count(page, expected)


def test_a_fresh_visit_does_not_bring_back_an_old_text(page):
    open_playground(page, "cl100k_base", "short")
    paste(page, LONG)
    expect(page.locator("[data-role=url-note]")).to_be_visible()
    page.goto("/?tokenizer=cl100k_base")  # a link, not a reload: the page's own default text
    expect(page.locator("[data-role=url-note]")).to_have_count(0)
    assert page.locator("textarea[name=text]").input_value() != LONG
