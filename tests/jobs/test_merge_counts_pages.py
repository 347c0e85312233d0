"""The counts behind each merge on the training pages, without a browser: on the replay each
merge around k shows how often its pair occurred in training (the naive trainer's get_stats
value) with a bar, the counts of all merges fall in a sparkline, and a model without counts
says so; a job reports its first merges with their counts while it runs, and its page lists them."""

from __future__ import annotations

import re
import sqlite3
import time

import pytest
from fastapi.testclient import TestClient

from app.bpe.model import PATTERNS, BPETokenizer
from app.jobs import JobRunner, TrainSpec, store
from app.main import create_app
from app.settings import Settings
from app.tokenizers.registry import default_registry
from app.web.training.merge_counts import bar_width, sparkline
from tests.bpe.test_bpe_merge_counts import as_version_1
from tests.bpe.test_bpe_vs_naive import naive_train_counted
from tests.jobs.test_runner import long_corpus, wait
from tests.reference import stdlib_texts

CORPUS = [text for _, text in stdlib_texts(3, 4_000)]


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("counts")
    folder = data_dir / "tokenizers"
    folder.mkdir()
    model = BPETokenizer.train(CORPUS, 256 + 40, pattern="gpt4", name="counted")
    model.save(folder / "counted.bpe")
    (folder / "uncounted.bpe").write_bytes(as_version_1(model.dumps()))
    settings = Settings(data_dir=data_dir, allowed_hosts="testserver")
    with TestClient(create_app(settings, default_registry(settings))) as test_client:
        yield test_client


def shown_counts(html: str) -> list[int]:
    return [int(c) for c in re.findall(r'data-role="merge-count" data-count="(\d+)"', html)]


@pytest.mark.parametrize("k", [0, 1, 10, 40])
def test_replay_lists_the_training_counts_around_k(client, k):
    _, counts = naive_train_counted(CORPUS, PATTERNS["gpt4"], 40)
    html = client.get("/train/replay", params={"tokenizer": "counted", "k": k}).text
    assert shown_counts(html) == counts[max(0, k - 4) : k + 4]
    widths = [float(w) for w in re.findall(r'data-role="merge-count-bar" data-width="([\d.]+)"', html)]
    assert widths == [bar_width(c, counts[0]) for c in counts[max(0, k - 4) : k + 4]]
    assert widths == sorted(widths, reverse=True) and 0 < widths[-1] <= widths[0] <= 100
    assert f"{counts[k - 1 if k else 0]:,}× in training" in html
    assert 'data-role="merge-count-spark"' in html and 'data-role="counts-unknown"' not in html


def test_sparkline_falls_from_the_first_count_to_the_last():
    counts = [1000, 400, 400, 90, 12, 3]
    spark = sparkline(counts, 2)
    ys = [float(point.split(",")[1]) for point in re.findall(r"[ML]([\d.]+,[\d.]+)", spark["path"])]
    assert ys == sorted(ys) and ys[0] < ys[-1]  # SVG y grows downwards: the curve falls
    assert spark["kx"] == 400.0 and "merge 3 400 times" in spark["summary"]
    assert sparkline(None, 0) is None and sparkline([], 0) is None


def test_a_model_without_counts_says_so(client):
    html = client.get("/train/replay", params={"tokenizer": "uncounted", "k": 3}).text
    assert shown_counts(html) == [] and 'data-role="counts-unknown"' in html
    assert "not recorded for uncounted" in html and 'data-role="merge-count-spark"' not in html


def test_a_running_job_reports_its_first_merges_with_their_counts(tmp_path):
    runner = JobRunner(tmp_path, tmp_path / "tokenizers", jobs=1, queue=1)
    try:
        corpus = long_corpus()
        job = runner.submit(TrainSpec("long", 20_000), corpus)
        state = wait(
            runner,
            job,
            until=lambda s: len(s.get("first_merges") or []) == 10 or s["status"] not in ("queued", "running"),
        )
        assert state["status"] == "running" and state["merges_done"] < state["merges_total"], state
        runner.cancel(job)
    finally:
        runner.close()
    pairs, counts = naive_train_counted(corpus, PATTERNS["gpt4"], 10)
    assert [(m["left"], m["right"], m["count"]) for m in state["first_merges"]] == [
        (*p, c) for p, c in zip(pairs, counts, strict=True)
    ]
    assert [m["id"] for m in state["first_merges"]] == list(range(256, 266)) and state["first_merges"][0][
        "text"
    ] == "  "


def test_the_job_page_lists_the_first_merges_with_their_counts(client):
    response = client.post("/api/train", json={"name": "paged", "texts": CORPUS, "vocab_size": 256 + 40})
    assert response.status_code == 202, response.text
    job = response.json()["job"]
    for _ in range(1200):
        state = client.get(f"/api/train/{job}").json()
        if state["status"] not in ("queued", "running"):
            break
        time.sleep(0.05)
    assert state["status"] == "done", state
    _, counts = naive_train_counted(CORPUS, PATTERNS["gpt4"], 40)
    assert [m["count"] for m in state["first_merges"]] == counts[:10]
    html = client.get(f"/train/jobs/{job}").text
    shown = [int(c) for c in re.findall(r'data-role="first-merge-count" data-count="(\d+)"', html)]
    assert shown == counts[:10] and f"{counts[0]:,}×" in html


def test_a_jobs_table_made_before_first_merges_gets_the_column(tmp_path):
    path = tmp_path / "jobs.sqlite3"
    with sqlite3.connect(path) as old:
        old.executescript(store._SCHEMA.replace(",\n    first_merges TEXT", ""))
        assert "first_merges" not in [row[1] for row in old.execute("PRAGMA table_info(jobs)")]
    jobs = store.JobStore(path)
    try:
        assert jobs.create(
            "j1",
            "train",
            "n",
            '{"vocab_size": 300, "pattern": "gpt4", "special_tokens": [], "replace": false}',
            44,
            "me",
            status="running",
        )
        jobs.first_merges("j1", [{"id": 256, "left": 32, "right": 32, "bytes": "2020", "text": "  ", "count": 7}])
        assert store.public(jobs.get("j1"))["first_merges"][0]["count"] == 7
    finally:
        jobs.close()
    store.JobStore(path).close()  # opening it again finds the column there
