"""Keys typed into the chat editor while an answer that redraws it is on its way (static/js/live.js).

The editor is swapped whole by the answer to its buttons and selects (a role, the tokenizer);
that answer holds the fields as they were when it was asked. These tests hold such an answer
back (Playwright's route interception), type meanwhile, then let it land: the typed text, the
focus and the caret must stay, in the message typed into even when the answer moved it, and
the tokens drawn last are those of the text as typed. The focus the answer names (Add's new
text) is where it lands at once, and never taken from a field the user went to meanwhile.
"""

from __future__ import annotations

import json

from playwright.sync_api import Page, expect

from tests.browser.test_chat import CHAT, editor, expect_columns, expect_prompt, open_chat, open_compare_chat, rendered
from tests.browser.test_chat_tools import API_MESSAGES, CALL_ID, CALLS, CARDS, WEATHER, api_chat, chat_url, expect_chat


class Held:
    """Holds back the page's next form post to `path` until `release()`; later posts pass."""

    def __init__(self, page: Page, path: str):
        self.page, self.routes, self.holding = page, [], True
        page.route(lambda url: url.endswith(path) or url.endswith(path + "/"), self._route)

    def _route(self, route):
        if route.request.method == "POST" and self.holding:
            self.holding = False
            self.routes.append(route)
        else:
            route.continue_()

    def wait(self) -> None:
        self.page.wait_for_function("() => document.querySelector('[aria-busy=true]') !== null")
        while not self.routes:
            self.page.wait_for_timeout(20)

    def release(self) -> None:
        self.routes.pop().continue_()


def caret(page: Page) -> dict:
    return page.evaluate(
        "() => { const el = document.activeElement;"
        " return {id: el.id, start: el.selectionStart, end: el.selectionEnd}; }"
    )


def type_at_end(page: Page, selector: str, text: str) -> None:
    field = page.locator(selector)
    field.focus()
    field.press("End" if field.evaluate("el => el.tagName") == "INPUT" else "Control+End")
    field.press_sequentially(text, delay=10)


def test_keys_typed_while_a_role_change_redraws_the_editor_stay(page, registry):
    open_chat(page, "cl100k_base")
    expect_prompt(page, registry, "cl100k_base", CHAT)
    held = Held(page, "/")
    page.locator("#role-0").select_option("developer")
    held.wait()
    type_at_end(page, "#content-1", " Danke")
    held.release()
    messages = [("developer", "", CHAT[0][2]), ("user", "ada", CHAT[1][2] + " Danke")]
    expect_prompt(page, registry, "cl100k_base", messages)
    assert editor(page) == messages
    end = len(CHAT[1][2] + " Danke")
    assert caret(page) == {"id": "content-1", "start": end, "end": end}
    page.keyboard.type("!")  # typing goes on where it was
    messages[1] = ("user", "ada", CHAT[1][2] + " Danke!")
    expect_prompt(page, registry, "cl100k_base", messages)


def test_keys_typed_while_a_move_lands_stay_with_their_message(page, registry):
    chat = [*CHAT, ("assistant", "", "Elf.")]
    open_chat(page, "cl100k_base", chat)
    expect_prompt(page, registry, "cl100k_base", chat)
    held = Held(page, "/")
    page.get_by_role("button", name="Move message 3 up").click()
    held.wait()
    type_at_end(page, "#content-2", " Zwölf.")  # message 3, which the held answer moves to 2
    page.locator("#content-2").press("ArrowLeft")
    held.release()
    messages = [chat[0], ("assistant", "", "Elf. Zwölf."), chat[1]]
    expect_prompt(page, registry, "cl100k_base", messages)
    assert editor(page) == messages
    at = len("Elf. Zwölf.") - 1
    assert caret(page) == {"id": "content-1", "start": at, "end": at}  # not the Move button the answer names
    page.wait_for_timeout(100)  # past htmx's settle, where an autofocus would take the focus
    assert caret(page)["id"] == "content-1"


def test_a_name_typed_while_the_comparison_redraws_the_editor_stays(page, registry):
    tokenizers = ["cl100k_base", "o200k_base"]
    open_compare_chat(page, tokenizers)
    expect_columns(page, registry, tokenizers, CHAT)
    held = Held(page, "/compare")
    page.locator("[data-role=add-message]").click()
    held.wait()
    type_at_end(page, "#name-0", "sys")
    held.release()
    messages = [("system", "sys", CHAT[0][2]), CHAT[1], ("assistant", "", "")]
    expect(page.locator("[data-role=chat-message]")).to_have_count(3)
    expect_columns(page, registry, tokenizers, messages)
    assert editor(page) == messages
    assert caret(page) == {"id": "name-0", "start": 3, "end": 3}  # not the new message's text
    assert rendered(registry, "cl100k_base", messages).count  # a chat the engine takes


def test_add_pressed_while_typing_is_on_its_way_keeps_the_text(page, registry):
    # Add aborts the typing's request (hx-sync), which htmx logs as an error: conftest lets that line pass.
    open_chat(page, "cl100k_base")
    expect_prompt(page, registry, "cl100k_base", CHAT)
    held = Held(page, "/")
    type_at_end(page, "#content-1", " Danke")
    held.wait()
    page.locator("[data-role=add-message]").click()
    messages = [CHAT[0], ("user", "ada", CHAT[1][2] + " Danke"), ("assistant", "", "")]
    expect(page.locator("[data-role=chat-message]")).to_have_count(3)
    expect_prompt(page, registry, "cl100k_base", messages)
    assert editor(page) == messages


def add_a_tool_result(page: Page) -> Held:
    """A chat whose assistant calls a tool, and Add pressed (its answer, the tool card, held back)."""
    page.goto(chat_url("/", ["mistral_v3"], json.dumps([WEATHER]), CARDS[:2]))
    expect(page.locator("#calls-1")).to_have_value(CALLS)
    held = Held(page, "/")
    page.locator("[data-role=add-message]").click()
    held.wait()
    return held


def test_a_field_entered_as_soon_as_the_added_card_shows_keeps_the_keys(page):
    # The flake of test_chat_tools' share test: it filled the call id as soon as the card showed,
    # and htmx's settle (20 ms after the swap) focused the new content, which took the id.
    held = add_a_tool_result(page)
    page.evaluate("""() => document.addEventListener("htmx:afterSwap", (event) => {
        if (event.target.id === "chat-editor") setTimeout(() => document.getElementById("call-id-2").focus());
    })""")  # the user's click, in the task after the swap
    held.release()
    expect(page.locator("#call-id-2")).to_be_focused()
    page.wait_for_timeout(100)  # past htmx's settle
    page.keyboard.type(CALL_ID)
    page.locator("#content-2").fill('{"temp": 21}')
    expect(page.locator("#call-id-2")).to_have_value(CALL_ID)
    expect_chat(page, api_chat(page, "mistral_v3", API_MESSAGES))


def test_a_field_outside_the_editor_entered_while_add_is_on_its_way_keeps_the_focus(page):
    held = add_a_tool_result(page)
    page.locator("#tools").focus()
    page.keyboard.press("Control+End")
    held.release()
    expect(page.locator("#call-id-2")).to_be_attached()
    page.wait_for_timeout(100)  # past htmx's settle
    expect(page.locator("#tools")).to_be_focused()
    page.keyboard.type(" ")
    expect(page.locator("#content-2")).to_have_value("")
    assert json.loads(page.locator("#tools").input_value()) == [WEATHER]
