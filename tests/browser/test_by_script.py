"""Cost by script on the comparison page in Chromium: the table follows the text as it is typed."""

from __future__ import annotations

from urllib.parse import quote, urlencode

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_by_script_table_follows_the_text(page):
    page.goto(
        "/compare?"
        + urlencode([("tokenizers", "cl100k_base"), ("tokenizers", "gpt2"), ("text", "hello world")], quote_via=quote)
    )
    table = page.locator("[data-role=by-script]")
    expect(table.locator("tr[data-script]")).to_have_count(2)  # Latin, Common
    page.locator("textarea[name=text]").fill("안녕하세요 hello world")
    hangul = table.locator("tr[data-script=Hangul]")
    expect(hangul.locator("td[data-tokenizer=cl100k_base]")).to_have_text("1.00 (5)")
    expect(hangul).to_be_visible()
    assert table.locator("tr[data-script]").evaluate_all("rows => rows.map(r => r.dataset.script)") == [
        "Latin",
        "Hangul",
        "Common",
    ]
