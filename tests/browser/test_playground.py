"""The playground at `/` in headless Chromium: live tokens, segments, escapes, linking,
views, decode mode, URL state, special tokens, the no-JavaScript path, big and hostile input."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from app.settings import Settings
from app.tokenizers.registry import default_registry
from app.web.assets import htmx_path

from .helpers import SEGMENTS, drawn_ids, engine_ids, expect_count, open_playground, paste, query

pytestmark = pytest.mark.browser

BUILTINS = [entry.name for entry in default_registry(Settings(data_dir=Path("/nonexistent-tokenprism"))).entries()]
MIXED = "Hello, world! 1234567 naïve café\n    def f(x): return x ** 2\n안녕하세요 Привет 🦄 👍🏽\ttab"
FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"  # man, woman, girl, boy joined by ZWJ
FLAG = "\U0001f1ef\U0001f1f5"  # JP: two regional indicators


def result(page):
    return page.locator("#result")


def type_text(page, text: str) -> None:
    page.locator("textarea[name=text]").fill(text)


def test_typing_updates_spans_and_count(page, registry):
    open_playground(page, "cl100k_base", "")
    expect_count(page, 0)
    box = page.locator("textarea[name=text]")
    box.press_sequentially("Tokenizers cut text", delay=15)
    expected = engine_ids(registry, "cl100k_base", "Tokenizers cut text")
    expect_count(page, len(expected))
    assert drawn_ids(result(page)) == expected
    box.fill("Hello world")
    expected = engine_ids(registry, "cl100k_base", "Hello world")
    expect_count(page, len(expected))
    assert drawn_ids(result(page)) == expected
    stats = result(page)
    expect(stats.locator("[data-role=char-count]")).to_have_text("11")
    expect(stats.locator("[data-role=byte-count]")).to_have_text("11")
    expect(stats.locator("[data-role=chars-per-token]")).to_have_text(f"{11 / len(expected):.2f}")


def test_tokenizer_picker_lists_every_tokenizer_grouped_by_kind(page, registry):
    page.goto("/")
    options = page.locator("select[name=tokenizer] option").evaluate_all("os => os.map(o => o.value)")
    assert sorted(options) == sorted(registry.names())
    for entry in registry.entries():
        group = page.locator(f"select[name=tokenizer] option[value='{entry.name}']").evaluate(
            "o => o.parentElement.label"
        )
        assert entry.kind.lower() in group.lower() or (entry.kind == "bpe" and "bpe" in group.lower())
        assert (
            f"{entry.vocab_size:,}" in page.locator(f"select[name=tokenizer] option[value='{entry.name}']").inner_text()
        )


@pytest.mark.parametrize("name", BUILTINS, ids=BUILTINS)
def test_every_tokenizer_renders(page, registry, name):
    open_playground(page, name, MIXED)
    expected = engine_ids(registry, name, MIXED)
    expect_count(page, len(expected))
    expect(page.locator("select[name=tokenizer]")).to_have_value(name)
    assert drawn_ids(result(page)) == expected
    tokens_text = page.locator("[data-tokens]").inner_text()
    assert "\ufffd" not in tokens_text
    for word in ("Hello", "🦄", "안녕하세요", "Привет"):
        assert word in tokens_text.replace("\u200b", "")
    # the ids panel lists the same ids
    ids_panel = page.locator("[data-role=ids] .tid").evaluate_all("els => els.map(e => +e.textContent)")
    assert ids_panel == expected


def test_switching_tokenizer_rerenders(page, registry):
    open_playground(page, "gpt2", MIXED)
    expect_count(page, len(engine_ids(registry, "gpt2", MIXED)))
    page.locator("select[name=tokenizer]").select_option("mistral_v1")
    expect_count(page, len(engine_ids(registry, "mistral_v1", MIXED)))
    assert drawn_ids(result(page)) == engine_ids(registry, "mistral_v1", MIXED)
    expect(result(page).locator(".tokenizer-info")).to_contain_text("mistral_v1")


def test_emoji_split_into_byte_tokens_is_one_segment(page, registry):
    text = f"{FAMILY} and {FLAG}"
    open_playground(page, "gpt2", text)
    expect_count(page, len(engine_ids(registry, "gpt2", text)))
    for emoji in (FAMILY, FLAG):
        segment = page.locator(f"{SEGMENTS}[data-ids]").filter(has_text=emoji)
        expect(segment).to_have_count(1)
        ids = segment.get_attribute("data-ids").split()
        assert len(ids) > 1
        assert segment.get_attribute("data-id") == ids[0]
        assert segment.inner_text().strip().count(emoji) == 1
        assert "<0xF0>" in segment.get_attribute("title")
    assert "\ufffd" not in page.locator("[data-tokens]").inner_text()
    assert drawn_ids(result(page)) == engine_ids(registry, "gpt2", text)
    # hovering the emoji lists every byte token with its id and bytes
    segment = page.locator(f"{SEGMENTS}[data-ids]").filter(has_text=FAMILY)
    segment.hover()
    detail = page.locator("[data-role=detail]")
    for token_id in segment.get_attribute("data-ids").split():
        expect(detail).to_contain_text(f"id {token_id}")
    expect(detail).to_contain_text("F0 9F")


def test_whitespace_toggle(page):
    open_playground(page, "cl100k_base", "a b\tc\nd  ")
    expect(page.locator("[data-tokens] .ws")).to_have_count(0)
    page.locator("label.switch", has_text="Show whitespace").click()
    marks = page.locator("[data-tokens] .ws")
    expect(marks.first).to_be_visible()
    text = "".join(marks.all_inner_texts())
    for mark in ("·", "→", "↵"):
        assert mark in text
    assert query(page)["ws"] == ["1"]
    page.locator("label.switch", has_text="Show whitespace").click()
    expect(page.locator("[data-tokens] .ws")).to_have_count(0)


@pytest.mark.parametrize("show_ws", [False, True], ids=["plain", "show-whitespace"])
def test_control_and_bidi_characters_are_escaped(page, show_ws):
    hidden = ["\u202e", "\u200b", "\u200f", "\u2066", "\ufeff", "\x07", "\x85", "\u00ad"]
    text = "safe " + " x".join(hidden) + " end"
    open_playground(page, "o200k_base", text, **({"ws": "1"} if show_ws else {}))
    expect(page.locator("[data-role=token-count]")).not_to_have_text("0")
    shown = page.locator("[data-tokens]").text_content()
    for char in hidden:
        assert char not in shown, f"U+{ord(char):04X} drawn raw"
        assert f"\\u{ord(char):04x}" in shown
    escapes = page.locator("[data-tokens] .esc")
    assert escapes.count() >= len(hidden)
    # each token sits in its own <bdi>
    tags = page.locator(SEGMENTS).evaluate_all("els => [...new Set(els.map(e => e.tagName))]")
    assert tags == ["BDI"]


def test_hover_links_text_and_ids(page, registry):
    text = "Hover over these tokens"
    open_playground(page, "cl100k_base", text)
    ids = engine_ids(registry, "cl100k_base", text)
    expect_count(page, len(ids))
    token = page.locator(SEGMENTS).nth(2)
    token.hover()
    expect(token).to_have_class(re.compile(r"\bhl\b"))
    linked = page.locator("[data-role=ids] .tid.hl")
    expect(linked).to_have_count(1)
    expect(linked).to_have_text(str(ids[2]))
    detail = page.locator("[data-role=detail]")
    hex_bytes = registry.get("cl100k_base").id_to_bytes(ids[2]).hex(" ").upper()
    start, end = token.get_attribute("data-start"), token.get_attribute("data-end")
    expect(detail).to_contain_text(f"id {ids[2]}")
    expect(detail).to_contain_text(hex_bytes)
    expect(detail).to_contain_text(f"{start}–{end}")
    # and the other way round: hovering an id lights up its token in the text
    page.locator("[data-role=ids] .tid").nth(0).hover()
    expect(page.locator(f"{SEGMENTS}.hl")).to_have_count(1)
    expect(page.locator(f"{SEGMENTS}.hl")).to_have_attribute("data-seg", "0")


def test_keyboard_focus_links_text_and_ids(page, registry):
    text = "Keys move between tokens"
    open_playground(page, "o200k_base", text)
    ids = engine_ids(registry, "o200k_base", text)
    expect_count(page, len(ids))
    first = page.locator(SEGMENTS).first
    assert first.get_attribute("tabindex") == "0"  # one tab stop for the list
    assert page.locator(SEGMENTS).nth(1).get_attribute("tabindex") == "-1"
    # reach the list with Tab from the box before it
    page.locator("textarea[name=text]").focus()
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('[data-tokens] [data-id]')"):
            break
    assert page.evaluate("document.activeElement.dataset.seg") == "0"
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.dataset.seg") == "2"
    expect(page.locator("[data-role=ids] .tid.hl")).to_have_text(str(ids[2]))
    expect(page.locator("[data-role=detail]")).to_contain_text(f"id {ids[2]}")
    page.keyboard.press("End")
    assert page.evaluate("document.activeElement.dataset.seg") == str(len(ids) - 1)


def test_tap_focuses_a_token_on_touch_screens(make_page, registry):
    page = make_page(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    text = "Tap a token"
    open_playground(page, "cl100k_base", text)
    ids = engine_ids(registry, "cl100k_base", text)
    expect_count(page, len(ids))
    page.locator(SEGMENTS).nth(1).tap()
    expect(page.locator("[data-role=ids] .tid.hl")).to_have_text(str(ids[1]))


def test_view_switch(page, registry):
    text = "View é"
    open_playground(page, "gpt2", text)
    ids = engine_ids(registry, "gpt2", text)
    expect_count(page, len(ids))
    page.locator("label[for=view-ids]").click()
    expect(page.locator("[data-tokens].view-ids")).to_have_count(1)
    shown = page.locator(SEGMENTS).all_inner_texts()
    assert " ".join(shown).split() == [str(i) for i in ids]
    assert query(page)["view"] == ["ids"]
    page.locator("label[for=view-bytes]").click()
    expect(page.locator("[data-tokens].view-bytes")).to_have_count(1)
    assert page.locator(SEGMENTS).first.inner_text() == "56 69 65 77"  # "View"
    page.locator("label[for=view-text]").click()
    expect(page.locator("[data-tokens].view-text")).to_have_count(1)
    assert page.locator("[data-tokens]").inner_text() == text


def test_decode_mode(page, registry):
    open_playground(page, "cl100k_base", "")
    page.locator("label[for=mode-decode]").click()
    ids_box = page.locator("textarea[name=ids]")
    expect(ids_box).to_be_visible()
    expect(page.locator("textarea[name=text]")).to_be_hidden()
    hello = engine_ids(registry, "cl100k_base", "Hello, world!")
    ids_box.fill(str(hello))
    expect_count(page, len(hello))
    expect(page.locator("[data-role=decoded-text]")).to_have_text("Hello, world!")
    assert drawn_ids(result(page)) == hello
    ids_box.fill(" ".join(map(str, hello)))  # spaces work too
    expect(page.locator("[data-role=decoded-text]")).to_have_text("Hello, world!")
    assert query(page)["mode"] == ["decode"]
    message = page.locator("[data-role=message]")
    for bad, named in (
        ("9906 abc 1917", "'abc'"),
        ("9906, 1.5", "'1.5'"),
        ("[9906, 1.5]", "1.5"),
        ("9906 99999999", "99999999"),
    ):
        ids_box.fill(bad)
        expect(message).to_contain_text(named)
        expect(message).to_contain_text("position 1")


def test_decode_shows_split_characters_as_bytes_not_replacement_chars(page, registry):
    ids = engine_ids(registry, "gpt2", FAMILY)[:1]  # the first byte piece of the emoji alone
    open_playground(page, "gpt2", "", mode="decode", ids=str(ids))
    expect_count(page, 1)
    expect(page.locator(SEGMENTS)).to_contain_text("<0xF0>")


def test_url_round_trip_and_back_button(page, registry):
    open_playground(page, "gpt2", "hello world")
    expect(page.locator("textarea[name=text]")).to_have_value("hello world")
    expect(page.locator("select[name=tokenizer]")).to_have_value("gpt2")
    expect_count(page, len(engine_ids(registry, "gpt2", "hello world")))
    history_before = page.evaluate("history.length")

    page.locator("textarea[name=text]").press("Control+End")
    page.locator("textarea[name=text]").press_sequentially(" again", delay=20)
    expect_count(page, len(engine_ids(registry, "gpt2", "hello world again")))
    expect(page).to_have_url(re.compile(r"text=hello%20world%20again"))
    assert page.evaluate("history.length") == history_before  # typing replaces, never pushes

    page.locator("select[name=tokenizer]").select_option("o200k_base")
    expect(page).to_have_url(re.compile(r"tokenizer=o200k_base"))
    expect_count(page, len(engine_ids(registry, "o200k_base", "hello world again")))
    assert page.evaluate("history.length") == history_before + 1

    page.go_back()
    expect(page).to_have_url(re.compile(r"tokenizer=gpt2"))
    expect(page.locator("select[name=tokenizer]")).to_have_value("gpt2")
    expect(page.locator("textarea[name=text]")).to_have_value("hello world again")
    expect_count(page, len(engine_ids(registry, "gpt2", "hello world again")))

    # a link reproduces the view, options included
    page.goto(page.url.replace("tokenizer=gpt2", "tokenizer=mistral_v1") + "&ws=1&view=ids")
    expect(page.locator("select[name=tokenizer]")).to_have_value("mistral_v1")
    expect(page.locator("input[name=ws]")).to_be_checked()
    expect(page.locator("#view-ids")).to_be_checked()
    expect(page.locator("[data-tokens].view-ids")).to_have_count(1)


def test_special_token_toggle(page, registry):
    text = "one<|endoftext|>two"
    open_playground(page, "cl100k_base", text)
    plain = engine_ids(registry, "cl100k_base", text)
    special = engine_ids(registry, "cl100k_base", text, allow_special=True)
    assert len(plain) != len(special)
    expect_count(page, len(plain))
    expect(page.locator(f"{SEGMENTS}.special")).to_have_count(0)
    page.locator("label.switch", has_text="Special tokens").click()
    expect_count(page, len(special))
    marked = page.locator(f"{SEGMENTS}.special")
    expect(marked).to_have_count(1)
    expect(marked).to_have_attribute("data-id", "100257")
    expect(marked).to_have_text("<|endoftext|>")
    assert query(page)["special"] == ["1"]


def test_samples_one_click_away(page, registry):
    from app.web.pages.sample_notes import note_for
    from app.web.pages.samples import BY_KEY

    open_playground(page, "cl100k_base", "")
    for key in ("emoji", "special", "arithmetic"):
        sample = BY_KEY[key]
        page.locator("button[data-sample]", has_text=sample.label).click()
        expect(page.locator("textarea[name=text]")).to_have_value(sample.text)
        expect_count(page, len(engine_ids(registry, "cl100k_base", sample.text)))
        expect(page.locator("[data-role=sample-note]")).to_have_text(note_for(sample.text, registry.get("cl100k_base")))


def test_works_without_javascript(make_page, registry):
    page = make_page(java_script_enabled=False)
    page.goto("/")
    page.locator("select[name=tokenizer]").select_option("gpt2")
    page.locator("textarea[name=text]").fill("No script needed, 12345!")
    page.get_by_role("button", name="Tokenize").click()
    page.wait_for_url("**/?tokenizer=gpt2&text=*")
    expected = engine_ids(registry, "gpt2", "No script needed, 12345!")
    expect_count(page, len(expected))
    assert drawn_ids(page) == expected
    expect(page.locator("textarea[name=text]")).to_have_value("No script needed, 12345!")
    # a sample button is a plain submit too
    page.locator("button[data-sample]", has_text="Emoji").click()
    from app.web.pages.samples import BY_KEY

    expect_count(page, len(engine_ids(registry, "gpt2", BY_KEY["emoji"].text)))
    # so are toggles, with the submit button
    page.locator("input[name=special]").check(force=True)
    page.locator("textarea[name=text]").fill("a<|endoftext|>b")
    page.get_by_role("button", name="Tokenize").click()
    expect_count(page, len(engine_ids(registry, "gpt2", "a<|endoftext|>b", allow_special=True)))


def test_large_paste_renders_first_part_with_full_counts(page, registry, settings):
    line = "The quick brown fox jumps over the lazy dog 1234567890. Ünïcödé 안녕 🦊!\n"
    text = (line * (100_000 // len(line) + 1))[:100_000]
    expected = engine_ids(registry, "cl100k_base", text)
    assert len(expected) > settings.render_tokens
    open_playground(page, "cl100k_base", "")
    paste(page, text)
    expect_count(page, len(expected), timeout=20_000)
    expect(page.locator("[data-role=truncated]")).to_contain_text(f"{len(expected):,}")
    drawn = drawn_ids(result(page))
    assert settings.render_tokens - 8 <= len(drawn) <= settings.render_tokens  # cut where a segment ends
    assert drawn == expected[: len(drawn)]
    expect(page.locator("[data-role=char-count]")).to_have_text("100,000")
    expect(page.locator("[data-role=url-note]")).to_be_visible()
    # still responsive: hovering and typing work
    page.locator(SEGMENTS).nth(10).hover()
    expect(page.locator("[data-role=ids] .tid.hl").first).to_be_visible()
    page.locator("textarea[name=text]").press("Control+End")
    page.locator("textarea[name=text]").press_sequentially("xyz", delay=10)
    expect_count(page, len(engine_ids(registry, "cl100k_base", text + "xyz")), timeout=20_000)


def test_over_the_limit_says_the_limit(page, settings):
    open_playground(page, "cl100k_base", "short")
    paste(page, "a" * (settings.max_text_chars + 1))
    message = page.locator("#result [data-role=message]")
    expect(message).to_contain_text(f"{settings.max_text_chars:,}", timeout=20_000)
    expect(page.locator("textarea[name=text]")).to_be_visible()
    # far over: the body-size guard in front of the app answers (in JSON); the page shows its message
    paste(page, "\U0001f98a" * 1_100_000)  # 4.4 MB of UTF-8
    expect(message).to_contain_text("request body is over", timeout=20_000)


XSS = ['"><img src=x onerror=alert(1)>', "{{7*7}}", "<script>alert(1)</script>", "<svg onload=alert(1)>", "${7*7}"]


@pytest.mark.parametrize("how", ["typed", "link"])
def test_hostile_text_stays_inert(page, registry, how):
    text = "\n".join(XSS)
    if how == "link":
        open_playground(page, "cl100k_base", text)
    else:
        open_playground(page, "cl100k_base", "")
        page.locator("textarea[name=text]").fill(text)
    expect_count(page, len(engine_ids(registry, "cl100k_base", text)))
    for view in ("text", "ids", "bytes"):
        page.locator(f"label[for=view-{view}]").click()
        expect(page.locator(f"[data-tokens].view-{view}")).to_have_count(1)
        assert (
            page.locator("#result img, #result script, #result svg:not(.context-bar), main img, main script").count()
            == 0
        )
    page.locator("label[for=view-text]").click()
    expect(page.locator("[data-tokens].view-text")).to_have_count(1)
    shown = page.locator("[data-tokens]").inner_text()
    assert "{{7*7}}" in shown and "49" not in shown
    assert '"><img src=x onerror=alert(1)>' in shown
    expect(page.locator("textarea[name=text]")).to_have_value(text)
    page.wait_for_timeout(200)
    assert page.dialogs == []
    sources = page.locator("script").evaluate_all("els => els.map(e => e.src ? new URL(e.src).pathname : 'inline')")
    assert sources == [
        f"/static/{htmx_path()}",
        "/static/js/app.js",
        "/static/js/live.js",
        "/static/js/share.js",
    ]  # nothing else


def test_security_headers_and_no_csp_violations(page):
    response = page.goto("/")
    csp = response.headers["content-security-policy"]
    assert "default-src 'self'" in csp and "script-src 'self'" in csp and "unsafe" not in csp
    assert "HX-Request" in [part.strip() for part in response.headers["vary"].split(",")]
    page.locator("textarea[name=text]").fill("csp check")
    expect(page.locator("[data-role=token-count]")).to_have_text("3")
    # no inline style or script anywhere in the markup
    assert page.locator("[style], style, script:not([src])").count() == 0
    # (the fixture fails the test on any console error, which is how Chromium reports a CSP violation)


def test_accessible_labels_on_every_control(page):
    page.goto("/")
    controls = page.locator(
        "main select, main textarea, main input:not([type=hidden]), main button"
    )  # a hidden field is no control
    for i in range(controls.count()):
        control = controls.nth(i)
        name = control.evaluate(
            "el => (el.labels && el.labels.length ? el.labels[0].textContent : '') || el.getAttribute('aria-label') || el.textContent"
        )
        assert name.strip(), control.evaluate("el => el.outerHTML")


def test_phone_width_has_no_horizontal_scroll(make_page, registry):
    page = make_page(viewport={"width": 375, "height": 812}, is_mobile=True, has_touch=True)
    open_playground(page, "o200k_base", MIXED * 3)
    expect_count(page, len(engine_ids(registry, "o200k_base", MIXED * 3)))
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
