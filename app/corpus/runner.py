"""Where a corpus job's tasks run: this process, a local process pool, or a Dask cluster.

`make_runner(workers, dask)` picks one: `dask="local"` starts a Dask `LocalCluster`
(`workers` processes with one thread each: the work holds the GIL), `dask="tcp://host:port"`
connects to a running scheduler, no `dask` means a local `ProcessPoolExecutor`, and one
worker or one task means this process. The pool forks when this process has a single
thread (the CLI), after building the tokenizers here, so the workers start at once and
share them copy-on-write; from a process with threads (a server) it uses forkserver, and
each worker builds its own. Dask is an optional extra (`pip install tokenprism[dask]`).

`Runner.run(fn, tasks, shared, *args)` calls `fn(task, shared, *args)` for each task and
yields `(task, result)`: in the order tasks finish, or with `ordered=True` in task order.
`shared` (the tokenizers, or the split pattern) is sent once per worker: as the pool's
initializer argument (`fn` then gets None and uses `work.install`'s copy) or scattered to
every Dask worker. At most `2 * workers` tasks (`4 * workers` when ordered) are submitted
and not yet handed out, so results waiting for an earlier one never pile up. Task functions are found by name on the
workers: a Dask cluster's workers need tokenprism installed (the same version), and the
files at the same paths.

Left out: retrying failed tasks (a worker that dies fails the job with a clear error),
work stealing across runs, and any scheduler of our own.
"""

from __future__ import annotations

import multiprocessing
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor
from concurrent.futures import wait as wait_futures
from concurrent.futures.process import BrokenProcessPool

from app.corpus import work
from app.corpus.sources import CorpusError, Task
from app.errors import TokenprismError

DASK_ADDRESS = re.compile(r"(?:(?:tcp|tls|ws|wss|ucx)://)?[\w.\-\[\]:]+:\d{1,5}")
CONNECT_TIMEOUT_S = 10


class RunError(TokenprismError):
    """The work itself failed (a worker died, a worker could not build a tokenizer)."""

    code = "corpus_run_failed"
    status = 500


class Runner:
    name = "this process"
    workers = 1

    def __enter__(self) -> Runner:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        pass

    def run(self, fn: Callable, tasks: Iterable[Task], shared: object, *args, ordered: bool = False) -> Iterator:
        for task in tasks:
            yield task, _call(fn, task, shared, *args)

    def _windowed(self, submit, first_done, tasks: Iterable[Task], ordered: bool) -> Iterator:
        tasks = iter(tasks)
        pending: dict = {}  # future -> task
        ready: dict[int, tuple] = {}  # task index -> (task, result), finished before an earlier task
        expected = 0
        window = (4 if ordered else 2) * self.workers  # ordered: room to go on while an early task runs long
        while True:
            while len(pending) + len(ready) < window and (task := next(tasks, None)) is not None:
                pending[submit(task)] = task
            if not pending:
                return
            for future in first_done(list(pending)):
                task = pending.pop(future)
                result = _result(future, task)
                if not ordered:
                    yield task, result
                    continue
                ready[task.index] = (task, result)
                while expected in ready:
                    yield ready.pop(expected)
                    expected += 1


class PoolRunner(Runner):
    def __init__(self, workers: int):
        self.workers = workers
        self.name = f"{workers} local processes"
        self._pool: ProcessPoolExecutor | None = None

    def run(self, fn, tasks, shared, *args, ordered=False):
        if threading.active_count() == 1:  # fork is safe: the workers share what is built here
            work.prepare(shared)
            context: multiprocessing.context.BaseContext = multiprocessing.get_context("fork")
        else:  # a server's threads may hold locks a forked child would inherit held
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(["app.corpus.work"])
        self.close()
        self._pool = ProcessPoolExecutor(self.workers, mp_context=context, initializer=work.install, initargs=(shared,))
        submit = lambda task: self._pool.submit(fn, task, None, *args)  # noqa: E731
        first_done = lambda futures: wait_futures(futures, return_when=FIRST_COMPLETED).done  # noqa: E731
        yield from self._windowed(submit, first_done, tasks, ordered)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


class DaskRunner(Runner):
    def __init__(self, address: str, workers: int):
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise CorpusError(
                "--dask needs Dask's distributed package; install it with pip install 'tokenprism[dask]'"
            ) from None
        self._cluster: LocalCluster | None = None
        self.client: Client | None = None
        try:
            if address == "local":
                self._cluster = cluster = LocalCluster(
                    n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None, host="127.0.0.1"
                )
                self.client = client = Client(cluster)
                self.name = f"Dask LocalCluster of {workers} processes at {cluster.scheduler_address}"
            else:
                self.client = client = Client(address, timeout=CONNECT_TIMEOUT_S)
                self.name = f"Dask cluster at {address}"
                client.wait_for_workers(1, timeout=CONNECT_TIMEOUT_S)
        except (OSError, TimeoutError) as error:
            self.close()
            raise CorpusError(
                f"cannot use the Dask scheduler at {address} ({str(error).splitlines()[0][:160]}); "
                "start one (dask scheduler, dask worker) or use --dask local"
            ) from None
        self.workers = max(1, sum(client.nthreads().values()))

    def run(self, fn, tasks, shared, *args, ordered=False):
        from distributed import wait

        client = self.client
        assert client is not None, "the runner is closed"
        [scattered] = client.scatter([shared], broadcast=True, hash=False)
        submit = lambda task: client.submit(fn, task, scattered, *args, pure=False)  # noqa: E731
        first_done = lambda futures: wait(futures, return_when="FIRST_COMPLETED").done  # noqa: E731
        try:
            yield from self._windowed(submit, first_done, tasks, ordered)
        finally:
            scattered.release()

    def close(self) -> None:
        client, cluster = self.client, self._cluster
        self.client = self._cluster = None
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()


def make_runner(workers: int, dask: str | None, tasks: int) -> Runner:
    """The runner for `workers` (local) or a Dask address; this process when that is all it would use."""
    if dask is not None:
        if dask != "local" and not DASK_ADDRESS.fullmatch(dask):
            raise CorpusError(
                f"--dask {dask!r} is not a scheduler address; give tcp://HOST:PORT (8786 by default) or local"
            )
        return DaskRunner(dask, workers)
    if min(workers, tasks) <= 1:
        return Runner()
    return PoolRunner(min(workers, tasks))


def _call(fn, task, shared, *args):
    try:
        return fn(task, shared, *args)
    except work.TaskError as error:
        raise RunError(f"task {task.index} failed: {error}") from None


def _result(future, task: Task):
    try:
        return future.result()
    except work.TaskError as error:
        raise RunError(f"a worker failed on task {task.index}: {error}") from None
    except BrokenProcessPool:
        raise RunError(
            "a worker process died (out of memory? see dmesg); lower --workers or --max-document-size"
        ) from None
    except Exception as error:
        if not type(error).__module__.startswith("distributed"):
            raise
        raise RunError(
            f"the Dask cluster failed on task {task.index} ({type(error).__name__}: "
            f"{str(error).splitlines()[0][:200] if str(error) else ''})"
        ) from None
