"""The playground's chat mode in Chromium: the prompt drawn as the model sees it (framing
tokens marked special, each message's tokens grouped), counts per message that agree with
POST /api/chat, adding, removing, editing and reordering messages, the URL round trip and
back button, and the same editor without JavaScript."""

from __future__ import annotations

import re
import time
from urllib.parse import quote, urlencode

import pytest
from playwright.sync_api import Page, expect

from app.chat.messages import ChatMessage
from app.chat.render import render
from tests.browser.helpers import SEGMENTS, drawn_ids, expect_count, query

CHAT = [("system", "", "Be brief. <|im_end|> stays text"), ("user", "ada", "Wie viele Tokens hat 'naïve café'? 한국어")]


def open_chat(page: Page, tokenizer: str, messages=CHAT) -> None:
    pairs = [("tokenizer", tokenizer), ("mode", "chat")]
    for role, name, content in messages:
        pairs += [("role", role), ("name", name), ("content", content)]
    page.goto("/?" + urlencode(pairs, quote_via=quote))


def rendered(registry, tokenizer: str, messages):
    return render(registry.get(tokenizer), [ChatMessage(r, c, n or None) for r, n, c in messages])


def editor(page: Page) -> list[tuple[str, str, str]]:
    """The messages as the editor holds them (name "" when the editor offers no name field)."""
    cards = page.locator("[data-role=chat-editor] [data-role=chat-message]")
    return [
        (
            card.locator("[data-role=role]").input_value(),
            card.locator("[data-role=name]").input_value() if card.locator("[data-role=name]").count() else "",
            card.locator("[data-role=content]").input_value(),
        )
        for card in (cards.nth(i) for i in range(cards.count()))
    ]


def expect_ids(scope, ids: list[int], timeout: float = 10.0) -> None:
    """The token list draws `ids`, once the page has caught up with the last keystroke."""
    deadline = time.monotonic() + timeout
    while (drawn := drawn_ids(scope)) != ids and time.monotonic() < deadline:
        time.sleep(0.1)
    assert drawn == ids


def expect_prompt(page: Page, registry, tokenizer: str, messages) -> None:
    """Counts, ids, per-message rows and editor badges all equal the engine's rendering."""
    expected = rendered(registry, tokenizer, messages)
    expect_ids(page, expected.ids)
    expect_count(page, expected.count)
    expect(page.locator("[data-role=overhead]")).to_have_text(f"{expected.overhead:,}")
    expect(page.locator("[data-role=message-counts] [data-role=message-count]")).to_have_text(
        [f"{n:,}" for n in expected.message_counts()]
    )
    expect(page.locator("[data-role=editor-count]")).to_have_text([f"{n:,} tokens" for n in expected.message_counts()])


MISTRAL_CHAT = [
    ("system", "", "Sei kurz. [INST] stays text"),
    ("user", "", "Wie viele Tokens? 한국어 "),
    ("assistant", "", "Elf."),
    ("user", "", "Danke"),
]


@pytest.mark.parametrize(
    "tokenizer",
    ["cl100k_base", "o200k_base", "o200k_harmony", "mistral_v1", "mistral_v3", "mistral_tekken", "llama3", "llama4"],
)
def test_chat_prompt_is_drawn_as_the_model_sees_it(page, registry, live_server, tokenizer):
    chat = MISTRAL_CHAT if tokenizer.startswith(("mistral", "llama")) else CHAT  # no names
    open_chat(page, tokenizer, chat)
    expect_prompt(page, registry, tokenizer, chat)
    expected = rendered(registry, tokenizer, chat)
    specials = page.locator(f"{SEGMENTS}.special")
    expect(specials).to_have_count(sum(1 for p in expected.parts if p.special))
    assert page.locator("[data-role=chat-format]").inner_text() == expected.format
    # typed special-token strings stay text: each message's content is drawn as typed, in its own group
    content = {i: "".join(p.text for p in expected.parts if p.message == i and not p.framing) for i in range(len(chat))}
    for i in range(len(chat)):
        group = page.locator(f'[data-tokens] .chat-part[data-message="{i}"]:not(.framing)')
        assert "".join(group.all_inner_texts()) == content[i]
        assert content[i].strip() in chat[i][2] or chat[i][2].strip() in content[i]
    # the page agrees with the API
    api = page.request.post(
        f"{live_server}/api/chat",
        data={
            "tokenizer": tokenizer,
            "messages": [{"role": r, "content": c, **({"name": n} if n else {})} for r, n, c in chat],
        },
    )
    body = api.json()
    assert body["count"] == expected.count and [m["count"] for m in body["messages"]] == expected.message_counts()


