"""The job runner (app/jobs): jobs run in child processes, at most `jobs` at once with at most
`queue` waiting; cancel kills the child and saves nothing; the CLI's in-process run records
the same job; a restart marks the jobs of a dead runner `interrupted` and removes their files."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from app.bpe.model import PATTERNS, BPETokenizer
from app.errors import NameTaken, TokenprismError
from app.jobs import JobRunner, JobsBusy, TrainSpec
from tests.bpe.test_bpe_vs_naive import naive_train
from tests.reference import stdlib_texts

SMALL = [text for _, text in stdlib_texts(3, 4_000)]


def long_corpus() -> list[str]:
    """Text that takes this runner a few seconds to train to 20,000 ids (the standard library)."""
    return [text for _, text in stdlib_texts(60, 60_000)]


def wait(runner: JobRunner, job: str, until=lambda s: s["status"] not in ("queued", "running"), seconds: float = 120):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        state = runner.status(job)
        if until(state):
            return state
        time.sleep(0.05)
    raise AssertionError(f"job {job} did not get there in {seconds} s: {runner.status(job)}")


def children(parent: int | None = None) -> set[int]:
    """Pids of the live training processes (multiprocessing's spawn children, not its resource
    tracker) whose parent is `parent` (default: this process), from Linux's /proc."""
    parent = parent or os.getpid()
    found = set()
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            command = (entry / "cmdline").read_bytes()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == parent and fields[0] != "Z" and b"spawn_main" in command:
            found.add(int(entry.name))
    return found


@pytest.fixture
def runner(tmp_path):
    made = JobRunner(tmp_path, tmp_path / "tokenizers", jobs=1, queue=1)
    yield made
    made.close()


def test_a_job_trains_in_a_child_and_saves_the_naive_merges(runner, tmp_path):
    job = runner.submit(TrainSpec("small", 256 + 40, "gpt4"), SMALL)
    state = wait(runner, job)
    assert state["status"] == "done", state
    assert state["merges_done"] == state["merges_total"] == 40 and state["tokenizer"] == "small"
    model = BPETokenizer.load(tmp_path / "tokenizers" / "small.bpe")
    assert list(model.merges) == naive_train(SMALL, PATTERNS["gpt4"], 40)
    assert list((tmp_path / "jobs" / "corpus").iterdir()) == []
    with pytest.raises(NameTaken):
        runner.submit(TrainSpec("small", 300), SMALL)


def test_the_queue_is_bounded_and_cancel_kills_the_child(runner, tmp_path):
    first = runner.submit(TrainSpec("long", 20_000), long_corpus())
    second = runner.submit(TrainSpec("waiting", 300), SMALL)
    with pytest.raises(JobsBusy) as caught:
        runner.submit(TrainSpec("third", 300), SMALL)
    assert caught.value.status == 503 and caught.value.headers["Retry-After"].isdigit()
    with pytest.raises(TokenprismError) as busy:
        runner.submit(TrainSpec("long", 300), SMALL)  # the queue is checked first; a free slot would give name_busy
    assert busy.value.status == 503
    wait(runner, first, lambda s: s["status"] == "running")
    deadline = time.monotonic() + 10
    while not (before := children()) and time.monotonic() < deadline:
        time.sleep(0.02)  # the job reads `running` a moment before its process starts
    assert before, f"the job runs in a child process: {runner.status(first)}"
    assert runner.cancel(second)["status"] == "cancelled"  # queued: it never starts
    assert runner.cancel(first)["status"] == "cancelled"
    assert runner.cancel(first)["status"] == "cancelled"  # cancelling twice is fine
    deadline = time.monotonic() + 30
    while children() & before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not children() & before, "the cancelled job's process is gone"
    time.sleep(0.5)  # its thread tidies up
    assert (
        not (tmp_path / "tokenizers" / "long.bpe").exists() and not (tmp_path / "tokenizers" / "waiting.bpe").exists()
    )
    assert list((tmp_path / "jobs" / "corpus").iterdir()) == []
    assert list((tmp_path / "tokenizers").glob(".*.tmp")) == []
    again = runner.submit(TrainSpec("waiting", 300), SMALL)  # the slots are free again
    assert wait(runner, again)["status"] == "done"


def test_a_name_is_trained_by_one_job_at_a_time(runner):
    runner.submit(TrainSpec("twice", 20_000), long_corpus())
    with pytest.raises(TokenprismError) as caught:
        runner.submit(TrainSpec("twice", 300, replace=True), SMALL)
    assert caught.value.code == "name_busy" and caught.value.status == 409


def test_run_inline_is_the_same_work_in_this_process(runner, tmp_path):
    seen = []
    summary = runner.run_inline(
        TrainSpec("inline", 256 + 30, "gpt2", ("<|end|>",)),
        SMALL,
        progress=lambda done, total: seen.append((done, total)),
    )
    assert seen[-1] == (29, 29) and summary["merges"] == 29 and summary["special_tokens"] == {"<|end|>": 285}
    state = runner.status(summary["job"])
    assert state["status"] == "done" and state["merges_done"] == 29
    assert list(BPETokenizer.load(tmp_path / "tokenizers" / "inline.bpe").merges) == naive_train(
        SMALL, PATTERNS["gpt2"], 29
    )
    with pytest.raises(NameTaken):
        runner.run_inline(TrainSpec("inline", 300), SMALL)
    replaced = runner.run_inline(TrainSpec("inline", 300, replace=True), SMALL)
    assert runner.status(replaced["job"])["status"] == "done"
    asked = []

    def count(regex):  # a CLI that counts on its own workers hands over what it counted, once the name is locked
        asked.append(regex)
        return SMALL

    counted = runner.run_inline(TrainSpec("inline-counted", 256 + 30, "gpt4"), count)
    assert asked == [PATTERNS["gpt4"]] and counted["characters"] is None and counted["merges"] == 30
    assert list(BPETokenizer.load(tmp_path / "tokenizers" / "inline-counted.bpe").merges) == naive_train(
        SMALL, PATTERNS["gpt4"], 30
    )


def test_a_restart_interrupts_the_jobs_of_a_dead_runner(tmp_path):
    folder = tmp_path / "tokenizers"
    first = JobRunner(tmp_path, folder)
    first.store.create("A" * 22, "train", "lost", TrainSpec("lost", 300).to_json(), 44, owner="0123456789abcdef")
    (tmp_path / "jobs" / "corpus" / f"{'A' * 22}.json").write_text("[]")
    folder.mkdir(exist_ok=True)
    (folder / ".lost.bpe.abc123.tmp").write_text("half a model")
    (folder / "kept.bpe").write_bytes(b"an earlier tokenizer")
    live = first.submit(TrainSpec("alive", 20_000), long_corpus())  # its runner (first) is alive
    second = JobRunner(tmp_path, folder)  # a server starting next to it, or after a crash
    try:
        lost = second.status("A" * 22)
        assert lost["status"] == "interrupted" and "start it again" in lost["error"]["message"].lower()
        assert second.status(live)["status"] in ("queued", "running")
        assert not (tmp_path / "jobs" / "corpus" / f"{'A' * 22}.json").exists()
        assert (tmp_path / "jobs" / "corpus" / f"{live}.json").exists() or second.status(live)["status"] == "running"
        assert not (folder / ".lost.bpe.abc123.tmp").exists()
        assert (folder / "kept.bpe").read_bytes() == b"an earlier tokenizer"
    finally:
        first.close()  # the server stops: its job is interrupted
        assert second.status(live)["status"] == "interrupted"
        second.close()
