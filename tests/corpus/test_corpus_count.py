"""`tokenprism count` over a generated corpus (folders, .jsonl, .jsonl.gz, .parquet, broken files):
the same counts in one process, on a local pool and on a real Dask cluster, equal to the
reference libraries' sums; and the options a user can get wrong."""

from __future__ import annotations

import json

import pytest

from app.bpe.model import BPETokenizer
from tests.corpus.conftest import run_cli
from tests.reference import reference_ids

NAMES = ["cl100k_base", "o200k_base", "mistral_v1", "tokenprism_4k"]
VARYING = ("runner", "workers", "seconds")  # the only fields that may differ between runs


def count_args(root, *extra: str) -> list[str]:
    names = [arg for name in NAMES for arg in ("-t", name)]
    return [
        "count",
        *names,
        "-t",
        "mini",
        str(root / "docs"),
        str(root / "data"),
        "--exclude",
        "node_modules",
        "--by",
        "file",
        "--json",
        *extra,
    ]


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory, corpus):
    """A data directory with a tokenizer trained here ('mini'): the workers' registries do not have it."""
    folder = tmp_path_factory.mktemp("count-data")
    BPETokenizer.train(corpus[1][:40], 400, name="mini").save(folder / "tokenizers" / "mini.bpe")
    return folder


@pytest.fixture(scope="module")
def in_one_process(corpus, data_dir):
    result = run_cli(*count_args(corpus[0], "--workers", "1"), data_dir=data_dir)
    assert result.returncode == 0, result.stderr.decode()
    return json.loads(result.stdout)


def without_runner(report: dict) -> dict:
    return {key: value for key, value in report.items() if key not in VARYING}


def test_counts_equal_the_reference_libraries(in_one_process, corpus, data_dir):
    _, documents, bad_files, bad_records = corpus
    report = in_one_process
    assert report["runner"] == "this process"
    for name in ("cl100k_base", "o200k_base", "mistral_v1"):  # tiktoken's own and SentencePiece's own ids
        assert report["total"][name] == sum(len(reference_ids(name, text)) for text in documents), name
    mini = BPETokenizer.load(data_dir / "tokenizers" / "mini.bpe")
    assert report["total"]["mini"] == sum(len(mini.encode(text)) for text in documents)
    assert report["documents"] == len(documents)
    assert report["bytes"] == sum(len(text.encode("utf-8")) for text in documents)
    assert report["characters"] == sum(map(len, documents))
    problems = report["problems"]
    assert (problems["bad_files"], problems["bad_records"]) == (bad_files, bad_records)
    assert any("broken.jsonl.gz" in line and "gzip" in line for line in problems["examples"])
    assert any("bad.txt" in line and "not UTF-8" in line for line in problems["examples"])
    assert not any("node_modules" in group or ".hidden" in group for group in report["files"])
    for name in report["tokenizers"]:
        assert sum(row[name] for row in report["files"].values()) == report["total"][name]


@pytest.mark.parametrize(
    "extra, runner",
    [
        (["--workers", "2", "--task-size", "1K", "--max-document-size", "8M"], "2 local processes"),
        (["--workers", "2", "--task-size", "5K"], "2 local processes"),
        (["--dask", "ADDRESS", "--task-size", "2K"], "Dask cluster at tcp://127.0.0.1"),
    ],
    ids=["pool-1K", "pool-5K", "dask-cluster"],
)
def test_counts_do_not_depend_on_how_the_work_is_split(extra, runner, in_one_process, corpus, data_dir, dask_address):
    extra = [dask_address if arg == "ADDRESS" else arg for arg in extra]
    result = run_cli(*count_args(corpus[0], *extra), data_dir=data_dir)
    assert result.returncode == 0, result.stderr.decode()
    report = json.loads(result.stdout)
    assert report["runner"].startswith(runner)
    assert without_runner(report) == without_runner(in_one_process)


def test_dask_local_starts_a_cluster_of_processes(in_one_process, corpus, data_dir):
    result = run_cli(
        *count_args(corpus[0], "--dask", "local", "--workers", "2", "--task-size", "3K"), data_dir=data_dir
    )
    assert result.returncode == 0, result.stderr.decode()
    report = json.loads(result.stdout)
    assert report["runner"].startswith("Dask LocalCluster of 2 processes at tcp://127.0.0.1:")
    assert without_runner(report) == without_runner(in_one_process)


