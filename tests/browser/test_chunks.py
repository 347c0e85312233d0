"""The Chunks option in Chromium: switching it on in the playground draws a tick under the end
of each token where a chunk ends (at the engine's chunk ends), writes the count and keeps the
option in the address; the comparison shows SentencePiece's sentence in its column."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from .helpers import open_playground, query

TEXT = "Hello world!!! 12345"


def test_chunks_toggle_marks_chunk_ends(page, registry):
    open_playground(page, "cl100k_base", TEXT)
    expect(page.locator("[data-role=chunks-note]")).to_have_count(0)
    page.locator("label.switch", has_text="Chunks").click()
    chunks = registry.get("cl100k_base").chunks(TEXT)
    note = page.locator("[data-role=chunks-note]")
    expect(note).to_have_attribute("data-count", str(len(chunks)))
    expect(page).to_have_url(re.compile(r"chunks=1"))
    assert query(page)["chunks"] == ["1"]
    marked = page.locator("[data-tokens] .tok.chunk-end")
    expected = [end for _, end in chunks if end < len(TEXT)]
    expect(marked).to_have_count(len(expected))
    assert [int(end) for end in marked.evaluate_all("els => els.map(e => e.dataset.end)")] == expected
    tick = marked.first.evaluate(
        "e => { const s = getComputedStyle(e, '::after'); return [s.content, s.position, s.width]; }"
    )
    assert tick[0] == '""' and tick[1] == "absolute" and tick[2] == "3px"

    page.locator("label.switch", has_text="Chunks").click()
    expect(page.locator("[data-role=chunks-note]")).to_have_count(0)
    expect(page.locator("[data-tokens] .tok.chunk-end")).to_have_count(0)


def test_comparison_says_what_sentencepiece_does(page):
    page.goto("/compare?tokenizers=o200k_base&tokenizers=mistral_v1&text=Hello%20world&chunks=1")
    column = page.locator("article.column[data-tokenizer=mistral_v1]")
    expect(column.locator("[data-role=chunks-note]")).to_contain_text("turns each space into ▁")
    other = page.locator("article.column[data-tokenizer=o200k_base]")
    expect(other.locator("[data-role=chunks-note]")).to_have_attribute("data-count", "2")
    expect(other.locator(".tok.chunk-end")).to_have_count(1)
