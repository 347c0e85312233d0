"""Small helpers shared by the browser tests: reading what a token list drew, and the
engine's own answer to compare it with."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import Locator, Page, expect

SEGMENTS = "[data-tokens] [data-id]"


def drawn_ids(scope: Page | Locator) -> list[int]:
    """Every token id a token list drew, in order (a segment of several tokens gives all of them)."""
    return scope.locator(SEGMENTS).evaluate_all(
        "els => els.flatMap(e => (e.dataset.ids || e.dataset.id).split(' ').map(Number))"
    )


def expect_count(scope: Page | Locator, count: int, timeout: int = 10_000) -> None:
    """The token count shows as the pages write numbers (44,895) and is exact in data-count."""
    shown = scope.locator("[data-role=token-count]")
    expect(shown).to_have_attribute("data-count", str(count), timeout=timeout)
    expect(shown).to_have_text(f"{count:,}")


def engine_ids(registry, name: str, text: str, allow_special: bool = False) -> list[int]:
    return registry.get(name).encode(text, allow_special=allow_special)


def query(page: Page) -> dict[str, list[str]]:
    return parse_qs(urlsplit(page.url).query, keep_blank_values=True)


def open_playground(page: Page, tokenizer: str, text: str, **params: str) -> None:
    """Load the playground through its URL, the way a shared link does."""
    from urllib.parse import quote, urlencode

    page.goto("/?" + urlencode({"tokenizer": tokenizer, "text": text, **params}, quote_via=quote))


def paste(page: Page, text: str, selector: str = "textarea[name=text]") -> None:
    """Put a big text in the box the way a paste reaches the page: a new value and one
    `input` event. (Playwright's `fill` types through Chromium's editor, which alone takes
    seconds for 100 KB on a small machine, on any page.)"""
    page.locator(selector).evaluate(
        "(el, text) => { el.value = text; el.dispatchEvent(new InputEvent('input', {bubbles: true, inputType: 'insertFromPaste'})); }",
        text,
    )
