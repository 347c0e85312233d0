"""A tokenizer trained with the CLI shows up in the running server's pickers, without a
restart, and works on both pages."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from playwright.sync_api import expect

from .helpers import drawn_ids, engine_ids, expect_count, open_playground

pytestmark = pytest.mark.browser

NAME = "browser_trained"


@pytest.fixture
def trained(data_dir, tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("the cat sat on the mat; the cat ate the rat. " * 200, encoding="utf-8")
    env = {**os.environ, "TOKENPRISM_DATA_DIR": str(data_dir)}
    subprocess.run(
        [sys.executable, "-m", "app.cli", "train", "--name", NAME, "--vocab-size", "300", "--force", str(corpus)],
        check=True,
        env=env,
        capture_output=True,
    )
    path = data_dir / "tokenizers" / f"{NAME}.bpe"
    assert path.is_file()
    yield NAME
    path.unlink()


def test_trained_tokenizer_is_listed_and_works(page, registry, trained):
    text = "the cat sat on the mat with a hat"
    open_playground(page, trained, text)
    option = page.locator(f"select[name=tokenizer] option[value='{trained}']")
    expect(option).to_have_count(1)
    assert "bpe" in option.evaluate("o => o.parentElement.label").lower()
    expected = engine_ids(registry, trained, text)
    expect_count(page, len(expected))
    assert drawn_ids(page.locator("#result")) == expected

    page.goto("/compare")
    page.locator("[data-role=picker] > summary").click()  # unfold the picker (issue 19)
    page.locator("label.pick", has_text=trained).click()
    column = page.locator(f"article.column[data-tokenizer='{trained}']")
    expect(column).to_have_count(1)
    page.locator("textarea[name=text]").fill(text)
    expect_count(column, len(expected))
