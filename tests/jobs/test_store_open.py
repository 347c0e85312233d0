"""A job store opens while another process writes to it (a second trainer starting as the first
sets it up): SQLite refuses a journal-mode change at once while a write lock is held, so
opening must wait for the lock instead of failing."""

from __future__ import annotations

import sqlite3
import threading

from app.jobs.store import JobStore


def test_a_store_opens_while_another_connection_holds_the_write_lock(tmp_path):
    path = tmp_path / "jobs.sqlite3"
    writer = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    writer.execute("CREATE TABLE early (x)")  # a first process, not yet in WAL mode
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("INSERT INTO early VALUES (1)")
    release = threading.Timer(0.5, lambda: writer.execute("COMMIT"))
    release.start()
    try:
        store = JobStore(path)  # waits for the writer, then opens
        assert store.get("no-such-job") is None
        store.close()
    finally:
        release.join()
        writer.close()