def test_table_for_people(corpus, data_dir):
    root = corpus[0]
    result = run_cli(
        "count", "-t", "cl100k_base", "-t", "o200k_base", str(root / "data"), "--by", "ext", data_dir=data_dir
    )
    assert result.returncode == 0, result.stderr.decode()
    lines = result.stdout.decode().splitlines()
    assert lines[0].split() == ["TOKENIZER", "TOKENS", "TOKENS/BYTE", "CHARS/TOKEN", "VS", "BEST"]
    assert len({len(line) for line in lines[:3]}) == 1, "numbers are right-aligned"
    assert lines[2].split()[-1] == "best" and lines[1].split()[-1].startswith("+")
    assert "," in lines[1].split()[1], "thousands are separated"
    assert lines[4].startswith("4 files, ") and " documents, " in lines[4]
    header = lines[6].split()
    assert header == ["EXT", "FILES", "DOCUMENTS", "BYTES", "cl100k_base", "o200k_base"]
    assert [line.split()[0] for line in lines[7:10]] == [".jsonl", ".jsonl.gz", ".parquet"]
    assert lines[10].split()[:2] == ["TOTAL", "4"]
    assert "skipped: 1 unreadable file, 5 bad records" in result.stdout.decode()
    assert result.stderr.decode().startswith("tokenprism: warning: skipped 1 unreadable file, 5 bad records")


def test_stdin_counts_as_a_file_does(corpus, data_dir):
    path = corpus[0] / "docs" / "b" / "long.txt"
    args = ["count", "-t", "cl100k_base", "--json", "--max-document-size", "4K", "--task-size", "4K", "--workers", "2"]
    from_file = json.loads(run_cli(*args, str(path), data_dir=data_dir).stdout)
    from_stdin = json.loads(run_cli(*args, "-", data_dir=data_dir, stdin=path.read_bytes()).stdout)
    assert from_file["documents"] > 3, "the file is read in pieces"
    assert from_stdin["total"] == from_file["total"] and from_stdin["files"]["-"] == from_file["files"][str(path)]


def test_progress_goes_to_stderr_only_when_asked(corpus, data_dir):
    root = corpus[0]
    quiet = run_cli("count", str(root / "docs" / "a"), data_dir=data_dir)
    assert quiet.returncode == 0 and quiet.stderr == b""
    shown = run_cli("count", str(root / "docs" / "a"), "--progress", data_dir=data_dir)
    assert b"counting [" in shown.stderr and b"/s" in shown.stderr and b"counted " in shown.stderr
    assert shown.stdout == quiet.stdout


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["count", "/no/such/dir"], "no such file or directory: /no/such/dir"),
        (["count", "-t", "gpt-9", "DOCS"], "unknown tokenizer 'gpt-9'"),
        (["count", "DOCS", "--field", "body"], "--field applies to .jsonl"),
        (["count", "DATA/a.jsonl", "--column", "body"], "--column applies to .parquet"),
        (["count", "DATA/a.jsonl", "--include", "*.py"], "--include and --exclude filter"),
        (["count", "DOCS", "--task-size", "0"], "--task-size 0 is out of range"),
        (["count", "DOCS", "--max-document-size", "8 parsecs"], "is not a size"),
        (["count", "DOCS", "--workers", "0"], "--workers 0 is out of range"),
        (["count", "DOCS", "--dask", "not an address"], "is not a scheduler address"),
        (["count", "DOCS", "--dask", "tcp://127.0.0.1:9", "--workers", "2"], "drop --workers"),
        (["count", "DOCS", "--dask", "tcp://127.0.0.1:1"], "cannot use the Dask scheduler at tcp://127.0.0.1:1"),
        (["count", "DOCS", "--messages", "chat.json"], "either files or --messages"),
        (["count", "DOCS", "--include", "*.none"], "no files to read in"),
        (["train", "DOCS", "--vocab-size", "100", "--name", "x"], "vocab_size 100 is too small"),
    ],
)
def test_bad_options_are_one_line_and_status_2(args, fragment, corpus, data_dir):
    root = corpus[0]
    args = [a.replace("DOCS", str(root / "docs")).replace("DATA", str(root / "data")) for a in args]
    result = run_cli(*args, data_dir=data_dir, timeout=60)
    error = result.stderr.decode()
    assert result.returncode == 2, (result.returncode, error)
    assert fragment in error and len(error.strip().splitlines()) == 1 and "Traceback" not in error, error
