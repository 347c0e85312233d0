"""The one job runner: a bounded queue, at most N jobs at once, each in a child process.

`submit` checks capacity (running + waiting + being submitted, at most `jobs + queue`;
more is `JobsBusy`, a 503 with Retry-After) and the name (one active job per name, across
processes: `JobStore.create` checks and records in one transaction; a taken name needs
`replace`), records the job (`store.py`), writes its corpus to
`<data dir>/jobs/corpus/ID.json` and queues it. Each of `jobs` long-lived threads takes
the next job and runs `child.main` in a process of multiprocessing's spawn context (the
thread outlives the child, which the kernel kills when that thread's process dies), relays
its progress to the store and lets it write its model only if the job was not cancelled
first. `cancel` kills the child; a cancel recorded by another process (a second uvicorn
worker) is seen within POLL_S. `run_inline` runs the same work (`work.train_and_save`) in
the calling process, for the CLI, with the same job record.

Liveness: each runner holds an flock on `jobs/owners/OWNER.lock` (made under a temp name,
locked, then renamed, so nobody sees it unlocked). At start, `recover` ends every queued
or running job whose owner's lock is free (its process died, even by SIGKILL), removes its
corpus file and its model temp files, and removes corpus files of no live job. `close`
(server shutdown) kills this runner's children and ends its jobs. A job whose process is
gone ends as the disk says (`_end`): `done` if the model it recorded before writing
(`work.saved`: same sha256) is in place, else interrupted (or failed) with nothing saved.
Left out: priorities, fairness between clients, resuming an interrupted job.
"""

from __future__ import annotations

import collections
import json
import logging
import multiprocessing
import os
import re
import secrets
import threading
import time
from collections.abc import Callable
from pathlib import Path

from app.errors import NameTaken, TokenprismError
from app.jobs import child, owners
from app.jobs.spec import TrainSpec
from app.jobs.store import ACTIVE, MAX_KEPT, JobStore, public
from app.jobs.work import name_taken, remove_temps, saved, taken_message, train_and_save

log = logging.getLogger("tokenprism")
STOPPED = "the server stopped before this job finished; nothing was saved. Start it again"
SAVED_BEFORE_STOP = (
    "the model was saved whole just before its training process stopped; the job's end was recorded afterwards"
)
POLL_S = 0.25  # how often a job's thread looks for a cancel recorded by another process
PROGRESS_WRITE_S = 0.25  # progress is written to the store at most this often
RETRY_AFTER_S = 10
MEMORY_BYTES = 4 << 30  # address space of a training child
JOB_ID = re.compile(r"[A-Za-z0-9_-]{22}")  # secrets.token_urlsafe(16)
_SPAWN = multiprocessing.get_context("spawn")


class JobsBusy(TokenprismError):
    code = "server_busy"
    status = 503

    def __init__(self, message: str):
        super().__init__(message)
        self.headers = {"Retry-After": str(RETRY_AFTER_S)}


class UnknownJob(TokenprismError):
    code = "unknown_job"
    status = 404


class JobConflict(TokenprismError):
    code = "job_finished"
    status = 409


