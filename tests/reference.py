"""Reference tokenizers built by the reference libraries themselves, for exactness tests.

tiktoken's own `get_encoding` is used (its own split patterns, special tokens and hash
check), fed offline: the verified files from tokenizers/ are placed in a private
TIKTOKEN_CACHE_DIR under the cache key tiktoken derives from each file's public URL. If a
file did not match tiktoken's pinned sha256, tiktoken would try to download it and fail.
Test code only: the app never calls `get_encoding`.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import tempfile
from functools import lru_cache
from pathlib import Path

import sentencepiece
import tiktoken

ROOT = Path(__file__).resolve().parent.parent
TOKENIZER_DIR = ROOT / "tokenizers"
_BLOB_URL = "https://openaipublic.blob.core.windows.net/encodings/{}.tiktoken"
_FILES = {"r50k_base": "r50k_base.tiktoken.gz", "cl100k_base": "cl100k_base.tiktoken.gz", "o200k_base": "o200k_base.tiktoken.gz"}
BUILTIN_NAMES = ["gpt2", "cl100k_base", "o200k_base", "mistral_v1", "tokenprism_4k"]
TIKTOKEN_NAMES = {"gpt2": "r50k_base", "cl100k_base": "cl100k_base", "o200k_base": "o200k_base"}


@lru_cache(maxsize=1)
def _offline_cache_dir() -> str:
    cache_dir = tempfile.mkdtemp(prefix="tiktoken-cache-")
    for encoding_name, file_name in _FILES.items():
        key = hashlib.sha1(_BLOB_URL.format(encoding_name).encode()).hexdigest()
        data = gzip.decompress((TOKENIZER_DIR / file_name).read_bytes())
        Path(cache_dir, key).write_bytes(data)
    os.environ["TIKTOKEN_CACHE_DIR"] = cache_dir
    return cache_dir


@lru_cache(maxsize=None)
def tiktoken_reference(our_name: str) -> tiktoken.Encoding:
    """tiktoken's own encoding for one of our tiktoken tokenizer names."""
    _offline_cache_dir()
    return tiktoken.get_encoding(TIKTOKEN_NAMES[our_name])


@lru_cache(maxsize=1)
def sentencepiece_reference() -> sentencepiece.SentencePieceProcessor:
    return sentencepiece.SentencePieceProcessor(model_file=str(TOKENIZER_DIR / "mistral-7b-v0.1.model"))


def reference_ids(our_name: str, text: str, allow_special: bool = False) -> list[int]:
    """What the reference library says the ids of `text` are."""
    if our_name == "mistral_v1":
        return sentencepiece_reference().encode(text)
    encoding = tiktoken_reference(our_name)
    if allow_special:
        return encoding.encode(text, allowed_special="all")
    return encoding.encode(text, disallowed_special=())


def stdlib_texts(count: int = 12, max_chars: int = 30_000) -> list[tuple[str, str]]:
    """(file name, text) of Python standard-library sources, spread over the alphabet: text nobody here wrote."""
    import sysconfig

    files = sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))
    step = max(1, len(files) // count)
    return [(path.name, path.read_text(encoding="utf-8", errors="replace")[:max_chars]) for path in files[::step][:count]]