def test_edit_add_reorder_and_remove_messages(page, registry):
    open_chat(page, "cl100k_base")
    messages = list(CHAT)
    content = page.locator("#content-1")
    content.press("Control+End")
    content.press_sequentially(" Danke!", delay=15)
    messages[1] = ("user", "ada", CHAT[1][2] + " Danke!")
    expect_prompt(page, registry, "cl100k_base", messages)
    assert query(page)["content"] == [m[2] for m in messages]

    page.locator("[data-role=add-message]").click()
    expect(page.locator("[data-role=chat-message]")).to_have_count(3)
    expect(page.locator("#role-2")).to_have_value("assistant")  # the turn after a user's
    expect(page.locator("#content-2")).to_be_focused()
    page.locator("#content-2").press_sequentially("Elf.", delay=15)
    messages.append(("assistant", "", "Elf."))
    expect_prompt(page, registry, "cl100k_base", messages)

    page.locator("#role-0").select_option("developer")
    messages[0] = ("developer", "", CHAT[0][2])
    expect_prompt(page, registry, "cl100k_base", messages)

    page.get_by_role("button", name="Move message 3 up").click()
    messages[1], messages[2] = messages[2], messages[1]
    expect_prompt(page, registry, "cl100k_base", messages)
    assert editor(page) == messages

    page.get_by_role("button", name="Remove message 1").click()
    del messages[0]
    expect_prompt(page, registry, "cl100k_base", messages)
    assert editor(page) == messages
    assert query(page)["role"] == ["assistant", "user"] and query(page)["name"] == ["", "ada"]


def test_url_round_trip_and_back_button(page, registry):
    open_chat(page, "o200k_base")
    before = page.evaluate("history.length")
    page.locator("[data-role=add-message]").click()
    expect(page.locator("[data-role=chat-message]")).to_have_count(3)
    assert page.evaluate("history.length") == before + 1  # a structural change is a step back
    page.locator("#content-2").press_sequentially("Hi", delay=15)
    expect(page).to_have_url(re.compile(r"content=Hi$"))
    assert page.evaluate("history.length") == before + 1  # typing replaces

    shared = page.url
    page.go_back()
    expect(page.locator("[data-role=chat-message]")).to_have_count(2)
    expect_prompt(page, registry, "o200k_base", CHAT)

    fresh = page.context.new_page()
    fresh.goto(shared)
    expect(fresh.locator("[data-role=chat-message]")).to_have_count(3)
    assert editor(fresh) == [*CHAT, ("assistant", "", "Hi")]
    expect_prompt(fresh, registry, "o200k_base", [*CHAT, ("assistant", "", "Hi")])
    fresh.close()


def test_hovering_a_message_lights_its_tokens(page):
    open_chat(page, "cl100k_base")
    page.locator('[data-role=message-counts] tr[data-message="1"]').hover()
    lit = page.locator("[data-tokens] .chat-part.msg-hl")
    expect(lit.first).to_be_visible()
    assert set(lit.evaluate_all("els => els.map(e => e.dataset.message)")) == {"1"}
    expect(page.locator('[data-role=chat-message][data-message="1"]')).to_have_class(re.compile("msg-hl"))
    page.locator("#content-0").focus()
    assert set(lit.evaluate_all("els => els.map(e => e.dataset.message)")) == {"0"}


