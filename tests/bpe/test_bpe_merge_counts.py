"""The counts behind each merge: training records how often each merged pair occurred when
it was chosen, equal to the naive trainer's `get_stats` value at that step (on generated
corpora, documents and patterns); model files keep them (format v2) and files of format
v1 still load with the counts unknown; GET /api/tokenizers/{name}/merges answers them
(null when unknown)."""

from __future__ import annotations

import hashlib
import random

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.bpe import model_file
from app.bpe.model import PATTERNS, BPETokenizer
from app.errors import TokenizerFileError
from app.main import create_app
from app.settings import Settings
from app.tokenizers.registry import default_registry
from tests.bpe.test_bpe_vs_naive import CORPORA, naive_train_counted


def counted(documents: list[str], pattern: str, num_merges: int) -> tuple[list, list[int]]:
    model = BPETokenizer.train(documents, 256 + num_merges, pattern=pattern)
    return list(model.merges), list(model.merge_counts)


@pytest.mark.parametrize("pattern", ["gpt2", "gpt4", "none"])
@pytest.mark.parametrize("corpus", list(CORPORA))
def test_counts_equal_the_naive_get_stats(corpus, pattern):
    text = CORPORA[corpus][:1500] if pattern == "none" else CORPORA[corpus]
    found = counted([text], pattern, 80)
    assert found == naive_train_counted([text], PATTERNS[pattern], 80)
    # a merge's new pairs occur at most as often as the merged pair, and other pairs only lose occurrences
    assert found[1] == sorted(found[1], reverse=True)


def generated_corpus(seed: int) -> list[str]:
    rnd = random.Random(seed)
    words = ["".join(rnd.choice("aabbcdé😀 ") for _ in range(rnd.randint(1, 7))) for _ in range(30)]
    return [" ".join(rnd.choice(words) for _ in range(rnd.randint(0, 200))) for _ in range(rnd.randint(1, 4))]


@pytest.mark.parametrize("seed", range(8))
def test_counts_equal_naive_on_generated_corpora(seed):
    documents = generated_corpus(seed)
    pattern = ["gpt2", "gpt4"][seed % 2]
    assert counted(documents, pattern, 60) == naive_train_counted(documents, PATTERNS[pattern], 60)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    documents=st.lists(st.text(alphabet=st.sampled_from("aabbc \n'sé😀1"), max_size=40), max_size=5),
    pattern=st.sampled_from(["gpt2", "gpt4", "none"]),
    num_merges=st.integers(0, 30),
)
def test_counts_equal_naive_on_random_corpora(documents, pattern, num_merges):
    assert counted(documents, pattern, num_merges) == naive_train_counted(documents, PATTERNS[pattern], num_merges)


def test_counts_are_reported_as_merges_happen():
    seen = []
    model = BPETokenizer.train("ab ab abc", 256 + 5, on_merge=lambda i, pair, count: seen.append((i, pair, count)))
    assert seen == [
        (i, pair, count) for i, (pair, count) in enumerate(zip(model.merges, model.merge_counts, strict=True))
    ]
    assert seen[0] == (0, (97, 98), 3)


def as_version_1(data: bytes) -> bytes:
    """The same model as a tokenprism before counts wrote it: v1, two ids a line."""
    body = data.split(b"\n", 2)[2]
    header, _, merges = body.partition(b"\n\n")
    header = header.replace(b"\ncounts yes", b"")
    merges = b"".join(b" ".join(line.split(b" ")[:2]) + b"\n" for line in merges.splitlines())
    body = header + b"\n\n" + merges
    return b"tokenprism-bpe v1\nsha256 " + hashlib.sha256(body).hexdigest().encode() + b"\n" + body


@pytest.fixture(scope="module")
def trained():
    return BPETokenizer.train(CORPORA["prose"], 256 + 51, pattern="gpt4", special_tokens=["<|end|>"], name="prose")


