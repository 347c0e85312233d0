"""The sample buttons teach, in headless Chromium: a click puts the sample in the box and
the page shows what it means for the tokenizer on screen (app/web/pages/sample_notes.py). On the
playground the note follows the chosen tokenizer; on the comparison each column carries
its own tokenizer's note, under its header."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from app.web.pages.sample_notes import build_note
from app.web.pages.samples import BY_KEY, SAMPLES

from .helpers import engine_ids, expect_count, open_playground
from .test_compare import column, open_compare

pytestmark = pytest.mark.browser
NOTE = "[data-role=sample-note]"


def test_a_sample_on_the_playground_explains_the_chosen_tokenizer(page, registry):
    open_playground(page, "cl100k_base", "")
    for key in ("case", "arithmetic"):
        sample = BY_KEY[key]
        page.locator("button[data-sample]", has_text=sample.label).click()
        expect(page.locator("textarea[name=text]")).to_have_value(sample.text)
        expect_count(page, len(engine_ids(registry, "cl100k_base", sample.text)))
        expect(page.locator(NOTE)).to_have_text(build_note(sample, registry.get("cl100k_base")))
    expect(page.locator(NOTE)).to_contain_text('"1275" is 2 tokens (127|5)')
    page.locator("select[name=tokenizer]").select_option("gpt2")  # another tokenizer, another note
    expect(page.locator(NOTE)).to_have_text(build_note(BY_KEY["arithmetic"], registry.get("gpt2")))
    expect(page.locator(NOTE)).to_contain_text('"1275" is 2 tokens (12|75)')
    page.locator("textarea[name=text]").fill(BY_KEY["arithmetic"].text + "1")  # no longer the sample
    expect_count(page, len(engine_ids(registry, "gpt2", BY_KEY["arithmetic"].text + "1")))
    expect(page.locator(NOTE)).to_have_count(0)


def test_every_sample_survives_the_round_trip_and_gets_its_note(page, registry):
    """A sample's text (a trailing space, a byte order mark, bidi controls) comes back from the
    browser unchanged, or the page would not know it for the sample."""
    open_playground(page, "o200k_base", "")
    for sample in SAMPLES:
        page.locator("button[data-sample]", has_text=sample.label).click()
        expect(page.locator(NOTE)).to_have_text(build_note(sample, registry.get("o200k_base")))


def test_each_comparison_column_carries_its_own_note(page, registry):
    names = ["gpt2", "cl100k_base", "mistral_v1"]
    open_compare(page, names, "start")
    page.locator("button[data-sample]", has_text="Glitch token").click()
    expect(page.locator("textarea[name=text]")).to_have_value(BY_KEY["glitch"].text)
    for name in names:
        note = column(page, name).locator(f"header + {NOTE}")  # right under the column's header
        expect(note).to_have_text(build_note(BY_KEY["glitch"], registry.get(name)))
    expect(column(page, "gpt2").locator(NOTE)).to_contain_text("one token: id 43453")
    expect(column(page, "cl100k_base").locator(NOTE)).to_contain_text("is 5 tokens (Solid|Gold|Mag|ik|arp)")
    page.locator("button[data-sample]", has_text="Mixed case").click()
    expect(column(page, "cl100k_base").locator(NOTE)).to_contain_text('" HELLO" 2 and " hElLo" 3')
    for name in names:
        expect(column(page, name).locator(NOTE)).to_have_text(build_note(BY_KEY["case"], registry.get(name)))
