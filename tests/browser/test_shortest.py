"""The playground's "Fewest tokens" option in a real browser: the toggle draws the shortest
encoding with both counts (the engine's), marks the places the two differ, keeps the option in
the address, and hovering a fewest token shows its card without lighting the tokens above."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from app.tokenizers.lecture.shortest import shortest

from .helpers import drawn_ids, open_playground, query

pytestmark = pytest.mark.browser
TEXT = "he jumps over the dog"


def test_fewest_toggle(page, registry):
    found = shortest(registry.get("tokenprism_4k"), TEXT)
    assert len(found.ids) < len(found.bpe_ids)
    open_playground(page, "tokenprism_4k", TEXT)
    expect(page.locator("[data-role=fewest]")).to_have_count(0)
    page.locator("label.switch", has_text="Fewest tokens").click()
    panel = page.locator("[data-role=fewest]")
    expect(panel.locator("[data-role=fewest-count]")).to_have_text(str(len(found.ids)))
    expect(panel.locator("[data-role=bpe-count]")).to_have_text(str(len(found.bpe_ids)))
    assert drawn_ids(panel) == found.ids
    assert query(page)["fewest"] == ["1"]
    expect(panel.locator("[data-role=fewest-differences] li").first).to_contain_text("umps")
    expect(panel.locator(".tok.cut")).to_have_count(1)  # "ps": a start BPE does not make
    expect(page.locator("#result > .result .tok.cut")).to_have_count(2)  # "mp", "s": starts the fewest do not make
    token = panel.locator(".tok").nth(1)
    token.hover()
    expect(panel.locator("[data-role=detail]")).to_contain_text(str(found.ids[1]))
    expect(page.locator("#result > .result .tok.hl")).to_have_count(0)
    page.reload()
    expect(page.locator("[data-role=fewest] [data-role=fewest-count]")).to_have_text(str(len(found.ids)))


def test_fewest_toggle_on_the_comparison(page, registry):
    found = shortest(registry.get("tokenprism_4k"), TEXT)
    page.goto("/compare?tokenizers=tokenprism_4k&tokenizers=gpt2&text=" + TEXT.replace(" ", "+"))
    expect(page.locator("[data-role=fewest-line]")).to_have_count(0)
    page.locator("label.switch", has_text="Fewest tokens").click()
    column = page.locator("article[data-tokenizer=tokenprism_4k]")
    expect(column.locator("[data-role=fewest-count]")).to_have_text(str(len(found.ids)))
    expect(column.locator("[data-role=bpe-count]")).to_have_text(str(len(found.bpe_ids)))
    assert query(page)["fewest"] == ["1"]