class JobRunner:
    def __init__(
        self, data_dir: Path, tokenizer_dir: Path, *, jobs: int = 1, queue: int = 4, memory_bytes: int = MEMORY_BYTES
    ):
        self.tokenizer_dir = tokenizer_dir
        self.corpus_dir = data_dir / "jobs" / "corpus"
        self.owner_dir = data_dir / "jobs" / "owners"
        self.jobs, self.queue, self.memory_bytes = jobs, queue, memory_bytes
        for folder in (self.corpus_dir, self.owner_dir):
            folder.mkdir(parents=True, exist_ok=True)
        self.store = JobStore(data_dir / "jobs.sqlite3")
        self.owner, self._owner_fd = owners.claim(self.owner_dir)
        self._lock = threading.Condition()
        self._waiting: collections.deque[str] = collections.deque()
        self._reserved = 0  # jobs being submitted: counted against the bound before they are queued
        self._running: dict[str, multiprocessing.process.BaseProcess | None] = {}
        self._threads: list[threading.Thread] = []
        self._closed = False
        self.recover()

    @classmethod
    def for_settings(cls, settings) -> JobRunner:
        return cls(settings.data_dir, settings.user_tokenizer_dir, jobs=settings.train_jobs, queue=settings.train_queue)

    # -- the web's way: submit, then follow the store ---------------------------------------

    def submit(self, spec: TrainSpec, documents: list[str]) -> str:
        """Queue a checked job; its id. `JobsBusy` when `jobs + queue` are taken already."""
        with self._lock:
            if self._closed:
                raise JobsBusy("the server is shutting down; try again when it is back")
            load = len(self._running) + len(self._waiting) + self._reserved
            if load >= self.jobs + self.queue:
                raise JobsBusy(
                    f"{load} training jobs are running or waiting, the most this server takes "
                    f"({self.jobs} at once + {self.queue} waiting); try again in {RETRY_AFTER_S} s"
                )
            job_id = self._record(spec)
            self._reserved += 1
        try:
            (self.corpus_dir / f"{job_id}.json").write_text(json.dumps(documents, ensure_ascii=False), encoding="utf-8")
        except OSError as error:
            self.store.finish(
                job_id, "failed", error=("storage_error", f"the corpus could not be stored ({error.strerror})")
            )
            self._forget_corpus(job_id)
            raise TokenprismError(
                f"the corpus could not be stored in the data directory ({error.strerror}); try again later",
                code="storage_error",
                status=507,
            ) from None
        finally:
            with self._lock:
                self._reserved -= 1
        with self._lock:
            self._waiting.append(job_id)
            while len(self._threads) < self.jobs:
                thread = threading.Thread(target=self._work, name=f"tokenprism-jobs-{len(self._threads)}", daemon=True)
                self._threads.append(thread)
                thread.start()
            self._lock.notify()
        return job_id

    def status(self, job_id: str) -> dict:
        row = self.store.get(job_id) if JOB_ID.fullmatch(job_id) else None
        if row is None:
            raise UnknownJob(
                f"there is no training job {job_id!r} (finished jobs are kept until {MAX_KEPT:,} newer "
                "ones have finished); start one with POST /api/train"
            )
        return public(row)

    def cancel(self, job_id: str) -> dict:
        """Cancel a queued or running job (its child is killed); the job's state after it."""
        row = self.status(job_id)
        if row["status"] != "cancelled" and not self.store.cancel(job_id):
            row = self.status(job_id)
            if row["status"] != "cancelled":
                when = "is saving its model" if row["status"] == "running" else f"has already ended ({row['status']})"
                raise JobConflict(f"job {job_id} {when}; there is nothing to cancel")
        with self._lock:
            if job_id in self._waiting:
                self._waiting.remove(job_id)
                self._forget_corpus(job_id)
            process = self._running.get(job_id)
        if process is not None:
            process.kill()
        return self.status(job_id)

    # -- the CLI's way: the same work, in this process ----------------------------------------

    def run_inline(
        self, spec: TrainSpec, documents: list[str] | Callable, progress: Callable[[int, int], None] | None = None
    ) -> dict:
        """Train and save in this process, recorded as a job (DELETE /api/train/ID cancels it
        too); the summary. `documents` as `work.train_and_save` takes them (a list, or a function
        of the split regex returning chunk counts). Raises what it raises (NameTaken, ...)."""
        job_id = self._record(spec, status="running")
        last = 0.0

        def report(done: int, total: int) -> None:
            nonlocal last
            now = time.monotonic()
            if done >= total or now - last >= PROGRESS_WRITE_S:
                last = now
                self.store.progress(job_id, done, total)
                row = self.store.get(job_id)
                if row is None or row["status"] == "cancelled":  # None: never, an active job is kept
                    raise TokenprismError(
                        f"job {job_id} was cancelled (DELETE /api/train/{job_id}); nothing was saved",
                        code="cancelled",
                        status=409,
                    )
            if progress is not None:
                progress(done, total)

        def phase(name: str) -> None:
            self.store.set_phase(job_id, name)

        def saving(summary: dict) -> None:
            if not self.store.begin_saving(job_id, summary):
                raise TokenprismError(f"job {job_id} was cancelled; nothing was saved", code="cancelled", status=409)

        try:
            summary = train_and_save(spec, documents, self.tokenizer_dir, report, phase, saving)
        except TokenprismError as error:
            self.store.finish(job_id, "failed", error=(error.code, error.message))
            raise
        except BaseException as error:  # KeyboardInterrupt included: the job did not finish, unless its model is saved
            status = "cancelled" if isinstance(error, KeyboardInterrupt) else "failed"
            self._end(job_id, status, f"stopped: {type(error).__name__}; nothing was saved")
            raise
        self.store.finish(job_id, "done", result=summary, merges=summary["merges"])
        return {**summary, "job": job_id}

    # -- start and stop ---------------------------------------------------------------------

    def recover(self) -> list[str]:
        """Interrupt the active jobs of dead runners, remove their files; the ids interrupted."""
        live = {self.owner} | {path.stem for path in self.owner_dir.glob("*.lock") if owners.alive(path)}
        for claim in self.owner_dir.glob(".*.claim"):  # a runner killed while it started
            owners.alive(claim)
        interrupted = []
        for job in self.store.active():
            if job["owner"] not in live and self._end(job["id"], "interrupted", STOPPED) == "interrupted":
                interrupted.append(job["id"])
        active = {job["id"] for job in self.store.active()}
        for path in self.corpus_dir.glob("*"):
            if path.stem not in active:
                path.unlink(missing_ok=True)
        if interrupted:
            log.warning("training jobs interrupted by a stop of their server: %s", ", ".join(interrupted))
        return interrupted

    def close(self) -> None:
        """Kill this runner's children and end their jobs as the disk says (the server is stopping)."""
        with self._lock:
            self._closed = True
            waiting, self._waiting = list(self._waiting), collections.deque()
            running = list(self._running.items())
            self._lock.notify_all()
        for job_id in waiting:
            self.store.interrupt(job_id, "the server stopped before this job started; start it again")
            self._forget_corpus(job_id)
        for _, process in running:
            if process is not None:
                process.kill()  # its thread ends the job (see _run)
        for thread in self._threads:
            thread.join(timeout=10)
        for job_id, _ in running:  # a job whose thread did not get to it
            self._end(job_id, "interrupted", STOPPED)
        (self.owner_dir / f"{self.owner}.lock").unlink(missing_ok=True)
        os.close(self._owner_fd)
        if not any(thread.is_alive() for thread in self._threads):
            self.store.close()

    # -- inside ---------------------------------------------------------------------------------

    def _record(self, spec: TrainSpec, status: str = "queued") -> str:
        """Record a job for `spec` if no active job (of any process) has its name and, unless it
        replaces, no tokenizer has it; its id."""

        def free() -> None:
            if not spec.replace and name_taken(self.tokenizer_dir, spec.name):
                raise NameTaken(taken_message(spec.name))

        job_id = secrets.token_urlsafe(16)
        if not self.store.create(
            job_id, "train", spec.name, spec.to_json(), spec.merges_wanted, self.owner, status, check=free
        ):
            raise TokenprismError(
                f"a job is training {spec.name} already; wait for it to end, or choose another name",
                code="name_busy",
                status=409,
            )
        return job_id

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
