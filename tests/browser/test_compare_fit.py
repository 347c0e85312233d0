"""Issue 19's comparison points in Chromium: the page fits a 1280x900 screen from its defaults
(the picker folds into its summary), a seventh tokenizer cannot be ticked (nor sent without
JavaScript), and chat mode from the defaults shows "no chat format" in place for the
tokenizers without one while the others fill the table and the chart."""

from __future__ import annotations

from urllib.parse import quote, urlencode

import pytest
from playwright.sync_api import expect

from app.chat.render import DEFAULT_FORMAT, render
from app.web.pages.chat_form import DEFAULT_CHAT
from app.web.pages.compare import DEFAULT_COMPARE

SIX = ["gpt2", "cl100k_base", "o200k_base", "mistral_v1", "mistral_v3", "tokenprism_4k"]
SEVENTH = "deepseek_v4"


def compare_url(names, text="Six is the most.") -> str:
    return "/compare?" + urlencode([*(("tokenizers", n) for n in names), ("text", text)], quote_via=quote)


def open_picker(page) -> None:
    """Unfold the picker (a <details>, which opens without JavaScript too) if it is folded."""
    summary = page.locator("[data-role=picker]:not([open]) > summary")
    if summary.count():
        summary.click()
    expect(page.locator("label.pick").first).to_be_visible()


def no_error_shown(page) -> None:
    expect(page.locator(".message.error, [role=alert]")).to_have_count(0)


def test_the_text_box_and_the_first_results_fit_1280x900(page):
    page.goto("/compare")
    first = page.locator("article.column").first
    expect(first.locator("[data-tokens] .tok").first).to_be_visible()
    assert page.evaluate("scrollY") == 0
    box = page.locator("textarea[name=text]").bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= 900, box
    head = first.locator(".column-head").bounding_box()
    assert head["y"] + head["height"] <= 900, f"the first column's head is below the screen: {head}"
    token = first.locator("[data-tokens] .tok").first.bounding_box()
    assert token["y"] + token["height"] <= 900, f"no token of the first column on the first screen: {token}"
    expect(page.locator("[data-role=chosen] .chosen-name")).to_have_text(list(DEFAULT_COMPARE))
    expect(page.locator("label.pick").first).to_be_hidden()  # folded: the summary stands for it


def test_a_seventh_tokenizer_cannot_be_ticked(page):
    page.goto(compare_url(SIX[:5]))
    expect(page.locator("article.column")).to_have_count(5)
    open_picker(page)
    note = page.locator("[data-role=pick-limit]")
    expect(note).to_be_hidden()
    page.locator(f"label.pick[data-tokenizer='{SIX[5]}']").click()  # the sixth
    expect(page.locator("article.column")).to_have_count(6)
    expect(note).to_be_visible()
    expect(note).to_contain_text("untick one")
    seventh = page.locator(f"label.pick[data-tokenizer='{SEVENTH}'] input")
    expect(seventh).to_be_disabled()
    seventh.click(force=True)
    expect(seventh).not_to_be_checked()
    search = page.locator("#pick-search")  # "Enter adds the match" is stopped at the limit too
    search.fill("qwen3_6")
    search.press("Enter")
    expect(page.locator("label.pick[data-tokenizer='qwen3_6'] input")).not_to_be_checked()
    page.wait_for_timeout(300)  # a request sent by mistake would have answered by now
    expect(page.locator("article.column")).to_have_count(6)
    no_error_shown(page)
    page.locator(f"label.pick[data-tokenizer='{SIX[0]}']").click()  # one less: the boxes come back
    expect(seventh).to_be_enabled()
    expect(note).to_be_hidden()
    expect(page.locator("article.column")).to_have_count(5)
    expect(page.locator("[data-role=chosen] .chosen-name")).to_have_text(SIX[1:])


def test_without_javascript_a_seventh_gets_the_same_note(make_page):
    page = make_page(java_script_enabled=False)
    page.goto(compare_url(SIX))
    expect(page.locator("article.column")).to_have_count(6)
    open_picker(page)
    page.locator(f"label.pick[data-tokenizer='{SEVENTH}']").click()
    page.get_by_role("button", name="Compare").click()
    note = page.locator("[data-role=pick-limit]")
    expect(note).to_be_visible()  # the picker opens to show it
    expect(note).to_contain_text(f"Left out: {SEVENTH}")
    expect(page.locator("article.column")).to_have_count(6)
    expect(page.locator(f"article.column[data-tokenizer='{SEVENTH}']")).to_have_count(0)
    no_error_shown(page)


def test_chat_from_the_defaults_shows_no_chat_format_in_place(page, registry):
    page.goto("/compare")
    expect(page.locator("article.column")).to_have_count(len(DEFAULT_COMPARE))
    page.locator("label[for=cmode-chat]").click()
    without = [name for name in DEFAULT_COMPARE if name not in DEFAULT_FORMAT]
    able = [name for name in DEFAULT_COMPARE if name in DEFAULT_FORMAT]
    assert without == ["gpt2", "tokenprism_4k"] and len(able) == 3
    counts = {name: render(registry.get(name), DEFAULT_CHAT).count for name in able}
    most = max(counts.values())
    rows = page.locator("[data-role=bar-chart] .bar-row")
    expect(rows.locator(".bar-label")).to_have_text(able)
    for name, count in counts.items():
        metric = page.locator(f"[data-role=metrics] tr[data-tokenizer='{name}'] [data-role=metric-tokens]")
        expect(metric).to_have_text(f"{count:,}")
        row = rows.filter(has=page.locator(".bar-label", has_text=name))
        expect(row.locator(".bar-value")).to_have_text(f"{count:,}")
        track, fill = row.locator(".bar-track").bounding_box(), row.locator(".bar-fill").bounding_box()
        assert track["width"] >= 150, f"{name}'s bar is squeezed to {track['width']:.0f} px"
        assert abs(fill["width"] / track["width"] - count / most) < 0.02, (name, fill, track)
    for name in without:
        column = page.locator(f"article.column[data-tokenizer='{name}']")
        expect(column.locator("[data-role=no-chat]")).to_contain_text("no chat format")
        row = page.locator(f"[data-role=metrics] tr[data-tokenizer='{name}']")
        expect(row.locator("[data-role=no-chat]")).to_have_text("no chat format")
    no_error_shown(page)
    expect(page.locator("[data-role=no-chat-note]")).to_contain_text("gpt2 and tokenprism_4k have no chat format")
    table = page.locator("[data-role=metrics]").locator("xpath=..")
    assert table.evaluate("el => el.scrollWidth <= el.clientWidth"), "the metrics table overflows its box"


@pytest.mark.parametrize("mode", ["text", "chat"])
def test_the_picker_marks_the_tokenizers_that_can_chat(page, mode):
    page.goto(f"/compare?mode={mode}")
    open_picker(page)
    marked = page.locator("label.pick:has([data-role=chat-format])")
    listed = page.locator("label.pick").evaluate_all("ls => ls.map(l => l.dataset.tokenizer)")
    assert set(marked.evaluate_all("ls => ls.map(l => l.dataset.tokenizer)")) == set(DEFAULT_FORMAT) & set(listed)
    for name in DEFAULT_FORMAT:
        expect(page.locator(f"label.pick[data-tokenizer='{name}'] [data-role=chat-format]")).to_be_visible()
    for name in ("gpt2", "tokenprism_4k", "deepseek_v4"):
        expect(page.locator(f"label.pick[data-tokenizer='{name}'] [data-role=chat-format]")).to_have_count(0)
