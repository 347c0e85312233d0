"""/docs renders in headless Chromium from the local Swagger UI files, under the CSP.

No console errors (a CSP violation is one), no request leaves the server, every API
path is listed, and "Try it out" on /api/count returns a 200 inside the page.
"""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

pytestmark = pytest.mark.browser


@pytest.fixture()
def page(browser):
    context = browser.new_context()
    yield context.new_page()
    context.close()


def test_docs_render_without_csp_errors_and_try_it_out_works(page, live_server):
    problems, hosts = [], set()
    page.on("console", lambda message: problems.append(message.text) if message.type in ("error", "warning") else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("request", lambda request: hosts.add(urlparse(request.url).netloc))

    page.goto(f"{live_server}/docs")
    page.wait_for_selector(".opblock-summary-path", timeout=20_000)
    paths = [element.inner_text() for element in page.query_selector_all(".opblock-summary-path")]
    for path in ("/healthz", "/api/tokenizers", "/api/tokenize", "/api/count", "/api/compare", "/api/decode"):
        assert path in paths

    operation = page.locator("#operations-tokens-count_api_count_post")
    operation.locator(".opblock-summary").click()
    operation.locator(".execute").click()  # tryItOutEnabled: the example body is already filled in
    status = operation.locator(".live-responses-table tbody .response-col_status").first
    status.wait_for(timeout=20_000)
    assert status.inner_text().strip().startswith("200")
    assert (
        '"counts"'
        in operation.locator(".live-responses-table .microlight, .live-responses-table pre").first.inner_text()
    )

    assert hosts == {urlparse(live_server).netloc}, hosts
    assert problems == [], problems
