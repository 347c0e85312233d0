"""Issue 19, point 1, in Chromium: tokens follow the keys (static/js/live.js).

While someone types steadily the result is redrawn during the typing, not after a pause; a
result older than the text is marked (aria-busy, dimmed with no transition) on the very key
that made it old and unmarked when the newest answer is drawn; a busy server (503) keeps
the old tokens, marked, and the newest text is sent again after Retry-After. Typing is
done in the page, a character every STEP_MS with `insertText` (a real `input` event),
so the pace does not depend on how fast this process talks to the browser.
"""

from __future__ import annotations

import json
from urllib.parse import quote, urlencode

from playwright.sync_api import expect

from tests.browser.helpers import drawn_ids, engine_ids, expect_count, open_playground

STEP_MS = 80  # below the old 150 ms pause, with room for a slow machine's timers
TYPED = "the quick brown fox, again "  # 27 keys: ~2.1 s
BASE = "Tokens follow the keys. " * 40  # ~1 KB

# Types `text` into `selector` one character every `step` ms; resolves with the times (ms,
# performance.now) of the keys and of every redraw of `result` (its children replaced).
TYPE_JS = """async ([selector, result, text, step]) => {
  const box = document.querySelector(selector), out = document.querySelector(result);
  const draws = [], keys = [];
  new MutationObserver(() => draws.push(performance.now())).observe(out, {childList: true});
  box.focus();
  box.setSelectionRange(box.value.length, box.value.length);
  for (const ch of text) {
    keys.push(performance.now());
    document.execCommand("insertText", false, ch);
    await new Promise(r => setTimeout(r, step));
  }
  return {keys, draws};
}"""


def redraws_while_typing(page, selector: str, result: str) -> int:
    times = page.evaluate(TYPE_JS, [selector, result, TYPED, STEP_MS])
    last_key = times["keys"][-1]
    return sum(1 for t in times["draws"] if t < last_key)


def test_playground_tokens_are_redrawn_while_typing(page, registry):
    open_playground(page, "cl100k_base", BASE)
    expect_count(page, len(engine_ids(registry, "cl100k_base", BASE)))
    assert redraws_while_typing(page, "textarea[name=text]", "#result") >= 3  # the old page: 0
    final = engine_ids(registry, "cl100k_base", BASE + TYPED)
    # The newest answer first (a result older than the text stays marked busy): an older text's
    # tokens may have the final text's count ("...aga" and "...again " both give 207 tokens).
    expect(page.locator("#result")).not_to_have_attribute("aria-busy", "true")
    expect_count(page, len(final))
    assert drawn_ids(page.locator("#result")) == final


def test_decode_mode_follows_the_keys_too(page, registry):
    ids = engine_ids(registry, "cl100k_base", BASE)
    page.goto("/?" + urlencode({"tokenizer": "cl100k_base", "mode": "decode", "ids": " ".join(map(str, ids))}))
    expect_count(page, len(ids))
    page.locator("textarea[name=ids]").evaluate("el => el.value += ' '")
    more = " 11 " * 14
    times = page.evaluate(TYPE_JS, ["textarea[name=ids]", "#result", more, STEP_MS])
    assert sum(1 for t in times["draws"] if t < times["keys"][-1]) >= 3
    expect_count(page, len(ids) + 14)


def test_comparison_and_chat_messages_follow_the_keys(page, registry):
    names = ["cl100k_base", "o200k_base"]
    page.goto("/compare?" + urlencode([("tokenizers", n) for n in names] + [("text", BASE)], quote_via=quote))
    expect(page.locator("article[data-tokenizer]")).to_have_count(2)
    assert redraws_while_typing(page, "textarea[name=text]", "#compare-result") >= 3
    for name in names:
        column = page.locator(f'article[data-tokenizer="{name}"]')
        expect_count(column, len(engine_ids(registry, name, BASE + TYPED)))
        assert drawn_ids(column) == engine_ids(registry, name, BASE + TYPED)
    page.goto("/?" + urlencode({"tokenizer": "o200k_base", "mode": "chat"}))
    expect(page.locator("#content-0")).to_be_visible()
    assert redraws_while_typing(page, "#content-0", "#result") >= 3


