"""Model names in the pickers, in headless Chromium: the playground's "Find by model" box
sets the tokenizer select, the line under the picker says which tokenizer a model uses and
which models use it, `?tokenizer=gpt-4o` works with and without JavaScript, and the
comparison page's box filters the tokenizers and adds the one a model uses."""

from __future__ import annotations

import re
from urllib.parse import quote, urlencode

import pytest
from playwright.sync_api import expect

from .helpers import drawn_ids, engine_ids, expect_count, open_playground, query

pytestmark = pytest.mark.browser

TEXT = "Which tokenizer does my model use? 모델 🤖 1234567"


def search(page):
    return page.locator("#model-search")


def test_searching_the_picker_by_model_name_chooses_its_tokenizer(page, registry):
    open_playground(page, "cl100k_base", TEXT)
    expect_count(page, len(engine_ids(registry, "cl100k_base", TEXT)))
    expect(search(page)).to_be_visible()
    expect(page.get_by_label("Find by model")).to_have_count(1)
    search(page).press_sequentially("gpt-4o", delay=30)
    expect(page.locator("select[name=tokenizer]")).to_have_value("o200k_base")
    expected = engine_ids(registry, "o200k_base", TEXT)
    expect_count(page, len(expected))
    assert drawn_ids(page.locator("#result")) == expected
    expect(page.locator("#result .tokenizer-info")).to_contain_text("o200k_base")
    resolved = page.locator("[data-role=resolved]")
    expect(resolved).to_contain_text("gpt-4o")
    expect(resolved).to_contain_text("o200k_base")
    expect(page).to_have_url(re.compile(r"[?&]tokenizer=gpt-4o&"))
    # the model name stays while typing
    page.locator("textarea[name=text]").fill("hello again")
    expect_count(page, len(engine_ids(registry, "o200k_base", "hello again")))
    expect(page).to_have_url(re.compile(r"[?&]tokenizer=gpt-4o&text=hello%20again"))


def test_used_by_line_follows_the_chosen_tokenizer(page):
    open_playground(page, "o200k_base", "hi")
    used_by = page.locator("[data-role=picker-status] [data-role=used-by]")
    for model in ("gpt-4o", "gpt-4.1", "o3"):
        expect(used_by).to_contain_text(model)
    expect(page.locator("[data-role=resolved]")).to_have_count(0)  # a tokenizer name needs no "→"
    more = used_by.locator("details summary")
    more.click()
    expect(used_by.locator("details")).to_contain_text("gpt-4o-*")
    page.locator("select[name=tokenizer]").select_option("mistral_v1")
    expect(used_by).to_contain_text("mistral-7b-v0.1")
    expect(used_by).not_to_contain_text("gpt-4o")
    page.locator("select[name=tokenizer]").select_option("tokenprism_4k")
    expect(used_by).to_contain_text("No model")


def test_prefixes_any_case_and_a_list_pick(page, registry):
    open_playground(page, "gpt2", TEXT)
    search(page).fill("GPT-4-0314")
    expect(page.locator("select[name=tokenizer]")).to_have_value("cl100k_base")
    expect_count(page, len(engine_ids(registry, "cl100k_base", TEXT)))
    expect(page.locator("[data-role=resolved]")).to_contain_text("cl100k_base")
    # the datalist holds model names, tokenizer names and prefixes
    kinds = page.locator("datalist#model-names option").evaluate_all(
        "os => Object.fromEntries(os.map(o => [o.value + '|' + o.dataset.kind, o.dataset.tokenizer]))"
    )
    assert kinds["gpt-4o|model"] == "o200k_base" and kinds["gpt-4o-|prefix"] == "o200k_base"
    assert kinds["mistral_v1|tokenizer"] == "mistral_v1" and kinds["r50k_base|tokenizer"] == "gpt2"
    # a value picked from the list (an input event without inputType) applies at once
    search(page).evaluate(
        "el => { el.value = 'mistral-7b-v0.1'; el.dispatchEvent(new Event('input', {bubbles: true})); }"
    )
    expect(page.locator("select[name=tokenizer]")).to_have_value("mistral_v1")
    expect_count(page, len(engine_ids(registry, "mistral_v1", TEXT)))


