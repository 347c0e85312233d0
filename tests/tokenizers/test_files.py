"""Tokenizer files are verified by sha256 on load; a bad file fails loudly, by name."""

from __future__ import annotations

import gzip
import hashlib
import shutil

import pytest

from app.errors import TokenizerFileError
from app.settings import Settings
from app.tokenizers.registry import default_registry
from app.tokenizers.storage.files import read_manifest, read_verified, write_atomically
from tests.reference import TOKENIZER_DIR


def test_every_manifest_entry_verifies():
    manifest = read_manifest(TOKENIZER_DIR)
    assert {
        "r50k_base.tiktoken.gz",
        "cl100k_base.tiktoken.gz",
        "o200k_base.tiktoken.gz",
        "mistral-7b-v0.1.model",
    } <= set(manifest)
    for name, expected in manifest.items():
        raw = (TOKENIZER_DIR / name).read_bytes()
        data = gzip.decompress(raw) if name.endswith(".gz") else raw
        assert hashlib.sha256(data).hexdigest() == expected, name
        assert read_verified(name, TOKENIZER_DIR) == data


@pytest.fixture()
def copied_dir(tmp_path):
    target = tmp_path / "tokenizers"
    shutil.copytree(TOKENIZER_DIR, target)
    read_manifest.cache_clear()
    yield target
    read_manifest.cache_clear()


def test_damaged_file_fails_with_its_name(copied_dir, tmp_path):
    path = copied_dir / "mistral-7b-v0.1.model"
    data = bytearray(path.read_bytes())
    data[1000] ^= 0xFF
    path.write_bytes(bytes(data))
    registry = default_registry(Settings(tokenizer_dir=copied_dir, data_dir=tmp_path / "data"))
    with pytest.raises(TokenizerFileError) as caught:
        registry.get("mistral_v1")
    assert "mistral-7b-v0.1.model" in caught.value.message and "checksum" in caught.value.message
    assert registry.get("gpt2").encode("still works") == [24219, 2499]


def test_missing_and_unlisted_files(copied_dir, tmp_path):
    (copied_dir / "o200k_base.tiktoken.gz").unlink()
    registry = default_registry(Settings(tokenizer_dir=copied_dir, data_dir=tmp_path / "data"))
    with pytest.raises(TokenizerFileError, match=r"o200k_base\.tiktoken\.gz"):
        registry.get("o200k_base")
    with pytest.raises(TokenizerFileError, match="not listed"):
        read_verified("extra.bin", copied_dir)


def test_not_gzip_is_reported(copied_dir):
    (copied_dir / "cl100k_base.tiktoken.gz").write_bytes(b"plain text, not gzip")
    with pytest.raises(TokenizerFileError, match="not valid gzip"):
        read_verified("cl100k_base.tiktoken.gz", copied_dir)


def test_write_atomically_replaces_whole_file(tmp_path):
    target = tmp_path / "deep" / "model.bpe"
    write_atomically(target, b"first")
    write_atomically(target, b"second")
    assert target.read_bytes() == b"second"
    assert [p.name for p in target.parent.iterdir()] == ["model.bpe"]


def test_settings_refuse_unsafe_limits():
    with pytest.raises(ValueError, match="max_text_chars"):
        Settings(max_text_chars=2_000_000)
    with pytest.raises(ValueError):
        Settings(max_compare=0)
