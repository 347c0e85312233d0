"""The comparison page `/compare` in headless Chromium: choosing tokenizers, live columns
with the engine's counts, the metrics table and chart, cross-highlighting, URL state."""

from __future__ import annotations

import re
from urllib.parse import quote, urlencode

import pytest
from playwright.sync_api import expect

from .helpers import drawn_ids, engine_ids, expect_count, query

pytestmark = pytest.mark.browser

TEXT = "Compare me: 12345, naïve café, 안녕하세요 👋"


def open_compare(page, names, text):
    page.goto("/compare?" + urlencode([*(("tokenizers", n) for n in names), ("text", text)], quote_via=quote))


def column(page, name):
    return page.locator(f"article.column[data-tokenizer='{name}']")


def test_choose_tokenizers_and_type(page, registry):
    open_compare(page, ["gpt2", "cl100k_base"], "start")
    expect(page.locator("article.column")).to_have_count(2)
    page.locator("[data-role=picker] > summary").click()  # unfold the picker (issue 19)
    page.locator("label.pick", has_text="o200k_base").click()
    expect(page.locator("article.column")).to_have_count(3)
    page.locator("textarea[name=text]").fill(TEXT)
    for name in ("gpt2", "cl100k_base", "o200k_base"):
        expected = engine_ids(registry, name, TEXT)
        expect_count(column(page, name), len(expected))
        assert drawn_ids(column(page, name)) == expected
        assert "\ufffd" not in column(page, name).locator("[data-tokens]").inner_text()
    assert query(page)["tokenizers"] == ["gpt2", "cl100k_base", "o200k_base"]


def test_every_registered_tokenizer_side_by_side(page, registry):
    names = registry.names()[:6]
    open_compare(page, names, TEXT)
    expect(page.locator("article.column")).to_have_count(len(names))
    for name in names:
        expect_count(column(page, name), len(engine_ids(registry, name, TEXT)))


def test_metrics_table_and_chart_highlight_the_best(page, registry):
    names = ["gpt2", "cl100k_base", "o200k_base", "mistral_v1"]
    text = "안녕하세요, 세계! Korean text costs very different amounts of tokens."
    open_compare(page, names, text)
    counts = {name: len(engine_ids(registry, name, text)) for name in names}
    best = min(counts.values())
    rows = page.locator("[data-role=metrics] tbody tr")
    expect(rows).to_have_count(len(names))
    for name, count in counts.items():
        row = page.locator(f"[data-role=metrics] tr[data-tokenizer='{name}']")
        expect(row.locator("[data-role=metric-tokens]")).to_have_text(f"{count:,}")
        if count == best:
            expect(row).to_have_class(re.compile(r"\bbest\b"))
            expect(row.locator("[data-role=metric-delta]")).to_have_text("—")
        else:
            expect(row).not_to_have_class(re.compile(r"\bbest\b"))
            expect(row.locator("[data-role=metric-delta]")).to_contain_text(f"+{count - best}")
    chars_per_token = page.locator("[data-role=metrics] tr[data-tokenizer='gpt2'] td").nth(2).inner_text()
    assert chars_per_token == f"{len(text) / counts['gpt2']:.2f}"
    # the bar chart: one bar per tokenizer, lengths in proportion to the counts
    widths = page.locator("[data-role=bar-chart] rect").evaluate_all("rs => rs.map(r => +r.getAttribute('width'))")
    most = max(counts.values())
    assert widths == pytest.approx([100 * counts[n] / most for n in names], abs=0.01)


def test_hover_highlights_the_same_characters_in_every_column(page, registry):
    names = ["gpt2", "cl100k_base", "mistral_v1"]
    open_compare(page, names, TEXT)
    for name in names:
        expect_count(column(page, name), len(engine_ids(registry, name, TEXT)))
    source = column(page, "gpt2").locator("[data-tokens] [data-id]").filter(has_text="안").first
    start, end = int(source.get_attribute("data-start")), int(source.get_attribute("data-end"))
    source.hover()
    expect(source).to_have_class(re.compile(r"\bhl\b"))
    for name in ("cl100k_base", "mistral_v1"):
        covered = column(page, name).locator(".tok.cover")
        expect(covered.first).to_be_visible()
        ranges = covered.evaluate_all("els => els.map(e => [+e.dataset.start, +e.dataset.end])")
        assert all(s < end and e > start for s, e in ranges)  # each overlaps the hovered characters
        assert min(s for s, _ in ranges) <= start and max(e for _, e in ranges) >= end  # together they cover them
    expect(page.locator("[data-role=detail]")).to_contain_text("gpt2")


def test_url_state_and_back(page, registry):
    open_compare(page, ["gpt2", "o200k_base"], "first text")
    history_before = page.evaluate("history.length")
    page.locator("textarea[name=text]").fill("second text")
    expect_count(column(page, "gpt2"), len(engine_ids(registry, "gpt2", "second text")))
    expect(page).to_have_url(re.compile(r"text=second%20text"))
    assert page.evaluate("history.length") == history_before
    page.locator("[data-role=picker] > summary").click()  # unfold the picker (issue 19)
    page.locator("label.pick", has_text="mistral_v1").click()
    expect(page.locator("article.column")).to_have_count(3)
    expect(page).to_have_url(re.compile(r"tokenizers=mistral_v1"))
    page.reload()
    expect(page.locator("article.column")).to_have_count(3)
    expect(page.locator("textarea[name=text]")).to_have_value("second text")
    page.go_back()
    expect(page.locator("article.column")).to_have_count(2)
    expect(page.locator("input[name=tokenizers][value=mistral_v1]")).not_to_be_checked()


def test_fewer_than_two_tokenizers_says_so(page):
    open_compare(page, ["gpt2", "cl100k_base"], "x")
    page.locator("[data-role=picker] > summary").click()  # unfold the picker (issue 19)
    page.locator("label.pick", has_text="cl100k_base").click()
    expect(page.locator("[data-role=message]")).to_contain_text("choose 2 to")
    expect(page.locator("article.column")).to_have_count(0)


def test_compare_without_javascript(make_page, registry):
    page = make_page(java_script_enabled=False)
    page.goto("/compare")
    page.locator("textarea[name=text]").fill(TEXT)
    page.get_by_role("button", name="Compare").click()
    page.wait_for_url(re.compile(r"/compare\?tokenizers="))
    for name in query(page)["tokenizers"]:
        expect_count(column(page, name), len(engine_ids(registry, name, TEXT)))


def test_hostile_text_stays_inert_on_compare(page, registry):
    text = '"><img src=x onerror=alert(1)> {{7*7}} <script>alert(1)</script>'
    open_compare(page, ["gpt2", "o200k_base"], text)
    expect_count(column(page, "gpt2"), len(engine_ids(registry, "gpt2", text)))
    page.locator("textarea[name=text]").fill(text + " again")
    expect_count(column(page, "o200k_base"), len(engine_ids(registry, "o200k_base", text + " again")))
    assert page.locator("#compare-result img, #compare-result script").count() == 0
    shown = column(page, "gpt2").locator("[data-tokens]").inner_text()
    assert "{{7*7}}" in shown and "49" not in shown
    page.wait_for_timeout(200)
    assert page.dialogs == []
