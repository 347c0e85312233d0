"""Browser tests: Debian's Chromium, headless, driven by Playwright's sync API, against the
real server of `live_server` (tests/conftest.py).

One browser for the session; each test gets a fresh context and page. The page records
every dialog (an XSS that fires `alert` shows up there, and the dialog is dismissed) and
every console error or uncaught exception: a page that logs one fails its test, so a CSP
violation (Chromium logs it as a console error) fails the test that caused it.
"""

from __future__ import annotations

import os

import pytest

# Chromium logs every 4xx answer as "Failed to load resource"; the tests that expect one check it themselves.
# htmx logs a request that hx-sync aborted for a newer one (a button pressed while typing's answer
# is on its way) as two errors, "htmx:afterRequest" and "htmx:sendAbort"; a failed send or a
# timeout still fails the test through its own line ("htmx:sendError", "htmx:timeout").
EXPECTED_CONSOLE = ("Failed to load resource", "htmx:afterRequest,", "htmx:sendAbort,")


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/browser/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.browser)


def _watch(page):
    page.dialogs = []
    page.problems = []

    def on_dialog(dialog):
        page.dialogs.append(dialog.message)
        dialog.dismiss()

    def on_console(message):
        if message.type == "error" and not message.text.startswith(EXPECTED_CONSOLE):
            page.problems.append(message.text)

    page.on("dialog", on_dialog)
    page.on("console", on_console)
    page.on("pageerror", lambda error: page.problems.append(f"uncaught: {error}"))
    return page


@pytest.fixture
def make_page(browser, live_server):
    """Pages with options (`java_script_enabled`, `viewport`, ...); checked for console errors after the test."""
    contexts, pages = [], []

    def make(**options):
        options.setdefault("viewport", {"width": 1280, "height": 900})
        context = browser.new_context(base_url=live_server, **options)
        context.set_default_timeout(10_000)
        contexts.append(context)
        page = _watch(context.new_page())
        pages.append(page)
        return page

    yield make
    problems = [problem for page in pages for problem in page.problems]
    for context in contexts:
        context.close()
    assert problems == [], f"console errors or uncaught exceptions in the page: {problems}"


@pytest.fixture
def page(make_page):
    return make_page()