def test_counts_survive_saving(trained, tmp_path):
    data = trained.dumps()
    assert data.startswith(b"tokenprism-bpe v2\n") and b"\ncounts yes\n" in data
    trained.save(tmp_path / "prose.bpe")
    loaded = BPETokenizer.load(tmp_path / "prose.bpe")
    assert loaded.merge_counts == trained.merge_counts and len(loaded.merge_counts) == 50
    assert loaded.merges == trained.merges and loaded.dumps() == data


def test_version_1_files_still_load_with_counts_unknown(trained):
    old = as_version_1(trained.dumps())
    loaded = BPETokenizer.loads(old, "old.bpe")
    assert loaded.merges == trained.merges and loaded.special_tokens == trained.special_tokens
    assert loaded.merge_counts is None
    assert loaded.encode("the licence") == trained.encode("the licence")
    assert model_file.loads(old, "old.bpe").merge_counts is None
    assert b"counts" not in loaded.dumps() and BPETokenizer.loads(loaded.dumps(), "re.bpe").merge_counts is None


def _resigned(body: bytes, version: bytes = b"v2") -> bytes:
    return b"tokenprism-bpe " + version + b"\nsha256 " + hashlib.sha256(body).hexdigest().encode() + b"\n" + body


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda body: body.replace(b"\n256 ", b"\nx ", 1), "not two ids and a count"),
        (lambda body: body.replace(b"counts yes", b"counts maybe"), "counts line says 'maybe'"),
        (
            lambda body: body.replace(b"\n\n", b"\n\n32 32\n", 1).replace(b"merges 50", b"merges 51"),
            "not two ids and a count",
        ),
    ],
)
def test_bad_counts_are_refused_by_name(trained, change, message):
    body = trained.dumps().split(b"\n", 2)[2]
    with pytest.raises(TokenizerFileError) as error:
        BPETokenizer.loads(_resigned(change(body)), "bad.bpe")
    assert "bad.bpe" in error.value.message and message in error.value.message


def test_a_version_1_file_cannot_claim_counts(trained):
    body = trained.dumps().split(b"\n", 2)[2]
    with pytest.raises(TokenizerFileError, match="unknown or repeated header field 'counts'"):
        BPETokenizer.loads(_resigned(body, b"v1"), "claims.bpe")


def test_api_answers_counts_and_null_when_unknown(trained, tmp_path):
    folder = tmp_path / "tokenizers"
    folder.mkdir()
    trained.save(folder / "prose.bpe")
    (folder / "old.bpe").write_bytes(as_version_1(trained.dumps()))
    settings = Settings(data_dir=tmp_path, allowed_hosts="testserver")
    with TestClient(create_app(settings, default_registry(settings))) as client:
        body = client.get("/api/tokenizers/prose/merges", params={"limit": 1000}).json()
        assert [m["count"] for m in body["merges"]] == list(trained.merge_counts)
        assert [(m["left"], m["right"]) for m in body["merges"]] == list(trained.merges)
        page = client.get("/api/tokenizers/prose/merges", params={"offset": 45, "limit": 3}).json()
        assert [m["count"] for m in page["merges"]] == list(trained.merge_counts[45:48])
        old = client.get("/api/tokenizers/old/merges").json()
        assert len(old["merges"]) == 50 and all(m["count"] is None for m in old["merges"])
        shipped = client.get("/api/tokenizers/tokenprism_4k/merges", params={"limit": 3}).json()
        assert [m["count"] for m in shipped["merges"]] == [472389, 191336, 61926]


def test_a_model_cut_to_k_merges_keeps_their_counts_and_pickles(trained):
    import pickle

    from app.bpe import replay

    cut = replay.with_first_merges(trained, 7)
    assert cut.merge_counts == trained.merge_counts[:7]
    again = pickle.loads(pickle.dumps(cut))
    assert again.merge_counts == trained.merge_counts[:7] and again.encode("the licence") == cut.encode("the licence")
