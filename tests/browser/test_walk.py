"""Issue 19's second newcomer walk, in Chromium: a text too long for the address survives a
reload and Back; the chat editor keeps the focus on the control that moved; the replay
slider speaks its value; the detail card covers neither its token nor the next line; the
phone layout shows the text box and the API docs link."""

from __future__ import annotations

import re
from urllib.parse import quote, urlencode

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import drawn_ids, engine_ids, expect_count, open_playground, paste

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


def open_chat(page, *contents: str) -> None:
    pairs = [("tokenizer", "cl100k_base"), ("mode", "chat")]
    for content in contents:
        pairs += [("role", "user"), ("content", content)]
    page.goto("/?" + urlencode(pairs, quote_via=quote))


def expect_contents(page, values: list[str]) -> None:
    """The editor holds these messages (after its swap)."""
    fields = page.locator("[data-role=chat-editor] [data-role=content]")
    expect(fields).to_have_count(len(values))
    for i, value in enumerate(values):
        expect(fields.nth(i)).to_have_value(value)


def test_the_chat_editor_keeps_the_focus_on_the_control_that_moved(page):
    open_chat(page, "one", "two", "three", "four")
    page.get_by_role("button", name="Move message 3 up").focus()
    page.keyboard.press("Enter")
    expect_contents(page, ["one", "three", "two", "four"])
    expect(page.get_by_role("button", name="Move message 2 up")).to_be_focused()  # "three", one place up
    page.keyboard.press("Enter")
    expect_contents(page, ["three", "one", "two", "four"])
    expect(page.get_by_role("button", name="Move message 1 down")).to_be_focused()  # first: its Up is disabled
    page.keyboard.press("Enter")  # down again
    expect_contents(page, ["one", "three", "two", "four"])
    expect(page.get_by_role("button", name="Move message 2 down")).to_be_focused()

    page.get_by_role("button", name="Remove message 2").focus()
    page.keyboard.press("Enter")
    expect_contents(page, ["one", "two", "four"])
    expect(page.get_by_role("button", name="Remove message 2")).to_be_focused()  # the next message's Remove
    page.get_by_role("button", name="Remove message 3").focus()
    page.keyboard.press("Enter")
    expect_contents(page, ["one", "two"])
    expect(page.get_by_role("button", name="Remove message 2")).to_be_focused()  # the last went: the one before
    page.keyboard.press("Enter")
    expect_contents(page, ["one"])
    expect(page.locator("#content-0")).to_be_focused()  # one message left: its Remove is disabled, its text takes it


def test_the_replay_slider_speaks_its_value(page):
    page.goto("/train/replay?tokenizer=tokenprism_4k&k=10&text=hello%20world")
    slider = page.locator("#k")
    total = int(slider.get_attribute("max"))
    expect(slider).to_have_attribute("aria-valuetext", f"10 of {total:,} merges")
    slider.focus()
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    expect(slider).to_have_value("13")
    expect(slider).to_have_attribute("aria-valuetext", f"13 of {total:,} merges")
    page.keyboard.press("End")
    expect(slider).to_have_attribute("aria-valuetext", f"{total:,} of {total:,} merges")
    expect(page.locator("#k-value")).to_have_text(f"{total:,}")


NEXT_LINE = """(tok) => {
    const list = [...tok.closest('[data-tokens]').querySelectorAll('.tok')];
    const box = tok.getBoundingClientRect();
    const after = list.slice(list.indexOf(tok) + 1).map(t => t.getBoundingClientRect()).filter(r => r.top >= box.bottom - 2);
    if (!after.length) return [];
    const top = after[0].top;
    return after.filter(r => r.top <= top + 4).map(r => ({x: r.left, y: r.top, width: r.width, height: r.height}));
}"""


def overlaps(a, b) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


@pytest.mark.parametrize(
    "viewport", [{"width": 1280, "height": 900}, {"width": 390, "height": 844}], ids=["desktop", "phone"]
)
def test_the_detail_card_covers_neither_its_token_nor_the_next_line(make_page, viewport):
    page = make_page(viewport=viewport)
    open_playground(page, "cl100k_base", "Tokenizers cut text into pieces; every piece costs. " * 60)
    tokens = page.locator("[data-tokens] .tok")
    page.locator("[data-tokens]").scroll_into_view_if_needed()
    detail = page.locator("[data-role=detail]")
    for n in (3, 40, 120):
        token = tokens.nth(n)
        token.scroll_into_view_if_needed()
        token.hover()
        expect(detail).to_contain_text("id ")
        card = detail.bounding_box()
        assert not overlaps(card, token.bounding_box()), (n, card)
        next_line = token.evaluate(NEXT_LINE)
        assert next_line and not any(overlaps(card, r) for r in next_line), (n, card, next_line[:2])
        assert card["y"] >= 0 and card["y"] + card["height"] <= viewport["height"], card
        # its place in the page shows the hint, not an empty gap
        expect(page.locator(".detail-spacer")).to_contain_text("Hover, tap or focus a token")
    page.mouse.move(1, 1)
    expect(page.locator(".detail-spacer")).to_have_count(0)


