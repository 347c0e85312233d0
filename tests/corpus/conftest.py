"""Fixtures for the corpus tests: a generated corpus, a real Dask LocalCluster, the CLI as a user runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.corpus.corpus_maker import make_corpus

SCRIPT = Path(sys.executable).with_name("tokenprism")


def run_cli(*args: str, data_dir: Path, stdin: bytes = b"", timeout: int = 240) -> subprocess.CompletedProcess:
    env = {**os.environ, "TOKENPRISM_DATA_DIR": str(data_dir)}
    return subprocess.run([str(SCRIPT), *args], input=stdin, capture_output=True, env=env, timeout=timeout)


@pytest.fixture(scope="session")
def corpus(tmp_path_factory):
    """(root, documents in corpus order, bad files, bad records) of tests/corpus/corpus_maker.py."""
    root = tmp_path_factory.mktemp("corpus")
    documents, bad_files, bad_records = make_corpus(root)
    return root, documents, bad_files, bad_records


@pytest.fixture(scope="module")
def dask_address():
    """A real Dask cluster on this machine: a scheduler and two worker processes over TCP (one thread each)."""
    from distributed import LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, host="127.0.0.1")
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()
