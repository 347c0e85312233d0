"""Files in the user tokenizer folder that must never be read: sparse giants, symbolic
links, FIFOs and folders named like tokenizers. Each is listed as unusable with the reason,
and a request for it gets that reason; none is opened, read or followed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.bpe import model_file as bpe_file
from app.bpe.model import BPETokenizer
from app.errors import TokenizerFileError
from app.main import create_app
from app.settings import Settings
from app.tokenizers.registry import default_registry
from app.tokenizers.user import uploads
from tests.reference import BUILTIN_NAMES, TOKENIZER_DIR

FACTS = {
    "kind": "bpe",
    "vocab_size": 4096,
    "description": "d",
    "sha256": "0" * 64,
    "size": 1,
    "source_name": "x",
    "added": "2026-01-01T00:00:00+00:00",
}


@pytest.fixture()
def folder(tmp_path) -> Path:
    path = tmp_path / "data" / "tokenizers"
    path.mkdir(parents=True)
    return path


def registry_for(folder: Path):
    return default_registry(Settings(data_dir=folder.parent))


def sparse(path: Path, size: int, head: bytes) -> None:
    with open(path, "wb") as handle:
        handle.write(head)
        handle.truncate(size)


def never_read(monkeypatch) -> None:
    def refuse(path, *args):
        raise AssertionError(f"{path} was opened")

    monkeypatch.setattr(uploads, "read_facts", refuse)
    monkeypatch.setattr(uploads, "read_stored", refuse)
    monkeypatch.setattr(bpe_file, "read_header", refuse)
    monkeypatch.setattr(bpe_file, "read_file", refuse)


@pytest.mark.parametrize("size", [uploads.stored_limit() + 1, 1 << 30], ids=["limit+1", "1GiB"])
def test_a_sparse_giant_tokenizer_file_is_refused_unread_naming_file_and_limit(folder, monkeypatch, size):
    sparse(folder / "huge.tokenizer", size, json.dumps(FACTS).encode() + b"\n")
    never_read(monkeypatch)
    registry = registry_for(folder)
    assert registry.names() == BUILTIN_NAMES
    limit = f"{uploads.stored_limit():,}"
    with pytest.raises(TokenizerFileError, match=rf"huge\.tokenizer is {size:,} bytes, over the {limit} bytes"):
        registry.get("huge")


def test_read_stored_and_read_facts_check_the_size_before_reading(folder):
    path = folder / "huge.tokenizer"
    sparse(path, 1 << 30, json.dumps(FACTS).encode() + b"\n")
    for read in (uploads.read_stored, uploads.read_facts):
        with pytest.raises(TokenizerFileError, match=r"huge\.tokenizer is 1,073,741,824 bytes, over the "):
            read(path)


def test_an_oversized_trained_model_is_refused_from_the_listing(folder, monkeypatch):
    sparse(folder / "big.bpe", bpe_file.MAX_FILE_BYTES + 1, b"tokenprism-bpe v1\n")
    never_read(monkeypatch)
    registry = registry_for(folder)
    assert registry.names() == BUILTIN_NAMES
    with pytest.raises(TokenizerFileError, match=rf"big\.bpe is .* bytes, over the {bpe_file.MAX_FILE_BYTES:,} bytes"):
        registry.get("big")


@pytest.mark.parametrize("suffix", [".bpe", ".tokenizer"])
def test_links_fifos_and_folders_are_listed_unusable_by_name_with_the_reason(folder, tmp_path, monkeypatch, suffix):
    good = tmp_path / "elsewhere.bpe"
    good.write_bytes((TOKENIZER_DIR / "tokenprism_4k.bpe").read_bytes())  # a usable model: the link is still refused
    os.symlink(good, folder / f"link{suffix}")
    os.mkfifo(folder / f"pipe{suffix}")
    (folder / f"dir{suffix}").mkdir()
    never_read(monkeypatch)
    registry = registry_for(folder)
    assert registry.names() == BUILTIN_NAMES
    listed = registry.user_models()
    for name, what in (("link", "a symbolic link"), ("pipe", "a FIFO"), ("dir", "a directory")):
        reason = f"{name}{suffix} is {what}, not a regular file; tokenprism reads only regular files"
        assert reason in listed[name].error.message
        with pytest.raises(TokenizerFileError, match=reason):
            registry.get(name)


def test_a_request_for_a_link_gets_the_reason(folder, tmp_path):
    target = tmp_path / "model.bpe"
    BPETokenizer.train("hello world " * 50, 260, name="m").save(target)
    os.symlink(target, folder / "linked.bpe")
    settings = Settings(data_dir=folder.parent, allowed_hosts="testserver")
    with TestClient(create_app(settings, default_registry(settings))) as client:
        assert "linked" not in [t["name"] for t in client.get("/api/tokenizers").json()["tokenizers"]]
        answer = client.post("/api/tokenize", json={"tokenizer": "linked", "text": "hello"})
        assert "linked.bpe is a symbolic link, not a regular file" in answer.json()["error"]["message"]
