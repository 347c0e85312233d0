"""A user tokenizer cannot take a name that already means something (issue 18, point 6):
built-ins, their aliases and model names (prefix rules included) are refused with a 409
naming what the name means, on every path that creates one (upload API and page, web
training, `tokenprism add` and `train`); a file that has such a name anyway is left out,
so the name keeps the meaning GET /api/models gives it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.errors import InvalidInput, NameTaken
from app.main import create_app
from app.settings import REPO_ROOT, Settings
from app.tokenizers.registry import default_registry
from tests.reference import TOKENIZER_DIR

BPE = TOKENIZER_DIR / "tokenprism_4k.bpe"
TAKEN = {  # name -> what the refusal says it is
    "gpt-4o": "gpt-4o is the model name of o200k_base; choose another name",
    "gpt-4": "gpt-4 is the model name of cl100k_base",
    "o1": "o1 is the model name of o200k_base",
    "gpt-4o-mine": "gpt-4o-mine is a model name (the gpt-4o-* rule gives o200k_base)",
    "gpt2": "gpt2 is a built-in tokenizer",
    "r50k_base": "r50k_base is another name of the built-in gpt2",
}


@pytest.fixture()
def data(tmp_path) -> Path:
    return tmp_path / "data"


@pytest.fixture()
def client(data):
    settings = Settings(data_dir=data, allowed_hosts="testserver")
    with TestClient(create_app(settings, default_registry(settings))) as test_client:
        yield test_client


def stored(data: Path) -> list[str]:
    folder = data / "tokenizers"
    return sorted(p.name for p in folder.iterdir() if not p.name.startswith(".")) if folder.exists() else []


@pytest.mark.parametrize("name", TAKEN)
def test_the_registry_says_what_a_taken_name_means(data, name):
    with pytest.raises(NameTaken) as caught:
        default_registry(Settings(data_dir=data)).check_new_name(name)
    assert (caught.value.status, caught.value.code) == (409, "name_taken")
    assert caught.value.message.startswith(TAKEN[name])


def test_free_names_pass_and_bad_ones_stay_422(data):
    registry = default_registry(Settings(data_dir=data))
    assert registry.check_new_name("my-bpe") == "my-bpe"
    assert registry.check_new_name("p50k_base") == "p50k_base"  # an encoding tokenprism lacks: adding it is the way
    with pytest.raises(InvalidInput):
        registry.check_new_name("Bad Name")


@pytest.mark.parametrize("name", ["gpt-4o", "gpt-4o-mine", "o1"])
def test_web_paths_refuse_a_model_name(client, data, name):
    upload = client.post("/api/tokenizers", files={"file": ("x.bpe", BPE.read_bytes())}, data={"name": name})
    assert upload.status_code == 409 and upload.json()["error"]["code"] == "name_taken"
    assert upload.json()["error"]["message"].startswith(TAKEN[name])
    page = client.post(
        "/tokenizers", files={"file": ("x.bpe", BPE.read_bytes())}, data={"name": name}, follow_redirects=False
    )
    assert page.status_code == 409 and TAKEN[name] in page.text
    train = client.post("/api/train", json={"name": name, "text": "the cat sat", "vocab_size": 260})
    assert train.status_code == 409 and train.json()["error"]["message"].startswith(TAKEN[name])
    train_page = client.post(
        "/train",
        data={"name": name, "text": "the cat sat", "vocab_size": "260"},
        files={"files": ("c.txt", b"the cat sat on the mat")},
        follow_redirects=False,
    )
    assert train_page.status_code == 409 and TAKEN[name] in train_page.text
    assert stored(data) == []


def run_cli(*args: str, data: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "TOKENPRISM_DATA_DIR": str(data)}
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args], cwd=REPO_ROOT, capture_output=True, env=env, timeout=120
    )


def test_cli_add_and_train_refuse_a_model_name(data, tmp_path):
    added = run_cli("add", str(BPE), "--name", "gpt-4", data=data)
    assert added.returncode != 0 and TAKEN["gpt-4"].encode() in added.stderr
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("the cat sat on the mat " * 20, encoding="utf-8")
    trained = run_cli("train", str(corpus), "--vocab-size", "260", "--name", "o1", data=data)
    assert trained.returncode != 0 and TAKEN["o1"].encode() in trained.stderr
    assert stored(data) == []


def test_an_old_file_with_a_model_name_does_not_shadow_the_model(data, client):
    folder = data / "tokenizers"
    folder.mkdir(parents=True)
    (folder / "gpt-4.bpe").write_bytes(BPE.read_bytes())
    (folder / "o1.bpe").write_bytes(b"damaged")
    (folder / "mine.bpe").write_bytes(BPE.read_bytes())
    registry = default_registry(Settings(data_dir=data))
    assert registry.resolve("gpt-4") == "cl100k_base" and registry.resolve("o1") == "o200k_base"
    assert "gpt-4" not in registry.names() and "mine" in registry.names()
    counted = client.post("/api/count", json={"text": "hello world", "tokenizers": ["gpt-4", "cl100k_base"]})
    assert counted.status_code == 200, counted.text
    assert len(set(counted.json()["counts"].values())) == 1
    assert client.delete("/api/tokenizers/gpt-4").status_code == 204  # and it can still be removed
    assert "gpt-4.bpe" not in stored(data)
