"""The /tokenizers page in Chromium: it lists every tokenizer, adds a file through its form
(with and without JavaScript), shows a refused file's reason, and removes an added one;
the added tokenizer is at once usable in the playground."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.reference import TOKENIZER_DIR

from .helpers import drawn_ids, engine_ids, expect_count, open_playground

pytestmark = pytest.mark.browser

BPE = TOKENIZER_DIR / "tokenprism_4k.bpe"


@pytest.fixture
def cleanup(data_dir):
    names = []
    yield names
    for name in names:
        (data_dir / "tokenizers" / f"{name}.tokenizer").unlink(missing_ok=True)


@pytest.mark.parametrize("javascript", [True, False])
def test_add_use_and_remove_a_file(make_page, registry, data_dir, cleanup, javascript):
    name = f"page-added-{'js' if javascript else 'nojs'}"
    cleanup.append(name)
    page = make_page(java_script_enabled=javascript)
    page.goto("/tokenizers")
    table = page.locator("[data-role=tokenizer-table]")
    for builtin in ("gpt2", "cl100k_base", "o200k_base", "mistral_v1", "tokenprism_4k"):
        expect(table.locator(f"tr[data-name='{builtin}']")).to_have_count(1)
    expect(table.locator("tr[data-name='gpt2'] button")).to_have_count(0)  # built-ins cannot be removed
    page.set_input_files("#file", str(BPE))
    page.fill("#name", name)
    page.fill("#description", "<b>not bold</b>")
    page.click("[data-role=add-form] button[type=submit]")
    expect(page.locator("[data-role=notice]")).to_have_text(f"Added {name}.")
    row = table.locator(f"tr[data-name='{name}']")
    expect(row).to_contain_text("bpe")
    expect(row).to_contain_text("<b>not bold</b>")  # shown as text, never as markup
    assert row.locator("b").count() == 0
    assert (data_dir / "tokenizers" / f"{name}.tokenizer").is_file()

    if javascript:
        text = "def add(a, b):\n    return a + b\n"
        open_playground(page, name, text)
        expect_count(page, len(engine_ids(registry, "tokenprism_4k", text)))
        assert drawn_ids(page) == engine_ids(registry, "tokenprism_4k", text)
        page.goto("/tokenizers")

    page.locator(f"tr[data-name='{name}'] button").click()
    expect(page.locator("[data-role=notice]")).to_have_text(f"Removed {name}.")
    expect(table.locator(f"tr[data-name='{name}']")).to_have_count(0)
    assert not (data_dir / "tokenizers" / f"{name}.tokenizer").exists()


def test_a_refused_file_says_why_and_keeps_nothing(page, data_dir, tmp_path):
    garbage = tmp_path / "garbage.model"
    garbage.write_bytes(b"\x0a\x05hello" + bytes(range(256)) * 20)
    page.goto("/tokenizers")
    page.set_input_files("#file", str(garbage))
    page.fill("#name", "page-garbage")
    page.click("[data-role=add-form] button[type=submit]")
    expect(page.locator("[data-role=error]")).to_contain_text("not a usable sentencepiece tokenizer")
    expect(page.locator("tr[data-name='page-garbage']")).to_have_count(0)
    assert not (data_dir / "tokenizers" / "page-garbage.tokenizer").exists()
