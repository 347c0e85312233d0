"""Job state in SQLite (`<data dir>/jobs.sqlite3`, the standard library's sqlite3).

One row per job: its kind, the tokenizer name, its status (queued, running, done,
failed, cancelled, interrupted), progress (merges done of total, and the phase:
starting, counting, merging, saving), times, the spec and the result as JSON, an error, and the
owner: the runner (one per process) that runs it. WAL mode, so readers never wait for
the writer, and a busy timeout, so the processes sharing a data directory (uvicorn
workers, the CLI) take turns instead of failing. Every change of status is one
conditional UPDATE, so a cancel and the end of a job cannot both win. `create` checks
that no active job has the name and inserts in one `BEGIN IMMEDIATE` transaction, so of
two processes submitting one name at once exactly one gets it. `begin_saving` records the
summary the job will report, with the sha256 of the model it is about to write, so a
process killed after the write can be told from one killed before it (runner.py).

Finished jobs are kept (the newest MAX_KEPT) so a job page still reads after a restart.
Left out: a schema migration scheme (one table; a new column would need one).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

from app.sqlite_wal import use_wal

ACTIVE = ("queued", "running")
STATUSES = ("queued", "running", "done", "failed", "cancelled", "interrupted")
MAX_KEPT = 1_000
BUSY_TIMEOUT_MS = 10_000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    status TEXT NOT NULL,
    phase TEXT NOT NULL DEFAULT '',
    spec TEXT NOT NULL,
    merges_done INTEGER NOT NULL DEFAULT 0,
    merges_total INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL,
    started REAL,
    finished REAL,
    owner TEXT NOT NULL,
    error_code TEXT,
    error TEXT,
    result TEXT,
    first_merges TEXT
);
CREATE INDEX IF NOT EXISTS jobs_by_status ON jobs (status);
"""
_ACTIVE_SQL = "status IN ('queued', 'running')"


