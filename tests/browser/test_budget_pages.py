"""Issue 22 point 3 in Chromium: the budget on the playground (text and chat mode) and the
comparison's cost ranking. Every figure drawn must be what the API's budget says for the same
input (/api/tokenize, /api/chat, /api/compare), while typing (live.js redraws it), with the model
select and the reply field, without JavaScript, on a phone and in dark mode."""

from __future__ import annotations

import re
from decimal import Decimal
from urllib.parse import quote, urlencode

from playwright.sync_api import expect

from app.pricing.money import usd as shown_usd
from tests.browser.helpers import open_playground, paste, query

TEXT = "Will it fit, and what will it cost? Counting tokens is a means."
MODELS = ["gpt2", "gpt-4", "gpt-4o", "gpt-4o-mini", "llama-3.1-8b"]


def api(page, path: str, body: dict) -> dict:
    response = page.request.post(path, data=body)
    assert response.ok, response.text()
    return response.json()


def usd(page, role: str) -> str | None:
    return page.locator(f"[data-role=budget] [data-role={role}]").get_attribute("data-usd")


def compare_url(names, text=TEXT) -> str:
    return "/compare?" + urlencode([*(("tokenizers", n) for n in names), ("text", text)], quote_via=quote)


def test_the_bar_and_costs_for_gpt_4o_are_the_api_s_and_follow_the_reply_field(page):
    open_playground(page, "gpt-4o", TEXT)
    budget = api(page, "/api/tokenize", {"tokenizer": "gpt-4o", "text": TEXT})["budget"]
    panel = page.locator("[data-role=budget]")
    expect(panel.locator("[data-role=context-used]")).to_have_attribute("data-used", str(budget["used"]))
    expect(panel.locator("[data-role=context-window]")).to_have_text("128,000")
    assert usd(page, "input-usd") == budget["input_usd"] and usd(page, "cached-input-usd") == budget["cached_input_usd"]
    assert usd(page, "output-usd-per-1k") == budget["output_usd_per_1k"]
    expect(panel.locator("[data-role=input-usd]")).to_have_text(shown_usd(Decimal(budget["input_usd"])))
    expect(panel.locator("[data-role=fits]")).to_contain_text("Fits:")

    reply = page.locator("#reply")
    reply.press_sequentially("1500", delay=60)
    with_reply = api(page, "/api/tokenize", {"tokenizer": "gpt-4o", "text": TEXT, "reply_tokens": 1500})["budget"]
    expect(panel.locator("[data-role=output-usd]")).to_have_attribute("data-usd", with_reply["output_usd"])
    expect(panel.locator("[data-role=output-usd]")).to_have_text("$0.015")
    expect(panel.locator("[data-role=fits]")).to_contain_text(f"prompt + reply = {budget['used'] + 1500:,} of 128,000")
    expect(reply).to_be_focused()
    expect(reply).to_have_value("1500")
    expect(page).to_have_url(re.compile(r"[?&]reply=1500(&|$)"))

    page.locator("textarea[name=text]").press_sequentially(" More.", delay=40)  # live typing redraws the budget
    more = api(page, "/api/tokenize", {"tokenizer": "gpt-4o", "text": TEXT + " More.", "reply_tokens": 1500})["budget"]
    expect(panel.locator("[data-role=context-used]")).to_have_attribute("data-used", str(more["used"]))
    assert usd(page, "input-usd") == more["input_usd"]

    panel.locator("[data-role=facts-source] summary").click()
    link = panel.locator("[data-role=facts-link]")
    expect(link).to_be_visible()
    expect(link).to_have_attribute("href", budget["source"])
    expect(link).to_have_attribute("rel", "noopener noreferrer")


def test_a_text_past_gpt_4_s_window_is_marked_over(page, settings):
    open_playground(page, "gpt-4", "short")
    long_text = "tokens " * 9_000  # about 9,000 tokens, past 8,192; well within max_text_chars
    assert len(long_text) < settings.max_text_chars
    paste(page, long_text)
    budget = api(page, "/api/tokenize", {"tokenizer": "gpt-4", "text": long_text})["budget"]
    assert budget["fits"] is False and budget["used"] > 8_192
    context = page.locator("[data-role=budget] [data-role=context]")
    expect(context).to_have_attribute("data-over", "true")
    expect(context.locator("[data-role=over]")).to_have_text(f"over the window by {budget['used'] - 8_192:,} tokens")
    expect(context.locator("[data-role=context-share]")).to_have_text(f"{budget['share']:.1%}")
    assert context.locator("rect.context-used").get_attribute("width") == "100.0"
    fill = context.locator("rect.context-used").evaluate("el => getComputedStyle(el).fill")
    assert fill == page.locator(".message.error, .over-mark").first.evaluate("el => getComputedStyle(el).color")
    expect(page.locator("[data-role=budget] [data-role=fits]")).to_contain_text("Does not fit: the prompt alone")


def test_the_select_picks_the_model_priced_and_the_address_keeps_it(page):
    open_playground(page, "o200k_base", TEXT)
    select = page.locator("select[name=budget]")
    expect(select).to_have_value("gpt-5")
    select.select_option("gpt-4o-mini")
    panel = page.locator("[data-role=budget]")
    expect(panel).to_have_attribute("data-model", "gpt-4o-mini")
    budget = api(page, "/api/tokenize", {"model": "gpt-4o-mini", "text": TEXT})["budget"]
    assert usd(page, "input-usd") == budget["input_usd"]
    expect(page).to_have_url(re.compile(r"[?&]budget=gpt-4o-mini(&|$)"))
    page.reload()
    expect(page.locator("select[name=budget]")).to_have_value("gpt-4o-mini")
    page.locator("select[name=tokenizer]").select_option("llama3")  # another tokenizer: its own models
    expect(panel).to_have_attribute("data-model", "meta-llama-3-8b")
    expect(panel.locator("[data-role=input-usd]")).to_have_text("n/a")  # Meta publishes no prices
    assert "budget" not in query(page)


