"""Tools in the chat mode, in Chromium: the tools box checked as it is typed (its problem beside
it, the box aria-invalid meanwhile, then the tools' count equal to POST /api/chat's), an
assistant's calls and a tool's result added in the editor, the share link round trip, the
comparison with a format that has no tools, and screenshots at 1280x900, 390x844 and dark (written to /tmp/tpages-shots for a look)."""

from __future__ import annotations

import json
import os
import re
from urllib.parse import quote, urlencode

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import expect_count
from tests.browser.test_share import share

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather in a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}
CALL_ID = "call00001"  # Mistral takes 9 letters or digits; every format takes it
SHOTS = "/tmp/tpages-shots"


def api_chat(page: Page, tokenizer: str, messages: list[dict], tools=(WEATHER,)) -> dict:
    answer = page.request.post("/api/chat", data={"tokenizer": tokenizer, "messages": messages, "tools": list(tools)})
    assert answer.ok, answer.text()
    return answer.json()


def chat_url(path: str, tokenizers: list[str], tools: str, cards: list[tuple[str, str, str, str]]) -> str:
    key = "tokenizer" if path == "/" else "tokenizers"
    pairs = [(key, name) for name in tokenizers] + [("mode", "chat"), ("tools", tools)]
    for role, content, calls, call_id in cards:
        pairs += [("role", role), ("content", content), ("calls", calls), ("call_id", call_id)]
    return path + "?" + urlencode(pairs, quote_via=quote)


CALLS = json.dumps([{"id": CALL_ID, "name": "get_weather", "arguments": {"city": "Paris"}}])
CARDS = [("user", "Weather in Paris?", "", ""), ("assistant", "", CALLS, ""), ("tool", '{"temp": 21}', "", CALL_ID)]
API_MESSAGES = [
    {"role": "user", "content": "Weather in Paris?"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": CALL_ID, "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}
        ],
    },
    {"role": "tool", "content": '{"temp": 21}', "tool_call_id": CALL_ID},
]


def expect_chat(page: Page, api: dict) -> None:
    expect_count(page, api["count"])
    expect(page.locator("[data-role=tools-count]")).to_have_attribute("data-count", str(api["tools"]))
    expect(page.locator("[data-role=overhead]")).to_have_text(f"{api['overhead']:,}")
    expect(page.locator("[data-role=message-counts] [data-role=message-count]")).to_have_text(
        [f"{m['count']:,}" for m in api["messages"]]
    )


def test_typing_tools_checks_them_in_place_and_counts_them(page):
    page.goto(chat_url("/", ["cl100k_base"], "", [("user", "Weather in Paris?", "", "")]))
    page.locator("[data-role=tools-box] summary").click()
    box = page.locator("#tools")
    box.fill('[{"type": "function", "function": {"name": "get weather"}}]')
    error = page.locator("[data-role=tools-error]")
    expect(error).to_contain_text("tools[0].function.name is 'get weather'; a tool name is 1 to 64 letters")
    expect(page.locator("#tools-status")).to_have_attribute("aria-live", "polite")
    box.fill(json.dumps([WEATHER], indent=2))
    expect(error).to_have_count(0)
    api = api_chat(page, "cl100k_base", API_MESSAGES[:1])
    assert api["tools"] > 0
    expect_chat(page, api)
    expect(page.locator("[data-tokens] .chat-part.tools").first).to_be_visible()
    expect(page.locator("[data-role=chat-note]")).to_contain_text("OpenAI publishes no chat format")
    assert json.loads(page.evaluate("new URL(location.href).searchParams.get('tools')")) == [WEATHER]


@pytest.mark.parametrize("path", ["/", "/compare"])
def test_the_tools_box_is_aria_invalid_while_it_has_a_problem(page, path):
    page.goto(chat_url(path, ["cl100k_base"], "[{", [("user", "Weather in Paris?", "", "")]))
    box = page.locator("#tools")
    expect(page.locator("[data-role=tools-error]")).to_be_visible()
    expect(box).to_have_attribute("aria-invalid", "true")  # as the page is served
    box.fill(json.dumps([WEATHER]))
    expect(page.locator("[data-role=tools-error]")).to_have_count(0)
    expect(box).not_to_have_attribute("aria-invalid", re.compile(".*"))
    box.fill('[{"type": "function", "function": {}}]')
    expect(page.locator("[data-role=tools-error]")).to_be_visible()
    expect(box).to_have_attribute("aria-invalid", "true")  # as typed
    expect(box).to_be_focused()


