"""The counts behind each merge on the replay page, without a browser: each merge around k
shows how often its pair occurred in training (the naive trainer's get_stats value) with a
bar, the counts of all merges fall in a sparkline; a model without counts says so."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from app.bpe.model import PATTERNS, BPETokenizer
from app.main import create_app
from app.settings import Settings
from app.tokenizers.registry import default_registry
from app.web.training.merge_counts import bar_width, sparkline
from tests.reference import stdlib_texts
from tests.test_bpe_merge_counts import as_version_1
from tests.test_bpe_vs_naive import naive_train_counted

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
    assert shown_counts(html) == counts[max(0, k - 4): k + 4]
    widths = [float(w) for w in re.findall(r'data-role="merge-count-bar" data-width="([\d.]+)"', html)]
    assert widths == [bar_width(c, counts[0]) for c in counts[max(0, k - 4): k + 4]]
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