def test_a_name_that_is_no_model_or_not_shipped_says_so_and_changes_nothing(page, registry):
    open_playground(page, "gpt2", TEXT)
    note = page.locator("[data-model-search] [data-role=picker-note]")
    search(page).fill("text-davinci-003")
    search(page).press("Enter")
    expect(note).to_contain_text("p50k_base")
    expect(note).to_contain_text("does not ship")
    hostile = '<img src=x onerror=alert(1)>"'
    search(page).fill(hostile)
    search(page).press("Enter")
    expect(note).to_contain_text(hostile)  # as text, not markup
    expect(page.locator("select[name=tokenizer]")).to_have_value("gpt2")
    expect_count(page, len(engine_ids(registry, "gpt2", TEXT)))
    assert page.dialogs == [] and page.locator("img[src=x]").count() == 0


def test_choosing_in_the_select_empties_the_search(page, registry):
    open_playground(page, "gpt-4o", TEXT)
    expect(search(page)).to_have_value("gpt-4o")
    expect(page.locator("select[name=tokenizer]")).to_have_value("o200k_base")
    page.locator("select[name=tokenizer]").select_option("gpt2")
    expect(page).to_have_url(re.compile(r"tokenizer=gpt2"))
    expect(search(page)).to_have_value("")
    expect_count(page, len(engine_ids(registry, "gpt2", TEXT)))
    expect(page.locator("[data-role=resolved]")).to_have_count(0)


def test_model_name_in_the_address_without_javascript(make_page, registry):
    page = make_page(java_script_enabled=False)
    open_playground(page, "gpt-4o", TEXT)
    expect(page.locator("select[name=tokenizer]")).to_have_value("o200k_base")
    expect_count(page, len(engine_ids(registry, "o200k_base", TEXT)))
    expect(page.locator("[data-role=resolved]")).to_contain_text("o200k_base")
    expect(page.locator("[data-role=used-by]")).to_contain_text("gpt-4.1")
    expect(search(page)).to_be_hidden()
    # the select decides: choosing gpt2 and submitting runs gpt2
    page.locator("select[name=tokenizer]").select_option("gpt2")
    page.get_by_role("button", name="Tokenize").click()
    page.wait_for_url("**/?tokenizer=gpt2&*")
    expect_count(page, len(engine_ids(registry, "gpt2", TEXT)))


def open_compare(page, names, text):
    page.goto("/compare?" + urlencode([*(("tokenizers", n) for n in names), ("text", text)], quote_via=quote))


def test_compare_takes_model_names_and_its_search_adds_a_tokenizer(page, registry):
    open_compare(page, ["gpt-4", "mistral-7b-v0.1"], TEXT)
    columns = page.locator("article.column")
    expect(columns).to_have_count(2)
    first = page.locator("article.column[data-tokenizer='cl100k_base']")
    expect(first.locator("[data-role=asked-as]")).to_have_text("for gpt-4")
    expect_count(first, len(engine_ids(registry, "cl100k_base", TEXT)))
    expect(page.locator("label.pick[data-tokenizer='cl100k_base'] input")).to_be_checked()
    expect(page.locator("label.pick[data-tokenizer='o200k_base'] [data-role=used-by]")).to_contain_text("o1")

    page.locator("[data-role=picker] > summary").click()  # unfold the picker (issue 19)
    box = page.locator("#pick-search")
    box.fill("gpt-4o-mini")
    picks = page.locator("label.pick:visible")
    expect(picks).to_have_count(1)
    expect(picks.first).to_have_attribute("data-tokenizer", "o200k_base")
    expect(page.locator("[data-pick-search] [data-role=picker-note]")).to_contain_text("press Enter")
    box.press("Enter")
    expect(columns).to_have_count(3)
    added = page.locator("article.column[data-tokenizer='o200k_base']")
    expect_count(added, len(engine_ids(registry, "o200k_base", TEXT)))
    assert drawn_ids(added) == engine_ids(registry, "o200k_base", TEXT)
    expect(box).to_have_value("")
    expect(page.locator("label.pick:visible")).to_have_count(len(registry.names()))
    assert "o200k_base" in query(page)["tokenizers"]


def test_a_hostile_name_that_matches_a_prefix_stays_text(page, registry):
    hostile = 'gpt-5"><img src=x onerror=alert(1)><script>alert(2)</script>'  # starts with the prefix "gpt-5"
    open_playground(page, hostile, TEXT)
    expect(page.locator("select[name=tokenizer]")).to_have_value("o200k_base")
    expect_count(page, len(engine_ids(registry, "o200k_base", TEXT)))
    expect(page.locator("[data-role=resolved]")).to_contain_text(hostile)
    expect(search(page)).to_have_value(hostile)
    assert page.dialogs == [] and page.locator("main img, main script").count() == 0
