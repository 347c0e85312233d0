"""The Chunks option on the playground and the comparison (server side, in-process): a mark at
the end of each token segment where a chunk ends, the chunk count, SentencePiece's sentence,
the option kept in the address and in shares, nothing drawn without it."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.web.share.state import FLAGS

TEXT = "Hello world!!! 12345 <b>x</b>"


@pytest.fixture(scope="module")
def web(settings, registry):
    with TestClient(create_app(settings, registry)) as client:
        yield client


def _marked_ends(html: str) -> list[int]:
    return [int(end) for end in re.findall(r'<bdi class="tok [^"]*\bchunk-end\b[^"]*"[^>]*data-end="(\d+)"', html)]


def _chunk_ends(registry, name: str, text: str) -> list[int]:
    return [end for _, end in registry.get(name).chunks(text) if end < len(text)]


def test_playground_marks_every_chunk_end_and_counts_them(web, registry):
    page = web.get("/", params={"tokenizer": "cl100k_base", "text": TEXT, "chunks": "1"})
    assert page.status_code == 200
    assert _marked_ends(page.text) == _chunk_ends(registry, "cl100k_base", TEXT)
    count = len(registry.get("cl100k_base").chunks(TEXT))
    assert f'data-role="chunks-note" data-count="{count}"' in page.text
    assert f'data-role="stat-chunks" data-count="{count}">{count}</dd>' in page.text
    assert "&lt;b&gt;x&lt;/b&gt;" in page.text and "<b>x</b>" not in page.text.split("<textarea")[0]
    assert 'name="chunks" value="1" role="switch" checked' in page.text


def test_without_the_option_nothing_is_marked(web):
    page = web.get("/", params={"tokenizer": "cl100k_base", "text": TEXT})
    assert _marked_ends(page.text) == [] and "chunks-note" not in page.text


def test_sentencepiece_says_what_it_does_instead(web, registry):
    page = web.get("/", params={"tokenizer": "mistral_v1", "text": TEXT, "chunks": "1"})
    assert _marked_ends(page.text) == []
    assert registry.get("mistral_v1").chunks_note in page.text.replace("&#39;", "'")


def test_the_option_stays_in_the_address(web):
    answer = web.post("/", data={"tokenizer": "cl100k_base", "text": "a b", "chunks": "1"}, follow_redirects=False)
    assert answer.status_code == 303 and "chunks=1" in answer.headers["location"]
    assert "chunks" in FLAGS["playground"] and "chunks" in FLAGS["compare"]


def test_comparison_marks_each_column_by_its_own_chunks(web, registry):
    names = ["gpt2", "cl100k_base", "mistral_v1", "deepseek_v4"]
    page = web.get("/compare", params={"tokenizers": names, "text": TEXT, "chunks": "1"})
    assert page.status_code == 200
    columns = re.split(r'<article class="card column', page.text)[1:]
    by_name = {re.search(r'data-tokenizer="([^"]+)"', column).group(1): column for column in columns}
    for name in names:
        expected = [] if name == "mistral_v1" else _chunk_ends(registry, name, TEXT)
        assert _marked_ends(by_name[name]) == expected, name
        assert 'data-role="chunks-note"' in by_name[name]
    assert "SentencePiece" in by_name["mistral_v1"]


def test_the_share_keeps_the_option(web):
    answer = web.post(
        "/api/share", json={"page": "compare", "tokenizers": ["gpt2", "cl100k_base"], "text": "a", "chunks": True}
    )
    assert answer.status_code in (200, 201), answer.text
    assert "chunks=1" in answer.json()["url"]
