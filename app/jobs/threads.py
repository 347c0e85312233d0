"""The job runner's threads: each of `jobs` long-lived threads takes the next queued job and
runs `child.main` in a process of multiprocessing's spawn context (the thread outlives the
child, which the kernel kills when that thread's process dies), relays its progress to the
store and lets it write its model only if the job was not cancelled first.

A job whose process is gone ends as the disk says (`_end`): `done` if the model it recorded
before writing (`work.saved`: same sha256) is in place, else interrupted (or failed) with
nothing saved. Leaves queueing, cancelling and recovery to `runner.JobRunner`, the class
to build, which sets the fields.
"""

from __future__ import annotations

import collections
import logging
import multiprocessing
import os
import threading
import time
from pathlib import Path

from app.jobs import child
from app.jobs.store import ACTIVE, JobStore
from app.jobs.work import remove_temps, saved

log = logging.getLogger("tokenprism")
STOPPED = "the server stopped before this job finished; nothing was saved. Start it again"
SAVED_BEFORE_STOP = (
    "the model was saved whole just before its training process stopped; the job's end was recorded afterwards"
)
POLL_S = 0.25  # how often a job's thread looks for a cancel recorded by another process
PROGRESS_WRITE_S = 0.25  # progress is written to the store at most this often
_SPAWN = multiprocessing.get_context("spawn")


class JobThreads:
    tokenizer_dir: Path
    corpus_dir: Path
    memory_bytes: int
    store: JobStore
    _lock: threading.Condition
    _waiting: collections.deque[str]
    _running: dict[str, multiprocessing.process.BaseProcess | None]
    _closed: bool

    def _end(self, job_id: str, status: str, message: str, code: str | None = None) -> str | None:
        """End an active job whose process is gone as the disk says: `done` when the model it
        recorded before writing is in place, whole; else `status` with `message`, its temp
        files removed. The status it ended with; None if it had ended already."""
        row = self.store.get(job_id)
        if row is None or row["status"] not in ACTIVE:
            return None
        summary = row["result"] if row["phase"] == "saving" else None
        if summary is not None and saved(self.tokenizer_dir, row["name"], summary):
            if self.store.finish(
                job_id, "done", result={**summary, "note": SAVED_BEFORE_STOP}, merges=summary["merges"]
            ):
                log.warning("training job %s: its model was saved before its process stopped; it is done", job_id)
                return "done"
            return None
        ended = self.store.finish(job_id, status, error=(code or status, message))
        remove_temps(self.tokenizer_dir, row["name"])
        return status if ended else None

    def _forget_corpus(self, job_id: str) -> None:
        (self.corpus_dir / f"{job_id}.json").unlink(missing_ok=True)

    def _work(self) -> None:
        while True:
            with self._lock:
                while not self._waiting and not self._closed:
                    self._lock.wait()
                if self._closed:
                    return
                job_id = self._waiting.popleft()
                self._running[job_id] = None
            try:
                self._run(job_id)
            except Exception:
                log.exception("training job %s failed in its runner", job_id)
                self.store.finish(
                    job_id, "failed", error=("internal_error", "the job runner failed; it has been logged")
                )
            finally:
                with self._lock:
                    self._running.pop(job_id, None)
                self._forget_corpus(job_id)

    def _run(self, job_id: str) -> None:
        job = self.store.get(job_id)
        if job is None or not self.store.start(job_id):
            return  # cancelled while it waited
        ours, theirs = _SPAWN.Pipe(duplex=True)
        process = _SPAWN.Process(
            target=child.main,
            name=f"tokenprism-train-{job_id[:8]}",
            daemon=True,
            args=(
                job["spec"],
                str(self.corpus_dir / f"{job_id}.json"),
                str(self.tokenizer_dir),
                theirs,
                os.getpid(),
                self.memory_bytes,
            ),
        )
        with self._lock:
            if self._closed:
                return
            process.start()
            self._running[job_id] = process
        theirs.close()
        outcome = self._follow(job_id, ours)
        process.join(timeout=10)
        if process.is_alive():
            process.kill()
            process.join()
        ours.close()
        if outcome and outcome[0] == "done":
            self.store.finish(job_id, "done", result=outcome[1], merges=outcome[1]["merges"])
            return
        if outcome and outcome[0] == "failed":
            self.store.finish(job_id, "failed", error=(outcome[1], outcome[2]))
        elif self._closed:
            self._end(job_id, "interrupted", STOPPED)
        elif (
            self._end(
                job_id,
                "failed",
                f"the training process ended without a result (exit code "
                f"{process.exitcode}; out of memory?); nothing was saved",
                "worker_died",
            )
            == "failed"
        ):
            log.warning("training job %s: its process died with exit code %s", job_id, process.exitcode)
        remove_temps(self.tokenizer_dir, job["name"])

    def _follow(self, job_id: str, conn) -> tuple | None:
        """Relay the child's messages until it reports an end, dies, or its job is cancelled."""
        pending, written, checked = None, 0.0, time.monotonic()
        while True:
            message = None
            try:
                if conn.poll(POLL_S):
                    message = conn.recv()
            except (EOFError, OSError):
                return None  # died, or killed by cancel or close
            now = time.monotonic()
            if message is not None:
                if message[0] in ("done", "failed"):
                    return message
                if message[0] == "progress":
                    pending = message[1:]
                elif message[0] == "phase":
                    self.store.set_phase(job_id, message[1])
                elif message[0] == "merges":
                    self.store.first_merges(job_id, message[1])
                elif message[0] == "saving":
                    if pending:
                        self.store.progress(job_id, *pending)
                    conn.send(("go",) if self.store.begin_saving(job_id, message[1]) else ("stop",))
            if pending and now - written >= PROGRESS_WRITE_S:
                self.store.progress(job_id, *pending)
                pending, written = None, now
            if now - checked >= POLL_S:
                checked = now
                row = self.store.get(job_id)
                if row is None or row["status"] not in ACTIVE:
                    with self._lock:
                        process = self._running.get(job_id)
                    if process is not None:
                        process.kill()
                    return None
