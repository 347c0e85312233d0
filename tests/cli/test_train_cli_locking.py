"""`tokenprism train` writes a name once: a name being trained is locked, an existing one
needs --force, and the file is put in place without a window where another can slip in."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.bpe.model import BPETokenizer
from app.tokenizers.storage.files import write_atomically
from tests.reference import stdlib_texts

SCRIPT = Path(sys.executable).with_name("tokenprism")
HOUR = 3600


def train_command(corpus: Path, name: str, *extra: str) -> list[str]:
    return [str(SCRIPT), "train", str(corpus), "--vocab-size", "2000", "--name", name, *extra]


def cli_env(data: Path) -> dict:
    return {**os.environ, "TOKENPRISM_DATA_DIR": str(data)}


@pytest.fixture(scope="module")
def big_corpus(tmp_path_factory) -> Path:
    """About 4 MB of standard-library sources: training takes a second or two."""
    path = tmp_path_factory.mktemp("corpus") / "stdlib.txt"
    path.write_text("".join(text for _, text in stdlib_texts(count=200, max_chars=100_000)), encoding="utf-8")
    return path


def test_two_trainers_of_one_name_at_once_save_exactly_one(tmp_path, big_corpus):
    data = tmp_path / "data"
    folder = data / "tokenizers"
    folder.mkdir(parents=True)
    stale = folder / ".same.bpe.k1ll3d_9.tmp"  # left by a trainer killed long ago
    stale.write_bytes(b"half a model")
    os.utime(stale, (time.time() - 2 * HOUR,) * 2)

    processes = [
        subprocess.Popen(
            train_command(big_corpus, "same"), env=cli_env(data), stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for _ in range(2)
    ]
    results = [(p.wait(timeout=300), p.stderr.read().decode()) for p in processes]
    for process in processes:
        process.stdout.close()
        process.stderr.close()
    saved = [err for code, err in results if code == 0 and "saved to" in err]
    refused = [err for code, err in results if code == 2]
    assert len(saved) == 1 and len(refused) == 1, results
    line = refused[0].strip()
    assert len(line.splitlines()) == 1 and "Traceback" not in line
    assert "is training same" in line or "--force" in line, line  # the job runner refuses a name in training
    model = BPETokenizer.load(folder / "same.bpe")
    assert model.vocab_size == 2000 and model.name == "same"
    assert sorted(p.name for p in folder.iterdir() if not p.name.endswith(".lock")) == ["same.bpe"]


def test_a_locked_name_fails_at_once_with_one_line(tmp_path, big_corpus):
    data = tmp_path / "data"
    folder = data / "tokenizers"
    folder.mkdir(parents=True)
    lock = os.open(folder / ".held.lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        result = subprocess.run(train_command(big_corpus, "held"), env=cli_env(data), capture_output=True, timeout=60)
    finally:
        os.close(lock)
    error = result.stderr.decode()
    assert result.returncode == 2 and len(error.strip().splitlines()) == 1, error
    assert "another process is training held" in error and "merging" not in error
    assert not (folder / "held.bpe").exists()


def test_force_replaces_and_no_force_never_overwrites(tmp_path):
    path = tmp_path / "m.bpe"
    write_atomically(path, b"first")
    with pytest.raises(FileExistsError):
        write_atomically(path, b"second", overwrite=False)
    assert path.read_bytes() == b"first" and sorted(tmp_path.iterdir()) == [path]
    write_atomically(path, b"third")
    assert path.read_bytes() == b"third"
    write_atomically(tmp_path / "new.bpe", b"fresh", overwrite=False)
    assert (tmp_path / "new.bpe").read_bytes() == b"fresh" and len(list(tmp_path.iterdir())) == 2