def stale_right_after_a_key(page, selector: str = "textarea[name=text]", result: str = "#result") -> dict:
    """The mark and the result's opacity read in the same task as the key's `input` event."""
    return page.evaluate(
        """([selector, result]) => {
          const box = document.querySelector(selector), out = document.querySelector(result);
          box.focus();
          box.setSelectionRange(box.value.length, box.value.length);
          document.execCommand("insertText", false, "!");
          return {busy: out.getAttribute("aria-busy"), opacity: getComputedStyle(out.querySelector(".result")).opacity};
        }""",
        [selector, result],
    )


def test_a_stale_result_is_marked_on_the_first_key_and_unmarked_when_the_newest_is_drawn(page, registry):
    open_playground(page, "cl100k_base", "hello")
    expect_count(page, len(engine_ids(registry, "cl100k_base", "hello")))
    held, holding = [], [True]
    page.route(
        "**/", lambda route: held.append(route) if holding[0] and route.request.method == "POST" else route.continue_()
    )
    now = stale_right_after_a_key(page)
    assert now["busy"] == "true"
    assert float(now["opacity"]) < 0.7  # dimmed already: no fade-in delay
    page.keyboard.type(" more", delay=30)  # keys while the first answer is held back
    expect(page.locator("#result")).to_have_attribute("aria-busy", "true")
    assert len(held) == 1  # one request in flight; the newer text waits for its answer
    holding[0] = False
    held[0].continue_()
    final = "hello! more"
    expect_count(page, len(engine_ids(registry, "cl100k_base", final)))
    assert drawn_ids(page.locator("#result")) == engine_ids(registry, "cl100k_base", final)
    expect(page.locator("#result")).not_to_have_attribute("aria-busy", "true")
    assert page.locator("#result .result").evaluate("el => getComputedStyle(el).opacity") == "1"


def test_the_comparison_is_marked_on_the_first_key_too(page):
    page.goto("/compare?" + urlencode([("tokenizers", "cl100k_base"), ("tokenizers", "gpt2"), ("text", "hello")]))
    expect(page.locator("article[data-tokenizer]")).to_have_count(2)
    page.route("**/compare", lambda route: None if route.request.method == "POST" else route.continue_())
    now = stale_right_after_a_key(page, result="#compare-result")
    assert now["busy"] == "true" and float(now["opacity"]) < 0.7


def test_a_busy_server_keeps_the_old_tokens_marked_and_the_newest_text_is_sent_again(page, registry):
    open_playground(page, "cl100k_base", "hello")
    old = engine_ids(registry, "cl100k_base", "hello")
    expect_count(page, len(old))
    busy = {"answers": 0}

    def route(route):
        if route.request.method == "POST" and busy["answers"] == 0:
            busy["answers"] += 1
            body = {"error": {"code": "server_busy", "message": "every worker is busy; try again in a second"}}
            route.fulfill(
                status=503, headers={"Retry-After": "1", "Content-Type": "application/json"}, body=json.dumps(body)
            )
        else:
            route.continue_()

    page.route("**/", route)
    stale_right_after_a_key(page)
    note = page.locator("#result [data-role=live-note]")
    expect(note).to_contain_text("busy")
    assert drawn_ids(page.locator("#result")) == old  # not wiped
    expect(page.locator("#result")).to_have_attribute("aria-busy", "true")
    expect(page.locator("[data-role=message]")).to_have_count(0)
    expect_count(page, len(engine_ids(registry, "cl100k_base", "hello!")), timeout=5_000)  # retried after Retry-After
    expect(note).to_have_count(0)
    expect(page.locator("#result")).not_to_have_attribute("aria-busy", "true")
