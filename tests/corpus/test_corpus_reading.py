"""Reading a corpus: which files, in which order, the documents of each, and how tasks cut it
(never inside a document: the same documents, in the same order, for every task size)."""

from __future__ import annotations

import gzip
import json
import random

import pytest

from app.corpus.problems import Problems
from app.corpus.readers import WINDOW, documents
from app.corpus.sources import CorpusError, CorpusOptions, format_of, open_plan


def read_all(paths, **options) -> tuple[list[str], Problems]:
    """Every document of the plan, task by task in order, and the problems met."""
    problems = Problems()
    with open_plan([str(p) for p in paths], CorpusOptions(**options)) as plan:
        problems.add(plan.problems)
        texts = [
            text
            for task in plan.tasks()
            for part in task.parts
            for text, size in documents(part, plan.options, problems)
        ]
    return texts, problems


def test_corpus_order_and_filters(corpus):
    root, expected, _, _ = corpus
    with open_plan([str(root / "docs")], CorpusOptions(exclude=("node_modules",))) as plan:
        shown = [source.shown.removeprefix(str(root / "docs") + "/") for source in plan.sources]
    assert shown == ["bad.txt", "intro.md", "a/one.py", "a/two.txt", "a/deep/x.py", "b/empty.txt", "b/long.txt"]
    with open_plan([str(root / "docs")], CorpusOptions(include=("*.py", "b/*"))) as plan:
        shown = [source.shown.removeprefix(str(root / "docs") + "/") for source in plan.sources]
    assert shown == ["a/one.py", "a/deep/x.py", "b/empty.txt", "b/long.txt"]
    texts, _problems = read_all([root / "docs", root / "data"], exclude=("node_modules",))
    assert texts == expected


def test_formats_by_name():
    assert [format_of(n) for n in ["a.jsonl", "A.JSONL.GZ", "b.ndjson", "c.parquet", "d.txt.gz", "e.py", "f"]] == [
        "jsonl",
        "jsonl.gz",
        "jsonl",
        "parquet",
        "gz",
        "text",
        "text",
    ]


@pytest.mark.parametrize("task_size", [1 << 10, 3 << 10, 10 << 10, 1 << 20])
def test_the_same_documents_for_every_task_size(corpus, task_size):
    root, expected, _, _ = corpus
    texts, problems = read_all([root / "docs", root / "data"], exclude=("node_modules",), task_bytes=task_size)
    assert texts == expected
    assert (problems.bad_files, problems.bad_records) == (corpus[2], corpus[3])


def random_text_bytes(rng: random.Random, size: int, newline_every: int) -> bytes:
    alphabet = ["a", "é", "한", "😀", " ", "\t"]
    out, length = [], 0
    while length < size:
        piece = rng.choice(alphabet) if rng.randrange(newline_every) else "\n"
        out.append(piece)
        length += len(piece.encode())
    return "".join(out).encode()


@pytest.mark.parametrize("newline_every", [40, 5000, 10**9], ids=["lines", "long-lines", "no-newline"])
def test_long_text_files_are_cut_into_whole_characters_at_fixed_places(tmp_path, newline_every):
    rng = random.Random(newline_every)
    data = random_text_bytes(rng, 50_000, newline_every)
    path = tmp_path / "big.txt"
    path.write_bytes(data)
    piece = 4096
    cuts = None
    for task_size in (1 << 10, 8 << 10, 20 << 10, 1 << 20):
        texts, problems = read_all([path], max_document_bytes=piece, task_bytes=task_size)
        assert not problems
        assert "".join(texts).encode() == data, "pieces join to the file"
        assert all(len(t.encode()) <= piece + min(piece, WINDOW) for t in texts)
        if newline_every == 40:
            assert all(t.endswith("\n") for t in texts[:-1]), "cut after a line end"
        assert cuts in (None, texts), "the same pieces whatever the task size"
        cuts = texts
    assert len(cuts) >= 50_000 // piece


def test_jsonl_byte_ranges_read_every_line_once(tmp_path):
    rng = random.Random(1)
    records = ["x" * rng.randint(0, 300) + str(i) for i in range(400)]
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps({"text": r}) + "\n" for r in records), encoding="utf-8")
    for task_size in (1 << 10, 1500, 4 << 10, 1 << 20):
        texts, problems = read_all([path], task_bytes=task_size)
        assert texts == records and not problems


def test_a_truncated_gzip_keeps_what_came_before_and_says_so(tmp_path):
    records = [f"record number {i} " * 20 for i in range(2000)]
    data = gzip.compress("".join(json.dumps({"text": r}) + "\n" for r in records).encode())
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(data[: len(data) // 2])
    texts, problems = read_all([path])
    assert 0 < len(texts) < len(records) and texts == records[: len(texts)]
    assert problems.bad_files == 1 and "the rest of the file was skipped" in problems.messages()[0]


def test_records_over_the_document_size_are_skipped_and_reported(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text(
        json.dumps({"text": "small"})
        + "\n"
        + json.dumps({"text": "y" * 5000})
        + "\n"
        + json.dumps({"text": "z" * 50_000})
        + "\n"
        + json.dumps({"text": "after"})
        + "\n"
    )
    texts, problems = read_all([path], max_document_bytes=2048)
    assert texts == ["small", "after"] and problems.bad_records == 2
    assert "over --max-document-size" in problems.messages()[0] and "a line over" in problems.messages()[1]


def test_parquet_files_that_cannot_be_read_are_problems(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"body": ["a", "b"]}), tmp_path / "other.parquet")
    pq.write_table(pa.table({"text": [1, 2]}), tmp_path / "numbers.parquet")
    (tmp_path / "junk.parquet").write_bytes(b"PAR1 not really")
    pq.write_table(pa.table({"text": ["kept"]}), tmp_path / "good.parquet")
    texts, problems = read_all([tmp_path])
    assert texts == ["kept"] and problems.bad_files == 3
    joined = "\n".join(problems.messages())
    assert "no column 'text' (its columns: body)" in joined and "holds int64, not text" in joined
    assert "not a readable Parquet file" in joined
    texts, problems = read_all([tmp_path / "other.parquet"], column="body")
    assert texts == ["a", "b"] and not problems


def test_mistakes_in_what_was_asked(tmp_path, corpus):
    root = corpus[0]
    cases = [
        ([str(tmp_path / "missing")], {}, "no such file or directory"),
        ([str(root / "docs")], {"field": "body"}, "--field applies to .jsonl"),
        ([str(root / "docs")], {"column": "body"}, "--column applies to .parquet"),
        ([str(root / "data" / "a.jsonl")], {"exclude": ("x",)}, "--include and --exclude"),
        ([], {}, "give one or more files"),
    ]
    for paths, options, fragment in cases:
        with pytest.raises(CorpusError, match=fragment.replace(".", r"\.")):
            open_plan(paths, CorpusOptions(**options))
