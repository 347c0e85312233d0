"""The override file through real servers: a changed price shows in GET /api/models after a
restart, and a bad file stops `tokenprism serve` (exit 2, one line naming file, line and field)
and create_app alike."""

from __future__ import annotations

import httpx
import pytest

from app.local_server import start_server, stop_server
from app.pricing.facts import COLUMNS
from app.pricing.facts_file import FactsFileError
from app.settings import Settings

HEADER = "\t".join(COLUMNS)
OURS = "gpt-4o\t128000\t16384\t1.75\t\t7.00\thttps://example.com/our-contract\t2026-11-20"


def models_by_name(base_url: str) -> dict:
    body = httpx.get(f"{base_url}/api/models", timeout=30).json()
    return {row["name"]: row for row in body["models"] if not row["prefix"]}


def test_an_override_changes_a_price_after_a_restart(tmp_path):
    process, base_url = start_server(tmp_path)
    try:
        assert models_by_name(base_url)["gpt-4o"]["facts"]["input_usd_per_mtok"] == "2.50"
    finally:
        stop_server(process)
    (tmp_path / "model_facts.tsv").write_text(f"{HEADER}\n{OURS}\n", encoding="utf-8")
    process, base_url = start_server(tmp_path)
    try:
        rows = models_by_name(base_url)
        assert rows["gpt-4o"]["facts"] == {
            "context_window": 128000,
            "max_output": 16384,
            "input_usd_per_mtok": "1.75",
            "cached_input_usd_per_mtok": None,
            "output_usd_per_mtok": "7.00",
            "source": "https://example.com/our-contract",
            "read_on": "2026-11-20",
        }
        assert rows["gpt-4.1"]["facts"]["input_usd_per_mtok"] == "2.00"  # rows the file does not name stay
    finally:
        stop_server(process)


def test_a_bad_file_stops_the_server_naming_file_line_and_field(tmp_path):
    path = tmp_path / "model_facts.tsv"
    path.write_text(f"{HEADER}\n{OURS}\n{OURS.replace('1.75', '-1.75').replace('gpt-4o', 'o3')}\n", encoding="utf-8")
    with pytest.raises(RuntimeError) as caught:
        start_server(tmp_path)
    output = str(caught.value)
    assert "exited early with status 2" in output
    assert f"tokenprism: error: model facts file {path} line 3, field input_usd: '-1.75' is negative" in output
    assert "Traceback" not in output


def test_create_app_refuses_a_bad_file_too(tmp_path):
    from app.main import create_app

    (tmp_path / "model_facts.tsv").write_text(f"{HEADER}\n{OURS}\n{OURS}\n", encoding="utf-8")
    with pytest.raises(FactsFileError, match="line 3, field model: 'gpt-4o' is already on line 2"):
        create_app(Settings(data_dir=tmp_path, allowed_hosts="testserver"))
