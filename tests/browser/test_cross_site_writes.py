"""In a real browser (issue 18, point 2): a page that is not this server's (here an opaque
about:blank page, whose posts carry `Origin: null`, as a sandboxed frame's do) cannot add or
remove a tokenizer, while this server's own page can (its Referrer-Policy keeps its Origin)."""

from __future__ import annotations

import httpx

from tests.reference import TOKENIZER_DIR

BPE = (TOKENIZER_DIR / "tokenprism_4k.bpe").read_bytes()


def names(live_server) -> list[str]:
    return [t["name"] for t in httpx.get(f"{live_server}/api/tokenizers", timeout=60).json()["tokenizers"]]


def test_a_foreign_page_cannot_delete_but_our_page_can(browser, live_server):
    assert (
        httpx.post(
            f"{live_server}/api/tokenizers", files={"file": ("v.bpe", BPE)}, data={"name": "xsite-victim"}, timeout=60
        ).status_code
        == 201
    )
    context = browser.new_context()
    try:
        foreign = context.new_page()
        foreign.set_content(
            f'<form method="post" action="{live_server}/tokenizers/xsite-victim/delete"><button>go</button></form>'
        )
        with foreign.expect_navigation():
            foreign.click("button")
        assert "may not change" in foreign.content() and "xsite-victim" in names(live_server)
        own = context.new_page()
        own.goto(f"{live_server}/tokenizers")
        own.once("dialog", lambda dialog: dialog.accept())
        with own.expect_navigation():
            own.click('form[action="/tokenizers/xsite-victim/delete"] button')
        assert "xsite-victim" not in names(live_server)
    finally:
        context.close()
        httpx.delete(f"{live_server}/api/tokenizers/xsite-victim", timeout=60)
