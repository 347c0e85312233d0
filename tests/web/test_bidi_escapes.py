"""A user's text shown on a page shows a bidi override (U+202E) as a visible escape, as token
text does (issue 18, point 10): the /tokenizers?added= notice, the chat's per-message table,
the vocabulary's "results for" line and the merge replay's tokenizer option. Form values
(inputs, textareas, option values) keep the raw character: they must send it back as typed.
Elements are picked by an attribute, with the standard library's HTML parser."""

from __future__ import annotations

from html.parser import HTMLParser
from urllib.parse import urlencode

import pytest

from app.chat.messages import ChatMessage
from app.web.pages.chat_form import chat_query

RLO = "\u202e"


class TextOf(HTMLParser):
    """The text inside every element that has attribute `name` (with `value`, if given)."""

    def __init__(self, name: str, value: str | None):
        super().__init__()
        self.wanted, self.depth, self.found, self.parts = (name, value), 0, 0, []

    def handle_starttag(self, tag, attrs):
        if self.depth:
            self.depth += tag not in ("br", "img", "input", "meta", "link")
        elif any(key == self.wanted[0] and self.wanted[1] in (None, value) for key, value in attrs):
            self.depth, self.found = 1, self.found + 1

    def handle_endtag(self, tag):
        self.depth = max(0, self.depth - 1) if self.depth else 0

    def handle_data(self, data):
        if self.depth:
            self.parts.append(data)


def shown(client, url: str, attribute: tuple[str, str | None]) -> str:
    response = client.get(url)
    assert response.status_code < 500, response.text[:300]
    parser = TextOf(*attribute)
    parser.feed(response.text)
    assert parser.found, (attribute, response.status_code)
    return "".join(parser.parts)


PLACES = {
    "tokenizers-notice": (f"/tokenizers?added=evil{RLO}txt.exe", ("data-role", "notice")),
    "chat-message-table": (
        "/?"
        + urlencode(
            [
                ("mode", "chat"),
                ("tokenizer", "gpt-4o"),
                *chat_query([ChatMessage("user", f"hi{RLO}there", f"na{RLO}me")]),
            ]
        ),
        ("data-role", "message-row"),
    ),
    "vocab-results-for": (f"/tokenizers/gpt2?mode=regex&q=ab{RLO}?", ("data-role", "match-count")),
    "replay-option": (f"/train/replay?tokenizer=ev{RLO}il", ("selected", None)),
}


@pytest.mark.parametrize("url, attribute", PLACES.values(), ids=PLACES.keys())
def test_a_bidi_override_is_shown_as_an_escape(client, url, attribute):
    text = shown(client, url, attribute)
    assert RLO not in text and "\\u202e" in text, text
