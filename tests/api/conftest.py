"""Fixtures for the API tests: an httpx client on the real server, and reference tokenizers.

The references are built independently of the app, by the reference libraries
themselves: tiktoken's own `get_encoding` (its own patterns and special tokens), fed
offline by placing the verified files where tiktoken's cache looks for them (the sha1 of
each file's public URL, in a private TIKTOKEN_CACHE_DIR), and SentencePiece loading the
model file directly.
"""

from __future__ import annotations

import httpx
import pytest

from tests import reference


@pytest.fixture(scope="session")
def http(live_server):
    with httpx.Client(base_url=live_server, timeout=120) as client:
        yield client


@pytest.fixture(scope="session")
def tiktoken_reference():
    """our tiktoken tokenizer name -> tiktoken's own Encoding, loaded offline (tests/reference.py)."""
    return {name: reference.tiktoken_reference(name) for name in reference.TIKTOKEN_NAMES}


@pytest.fixture(scope="session")
def sentencepiece_reference():
    return reference.sentencepiece_reference()
