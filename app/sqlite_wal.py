"""Switching a SQLite database to WAL mode when other processes may be using it.

SQLite answers a journal-mode change with "database is locked" at once, without waiting
for its busy timeout, while another process holds a lock on the file (a second server or
trainer starting as the first creates or writes it). `use_wal` asks again until the
timeout. Both stores that live in the data directory (jobs, shares) open their files
through it. Nothing else is here.
"""

from __future__ import annotations

import sqlite3
import time


def use_wal(conn: sqlite3.Connection, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if ("locked" not in str(error) and "busy" not in str(error)) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)