def test_roles_follow_the_format_and_tokenizers_without_one_say_so(page):
    open_chat(page, "o200k_harmony")
    assert page.locator("#role-0 option").all_inner_texts() == ["system", "developer", "user", "assistant", "tool"]
    page.locator("select[name=tokenizer]").select_option("mistral_tekken")
    expect(page.locator("#role-0 option")).to_have_text(["system", "user", "assistant", "tool"])
    expect(page.locator(".result [data-role=message]")).to_contain_text("Mistral's chat format has no names")
    page.locator("#name-1").fill("")  # even while that answer redraws the editor (test_chat_swap.py)
    expect(page.locator("[data-role=chat-format]")).to_have_text("mistral")
    page.locator("select[name=tokenizer]").select_option("gpt2")
    expect(page.locator(".result [data-role=message]")).to_contain_text("gpt2 has no chat format")
    expect(page.locator("[data-role=chat-editor] [data-role=chat-message]")).to_have_count(2)  # the chat is kept


def test_chat_without_javascript(make_page, registry):
    page = make_page(java_script_enabled=False)
    page.goto("/?mode=chat&tokenizer=cl100k_base")
    default = editor(page)
    assert len(default) == 2
    expect_count(page, rendered(registry, "cl100k_base", default).count)
    page.locator("#content-1").fill("Count me, please.")
    page.get_by_role("button", name="+ Add message").click()
    page.wait_for_url(re.compile(r"content=Count%20me"))
    messages = [default[0], ("user", "", "Count me, please."), ("assistant", "", "")]
    assert editor(page) == messages
    expect_count(page, rendered(registry, "cl100k_base", messages).count)
    page.get_by_role("button", name="Move message 2 up").click()
    messages = [messages[1], messages[0], messages[2]]
    assert editor(page) == messages
    page.get_by_role("button", name="Remove message 3").click()
    assert editor(page) == messages[:2]
    expect_count(page, rendered(registry, "cl100k_base", messages[:2]).count)


# ---- the comparison ----


def open_compare_chat(page: Page, tokenizers, messages=CHAT) -> None:
    pairs = [("tokenizers", name) for name in tokenizers] + [("mode", "chat")]
    for role, name, content in messages:
        pairs += [("role", role), ("name", name), ("content", content)]
    page.goto("/compare?" + urlencode(pairs, quote_via=quote))


def expect_columns(page: Page, registry, tokenizers, messages) -> None:
    for name in tokenizers:
        column = page.locator(f'article[data-tokenizer="{name}"]')
        expected = rendered(registry, name, messages)
        expect_ids(column, expected.ids)
        expect_count(column, expected.count)
        cells = page.locator(f'[data-role=chat-compare] tr[data-message] td[data-tokenizer="{name}"]')
        expect(cells).to_have_text([f"{n:,}" for n in expected.message_counts()])


def test_compare_one_chat_across_formats(page, registry):
    tokenizers = ["cl100k_base", "o200k_harmony", "gpt2"]
    open_compare_chat(page, tokenizers)
    expect_columns(page, registry, tokenizers[:2], CHAT)
    expect(page.locator('article[data-tokenizer="gpt2"] [data-role=no-chat]')).to_contain_text(
        "no chat format"
    )  # issue 19: in place, no error

    page.locator("#content-0").press("Control+End")
    page.locator("#content-0").press_sequentially(" Sehr kurz.", delay=15)
    messages = [("system", "", CHAT[0][2] + " Sehr kurz."), CHAT[1]]
    expect_columns(page, registry, tokenizers[:2], messages)
    page.locator("[data-role=add-message]").click()
    expect(page.locator("[data-role=chat-message]")).to_have_count(3)
    messages.append(("assistant", "", ""))
    expect_columns(page, registry, tokenizers[:2], messages)
    assert query(page)["mode"] == ["chat"] and sorted(query(page)["tokenizers"]) == sorted(tokenizers)


def test_compare_chat_without_javascript(make_page, registry):
    page = make_page(java_script_enabled=False)
    open_compare_chat(page, ["cl100k_base", "o200k_base"])
    page.locator("#content-1").fill("Kurz?")
    page.get_by_role("button", name="+ Add message").click()
    page.wait_for_url(re.compile(r"content=Kurz"))
    messages = [CHAT[0], ("user", "ada", "Kurz?"), ("assistant", "", "")]
    assert editor(page) == messages
    expect_columns(page, registry, ["cl100k_base", "o200k_base"], messages)
