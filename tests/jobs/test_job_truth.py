"""A job's state says what is on disk, and one name has one active job across processes:
a runner that finds the job of a dead process which had written its model whole reads it
`done` (the summary it recorded before writing has the file's sha256); one that died before
the write reads `interrupted` and the earlier model is untouched; two stores (two processes'
connections) creating one name at once record it once."""

from __future__ import annotations

import hashlib
import threading

import pytest

from app.bpe.model import BPETokenizer
from app.errors import TokenprismError
from app.jobs import JobRunner, TrainSpec
from app.jobs.store import JobStore
from tests.jobs.test_runner import SMALL

DEAD_OWNER = "0123456789abcdef"  # no runner holds its lock


def dead_job_saving(tmp_path, job_id: str, spec: TrainSpec, model: bytes) -> None:
    """A job of a runner that died while its job was saving `model` (as runner.py records it)."""
    store = JobStore(tmp_path / "jobs.sqlite3")
    assert store.create(job_id, "train", spec.name, spec.to_json(), spec.merges_wanted, DEAD_OWNER)
    assert store.start(job_id)
    summary = {
        "tokenizer": spec.name,
        "vocab_size": spec.vocab_size,
        "merges": spec.merges_wanted,
        "merges_wanted": spec.merges_wanted,
        "pattern": spec.pattern,
        "special_tokens": {},
        "description": "",
        "characters": 1,
        "bytes": 1,
        "documents": 1,
        "seconds": 0.1,
        "sha256": hashlib.sha256(model).hexdigest(),
    }
    assert store.begin_saving(job_id, summary)
    store.close()


def trained(name: str) -> bytes:
    return BPETokenizer.train(SMALL, 256 + 20, name=name).dumps()


def test_a_job_whose_model_was_written_before_its_server_died_reads_done(tmp_path):
    folder = tmp_path / "tokenizers"
    folder.mkdir()
    model = trained("saved")
    dead_job_saving(tmp_path, "S" * 22, TrainSpec("saved", 256 + 20), model)
    (folder / "saved.bpe").write_bytes(model)  # os.replace happened; the report did not
    runner = JobRunner(tmp_path, folder)
    try:
        state = runner.status("S" * 22)
        assert state["status"] == "done" and state["tokenizer"] == "saved", state
        assert "error" not in state and "saved whole" in state["summary"]["note"]
        assert state["merges_done"] == state["merges_total"] == 20
        assert BPETokenizer.load(folder / "saved.bpe").encode("def f(): pass")
        assert (folder / "saved.bpe").read_bytes() == model
    finally:
        runner.close()


def test_a_job_that_died_before_its_write_reads_interrupted_and_the_earlier_model_stays(tmp_path):
    folder = tmp_path / "tokenizers"
    folder.mkdir()
    earlier = trained("kept")
    (folder / "kept.bpe").write_bytes(earlier)
    (folder / ".kept.bpe.x1y2z3.tmp").write_bytes(b"half a model")
    dead_job_saving(tmp_path, "K" * 22, TrainSpec("kept", 256 + 20, replace=True), trained("other") + b"#")
    runner = JobRunner(tmp_path, folder)
    try:
        state = runner.status("K" * 22)
        assert state["status"] == "interrupted" and "nothing was saved" in state["error"]["message"], state
        assert (folder / "kept.bpe").read_bytes() == earlier
        assert not list(folder.glob(".*.tmp"))
    finally:
        runner.close()


@pytest.mark.parametrize("trial", range(5))
def test_two_stores_creating_one_name_at_once_record_it_once(tmp_path, trial):
    stores = [JobStore(tmp_path / "jobs.sqlite3") for _ in range(2)]  # two processes' connections
    spec = TrainSpec("same", 300)
    barrier = threading.Barrier(8)
    results = []

    def create(index: int) -> None:
        barrier.wait()
        results.append(stores[index % 2].create(f"{index:022d}", "train", "same", spec.to_json(), 44, "owner"))

    threads = [threading.Thread(target=create, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert len(stores[0].active()) == 1
        assert sorted(results) == [False] * 7 + [True]
    finally:
        for store in stores:
            store.close()


def test_two_runners_take_one_name_once(tmp_path):
    first, second = JobRunner(tmp_path, tmp_path / "tokenizers"), JobRunner(tmp_path, tmp_path / "tokenizers")
    try:
        job = first.submit(TrainSpec("shared", 20_000), SMALL * 50)
        with pytest.raises(TokenprismError) as caught:
            second.submit(TrainSpec("shared", 300, replace=True), SMALL)
        assert caught.value.code == "name_busy" and caught.value.status == 409
        first.cancel(job)
    finally:
        first.close()
        second.close()
