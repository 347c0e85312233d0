"""Issue 20, point 2, in headless Chromium: a part of a model or tokenizer name, any case, typed
into the playground's "Find by model" box or the comparison's filter, lists the same names on
both pages (app.js `matchNames`), each with its tokenizer; a name whose tokenizer is not shipped
is listed, marked "not shipped", and cannot be picked; picking a name applies it."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from app.tokenizers import models

from .helpers import drawn_ids, engine_ids, expect_count, open_playground

pytestmark = pytest.mark.browser

TEXT = "Which tokenizer does my model use? 1234567"
MATCHES = "[data-role=name-matches] li"


def listed(page, box: str, typed: str) -> list[tuple[str, str, bool]]:
    """(name, what it uses, pickable) for each name listed under the search box `box`, once the
    list answers the whole of `typed` (each key filters it again: a slow machine may read it between)."""
    items = page.locator(f"{box} {MATCHES}:has(button)")
    expect(items.first).to_be_visible()
    page.wait_for_function(
        "([sel, typed]) => { const ls = [...document.querySelectorAll(sel)];"
        " return ls.length && ls.every(l => l.querySelector('button').textContent.toLowerCase().includes(typed)); }",
        arg=[f"{box} {MATCHES}:has(button)", typed.lower()],
    )
    return items.evaluate_all(
        "ls => ls.map(l => [l.querySelector('button').textContent, l.querySelector('.match-uses').textContent,"
        " !l.querySelector('button').disabled])"
    )


def playground_matches(page, typed: str):
    open_playground(page, "gpt2", TEXT)
    page.locator("#model-search").press_sequentially(typed, delay=20)
    return listed(page, "[data-model-search]", typed)


def compare_matches(page, typed: str):
    page.goto("/compare?tokenizers=gpt2&tokenizers=cl100k_base&text=hello")
    page.locator("[data-role=picker] > summary").click()
    page.locator("#pick-search").press_sequentially(typed, delay=20)
    return listed(page, "[data-pick-search]", typed)


@pytest.mark.parametrize(
    ("typed", "tokenizers"),
    [
        ("llama", {"llama3", "llama4"}),
        ("Llama-4", {"llama4"}),
        ("deepseek", {"deepseek_v4"}),
        ("qwen", {"qwen3_6"}),
        ("Mistral-7B", {"mistral_v1", "mistral_v3"}),
    ],
)
def test_both_pages_list_the_same_names_for_a_part_of_a_name(page, registry, typed, tokenizers):
    shown = playground_matches(page, typed)
    assert shown == compare_matches(page, typed)
    assert shown and all(typed.lower() in name.lower() for name, _, _ in shown)
    assert {re.search(r"(?:→ )?(\S+)", uses).group(1) for _, uses, _ in shown} - {"tokenizer"} <= tokenizers
    labels = {model.label for model in models.matching(typed)}  # the server's rule
    assert {name for name, uses, _ in shown if uses != "tokenizer"} <= labels
    for name, uses, pickable in shown:
        tokenizer = name if uses == "tokenizer" else re.search(r"→ (\S+)", uses).group(1)
        assert pickable == registry.has(tokenizer)
        assert ("(not shipped)" in uses) == (not registry.has(tokenizer))


def test_llama_models_are_listed_and_marked_while_their_tokenizer_is_missing(page, registry):
    shown = playground_matches(page, "LLAMA-3.3")
    assert [name for name, _, _ in shown] == ["llama-3.3-70b-instruct", "llama-3.3-*"]
    note = page.locator("[data-model-search] [data-role=picker-note]")
    if registry.has("llama3"):
        assert all(pickable for _, _, pickable in shown)
        expect(note).to_contain_text("pick one")
    else:
        assert not any(pickable for _, _, pickable in shown)
        expect(note).to_contain_text("does not ship")
        expect(page.locator(f"[data-model-search] {MATCHES}[data-missing]")).to_have_count(2)
    expect(page.locator("select[name=tokenizer]")).to_have_value("gpt2")  # nothing chosen by a part of a name


def test_picking_a_listed_name_on_the_playground_chooses_its_tokenizer(page, registry):
    playground_matches(page, "mistral-7b")
    page.locator("[data-model-search] button[data-pick-name='mistral-7b-instruct-v0.3']").click()
    expect(page.locator("select[name=tokenizer]")).to_have_value("mistral_v3")
    expected = engine_ids(registry, "mistral_v3", TEXT)
    expect_count(page, len(expected))
    assert drawn_ids(page.locator("#result")) == expected
    expect(page).to_have_url(re.compile(r"[?&]tokenizer=mistral-7b-instruct-v0.3&"))
    expect(page.locator("[data-model-search] [data-role=name-matches]")).to_be_hidden()


def test_picking_a_listed_name_on_the_comparison_adds_its_tokenizer(page, registry):
    compare_matches(page, "QWEN")
    expect(page.locator("label.pick:visible")).to_have_count(1)
    expect(page.locator("label.pick:visible")).to_have_attribute("data-tokenizer", "qwen3_6")
    page.locator("[data-pick-search] button[data-pick-name='qwen3.6']").click()
    added = page.locator("article.column[data-tokenizer='qwen3_6']")
    expect(added).to_have_count(1)
    expect_count(added, len(engine_ids(registry, "qwen3_6", "hello")))
    expect(page.locator("article.column")).to_have_count(3)


def test_a_hub_style_id_resolves_on_the_playground(page, registry):
    open_playground(page, "gpt2", TEXT)
    search = page.locator("#model-search")
    search.fill("mistralai/Mistral-7B-Instruct-v0.3")
    search.press("Enter")
    expect(page.locator("select[name=tokenizer]")).to_have_value("mistral_v3")
    expect_count(page, len(engine_ids(registry, "mistral_v3", TEXT)))
    search.fill("meta-llama/Llama-3.3-70B-Instruct")
    search.press("Enter")
    if registry.has("llama3"):
        expect(page.locator("select[name=tokenizer]")).to_have_value("llama3")
    else:
        expect(page.locator("[data-model-search] [data-role=picker-note]")).to_contain_text(
            "needs the llama3 tokenizer, which tokenprism does not ship"
        )
        expect(page.locator("select[name=tokenizer]")).to_have_value("mistral_v3")
