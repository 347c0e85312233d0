"""Issue 12's comparison points in Chromium: highlights brought into view in every column,
the cuts that not every tokenizer makes, the layout at desktop and phone widths, and the
per-line counts on both pages (each line's count is the tokens drawn in it)."""

from __future__ import annotations

from urllib.parse import quote, urlencode

import pytest
from playwright.sync_api import expect

from app.web.pages.compare import differing_cuts
from tests.browser.helpers import expect_count, open_playground

FOUR = ["gpt2", "cl100k_base", "o200k_base", "mistral_v1"]
PROSE = (
    "The  SolidGoldMagikarp token was never trained.\n"
    "    indented = [1275, 127, 12345]\n"
    "Korean 한국어 and an emoji 👋🏽 cost more.\n"
) * 12  # every column draws all of it, and scrolls
LINES = "def add(a, b):\n    return a + b\n\n\nprint(add(1275, 127))  # 한국어 👋\nlast line without newline"


def compare_url(names, text, **options):
    return "/compare?" + urlencode(
        [*(("tokenizers", n) for n in names), ("text", text), *options.items()], quote_via=quote
    )


def inside(inner, outer) -> bool:
    return inner["y"] >= outer["y"] - 1 and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + 1


def test_hovering_brings_the_covering_tokens_into_view_in_every_column(make_page):
    page = make_page(viewport={"width": 1920, "height": 1080})
    page.goto(compare_url(FOUR, PROSE))
    gpt2 = page.locator('article[data-tokenizer="gpt2"] [data-tokens]')
    expect(gpt2.locator(".tok").first).to_be_visible()
    assert gpt2.evaluate("el => el.scrollHeight > el.clientHeight + 100")  # the columns do scroll
    gpt2.evaluate("el => { el.scrollTop = el.scrollHeight; }")  # deep in gpt2's text; the others stay at the top
    target = gpt2.locator(".tok").filter(has_text="Magikarp").last
    target.scroll_into_view_if_needed()
    target.hover()
    for name in FOUR[1:]:
        box = page.locator(f'article[data-tokenizer="{name}"] [data-tokens]')
        lit = box.locator(".tok.cover")
        expect(lit.first).to_be_attached()
        assert inside(lit.first.bounding_box(), box.bounding_box()), name


def test_cuts_that_differ_are_marked_as_the_engine_says(page, registry):
    text = "unbelievably 12345 SolidGoldMagikarp 한국어"
    page.goto(compare_url(["gpt2", "cl100k_base", "mistral_v1"], text))
    expect(page.locator(".tok.cut")).to_have_count(0)
    page.locator("label.switch", has_text="Mark different cuts").click()
    note = page.locator("[data-role=cuts-note]")
    expected = differing_cuts([registry.get(n).tokenize(text) for n in ("gpt2", "cl100k_base", "mistral_v1")])
    assert expected  # these tokenizers do cut this text differently
    expect(note).to_contain_text(f"{len(expected)} places")
    assert "cuts=1" in page.url
    for name in ("gpt2", "cl100k_base", "mistral_v1"):
        column = page.locator(f'article[data-tokenizer="{name}"]')
        starts = {t.start for t in registry.get(name).tokenize(text)}
        marked = set(column.locator(".tok.cut").evaluate_all("els => els.map(e => +e.dataset.start)"))
        assert marked == starts & expected, name


@pytest.mark.parametrize("width", [1280, 1920])
def test_metrics_table_fits_and_rows_stay_even(make_page, width):
    page = make_page(viewport={"width": width, "height": 900})
    page.goto(compare_url(FOUR, PROSE))
    wrap = page.locator("[data-role=metrics]").locator("xpath=..")
    expect(wrap).to_be_visible()
    assert wrap.evaluate("el => el.scrollWidth <= el.clientWidth"), "the metrics table overflows its box"
    last = page.locator("[data-role=metrics] thead th").last.bounding_box()
    card = page.locator("section.metrics").bounding_box()
    assert last["x"] + last["width"] <= card["x"] + card["width"]
    tops = [
        round(b["y"])
        for b in page.locator("article.column").evaluate_all(
            "els => els.map(e => e.getBoundingClientRect()).map(r => ({y: r.top}))"
        )
    ]
    rows = sorted({t: tops.count(t) for t in tops}.values(), reverse=True)
    assert rows == ([4] if width >= 1500 else [2, 2]), tops  # never 3 + 1
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def test_phone_shows_the_metrics_as_cards_without_sideways_scroll(make_page):
    page = make_page(viewport={"width": 390, "height": 844})
    page.goto(compare_url(FOUR, PROSE))
    table = page.locator("[data-role=metrics]")
    expect(table).to_be_visible()
    assert table.locator("xpath=..").evaluate("el => el.scrollWidth <= el.clientWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    cell = table.locator('tr[data-tokenizer="gpt2"] [data-role=metric-tokens]')
    label = cell.evaluate("el => getComputedStyle(el, '::before').content")
    assert "Tokens" in label


def lines_of(scope):
    return scope.locator("[data-tokens] .line").evaluate_all("""els => els.map(e => ({
        line: +e.dataset.line, count: +e.dataset.count,
        ids: [...e.querySelectorAll('[data-id]')].flatMap(t => (t.dataset.ids || t.dataset.id).split(' ').map(Number)),
    }))""")


def expected_lines(registry, name, text):
    """line number -> the ids of the tokens that start on it, from the engine."""
    out: dict[int, list[int]] = {}
    for token in registry.get(name).tokenize(text):
        out.setdefault(text.count("\n", 0, token.start) + 1, []).append(token.id)
    return out


@pytest.mark.parametrize("name", ["cl100k_base", "gpt2", "mistral_v1"])
def test_per_line_counts_on_the_playground(page, registry, name):
    open_playground(page, name, LINES)
    expect(page.locator("[data-tokens] .line")).to_have_count(0)
    page.locator("label.switch", has_text="Per-line counts").click()
    expect(page.locator("[data-tokens].lines")).to_have_count(1)
    shown = lines_of(page)
    assert {row["line"]: row["ids"] for row in shown} == expected_lines(registry, name, LINES)
    assert all(row["count"] == len(row["ids"]) for row in shown)
    assert sum(row["count"] for row in shown) == len(registry.get(name).encode(LINES))
    gutter = page.locator("[data-tokens] .line").first.evaluate("el => getComputedStyle(el, '::before').content")
    assert str(shown[0]["count"]) in gutter and "c/t" in gutter  # characters per token too (desktop width)
    assert "lines=1" in page.url
    page.reload()
    expect(page.locator("[data-tokens].lines")).to_have_count(1)


def test_per_line_counts_on_the_comparison(page, registry):
    page.goto(compare_url(["gpt2", "o200k_base"], LINES, lines="1"))
    for name in ("gpt2", "o200k_base"):
        column = page.locator(f'article[data-tokenizer="{name}"]')
        shown = lines_of(column)
        assert {row["line"]: row["ids"] for row in shown} == expected_lines(registry, name, LINES)
        assert all(row["count"] == len(row["ids"]) for row in shown)
        expect_count(column, sum(row["count"] for row in shown))