class JobStore:
    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        # Two connections shared by the threads of this process, each under its own lock: writes
        # may wait (busy timeout) for another process's write; reads never wait for a write in WAL
        # mode, so a status read on the event loop is never stuck behind one.
        self._db, self._reader = (
            sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False)
            for _ in range(2)
        )
        self._lock, self._read_lock = threading.Lock(), threading.Lock()
        with self._lock:
            self._db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            use_wal(self._db, BUSY_TIMEOUT_MS / 1000)
            self._db.execute("PRAGMA synchronous = NORMAL")
            self._db.executescript(_SCHEMA)
            _add_first_merges(self._db)
        self._reader.row_factory = sqlite3.Row
        self._reader.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")

    def close(self) -> None:
        with self._lock, self._read_lock:
            self._db.close()
            self._reader.close()

    def _write(self, sql: str, args: tuple = ()) -> int:
        with self._lock:
            return self._db.execute(sql, args).rowcount

    def _read(self, sql: str, args: tuple = ()) -> list[dict]:
        with self._read_lock:
            return [dict(row) for row in self._reader.execute(sql, args).fetchall()]

    # -- creating and reading ----------------------------------------------------------

    def create(
        self,
        job_id: str,
        kind: str,
        name: str,
        spec: str,
        merges_total: int,
        owner: str,
        status: str = "queued",
        check: Callable[[], None] | None = None,
    ) -> bool:
        """Record a job, unless an active job has its name already: False then. The check and
        the insert are one transaction holding SQLite's write lock (BEGIN IMMEDIATE), so this is
        atomic across processes. `check` runs inside it; what it raises leaves nothing recorded."""
        now = time.time()
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                if self._db.execute(f"SELECT 1 FROM jobs WHERE name = ? AND {_ACTIVE_SQL} LIMIT 1", (name,)).fetchone():
                    self._db.execute("ROLLBACK")
                    return False
                if check is not None:
                    check()
                self._db.execute(
                    "INSERT INTO jobs (id, kind, name, status, spec, merges_total, created, started, owner) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (job_id, kind, name, status, spec, merges_total, now, now if status == "running" else None, owner),
                )
                self._db.execute(
                    f"DELETE FROM jobs WHERE NOT {_ACTIVE_SQL} AND id NOT IN "
                    f"(SELECT id FROM jobs WHERE NOT {_ACTIVE_SQL} ORDER BY created DESC LIMIT ?)",
                    (MAX_KEPT,),
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return True

    def get(self, job_id: str) -> dict | None:
        rows = self._read("SELECT * FROM jobs WHERE id = ?", (job_id,))
        if not rows:
            return None
        row = rows[0]
        row["result"] = json.loads(row["result"]) if row["result"] else None
        return row

    def active(self) -> list[dict]:
        return self._read(f"SELECT id, name, status, owner FROM jobs WHERE {_ACTIVE_SQL} ORDER BY created")

    def recent(self, limit: int = 10) -> list[dict]:
        return self._read(
            "SELECT id, name, status, merges_done, merges_total, created FROM jobs ORDER BY created DESC LIMIT ?",
            (limit,),
        )

    # -- changes of state: each a conditional UPDATE ------------------------------------

    def start(self, job_id: str) -> bool:
        """queued -> running; False if it is no longer queued (cancelled meanwhile)."""
        return (
            self._write(
                "UPDATE jobs SET status = 'running', phase = 'starting', started = ? "
                "WHERE id = ? AND status = 'queued'",
                (time.time(), job_id),
            )
            == 1
        )

    def set_phase(self, job_id: str, phase: str) -> None:
        self._write(
            "UPDATE jobs SET phase = ? WHERE id = ? AND status = 'running' AND phase != 'saving'", (phase, job_id)
        )

    def progress(self, job_id: str, done: int, total: int) -> None:
        self._write(
            "UPDATE jobs SET merges_done = ?, merges_total = ?, phase = 'merging' "
            "WHERE id = ? AND status = 'running' AND phase != 'saving'",
            (done, total, job_id),
        )

    def first_merges(self, job_id: str, rows: list[dict]) -> None:
        """The first merges made so far, with their counts (child.py sends them)."""
        self._write("UPDATE jobs SET first_merges = ? WHERE id = ? AND status = 'running'", (json.dumps(rows), job_id))

    def begin_saving(self, job_id: str, summary: dict) -> bool:
        """running -> saving (a cancel can no longer win), with the summary the job will report
        (its `sha256`: the model it is about to write); False if it was cancelled first."""
        return (
            self._write(
                "UPDATE jobs SET phase = 'saving', result = ? WHERE id = ? AND status = 'running'",
                (json.dumps(summary), job_id),
            )
            == 1
        )

    def finish(
        self,
        job_id: str,
        status: str,
        *,
        result: dict | None = None,
        error: tuple[str, str] | None = None,
        merges: int | None = None,
    ) -> bool:
        """An active job ends as `status`; False if it had ended already (a cancel came first)."""
        code, message = error or (None, None)
        extra = ""
        args: tuple[int, ...] = ()
        if merges is not None:  # done: the merges it made are the whole of it
            extra, args = ", merges_done = ?, merges_total = ?", (merges, merges)
        return (
            self._write(
                f"UPDATE jobs SET status = ?, finished = ?, error_code = ?, error = ?, result = ?{extra} "
                f"WHERE id = ? AND {_ACTIVE_SQL}",
                (status, time.time(), code, message, json.dumps(result) if result is not None else None, *args, job_id),
            )
            == 1
        )

    def cancel(self, job_id: str) -> bool:
        """queued or running (not yet saving) -> cancelled."""
        return (
            self._write(
                f"UPDATE jobs SET status = 'cancelled', finished = ?, error_code = 'cancelled', "
                f"error = 'cancelled before it finished; nothing was saved' "
                f"WHERE id = ? AND {_ACTIVE_SQL} AND phase != 'saving'",
                (time.time(), job_id),
            )
            == 1
        )

    def interrupt(self, job_id: str, message: str) -> bool:
        return self.finish(job_id, "interrupted", error=("interrupted", message))


def _add_first_merges(db: sqlite3.Connection) -> None:
    """The first_merges column, in a jobs table made before it existed."""
    if "first_merges" not in [row[1] for row in db.execute("PRAGMA table_info(jobs)")]:
        try:
            db.execute("ALTER TABLE jobs ADD COLUMN first_merges TEXT")
        except sqlite3.OperationalError as error:  # another process added it first
            if "duplicate column" not in str(error):
                raise


def public(row: dict) -> dict:
    """A job as the API shows it."""
    spec = json.loads(row["spec"])
    end = row["finished"] or (time.time() if row["status"] in ACTIVE else None)
    out = {
        "job": row["id"],
        "status": row["status"],
        "phase": row["phase"] if row["status"] == "running" else None,
        "name": row["name"],
        "merges_done": row["merges_done"],
        "merges_total": row["merges_total"],
        "elapsed_s": round(max(end - row["started"], 0.0), 2) if row["started"] and end else 0.0,
        "spec": {key: spec[key] for key in ("vocab_size", "pattern", "special_tokens", "replace")},
    }
    if row.get("first_merges"):
        out["first_merges"] = json.loads(row["first_merges"])
    if row["status"] == "done":
        out["tokenizer"] = row["name"]
        out["summary"] = row["result"]
    if row["error"]:
        out["error"] = {"code": row["error_code"], "message": row["error"]}
    return out
