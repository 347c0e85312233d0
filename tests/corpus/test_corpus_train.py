"""Training on a corpus: chunk counting split into tasks, on a pool or a Dask cluster, gives the
merges of a single-process run, on a corpus where the tie-breaking order decides many merges."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from app.bpe import train as bpe_train
from app.bpe.model import PATTERNS, BPETokenizer
from tests.corpus.conftest import run_cli

VOCAB = 420


def tie_documents(seed: int = 3) -> list[str]:
    """Short words over four letters, each document a handful of them: most pair counts tie,
    so the first appearance in corpus order picks the merge again and again."""
    rng = random.Random(seed)
    words = ["".join(rng.choice("abcd") for _ in range(rng.randint(2, 5))) for _ in range(300)]
    return [" ".join(rng.sample(words, 6)) + rng.choice(["", "\n", ". ", "!"]) for _ in range(700)]


@pytest.fixture(scope="module")
def tie_corpus(tmp_path_factory):
    """The documents as text files in folders (corpus order: by name) and a .jsonl file after them."""
    root = tmp_path_factory.mktemp("ties")
    documents = tie_documents()
    for i, text in enumerate(documents[:300]):
        path = root / "texts" / f"{i // 100}" / f"{i % 100:03d}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (root / "records.jsonl").write_text(
        "".join(json.dumps({"body": t}) + "\n" for t in documents[300:]), encoding="utf-8"
    )
    return root, documents


def single_process_merges(documents: list[str]) -> list[tuple[int, int]]:
    return list(BPETokenizer.train(documents, VOCAB, pattern="gpt4").merges)


def trained_merges(root, data_dir, name: str, *extra: str) -> list[tuple[int, int]]:
    result = run_cli(
        "train",
        str(root / "texts"),
        str(root / "records.jsonl"),
        "--field",
        "body",
        "--vocab-size",
        str(VOCAB),
        "--name",
        name,
        *extra,
        data_dir=data_dir,
    )
    assert result.returncode == 0, result.stderr.decode()
    assert b"merging" in result.stderr and b"saved to" in result.stderr
    return list(BPETokenizer.load(data_dir / "tokenizers" / f"{name}.bpe").merges)


def test_the_corpus_is_one_where_ties_matter(tie_corpus):
    """Adding the parts' counts in another order than the corpus's changes the merges: so the
    equality tests below can fail."""
    documents = tie_corpus[1]
    regex = PATTERNS["gpt4"]
    parts = [bpe_train.count_chunks(documents[i : i + 50], regex) for i in range(0, len(documents), 50)]
    in_order, reversed_order = Counter(), Counter()
    for part in parts:
        bpe_train.add_counts(in_order, part)
    for part in reversed(parts):
        bpe_train.add_counts(reversed_order, part)
    whole = bpe_train.count_chunks(documents, regex)
    assert list(in_order.items()) == list(whole.items()), "same counts, same first-appearance order"
    assert dict(reversed_order) == dict(whole) and list(reversed_order) != list(whole)
    assert bpe_train.merges_from_counts(in_order, VOCAB - 256) == single_process_merges(documents)
    assert bpe_train.merges_from_counts(reversed_order, VOCAB - 256) != single_process_merges(documents)


def test_parallel_chunk_counting_gives_the_single_process_merges(tie_corpus, tmp_path, dask_address):
    root, documents = tie_corpus
    expected = single_process_merges(documents)
    assert len(expected) == VOCAB - 256
    data_dir = tmp_path / "data"
    assert trained_merges(root, data_dir, "one", "--workers", "1") == expected
    assert trained_merges(root, data_dir, "pool", "--workers", "2", "--task-size", "1K") == expected
    assert trained_merges(root, data_dir, "dask", "--dask", dask_address, "--task-size", "2K") == expected


def test_a_text_file_over_the_document_size_trains_as_its_pieces(tmp_path):
    """A long text file is read as pieces cut after line ends: the same pieces with any task size."""
    text = "\n".join(" ".join(tie_documents(seed)[:40]) for seed in range(4))
    (tmp_path / "long.txt").write_text(text, encoding="utf-8")
    data_dir = tmp_path / "data"
    args = ["train", str(tmp_path / "long.txt"), "--vocab-size", "300", "--max-document-size", "2K"]
    one = run_cli(*args, "--name", "a", "--workers", "1", data_dir=data_dir)
    two = run_cli(*args, "--name", "b", "--workers", "2", "--task-size", "2K", data_dir=data_dir)
    assert one.returncode == two.returncode == 0, (one.stderr, two.stderr)
    load = lambda name: list(BPETokenizer.load(data_dir / "tokenizers" / f"{name}.bpe").merges)  # noqa: E731
    assert load("a") == load("b")
    assert b"documents" in one.stderr and b"(1 documents" not in one.stderr