def test_chat_mode_prices_the_whole_prompt(page):
    page.goto("/?" + urlencode({"tokenizer": "gpt-4o", "mode": "chat", "role": "user", "content": TEXT}))
    budget = api(page, "/api/chat", {"tokenizer": "gpt-4o", "messages": [{"role": "user", "content": TEXT}]})["budget"]
    expect(page.locator("[data-role=budget] [data-role=context-used]")).to_have_attribute(
        "data-used", str(budget["used"])
    )
    page.locator("#content-0").press_sequentially(" Go on.", delay=40)
    grown = api(page, "/api/chat", {"tokenizer": "gpt-4o", "messages": [{"role": "user", "content": TEXT + " Go on."}]})
    expect(page.locator("[data-role=budget] [data-role=input-usd]")).to_have_attribute(
        "data-usd", grown["budget"]["input_usd"]
    )


def test_the_comparison_ranks_models_by_cost_and_keeps_them_while_typing(page):
    page.goto(compare_url(MODELS))
    rows = page.locator("[data-role=cost-row]")
    expect(rows).to_have_count(4)
    assert [r.get_attribute("data-model") for r in rows.all()] == ["gpt-4o-mini", "gpt-4o", "gpt-4", "llama-3.1-8b"]
    results = api(page, "/api/compare", {"tokenizers": MODELS, "text": TEXT})["results"]
    by_model = {b["model"]: b for result in results for b in result["budgets"]}
    assert [c.get_attribute("data-usd") for c in page.locator("[data-role=cost-input]").all()] == [
        by_model[m]["input_usd"] or "" for m in ("gpt-4o-mini", "gpt-4o", "gpt-4", "llama-3.1-8b")
    ]
    columns = page.locator("article.column")
    assert [c.get_attribute("data-tokenizer") for c in columns.all()] == ["o200k_base", "cl100k_base", "gpt2", "llama3"]
    first = columns.first.locator("[data-role=column-cost]")
    expect(first).to_have_count(2)  # gpt-4o and gpt-4o-mini share o200k_base's column
    expect(page.locator("[data-role=unpriced-note]")).to_contain_text("no published prices for llama-3.1-8b")

    page.locator("textarea[name=text]").press_sequentially(" 日本語のテキスト", delay=40)
    grown = api(page, "/api/compare", {"tokenizers": MODELS, "text": TEXT + " 日本語のテキスト"})["results"]
    by_model = {b["model"]: b for result in grown for b in result["budgets"]}
    expect(page.locator("[data-role=cost-row][data-model=gpt-4] [data-role=cost-input]")).to_have_attribute(
        "data-usd", by_model["gpt-4"]["input_usd"]
    )
    asked = query(page)["tokenizers"]  # the form posts the ticked tokenizers, then the ticked model names
    assert [name for name in asked if name in MODELS[1:]] == MODELS[1:] and "gpt2" in asked


def test_without_javascript_the_forms_post_the_budget(make_page):
    page = make_page(java_script_enabled=False)
    open_playground(page, "o200k_base", TEXT)
    page.locator("select[name=budget]").select_option("gpt-4o")
    page.locator("#reply").fill("2000")
    page.get_by_role("button", name="Tokenize").click()
    page.wait_for_url("**/?*budget=gpt-4o*")
    panel = page.locator("[data-role=budget]")
    expect(panel).to_have_attribute("data-model", "gpt-4o")
    expect(panel.locator("[data-role=output-usd]")).to_have_text("$0.02")
    page.goto(compare_url(["gpt-4o", "gpt-4o-mini", "cl100k_base"]))
    page.locator("textarea[name=text]").fill("A different text, posted by the form.")
    page.get_by_role("button", name="Compare").click()
    page.wait_for_url("**/compare?*")
    assert query(page)["tokenizers"] == ["cl100k_base", "o200k_base", "gpt-4o", "gpt-4o-mini"]
    expect(page.locator("[data-role=cost-row]")).to_have_count(2)


def test_on_a_phone_and_in_dark_mode_nothing_spills(make_page):
    for options in ({"viewport": {"width": 390, "height": 844}}, {"color_scheme": "dark"}):
        page = make_page(**options)
        open_playground(page, "gpt-4o", TEXT, reply="800")
        expect(page.locator("[data-role=budget] [data-role=output-usd]")).to_have_text("$0.008")
        page.goto(compare_url(MODELS))
        expect(page.locator("[data-role=cost-row]")).to_have_count(4)
        width = page.viewport_size["width"]
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        table = page.locator("[data-role=costs]").bounding_box()
        assert table["x"] >= 0 and table["x"] + table["width"] <= width
        cell = page.locator("[data-role=cost-row] [data-role=cost-input]").first.bounding_box()
        assert cell["x"] + cell["width"] <= width, "the cheapest model's cost is off screen"
    dark_fill = page.locator("rect.bar-fill").first.evaluate("el => getComputedStyle(el).fill")
    assert dark_fill != "rgb(0, 0, 0)"
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(14, 16, 21)"  # app.css's dark --bg
