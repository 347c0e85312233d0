"""The child process of one training job (started by runner.py with multiprocessing's spawn).

It dies with its parent: on Linux the kernel sends it SIGKILL when the thread that
started it ends (prctl PR_SET_PDEATHSIG through ctypes), and every progress report also
checks `os.getppid()`, so a server killed with SIGKILL leaves no trainer behind. It runs
at a lower priority (nice 10) under an address-space limit, so a training job cannot
starve the server's requests or take the machine's memory.

Messages to the parent, over a duplex pipe: ("phase", name), ("progress", done, total)
at most every PROGRESS_EVERY_S (and the last one always), ("merges", rows) after each of the
first FIRST_MERGES_SHOWN merges (all of them so far, with their counts), ("saving", summary) (the summary
with the model's sha256) then it waits for ("go",) or ("stop",): the parent records the
summary and lets it write only if the job was not cancelled meanwhile;
finally ("done", summary) or ("failed", code, message). Left out: any job state (the
parent keeps it).
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import resource
import signal
import time
from pathlib import Path

from app.bpe.train import FirstMerges
from app.errors import TokenprismError
from app.jobs.spec import TrainSpec
from app.jobs.work import train_and_save

PROGRESS_EVERY_S = 0.1
FIRST_MERGES_SHOWN = 10
NICENESS = 10
PR_SET_PDEATHSIG = 1


class _Stopped(BaseException):
    """The parent said stop before the model was written (the job was cancelled)."""


def die_with_parent(parent_pid: int) -> None:
    with contextlib.suppress(OSError, AttributeError):  # not Linux: the getppid checks remain
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent_pid:  # the parent died before prctl took effect
        os._exit(1)


def main(spec_json: str, corpus_path: str, folder: str, conn, parent_pid: int, memory_bytes: int) -> None:
    die_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C on the server: the parent ends its jobs
    try:
        os.nice(NICENESS)
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    except (OSError, ValueError):
        pass
    last = 0.0

    def progress(done: int, total: int) -> None:
        nonlocal last
        if os.getppid() != parent_pid:
            os._exit(1)
        now = time.monotonic()
        if done >= total or now - last >= PROGRESS_EVERY_S:
            last = now
            conn.send(("progress", done, total))

    def phase(name: str) -> None:
        conn.send(("phase", name))

    def saving(summary: dict) -> None:
        conn.send(("saving", summary))
        if conn.recv() != ("go",):
            raise _Stopped

    try:
        spec = TrainSpec.from_json(spec_json)
        documents = json.loads(Path(corpus_path).read_text(encoding="utf-8"))
        first = FirstMerges(FIRST_MERGES_SHOWN, lambda rows: conn.send(("merges", rows)))
        conn.send(("done", train_and_save(spec, documents, Path(folder), progress, phase, saving, first)))
    except _Stopped:
        pass
    except TokenprismError as error:
        conn.send(("failed", error.code, error.message))
    except MemoryError:
        conn.send(
            (
                "failed",
                "out_of_memory",
                f"training ran out of memory (the limit is {memory_bytes >> 20:,} MiB); "
                "use a smaller corpus or vocab_size",
            )
        )
    except Exception as error:  # a bug: report it; the parent logs and shows it as failed
        conn.send(("failed", "internal_error", f"training failed: {type(error).__name__}: {error}"))
    finally:
        conn.close()
