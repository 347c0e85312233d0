"""Tokenizer files users bring (app/tokenizers/user/uploads.py, `tokenprism add/remove`): each kind
is detected, checked in a real child process and stored, and then gives the reference ids;
bad files (garbage, truncated, a parser that crashes, one that needs too much memory or
time) are refused with a message naming the problem and leave nothing in the store."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys

import pytest

from app.errors import InvalidInput, TokenprismError
from app.settings import Settings
from app.tokenizers.registry import default_registry
from app.tokenizers.user import upload_store, uploads
from tests.reference import TOKENIZER_DIR, reference_ids, stdlib_texts


def cl100k_file() -> bytes:
    return gzip.decompress((TOKENIZER_DIR / "cl100k_base.tiktoken.gz").read_bytes())


FILES = {
    "tiktoken": (cl100k_file, {"pattern": "gpt4", "special_tokens": {"<|endoftext|>": 100257}}, "cl100k_base"),
    "sentencepiece": (lambda: (TOKENIZER_DIR / "mistral-7b-v0.1.model").read_bytes(), {}, "mistral_v1"),
    "bpe": (lambda: (TOKENIZER_DIR / "tokenprism_4k.bpe").read_bytes(), {}, "tokenprism_4k"),
}


@pytest.fixture
def store(tmp_path):
    settings = Settings(data_dir=tmp_path)
    return settings, default_registry(settings)


def stored_files(settings) -> list[str]:
    folder = settings.user_tokenizer_dir
    return sorted(p.name for p in folder.iterdir() if not p.name.startswith(".")) if folder.exists() else []


@pytest.mark.parametrize("kind", FILES)
def test_each_kind_is_detected_checked_stored_and_exact(store, kind):
    settings, registry = store
    read, options, builtin = FILES[kind]
    data = read()
    assert uploads.detect_kind(data) == kind
    facts, data = uploads.check(data, f"my-{kind}", "", source_name=f"file.{kind}", **options)
    uploads.store(settings.user_tokenizer_dir, f"my-{kind}", facts, data)
    assert stored_files(settings) == [f"my-{kind}.tokenizer"]
    assert facts.kind == kind and len(facts.sha256) == 64 and facts.size == len(data)
    tokenizer = registry.get(f"my-{kind}")
    assert tokenizer.kind == kind
    for _, text in [*stdlib_texts(count=3, max_chars=3000), ("", "héllo wörld 👋 <|endoftext|> 東京")]:
        assert tokenizer.encode(text) == registry.get(builtin).encode(text)
    if kind != "bpe":
        assert tokenizer.encode("a <|endoftext|>", True) == reference_ids(builtin, "a <|endoftext|>", True)


@pytest.mark.parametrize(
    "data, options, message",
    [
        (
            os.urandom(3000).replace(b"{", b"x").lstrip(b"\n\t\r \x0b\x0c").replace(b"\n", b"x"),
            {},
            "cannot tell what kind",
        ),
        (b'{"model": 3}', {"kind": "huggingface"}, "not a usable huggingface"),
        (
            b'{"architectures": ["LlamaForCausalLM"], "hidden_size": 4096}',
            {},
            'not a Hugging Face tokenizer.json \\(it has no "model"\\)',
        ),
        (b"[1, 2, 3]", {"kind": "huggingface"}, "a JSON array, but not a Hugging Face tokenizer.json"),
        (cl100k_file()[:1000], {"pattern": "gpt4"}, "is not 'base64 rank'"),
        ((TOKENIZER_DIR / "mistral-7b-v0.1.model").read_bytes()[:200_000], {}, "not a usable sentencepiece"),
        ((TOKENIZER_DIR / "tokenprism_4k.bpe").read_bytes()[:5000], {}, "refused"),
        (cl100k_file(), {}, "needs its split pattern"),
        (cl100k_file(), {"pattern": "(a)|b"}, "capturing group"),
        (cl100k_file(), {"pattern": "gpt4", "special_tokens": {"x": "1"}}, "with an id"),
        ((TOKENIZER_DIR / "tokenprism_4k.bpe").read_bytes(), {"pattern": "gpt4"}, "only with a .tiktoken file"),
    ],
)
def test_bad_files_are_refused_and_nothing_is_stored(store, data, options, message):
    settings, _ = store
    with pytest.raises(TokenprismError, match=message) as refused:
        facts, data = uploads.check(data, "bad", "", **options)
        uploads.store(settings.user_tokenizer_dir, "bad", facts, data)
    assert 400 <= refused.value.status < 500
    assert stored_files(settings) == []


def test_a_parser_that_crashes_takes_down_only_the_child(store, monkeypatch):
    settings, _ = store
    monkeypatch.setattr(uploads, "CHECK_MODULE", "tests.crashing_child")
    with pytest.raises(InvalidInput, match=r"crashed .* \(signal 11\)"):
        uploads.check(FILES["bpe"][0](), "crash", "")
    assert stored_files(settings) == []


def test_a_file_over_the_memory_or_time_limit_is_refused(monkeypatch):
    monkeypatch.setattr(uploads, "CHECK_MEMORY_BYTES", 95 << 20)  # r50k_base loads in 80 MB; o200k needs 110-120
    o200k = gzip.decompress((TOKENIZER_DIR / "o200k_base.tiktoken.gz").read_bytes())
    with pytest.raises(InvalidInput, match=r"memory|refused"):
        uploads.check(o200k, "big", "", pattern="o200k")
    monkeypatch.setattr(uploads, "CHECK_MEMORY_BYTES", 4 << 30)
    monkeypatch.setattr(uploads, "CHECK_WALL_S", 0.3)
    with pytest.raises(InvalidInput, match="took over"):
        uploads.check(o200k, "slow", "", pattern="o200k")


def test_names_are_never_taken_over_unless_asked(store):
    settings, _registry = store
    folder = settings.user_tokenizer_dir
    facts, data = uploads.check(FILES["bpe"][0](), "same", "")
    uploads.store(folder, "same", facts, data)
    with pytest.raises(TokenprismError, match="exists already") as taken:
        uploads.store(folder, "same", facts, data)
    assert taken.value.status == 409
    uploads.store(folder, "same", facts, data, replace=True)
    assert stored_files(settings) == ["same.tokenizer"]
    assert uploads.remove(folder, "same") and not uploads.remove(folder, "same")
    assert stored_files(settings) == []
    with pytest.raises(InvalidInput, match="not allowed"):
        uploads.check(FILES["bpe"][0](), "../escape", "")


def test_the_store_is_bounded(store, monkeypatch):
    settings, _ = store
    folder = settings.user_tokenizer_dir
    monkeypatch.setattr(upload_store, "MAX_STORED", 2)
    facts, data = uploads.check(FILES["bpe"][0](), "one", "")
    for name in ("one", "two"):
        uploads.store(folder, name, facts, data)
    with pytest.raises(TokenprismError, match="remove some first") as full:
        uploads.store(folder, "three", facts, data)
    assert full.value.status == 409
    uploads.store(folder, "two", facts, data, replace=True)  # replacing takes no more room
    assert stored_files(settings) == ["one.tokenizer", "two.tokenizer"]


def test_cli_add_and_remove(tmp_path):
    env = {**os.environ, "TOKENPRISM_DATA_DIR": str(tmp_path)}
    cli = [sys.executable, "-m", "app.cli"]
    ranks = tmp_path / "ranks.tiktoken"
    ranks.write_bytes(cl100k_file())

    def run(*args, stdin=None):
        return subprocess.run([*cli, *args], env=env, capture_output=True, text=True, input=stdin, timeout=120)

    added = run("add", str(ranks), "--name", "cli-ranks", "--pattern", "gpt4", "--special", '{"<|endoftext|>": 100257}')
    assert added.returncode == 0, added.stderr
    assert "added cli-ranks: tiktoken, 100,258 ids" in added.stderr
    encoded = run("encode", "-t", "cli-ranks", "--allow-special", stdin="Hello <|endoftext|>")
    assert json.loads(encoded.stdout) == reference_ids("cl100k_base", "Hello <|endoftext|>", True)
    assert "cli-ranks" in run("list").stdout
    again = run("add", str(ranks), "--name", "cli-ranks", "--pattern", "gpt4")
    assert again.returncode == 2 and "exists already" in again.stderr and "Traceback" not in again.stderr
    for args, message in [
        (("add", str(tmp_path / "nope"), "--name", "x"), "no such file"),
        (("add", str(ranks), "--name", "gpt2", "--pattern", "gpt4"), "built-in"),
        (("add", str(ranks), "--name", "y", "--special", "{nope"), "--special must be"),
        (("remove", "gpt2"), "cannot be removed"),
        (("remove", "never-added"), "no added or trained"),
    ]:
        refused = run(*args)
        assert refused.returncode == 2 and message in refused.stderr and "Traceback" not in refused.stderr, (
            refused.stderr
        )
    assert run("remove", "cli-ranks").returncode == 0
    assert "cli-ranks" not in run("list").stdout
