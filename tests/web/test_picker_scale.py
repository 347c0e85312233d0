"""Pages whose cost does not grow with the stored tokenizers: with 2,000 trained models, the
playground, the comparison and the training pages list the built-ins, the RECENT_SHOWN newest
user tokenizers and the selected ones; a model not listed is still found by
GET /api/tokenizers?q= and reached by name in the address."""

from __future__ import annotations

import os
from html.parser import HTMLParser

import pytest
from fastapi.testclient import TestClient

from app.bpe.model import BPETokenizer
from app.main import create_app
from app.settings import Settings
from app.tokenizers.registry import default_registry
from app.web.pages.common import RECENT_SHOWN
from tests.reference import stdlib_texts

STORED = 2_000


@pytest.fixture(scope="module")
def crowded(tmp_path_factory):
    """A data directory with 2,000 trained models: m0000 is the oldest file, m1999 the newest."""
    data_dir = tmp_path_factory.mktemp("crowded")
    folder = data_dir / "tokenizers"
    folder.mkdir()
    model = BPETokenizer.train([text for _, text in stdlib_texts(2, 2_000)], 256 + 10, name="m").dumps()
    for index in range(STORED):
        path = folder / f"m{index:04d}.bpe"
        path.write_bytes(model)
        os.utime(path, ns=(10**18 + index * 10**9, 10**18 + index * 10**9))
    settings = Settings(data_dir=data_dir, allowed_hosts="testserver")  # TestClient sends Host: testserver
    registry = default_registry(settings)
    builtins = sum(1 for entry in registry.entries() if not entry.user)
    with TestClient(create_app(settings, registry)) as client:
        yield client, builtins


class Page(HTMLParser):
    """Each start tag as (tag, attributes, the ancestors' (tag, attributes)), in document order."""

    VOID = frozenset({"input", "meta", "link", "br", "img", "source", "hr"})

    def __init__(self, html: str):
        super().__init__()
        self.found: list[tuple[str, dict, list]] = []
        self.open: list[tuple[str, dict]] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.found.append((tag, attrs, list(self.open)))
        if tag not in self.VOID:
            self.open.append((tag, attrs))

    def handle_endtag(self, tag):
        if any(name == tag for name, _ in self.open):  # a stray end tag closes nothing
            while self.open.pop()[0] != tag:
                pass

    def under(self, tag: str, parent: str, **wanted: str) -> list[dict]:
        """Attributes of the `tag`s inside a `parent` element whose attributes include `wanted`."""
        wanted = {key.replace("_", "-"): value for key, value in wanted.items()}
        return [
            attrs
            for found, attrs, above in self.found
            if found == tag
            and any(name == parent and all(a.get(k) == v for k, v in wanted.items()) for name, a in above)
        ]

    def all(self, tag: str, **wanted: str) -> list[dict]:
        wanted = {key.replace("_", "-"): value for key, value in wanted.items()}
        return [
            attrs
            for found, attrs, _ in self.found
            if found == tag and all(attrs.get(k) == v for k, v in wanted.items())
        ]


def page_of(response) -> Page:
    assert response.status_code == 200, response.text[:500]
    return Page(response.text)


def test_the_playground_lists_the_builtins_the_newest_and_the_chosen(crowded):
    client, builtins = crowded
    page = page_of(client.get("/"))
    options = [o["value"] for o in page.under("option", "select", name="tokenizer")]
    assert len(options) == builtins + RECENT_SHOWN
    newest = {f"m{i:04d}" for i in range(STORED - RECENT_SHOWN, STORED)}
    assert {name for name in options if name.startswith("m0") or name.startswith("m1")} == newest
    names = {
        o["value"] for o in page.under("option", "datalist", data_role="model-names") if o["data-kind"] == "tokenizer"
    }
    assert {name for name in names if name.startswith("m0") or name.startswith("m1")} == newest
    chosen = page_of(client.get("/", params={"tokenizer": "m0000", "text": "def f(): pass"}))  # by name: still works
    options = chosen.under("option", "select", name="tokenizer")
    assert len(options) == builtins + RECENT_SHOWN + 1
    assert [o["value"] for o in options if "selected" in o] == ["m0000"]
    [count] = [attrs for _, attrs, _ in chosen.found if attrs.get("data-role") == "token-count"]
    assert int(count["data-count"]) > 0


def test_the_comparison_and_the_training_pages_are_bounded_too(crowded):
    client, builtins = crowded
    picks = page_of(client.get("/compare")).all("input", name="tokenizers")
    assert len(picks) == builtins + RECENT_SHOWN
    page = page_of(client.get("/compare", params=[("tokenizers", "m0000"), ("tokenizers", "gpt2"), ("text", "hi")]))
    picks = page.all("input", name="tokenizers")
    assert len(picks) == builtins + RECENT_SHOWN + 1
    assert {p["value"] for p in picks if "checked" in p} == {"m0000", "gpt2"}
    links = page_of(client.get("/train")).under("a", "section", aria_labelledby="replay-h")
    assert 0 < len(links) <= builtins + RECENT_SHOWN
    replay = page_of(client.get("/train/replay", params={"tokenizer": "m0000", "text": "hello"}))
    options = [o["value"] for o in replay.under("option", "select", id="replay-tokenizer")]
    assert "m0000" in options and len(options) <= builtins + RECENT_SHOWN + 1


def test_a_model_not_listed_is_found_by_search(crowded):
    client, _ = crowded
    found = client.get("/api/tokenizers", params={"q": "m0000"}).json()["tokenizers"]
    assert [t["name"] for t in found] == ["m0000"] and found[0]["kind"] == "bpe"
    some = client.get("/api/tokenizers", params={"q": "M00", "limit": 5}).json()["tokenizers"]
    assert [t["name"] for t in some] == ["m0000", "m0001", "m0002", "m0003", "m0004"]
    assert client.get("/api/tokenizers", params={"q": "gpt-4o"}).json()["tokenizers"][0]["name"] == "o200k_base"
    assert len(client.get("/api/tokenizers").json()["tokenizers"]) > STORED  # without q: the whole list, as before
    for params in ({"q": ""}, {"q": "x" * 201}, {"q": "m", "limit": 0}, {"q": "m", "limit": 101}):
        answer = client.get("/api/tokenizers", params=params)
        assert answer.status_code == 422 and answer.json()["error"]["code"]
