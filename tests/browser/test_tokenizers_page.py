"""The /tokenizers page in Chromium: it lists every tokenizer, adds a file through its form
(with and without JavaScript; every kind of file, each then drawing its reference ids), shows a refused file's reason, and removes an added one;
the added tokenizer is at once usable in the playground."""

from __future__ import annotations

import gzip

import pytest
from playwright.sync_api import expect

from tests.hf_trained import trained_json
from tests.reference import TOKENIZER_DIR, reference_ids
from tokenizers import Tokenizer

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


def _hf_reference(kind: str):
    def ids(text: str) -> list[int]:
        library = Tokenizer.from_str(trained_json(kind))
        library.encode_special_tokens = True
        return library.encode(text).ids

    return ids


PAGE_UPLOADS = {  # upload -> (file name, file bytes, form fields, the reference ids of a text)
    **{
        f"hf-{kind}": ("tokenizer.json", lambda kind=kind: trained_json(kind).encode(), {}, _hf_reference(kind))
        for kind in ("byte_level", "wordpiece", "unigram")
    },
    "tiktoken": (
        "ranks.tiktoken",
        lambda: gzip.decompress((TOKENIZER_DIR / "cl100k_base.tiktoken.gz").read_bytes()),
        {"#pattern": "gpt4"},
        lambda text: reference_ids("cl100k_base", text),
    ),
    "sentencepiece": (
        "mistral.model",
        lambda: (TOKENIZER_DIR / "mistral-7b-v0.1.model").read_bytes(),
        {},
        lambda text: reference_ids("mistral_v1", text),
    ),
}


@pytest.mark.parametrize("upload", PAGE_UPLOADS)
def test_each_kind_added_on_the_page_draws_the_reference_ids(page, data_dir, cleanup, tmp_path, upload):
    file_name, read, fields, reference = PAGE_UPLOADS[upload]
    name = f"page-{upload.replace('_', '-')}"
    cleanup.append(name)
    path = tmp_path / file_name
    path.write_bytes(read())
    page.goto("/tokenizers")
    page.set_input_files("#file", str(path))
    page.fill("#name", name)
    for selector, value in fields.items():
        page.fill(selector, value)
    page.click("[data-role=add-form] button[type=submit]")
    expect(page.locator("[data-role=notice]")).to_have_text(f"Added {name}.", timeout=30_000)
    text = "Héllo wörld 👋 [CLS] 東京\n    def f(x): return x ** 2  # ﬁx"
    open_playground(page, name, text)
    expect_count(page, len(reference(text)))
    assert drawn_ids(page) == reference(text)


@pytest.mark.parametrize("width", [390, 1280])
def test_the_page_fits_the_screen(make_page, width):
    page = make_page(viewport={"width": width, "height": 844})
    page.goto("/tokenizers")
    expect(page.locator("tr[data-name='deepseek_v4']")).to_contain_text("deepseek-v4-pro")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
