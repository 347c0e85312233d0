"""How a count's work is cut and counted: documents counted in batches (`count_batch`, no ids kept),
a refused document still skipped and recorded alone, tasks cut so that every worker gets some
(`Plan.spread`), and the counts the same however many workers run."""

from __future__ import annotations

import json
import os

import pytest

from app.corpus.count import count_corpus
from app.corpus.portable import TokenizerSpec, specs_for
from app.corpus.runner import PoolRunner, Runner
from app.corpus.sources import DEFAULT_TASK_BYTES, MIN_TASK_BYTES, CorpusOptions, open_plan
from app.corpus.work import count_task
from app.errors import InvalidInput
from tests.reference import stdlib_texts


def _write_jsonl(path, texts: list[str]) -> str:
    path.write_text("".join(json.dumps({"text": text}) + "\n" for text in texts), encoding="utf-8")
    return str(path)


class Spy:
    """A tokenizer that records what it is asked, counts characters and refuses texts with "BAD" in them."""

    name = "spy"

    def __init__(self):
        self.batches: list[int] = []

    def count_batch(self, texts, allow_special=False):
        self.batches.append(len(texts))
        return [self.count(text) for text in texts]

    def count(self, text, allow_special=False):
        if "BAD" in text:
            raise InvalidInput("no BAD here")
        return len(text)

    def encode(self, text, allow_special=False):
        raise AssertionError("counting asked for ids")


def test_a_task_counts_its_documents_in_batches_and_skips_a_refused_one(tmp_path):
    texts = [f"document {n} " * 5 for n in range(50)]
    texts[7] = "a BAD document"
    path = _write_jsonl(tmp_path / "a.jsonl", texts)
    with open_plan([path], CorpusOptions()) as plan:
        spy = Spy()
        (task,) = plan.tasks()
        result = count_task(task, (TokenizerSpec("spy", spy),), plan.options)
    good = [text for text in texts if "BAD" not in text]
    assert result.sources[0] == [len(good), sum(map(len, good)), sum(map(len, good)), sum(map(len, good))]
    assert spy.batches[0] == len(texts)  # all the documents in one batch, then the refused batch one by one
    assert result.problems.bad_records == 1
    assert "was refused (no BAD here); skipped" in result.problems.messages()[0]


def test_tasks_are_cut_for_the_workers(tmp_path):
    texts = [text for _, text in stdlib_texts(count=40, max_chars=40_000)]
    path = _write_jsonl(tmp_path / "big.jsonl", texts * 2)
    small = _write_jsonl(tmp_path / "small.jsonl", texts[:2])
    with open_plan([path], CorpusOptions()) as plan:
        assert MIN_TASK_BYTES * 2 < plan.total_bytes < DEFAULT_TASK_BYTES
        assert len(plan.tasks()) == 1  # one worker: one task, as before
        assert len(plan.spread(2).tasks()) >= 2
        assert all(task.size >= MIN_TASK_BYTES for task in plan.tasks()[:-1])
        assert len(plan.spread(1).tasks()) == 1
    with open_plan([small], CorpusOptions()) as plan:
        assert plan.total_bytes < MIN_TASK_BYTES
        assert len(plan.spread(4).tasks()) == 1  # under the floor: not worth a second process
    with open_plan([path], CorpusOptions(task_bytes=DEFAULT_TASK_BYTES)) as plan:
        assert len(plan.spread(2).tasks()) == 1  # a task size given is kept


@pytest.mark.parametrize("names", [["cl100k_base", "deepseek_v4", "mistral_v1"]])
def test_counts_do_not_change_with_workers(tmp_path, names):
    texts = [text for _, text in stdlib_texts(count=30, max_chars=30_000)]
    texts.insert(3, "<|endoftext|> e\u0301 한국어 " * 50)
    path = _write_jsonl(tmp_path / "c.jsonl", texts)
    specs = specs_for(names)
    reports = []
    for workers, runner in ((1, Runner()), (2, PoolRunner(2))):
        with open_plan([path], CorpusOptions()) as plan, runner:
            plan.spread(workers)
            reports.append((len(plan.tasks()), count_corpus(plan, specs, runner, allow_special=True)))
    (one_task, alone), (tasks, spread) = reports
    assert one_task == 1 and tasks >= 2
    assert alone.total == spread.total
    assert spread.workers == 2


def test_pool_workers_keep_the_hugging_face_library_to_one_thread(monkeypatch):
    from app.corpus import work

    monkeypatch.delenv("TOKENIZERS_PARALLELISM", raising=False)
    monkeypatch.setattr(work, "_installed", ())
    work.install(())
    assert os.environ["TOKENIZERS_PARALLELISM"] == "false"
    monkeypatch.setenv("TOKENIZERS_PARALLELISM", "true")
    work.install(())
    assert os.environ["TOKENIZERS_PARALLELISM"] == "true"  # a user's choice stands


def test_a_pool_process_counts_chunks_on_one_thread_and_the_caller_on_its_cores(tmp_path, monkeypatch):
    from app.bpe.model import PATTERNS
    from app.corpus import work

    asked: list[int | None] = []
    real = work.count_chunks
    monkeypatch.setattr(
        work,
        "count_chunks",
        lambda texts, pattern, threads=None: asked.append(threads) or real(texts, pattern, threads),
    )
    path = _write_jsonl(tmp_path / "a.jsonl", ["one two three", "two three four"])
    with open_plan([path], CorpusOptions()) as plan:
        (task,) = plan.tasks()
        inline = work.chunk_task(task, (PATTERNS["gpt4"],), plan.options)
        monkeypatch.setattr(work, "_installed", (PATTERNS["gpt4"],))  # as the pool's initializer leaves it
        pooled = work.chunk_task(task, None, plan.options)
    assert asked == [None, 1]  # None: as many threads as the cores allow
    assert inline.counts == pooled.counts and inline.counts[" three"] == 2
