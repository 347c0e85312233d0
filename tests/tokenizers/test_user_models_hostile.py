"""Trained tokenizers in the data directory, and the hostile things that can lie there: a FIFO
named like a model, a renamed model, merges that build huge tokens, split patterns that drop
text or backtrack forever, bad names, temp files left by a killed trainer, 2,000 models."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from app.bpe import model as bpe
from app.bpe import model_file as bpe_file
from app.bpe import split as bpe_split
from app.bpe.model import BPETokenizer
from app.bpe.model_file import Header
from app.errors import InvalidInput, TokenizerFileError
from app.settings import Settings
from app.tokenizers.registry import check_name, default_registry
from tests.reference import BUILTIN_NAMES, stdlib_texts

SCRIPT = Path(sys.executable).with_name("tokenprism")
CORPUS = "".join(text for _, text in stdlib_texts(count=4, max_chars=5_000))
TEXT = "def main(argv):\n    return parse(argv) or 42  # done\n"
HOUR = 3600


@pytest.fixture(scope="module")
def model_a() -> BPETokenizer:
    return BPETokenizer.train(CORPUS, 300, name="a")


@pytest.fixture(scope="module")
def model_b() -> BPETokenizer:
    return BPETokenizer.train(CORPUS[::-1], 400, name="b")


@pytest.fixture()
def data(tmp_path) -> Path:
    (tmp_path / "data" / "tokenizers").mkdir(parents=True)
    return tmp_path / "data"


def folder_of(data: Path) -> Path:
    return data / "tokenizers"


def registry_for(data: Path):
    return default_registry(Settings(data_dir=data))


def finishes(function, timeout: float = 20):
    """What `function()` returns or raises, run in a thread: a call that blocks fails the test."""
    outcome = {}

    def run():
        try:
            outcome["value"] = function()
        except BaseException as error:
            outcome["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout)
    assert not thread.is_alive(), f"still blocked after {timeout} s"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def run_cli(*args, data: Path, timeout: float = 60) -> subprocess.CompletedProcess:
    env = {**os.environ, "TOKENPRISM_DATA_DIR": str(data)}
    return subprocess.run([str(SCRIPT), *args], capture_output=True, env=env, timeout=timeout)


def model_file(merges, *, name="hostile", pattern="gpt4", regex=None) -> bytes:
    """A model file with a valid checksum, whatever it holds."""
    header = Header(name, 256 + len(merges), "crafted by a test", pattern)
    return bpe_file.dumps(header, merges=list(merges), special_tokens={}, pattern_regex=regex)


# -- 1. only regular files are read, never blockingly ----------------------------------------


@pytest.fixture()
def fifo(data):
    path = folder_of(data) / "x.bpe"
    os.mkfifo(path)
    yield path
    with contextlib.suppress(
        OSError
    ):  # wake a reader still blocked in open() (only before the fix), so its thread ends
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))


def test_a_fifo_named_like_a_model_blocks_nothing(data, fifo, model_a):
    folder = folder_of(data)
    (folder / "dir.bpe").mkdir()
    os.symlink(fifo, folder / "link.bpe")
    model_a.save(folder / "good.bpe")
    registry = registry_for(data)
    assert finishes(registry.names) == [*BUILTIN_NAMES, "good"]
    for name in ("x", "link", "dir"):
        with pytest.raises(TokenizerFileError, match=rf"{name}\.bpe.*not a regular file"):
            finishes(lambda name=name: registry.get(name))
    assert finishes(lambda: registry.get("good")).encode(TEXT) == model_a.encode(TEXT)
    with pytest.raises(TokenizerFileError, match="not a regular file"):
        finishes(lambda: BPETokenizer.load(fifo))


def test_cli_list_finishes_beside_a_fifo(data, fifo):
    result = run_cli("list", data=data)
    assert result.returncode == 0, result.stderr
    assert [line.split()[0] for line in result.stdout.decode().splitlines()[1:]] == BUILTIN_NAMES


# -- 2. the file name is the tokenizer's name ------------------------------------------------


def test_a_renamed_model_answers_to_its_file_name(data, model_a, model_b):
    folder = folder_of(data)
    model_a.save(folder / "a.bpe")
    model_b.save(folder / "b.bpe")
    same_time = time.time_ns() - HOUR * 10**9
    for path in (folder / "a.bpe", folder / "b.bpe"):
        os.utime(path, ns=(same_time, same_time))  # a key of mtime alone would miss the swap below
    registry = registry_for(data)
    assert registry.get("a").encode(TEXT) == model_a.encode(TEXT)
    assert registry.get("b").encode(TEXT) == model_b.encode(TEXT)

    os.replace(folder / "a.bpe", folder / "b.bpe")
    assert registry.names() == [*BUILTIN_NAMES, "b"]
    moved = registry.get("b")
    assert moved.name == "b" and moved.vocab_size == 300
    assert moved.encode(TEXT) == model_a.encode(TEXT) != model_b.encode(TEXT)
    assert {e.name: e.vocab_size for e in registry.entries()}["b"] == 300

    shutil.copy(folder / "b.bpe", folder / "copy.bpe")
    assert registry.get("copy").name == "copy"


def test_a_model_replaced_in_place_is_reloaded_on_lookup(data, model_a, model_b):
    folder = folder_of(data)
    model_a.save(folder / "m.bpe")
    registry = registry_for(data)
    assert registry.get("m").vocab_size == 300
    model_b.save(folder / "m.bpe")
    assert registry.get("m").encode(TEXT) == model_b.encode(TEXT)


# -- 3a. merges that build huge tokens ----------------------------------------------------------


def test_doubling_merges_are_refused_with_file_line_and_length(data):
    doubling = [(97, 97)] + [(256 + i, 256 + i) for i in range(19)]  # id 256 + i has 2 ** (i + 1) bytes
    (folder_of(data) / "big.bpe").write_bytes(model_file(doubling))
    registry = registry_for(data)
    assert "big" in registry.names()
    with pytest.raises(TokenizerFileError) as caught:
        registry.get("big")
    message = caught.value.message
    assert "big.bpe" in message and "line 20" in message and "8,192 bytes" in message, message
    assert registry.get("gpt2").encode("still works") == [24219, 2499]


def test_token_lengths_are_checked_before_any_bytes_are_joined():
    doubling = [(97, 97)] + [(256 + i, 256 + i) for i in range(60)]  # 2 ** 61 bytes, if ever built
    with pytest.raises(TokenizerFileError, match="line 20"):
        finishes(lambda: BPETokenizer.loads(model_file(doubling), "huge.bpe"), timeout=10)


def test_all_tokens_together_are_limited_too(model_a, monkeypatch):
    monkeypatch.setattr(bpe, "MAX_VOCAB_BYTES", 300)
    with pytest.raises(TokenizerFileError, match=r"a\.bpe: line \d+: merge \d+ .* the tokens up to it 3\d\d bytes"):
        BPETokenizer.loads(model_a.dumps(), "a.bpe")


def test_oversized_files_are_refused_before_they_are_parsed(tmp_path, model_a, monkeypatch):
    body = model_file([(97, 97)] * 3).split(b"\n", 2)[2].replace(b"merges 3\n", b"merges 2000000\n")
    claims_many = b"tokenprism-bpe v1\nsha256 " + hashlib.sha256(body).hexdigest().encode() + b"\n" + body
    with pytest.raises(TokenizerFileError, match=r"many\.bpe: merge count 2000000 is out of range"):
        BPETokenizer.loads(claims_many, "many.bpe")
    path = tmp_path / "big.bpe"
    model_a.save(path)
    monkeypatch.setattr(bpe_file, "MAX_FILE_BYTES", 100)
    with pytest.raises(TokenizerFileError, match=r"big\.bpe: is larger than 100 bytes"):
        BPETokenizer.load(path)


def test_longest_shipped_token_is_far_below_the_limit():
    registry = registry_for(Path("/nonexistent"))
    tokenizer = registry.get("tokenprism_4k")
    assert max(len(tokenizer.id_to_bytes(i)) for i in range(4095)) * 4 < bpe.MAX_TOKEN_BYTES


def test_training_stops_before_a_token_longer_than_the_limit(tmp_path):
    model = BPETokenizer.train(["a" * 20_000, "ab" * 100], 400, pattern="none")
    assert max(len(model.id_to_bytes(i)) for i in range(256 + len(model.merges))) <= bpe.MAX_TOKEN_BYTES
    model.save(tmp_path / "runs.bpe")
    assert BPETokenizer.load(tmp_path / "runs.bpe").encode("a" * 3000) == model.encode("a" * 3000)


def test_a_huge_vocab_size_is_refused_before_training():
    with pytest.raises(InvalidInput, match="vocab_size"):
        BPETokenizer.train("abc", 10**9)


# -- 3b. split patterns that drop text or backtrack ---------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        (r"(a+)+$", "capturing group"),
        (r"[a-z]+", "drops"),
        (r"(?:a|aa)+$|[^a]+", "too slow"),
    ],
)
def test_split_patterns_that_lose_text_or_backtrack_are_refused_at_load(data, model_a, pattern, problem):
    (folder_of(data) / "pat.bpe").write_bytes(model_file(model_a.merges, pattern="custom", regex=pattern))
    registry = registry_for(data)
    with pytest.raises(TokenizerFileError) as caught:
        finishes(lambda: registry.get("pat"), timeout=10)
    assert "pat.bpe" in caught.value.message and problem in caught.value.message, caught.value.message
    assert registry.get("gpt2").encode("still works") == [24219, 2499]


def test_a_split_pattern_too_slow_for_one_text_is_a_clean_error(data, model_a, monkeypatch):
    monkeypatch.setattr(bpe_split, "SPLIT_TIMEOUT_S", 0.2)
    (folder_of(data) / "snail.bpe").write_bytes(
        model_file(model_a.merges, pattern="custom", regex=r"(?:b|bb)+$|[^b]+|b")
    )
    tokenizer = registry_for(data).get("snail")
    assert tokenizer.decode(tokenizer.encode("abc b")) == "abc b"
    with pytest.raises(InvalidInput) as caught:
        finishes(lambda: tokenizer.encode("b" * 40 + "!"), timeout=10)
    assert 400 <= caught.value.status < 500
    assert "snail" in caught.value.message and "too slow" in caught.value.message


def test_a_split_that_skips_characters_of_one_text_is_a_clean_error(data, model_a):
    (folder_of(data) / "gap.bpe").write_bytes(model_file(model_a.merges, pattern="custom", regex="[^\ue000]+"))
    tokenizer = registry_for(data).get("gap")
    assert tokenizer.decode(tokenizer.encode("plain text")) == "plain text"
    with pytest.raises(InvalidInput) as caught:
        tokenizer.encode("ab\ue000cd")
    assert "gap" in caught.value.message and "position 2" in caught.value.message


def test_a_broken_user_model_breaks_no_other_request(data, model_a):
    from fastapi.testclient import TestClient

    from app.main import create_app

    (folder_of(data) / "broken.bpe").write_bytes(model_file(model_a.merges, pattern="custom", regex=r"(a+)+$"))
    settings = Settings(data_dir=data, allowed_hosts="testserver")
    with TestClient(create_app(settings, default_registry(settings))) as client:
        assert "broken" in [t["name"] for t in client.get("/api/tokenizers").json()["tokenizers"]]
        for _ in range(2):  # the failure is remembered, and still reported
            failed = client.post("/api/tokenize", json={"tokenizer": "broken", "text": "aaa"})
            assert failed.status_code == 500 and "broken.bpe" in failed.json()["error"]["message"]
        assert client.post("/api/tokenize", json={"tokenizer": "gpt2", "text": "still works"}).status_code == 200
        assert client.get("/").status_code == 200 and client.get("/compare").status_code == 200


# -- 4. names are matched whole ----------------------------------------------------------------


def test_a_name_with_a_final_newline_is_refused(data, tmp_path, model_a):
    with pytest.raises(InvalidInput):
        check_name("nl\n")
    (folder_of(data) / "nl\n.bpe").write_bytes(model_a.dumps())
    assert registry_for(data).names() == BUILTIN_NAMES
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(CORPUS, encoding="utf-8")
    result = run_cli("train", str(corpus), "--vocab-size", "260", "--name", "nl\n", data=data)
    assert result.returncode == 2 and b"not allowed" in result.stderr
    assert sorted(p.name for p in folder_of(data).iterdir()) == ["nl\n.bpe"]


# -- 6. temp files left by a killed trainer ----------------------------------------------------


def temp_file(folder: Path, name: str, age_s: float) -> Path:
    path = folder / f".{name}.bpe.k1ll3d_9.tmp"
    path.write_bytes(b"half a model")
    then = time.time() - age_s
    os.utime(path, (then, then))
    return path


def test_stale_temp_files_are_removed_on_scan_unless_their_name_is_locked(data):
    folder = folder_of(data)
    stale = temp_file(folder, "gone", 2 * HOUR)
    fresh = temp_file(folder, "young", 10)
    locked = temp_file(folder, "busy", 2 * HOUR)
    lock = os.open(folder / ".busy.lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert registry_for(data).names() == BUILTIN_NAMES
    finally:
        os.close(lock)
    assert not stale.exists() and fresh.exists() and locked.exists()


def test_cli_list_removes_stale_temp_files(data):
    stale = temp_file(folder_of(data), "gone", 2 * HOUR)
    assert run_cli("list", data=data).returncode == 0
    assert not stale.exists()


# -- 7. 2,000 models: the listing is cached until the folder changes ---------------------------


def test_listing_is_cached_until_the_folder_changes(data, model_a, monkeypatch):
    folder = folder_of(data)
    content = model_a.dumps()
    for i in range(2000):
        (folder / f"m{i:04d}.bpe").write_bytes(content)
    reads = []
    real_read_header = bpe_file.read_header
    monkeypatch.setattr(bpe_file, "read_header", lambda path: reads.append(path) or real_read_header(path))
    registry = registry_for(data)
    assert len(registry.entries()) == len(BUILTIN_NAMES) + 2000 and len(reads) == 2000

    reads.clear()
    assert len(registry.entries()) == len(BUILTIN_NAMES) + 2000
    assert registry.get("m0007").name == "m0007"
    assert reads == []

    model_a.save(folder / "late.bpe")
    assert registry.names()[-1] == "m1999" and "late" in registry.names()
    assert [p.name for p in reads] == ["late.bpe"]
