"""A tokenizer added with its chat template, in Chromium: the /tokenizers form takes the
tokenizer.json and the tokenizer_config.json and the row shows a chat marker; the playground's
chat mode draws the template's prompt (its special tokens marked, per-message counts, the
framing overhead, the editor offering the template's roles) as the engine and transformers
render it; the comparison's chat mode shows its column beside llama3 and cl100k_base, every
count in sight on a phone too."""

from __future__ import annotations

from urllib.parse import quote, urlencode

import pytest
from playwright.sync_api import expect

from tests.api.test_chat_templates import SMALL, SMALL_BOS, SMALL_EOS, config_file, tokenizers, transformers
from tests.browser.test_chat import expect_prompt, rendered
from tests.chat.test_template_format import STYLES

from .helpers import SEGMENTS, drawn_ids

NAME = "page-chat-template"
CHAT = [("system", "", "Be brief. <|eot_id|> typed"), ("user", "", "Hello there, café 👋 <b>&amp;</b>")]


@pytest.fixture(scope="module")
def added(browser, live_server, data_dir, tmp_path_factory):
    """The small tokenizer with a Llama 3 style template, added through the page's form."""
    folder = tmp_path_factory.mktemp("chat-template-files")
    (folder / "tokenizer.json").write_text(SMALL)
    config_name, data = config_file("added_token", STYLES["llama3"], SMALL_BOS, SMALL_EOS)
    (folder / config_name).write_bytes(data)
    context = browser.new_context(base_url=live_server, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto("/tokenizers")
    page.set_input_files("#file", str(folder / "tokenizer.json"))
    page.set_input_files("[data-role=chat-template-input]", str(folder / config_name))
    page.fill("#name", NAME)
    page.click("[data-role=add-form] button[type=submit]")
    expect(page.locator("[data-role=notice]")).to_have_text(f"Added {NAME}.")
    context.close()
    yield NAME
    (data_dir / "tokenizers" / f"{NAME}.tokenizer").unlink(missing_ok=True)


def open_chat(page, path: str, pairs: list[tuple[str, str]]) -> None:
    for role, name, content in CHAT:
        pairs += [("role", role), ("name", name), ("content", content)]
    page.goto(f"{path}?" + urlencode([*pairs, ("mode", "chat")], quote_via=quote))


def test_the_row_shows_a_chat_marker(page, added):
    page.goto("/tokenizers")
    marker = page.locator(f"tr[data-name='{added}'] [data-role=chat-formats]")
    expect(marker).to_have_text("chat: template")
    expect(page.locator("tr[data-name='deepseek_v4'] [data-role=chat-formats]")).to_have_count(0)


def test_playground_chat_draws_the_template_prompt(page, registry, added):
    open_chat(page, "/", [("tokenizer", added)])
    expect_prompt(page, registry, added, CHAT)
    expected = rendered(registry, added, CHAT)
    reference = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tokenizers.Tokenizer.from_str(SMALL), bos_token=SMALL_BOS, eos_token=SMALL_EOS
    )
    listed = [{"role": r, "content": c} for r, _, c in CHAT]
    assert drawn_ids(page) == list(
        reference.apply_chat_template(
            listed, chat_template=STYLES["llama3"], add_generation_prompt=True, tokenize=True, return_dict=False
        )
    )
    specials = page.locator(f"{SEGMENTS}.special")
    expect(specials).to_have_count(sum(1 for p in expected.parts if p.special))
    assert "<|eot_id|>" in specials.all_inner_texts()  # typed in the system message: special, as transformers reads it
    expect(page.locator("[data-role=chat-format]")).to_have_text("template")
    expect(page.locator("[data-role=template-note]")).to_contain_text("apply_chat_template")
    assert page.locator("[data-tokens]").inner_text().count("<b>&amp;</b>") == 1  # user text drawn as text
    assert page.locator("#role-0 option").all_inner_texts() == ["system", "user", "assistant", "tool"]


def test_playground_keeps_a_role_only_the_template_knows(page, registry, added):
    page.goto(
        "/?"
        + urlencode(
            [("tokenizer", added), ("mode", "chat"), ("role", "ipython"), ("name", ""), ("content", '{"t": 21}')],
            quote_via=quote,
        )
    )
    expect(page.locator("#role-0")).to_have_value("ipython")
    expect(page.locator("[data-tokens]")).to_contain_text("ipython")


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 900}, {"width": 390, "height": 844}])
def test_compare_chat_shows_its_column(make_page, registry, added, viewport):
    page = make_page(viewport=viewport)
    names = [added, "llama3", "cl100k_base"]
    open_chat(page, "/compare", [("tokenizers", n) for n in names])
    column = page.locator(f"article.column[data-tokenizer='{added}']")
    expect(column.locator("[data-role=no-chat]")).to_have_count(0)
    expected = rendered(registry, added, CHAT)
    assert drawn_ids(column) == expected.ids
    expect(column.locator(f"{SEGMENTS}.special")).to_have_count(sum(1 for p in expected.parts if p.special))
    expect(page.locator("[data-role=no-chat-note]")).to_have_count(0)
    table = page.locator("[data-role=chat-compare]")
    cells = table.locator(f"td[data-tokenizer='{added}']")
    expect(cells).to_have_text([f"{n:,}" for n in expected.message_counts()] + [f"{expected.overhead:,}"])
    for name in names:  # every count in sight without scrolling sideways, on a phone too
        box = table.locator(f"td[data-tokenizer='{name}']").first.bounding_box()
        assert box is not None and box["x"] + box["width"] <= viewport["width"], (name, box)
