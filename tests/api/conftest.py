"""Fixtures for the API tests: an httpx client on the real server, and reference tokenizers.

The references are built independently of the app, by the reference libraries
themselves: tiktoken's own `get_encoding` (its own patterns and special tokens), fed
offline by placing the verified files where tiktoken's cache looks for them (the sha1 of
each file's public URL, in a private TIKTOKEN_CACHE_DIR), and SentencePiece loading the
model file directly.
"""

from __future__ import annotations

import gzip
import hashlib
import os
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
TOKENIZER_DIR = ROOT / "tokenizers"
# our name -> tiktoken's encoding name (tiktoken's own "gpt2" reads other files; r50k_base is the same encoding)
TIKTOKEN_ENCODINGS = {"gpt2": "r50k_base", "cl100k_base": "cl100k_base", "o200k_base": "o200k_base"}
BLOB_URL = "https://openaipublic.blob.core.windows.net/encodings/{}.tiktoken"


@pytest.fixture(scope="session")
def http(live_server):
    with httpx.Client(base_url=live_server, timeout=120) as client:
        yield client


@pytest.fixture(scope="session")
def tiktoken_reference(tmp_path_factory):
    """our tiktoken tokenizer name -> tiktoken's own Encoding, loaded offline."""
    import tiktoken

    cache_dir = tmp_path_factory.mktemp("tiktoken-cache")
    for encoding in TIKTOKEN_ENCODINGS.values():
        key = hashlib.sha1(BLOB_URL.format(encoding).encode()).hexdigest()
        (cache_dir / key).write_bytes(gzip.decompress((TOKENIZER_DIR / f"{encoding}.tiktoken.gz").read_bytes()))
    previous = os.environ.get("TIKTOKEN_CACHE_DIR")
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache_dir)
    try:
        yield {ours: tiktoken.get_encoding(theirs) for ours, theirs in TIKTOKEN_ENCODINGS.items()}
    finally:
        if previous is None:
            os.environ.pop("TIKTOKEN_CACHE_DIR", None)
        else:
            os.environ["TIKTOKEN_CACHE_DIR"] = previous


@pytest.fixture(scope="session")
def sentencepiece_reference():
    import sentencepiece

    return sentencepiece.SentencePieceProcessor(model_file=str(TOKENIZER_DIR / "mistral-7b-v0.1.model"))
