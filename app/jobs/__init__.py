"""The one job runner and its store: work too long for a request (training a BPE today).

- `spec.py`: what a training job is (`TrainSpec`), its checks and the corpus preview.
- `store.py`: job state in `<data dir>/jobs.sqlite3` (SQLite, WAL), shared by every
  process that uses the data directory, so a job's state survives reloads and restarts.
- `runner.py`: `JobRunner`: a bounded queue, at most N jobs at once, each in a child
  process; cancel; recovery of jobs whose process died. The CLI runs the same work
  in-process with `run_inline`.
- `threads.py`: the runner's threads: a job in a child process, relayed to the store, ended
  as the disk says.
- `work.py`: the training itself (under the name's lock, written atomically), the one code
  path of the web's child processes and the CLI.
- `child.py`: the entry point of a job's child process.

Left out: other kinds of jobs (large counts), priorities, per-user quotas.
"""

from app.jobs.runner import JobRunner, JobsBusy
from app.jobs.spec import TrainSpec

__all__ = ["JobRunner", "JobsBusy", "TrainSpec"]