@pytest.mark.parametrize("tokenizer", ["o200k_harmony", "mistral_v3"])
def test_calls_and_results_are_messages_and_a_share_keeps_them(make_page, tokenizer):
    page = make_page()
    page.goto(chat_url("/", [tokenizer], json.dumps([WEATHER]), CARDS[:1]))
    page.locator("[data-role=add-message]").click()
    card = page.locator("[data-role=chat-message]").nth(1)
    expect(card.locator("[data-role=role]")).to_have_value("assistant")
    card.locator("[data-role=calls]").fill(CALLS)
    page.locator("[data-role=add-message]").click()
    card = page.locator("[data-role=chat-message]").nth(2)
    expect(card.locator("[data-role=role]")).to_have_value("tool")  # after a call, its result
    expect(page.locator(f"#call-ids option[value={CALL_ID}]")).to_have_count(1)  # the call's id offered
    card.locator("[data-role=call-id]").fill(CALL_ID)
    card.locator("[data-role=content]").fill('{"temp": 21}')
    api = api_chat(page, tokenizer, API_MESSAGES)
    expect_chat(page, api)
    link = share(page)
    fresh = make_page()
    fresh.goto(link)
    expect_chat(fresh, api)
    expect(fresh.locator("[data-role=chat-message]").nth(2).locator("[data-role=call-id]")).to_have_value(CALL_ID)


def test_the_comparison_renders_the_tools_in_each_format(make_page):
    names = ["cl100k_base", "o200k_harmony", "mistral_v3", "llama3"]
    os.makedirs(SHOTS, exist_ok=True)
    for label, options in [
        ("wide", {}),
        ("phone", {"viewport": {"width": 390, "height": 844}}),
        ("dark", {"color_scheme": "dark"}),
    ]:
        page = make_page(**options)
        page.goto(chat_url("/compare", names, json.dumps([WEATHER]), CARDS))
        for name in names[:3]:
            api = api_chat(page, name, API_MESSAGES)
            column = page.locator(f"article.column[data-tokenizer={name}]")
            expect_count(column, api["count"])
            expect(
                page.locator(f"[data-role=chat-compare] [data-role=tools-count][data-tokenizer={name}]")
            ).to_have_text(f"{api['tools']:,}")
        expect(page.locator("article.column[data-tokenizer=llama3] [data-role=no-tools]")).to_contain_text("no tools")
        page.screenshot(path=f"{SHOTS}/compare-{label}.png", full_page=True)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= page.viewport_size["width"], (label, width)
        page = make_page(**options)
        page.goto(chat_url("/", ["o200k_harmony"], json.dumps([WEATHER], indent=2), CARDS))
        expect_chat(page, api_chat(page, "o200k_harmony", API_MESSAGES))
        page.screenshot(path=f"{SHOTS}/playground-{label}.png", full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"], label


def test_a_format_without_tools_says_so_on_the_playground(page):
    page.goto(chat_url("/", ["llama3"], json.dumps([WEATHER]), CARDS[:1]))
    expect(page.locator("#tools-status [data-role=tools-note]")).to_contain_text("llama3's chat format has no tools")
    expect_count(
        page, page.request.post("/api/chat", data={"tokenizer": "llama3", "messages": API_MESSAGES[:1]}).json()["count"]
    )


def test_without_javascript_the_form_posts_tools(make_page):
    page = make_page(java_script_enabled=False)
    page.goto(chat_url("/", ["cl100k_base"], "", CARDS[:1]))
    page.locator("[data-role=tools-box] summary").click()
    page.locator("#tools").fill(json.dumps([WEATHER]))
    page.locator("noscript button, .nojs-submit button").first.click()
    expect_chat(page, api_chat(page, "cl100k_base", API_MESSAGES[:1]))
