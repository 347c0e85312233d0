"""The chat editor offers a name field per message only when the chat format takes names
(chatml, harmony: each format's `takes_names`), on the playground and the comparison, and
the fields come and go as the tokenizers change. A chat that has a name keeps its fields, so
the format's refusal can be read and the name cleared."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.test_chat import MISTRAL_CHAT, editor, expect_columns, expect_prompt, open_chat, open_compare_chat

NAMES = "[data-role=chat-editor] [data-role=name]"


def test_playground_offers_names_only_for_formats_that_take_them(page, registry):
    for tokenizer in ["llama3", "llama4", "mistral_v1", "mistral_v3", "mistral_tekken"]:
        open_chat(page, tokenizer, MISTRAL_CHAT)
        expect_prompt(page, registry, tokenizer, MISTRAL_CHAT)
        expect(page.locator("[data-role=chat-message]")).to_have_count(4)
        expect(page.locator(NAMES)).to_have_count(0)
    page.locator("select[name=tokenizer]").select_option("o200k_harmony")
    expect(page.locator(NAMES)).to_have_count(4)
    page.locator("#name-1").fill("ada")
    named = [MISTRAL_CHAT[0], ("user", "ada", MISTRAL_CHAT[1][2]), *MISTRAL_CHAT[2:]]
    expect_prompt(page, registry, "o200k_harmony", named)
    page.locator("select[name=tokenizer]").select_option("llama3")  # the name stays, refused, until cleared
    expect(page.locator(".result [data-role=message]")).to_contain_text("Llama's chat format has no names")
    expect(page.locator(NAMES)).to_have_count(4)
    page.locator("#name-1").fill("")
    expect_prompt(page, registry, "llama3", MISTRAL_CHAT)
    page.locator("#role-0").select_option("user")  # the next redraw of the editor drops the fields
    expect(page.locator(NAMES)).to_have_count(0)
    assert editor(page) == [("user", "", MISTRAL_CHAT[0][2]), *MISTRAL_CHAT[1:]]


def test_comparison_offers_names_when_one_format_takes_them(page, registry):
    open_compare_chat(page, ["llama3", "mistral_tekken", "gpt2"], MISTRAL_CHAT)
    expect_columns(page, registry, ["llama3", "mistral_tekken"], MISTRAL_CHAT)
    expect(page.locator(NAMES)).to_have_count(0)
    open_compare_chat(page, ["llama3", "cl100k_base"], MISTRAL_CHAT)
    expect_columns(page, registry, ["llama3", "cl100k_base"], MISTRAL_CHAT)
    expect(page.locator(NAMES)).to_have_count(4)