def test_a_long_text_draws_at_most_the_limit_and_says_so(page, registry, settings):
    text = "안녕하세요 🦊 " * 2000  # gpt2 splits these characters over tokens: a cut at the limit falls inside one
    ids = engine_ids(registry, "gpt2", text)
    open_playground(page, "gpt2", "")
    paste(page, text)
    expect_count(page, len(ids))
    note = page.locator("[data-role=truncated]")
    expect(note).to_contain_text(f"of {len(ids):,} tokens")
    drawn = drawn_ids(page.locator("#result"))
    assert settings.render_tokens - 4 <= len(drawn) <= settings.render_tokens
    assert drawn == ids[: len(drawn)]
    expect(note).to_contain_text(f"Drawing the first {len(drawn):,} of")


def test_errors_speak_the_page_s_words(page, tmp_path):
    # the chat editor numbers its messages from 1 and calls "name" a field
    pairs = [
        ("tokenizer", "mistral_v1"),
        ("mode", "chat"),
        ("role", "user"),
        ("name", ""),
        ("content", "hi"),
        ("role", "assistant"),
        ("name", "bot"),
        ("content", "hello"),
    ]
    page.goto("/?" + urlencode(pairs, quote_via=quote))
    message = page.locator("#result [data-role=message]")
    expect(message).to_contain_text("Message 2 has a name")
    expect(message).to_contain_text("clear its name field")
    expect(message).not_to_contain_text("message 1")
    # the vocabulary page calls its box "the search" and its menu "Match"
    page.goto("/tokenizers/gpt2?" + urlencode({"q": "abc", "mode": "id"}))
    error = page.get_by_role("alert")
    expect(error).to_contain_text("The search 'abc' is not a token id")
    expect(error).to_contain_text("Match \u201cid or range\u201d")
    expect(error).not_to_contain_text("mode=id")
    # a JSON file that is not a tokenizer is named as such
    config = tmp_path / "config.json"
    config.write_text('{"architectures": ["LlamaForCausalLM"], "hidden_size": 4096}')
    page.goto("/tokenizers")
    page.set_input_files("#file", str(config))
    page.fill("#name", "page-config")
    page.click("[data-role=add-form] button[type=submit]")
    expect(page.locator("[data-role=error]")).to_contain_text('not a Hugging Face tokenizer.json (it has no "model")')
    expect(page.locator("[data-role=error]")).not_to_contain_text("column")


CORPUS = "The quick brown fox jumps over the lazy dog. Pack my box with five dozen liquor jugs.\n" * 40


def test_the_training_preview_counts_files_and_the_job_page_has_one_time(page, tmp_path):
    from app.bpe.model import PATTERNS
    from app.bpe.train import count_chunks

    files = [tmp_path / "a.txt", tmp_path / "b.txt"]
    for i, path in enumerate(files):
        path.write_text(CORPUS * (i + 1))
    page.goto("/train")
    page.fill("#train-name", "walk-files")
    page.fill("#train-vocab", "300")
    page.set_input_files("#train-files", [str(p) for p in files])
    documents = [CORPUS, CORPUS * 2]
    chunks = count_chunks(documents, PATTERNS["gpt4"])
    expect(page.locator("[data-role=preview-files]")).to_have_text("2")
    expect(page.locator("[data-role=preview-chars]")).to_have_text(f"{sum(map(len, documents)):,}")
    expect(page.locator("[data-role=preview-chunks]")).to_have_text(f"{sum(chunks.values()):,}")
    page.fill("#train-text", "and a pasted line")
    expect(page.locator("[data-role=preview-chars]")).to_have_text(f"{sum(map(len, documents)) + 17:,}")
    expect(page.locator("[data-role=preview-files]")).to_have_text("2")

    try:
        page.click("[data-role=start]")
        expect(page.locator("[data-role=job-status]")).to_have_text("done", timeout=60_000)
        expect(page.locator("[data-role=summary]")).to_be_visible()
        assert (
            page.locator("[data-role=job-time]").inner_text().split()[0]
            == page.locator("[data-role=progress-time]").inner_text()
        )
    finally:
        page.request.delete("/api/tokenizers/walk-files")


def test_a_token_not_under_trained_says_what_the_list_is(page):
    from app.inspect import undertrained

    page.goto("/tokenizers/gpt2/tokens/43453")  # SolidGoldMagikarp: famous, but not on gpt2's list
    why = page.locator("[data-role=under-trained-why]")
    expect(why).to_contain_text(f"holds the {len(undertrained.listings()['gpt2'])} tokens of gpt2")
    expect(why).to_contain_text("rarely or never saw in training")


def test_on_a_phone_the_text_box_is_in_the_first_screen_and_the_nav_reaches_the_api_docs(make_page):
    page = make_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page.goto("/")
    box = page.locator("textarea[name=text]").bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= 844, box
    docs = page.get_by_role("navigation", name="Main").get_by_role("link", name="API docs")
    expect(docs).to_be_visible()
    assert docs.bounding_box()["x"] + docs.bounding_box()["width"] <= 390
    docs.tap()
    expect(page).to_have_url(re.compile(r"/docs$"))
