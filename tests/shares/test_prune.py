"""Pruning the share store: `ShareStore.prune` on a real SQLite file (by age, then the oldest
until under a size, a dry run that changes nothing, the totals kept right, a store still
written to while it prunes), and `tokenprism shares prune` as the operator runs it."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
from datetime import timedelta

import pytest

from app.settings import REPO_ROOT
from app.shares.store import FILE_NAME, ShareStore

MB = 1_000_000


def doc(text: str) -> dict:
    return {"v": 1, "page": "playground", "query": [["tokenizer", "gpt2"], ["text", text]]}


def aged(path, key: str, days: int) -> None:
    """Make share `key` look created `days` days ago."""
    with sqlite3.connect(path) as conn:
        conn.execute(
            "UPDATE shares SET created = strftime('%Y-%m-%dT%H:%M:%SZ', 'now', ?) WHERE id = ?", (f"-{days} days", key)
        )


@pytest.fixture
def store(tmp_path):
    return ShareStore(tmp_path / FILE_NAME, MB, 100 * MB)


def stored(store, count: int) -> list[str]:
    """`count` shares, the first the oldest (created count-1 .. 0 days ago), of about 1-2 KB each."""
    keys = [store.put(doc(os.urandom(800).hex() + str(n))) for n in range(count)]
    for n, key in enumerate(keys):
        aged(store.path, key, count - 1 - n)
    return keys


def test_prune_by_age_removes_exactly_the_older_shares(store):
    keys = stored(store, 5)  # 4, 3, 2, 1, 0 days old
    pruned = store.prune(older_than=timedelta(days=2, hours=12))
    assert [key for key, _, _ in pruned.removed] == keys[:2]
    assert [store.get(key) is None for key in keys] == [True, True, False, False, False]
    assert store.usage() == (3, pruned.bytes) and pruned.shares == 3


def test_prune_to_a_size_removes_the_oldest_until_under_it(store):
    keys = stored(store, 6)
    sizes = {key: store.get(key).size for key in keys}
    total = sum(sizes.values())
    limit = total - sizes[keys[0]] - sizes[keys[1]] // 2  # needs the two oldest gone
    pruned = store.prune(max_bytes=limit)
    assert [key for key, _, _ in pruned.removed] == keys[:2]
    assert store.usage() == (4, total - sizes[keys[0]] - sizes[keys[1]]) and pruned.bytes <= limit
    assert store.prune(max_bytes=limit).removed == []  # already under it
    everything = store.prune(max_bytes=0)
    assert len(everything.removed) == 4 and store.usage() == (0, 0)


def test_age_then_size_and_a_dry_run_that_changes_nothing(store):
    keys = stored(store, 6)
    before = store.usage()
    sizes = [store.get(key).size for key in keys]
    trial = store.prune(older_than=timedelta(days=4, hours=12), max_bytes=sum(sizes[2:]), dry_run=True)
    assert [key for key, _, _ in trial.removed] == keys[:2] and trial.shares == 4
    assert store.usage() == before and all(store.get(key) for key in keys)
    done = store.prune(older_than=timedelta(days=4, hours=12), max_bytes=sum(sizes[3:]))
    assert [key for key, _, _ in done.removed] == keys[:3]
    assert store.usage() == (3, sum(sizes[3:]))


def test_a_share_removed_can_be_shared_again_and_a_missing_store_prunes_nothing(store, tmp_path):
    assert ShareStore(tmp_path / "none" / FILE_NAME, MB, MB).prune(max_bytes=0).removed == []
    key = store.put(doc("again"))
    store.prune(max_bytes=0)
    assert store.get(key) is None and store.put(doc("again")) == key and store.get(key).document == doc("again")


def test_pruning_while_another_writer_shares(store):
    stored(store, 20)
    errors = []

    def writer():
        other = ShareStore(store.path, MB, 100 * MB)  # as another server process would have
        try:
            for n in range(40):
                other.put(doc(f"new {n}"))
        except Exception as error:
            errors.append(error)

    thread = threading.Thread(target=writer)
    thread.start()
    for _ in range(5):
        store.prune(older_than=timedelta(days=9, hours=12))  # the 10 created 10 to 19 days ago
    thread.join()
    assert errors == []
    with sqlite3.connect(store.path) as conn:
        rows, total = conn.execute("SELECT count(*), coalesce(sum(size), 0) FROM shares").fetchone()
    assert store.usage() == (rows, total)  # the triggers kept the totals right
    assert rows == 10 + 40


def prune_cli(data_dir, *args) -> subprocess.CompletedProcess:
    env = {**os.environ, "TOKENPRISM_DATA_DIR": str(data_dir)}
    return subprocess.run(
        [sys.executable, "-m", "app.cli", "shares", "prune", *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_command_lists_what_it_removes_and_refuses_no_criterion(tmp_path):
    store = ShareStore(tmp_path / FILE_NAME, MB, 100 * MB)
    keys = stored(store, 3)
    trial = prune_cli(tmp_path, "--older-than", "1.5", "--dry-run")
    assert trial.returncode == 0, trial.stderr
    assert f"would remove {keys[0]}" in trial.stdout and "would remove 1 shares" in trial.stdout
    assert store.usage()[0] == 3
    done = prune_cli(tmp_path, "--older-than", "0.5")
    assert done.returncode == 0 and f"removed {keys[0]}" in done.stdout and f"removed {keys[1]}" in done.stdout
    assert "left 1 shares" in done.stdout and store.usage()[0] == 1
    refused = prune_cli(tmp_path)
    assert refused.returncode == 2 and "--older-than" in refused.stderr and "Traceback" not in refused.stderr
    assert prune_cli(tmp_path, "--max-bytes", "-1").returncode == 2
