"""Settings refuse every unsafe TOKENPRISM_* value at start with one line: the variable,
the value given and the allowed range or fix; the CLI prints that line, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app import settings as settings_module
from app.settings import LIMITS, Settings

SCRIPT = Path(sys.executable).with_name("tokenprism")
NUMERIC = sorted(LIMITS)


def clean_env(monkeypatch) -> None:
    for name in list(os.environ):
        if name.upper().startswith("TOKENPRISM_"):
            monkeypatch.delenv(name)


def refusal(monkeypatch, **env: str) -> str:
    """The one line Settings() gives for these TOKENPRISM_* values."""
    clean_env(monkeypatch)
    for name, value in env.items():
        monkeypatch.setenv(f"TOKENPRISM_{name.upper()}", value)
    with pytest.raises(ValueError) as caught:
        Settings(data_dir=Path("/nonexistent-tokenprism")) if "data_dir" not in env else Settings()
    assert isinstance(caught.value, settings_module.SettingsError)
    line = caught.value.message
    assert line == str(caught.value) and "\n" not in line and "validation error" not in line
    return line


def shown(number: float) -> str:
    return f"{number:g}" if isinstance(number, float) else str(number)


@pytest.mark.parametrize("field", NUMERIC)
def test_numbers_out_of_range_name_the_variable_value_and_range(field, monkeypatch):
    low, high, _ = LIMITS[field]
    below = low / 10 if isinstance(low, float) else low - 1
    above = high * 10 if isinstance(high, float) else high + 1
    for bad in (below, above):
        line = refusal(monkeypatch, **{field: shown(bad)})
        assert line.startswith(f"TOKENPRISM_{field.upper()}={shown(bad)} is out of range; ")
        assert f"from {shown(low)} to {shown(high)}" in line


# max_inflight_body_bytes must hold one body of max_body_bytes: test each bound with a partner that allows it.
_MOST_INFLIGHT = ("max_inflight_body_bytes", LIMITS["max_inflight_body_bytes"][1])
PARTNERS = {
    "max_body_bytes": [_MOST_INFLIGHT],
    "max_upload_bytes": [_MOST_INFLIGHT],
    "max_inflight_body_bytes": [
        ("max_body_bytes", LIMITS["max_body_bytes"][0]),
        ("max_upload_bytes", LIMITS["max_upload_bytes"][0]),
    ],
}


@pytest.mark.parametrize("field", NUMERIC)
def test_numbers_at_the_bounds_are_accepted(field, monkeypatch):
    clean_env(monkeypatch)
    low, high, _ = LIMITS[field]
    for partner, value in PARTNERS.get(field, []):
        monkeypatch.setenv(f"TOKENPRISM_{partner.upper()}", shown(value))
    for good in (low, high):
        monkeypatch.setenv(f"TOKENPRISM_{field.upper()}", shown(good))
        assert getattr(Settings(data_dir=Path("/nonexistent-tokenprism")), field) == good


def test_the_body_bytes_in_flight_must_hold_one_largest_body(monkeypatch):
    line = refusal(monkeypatch, max_body_bytes="200000", max_inflight_body_bytes="100000")
    assert line.startswith("TOKENPRISM_MAX_INFLIGHT_BODY_BYTES=100000 is below TOKENPRISM_MAX_BODY_BYTES (200,000)")
    line = refusal(monkeypatch, max_body_bytes="100000", max_upload_bytes="200000", max_inflight_body_bytes="150000")
    assert line.startswith("TOKENPRISM_MAX_INFLIGHT_BODY_BYTES=150000 is below TOKENPRISM_MAX_UPLOAD_BYTES (200,000)")


@pytest.mark.parametrize("field", NUMERIC)
@pytest.mark.parametrize("bad", ["abc", "", "1.5e", "nan", "inf"])
def test_non_numbers_are_refused(field, bad, monkeypatch):
    line = refusal(monkeypatch, **{field: bad})
    assert line.startswith(f"TOKENPRISM_{field.upper()}=")
    low, high, _ = LIMITS[field]
    assert f"from {shown(low)} to {shown(high)}" in line


def test_fractions_are_not_whole_numbers(monkeypatch):
    line = refusal(monkeypatch, max_ids="1.5")
    assert line == "TOKENPRISM_MAX_IDS=1.5 is not a whole number; use a whole number from 1 to 10000000"


def test_the_examples_from_the_findings(monkeypatch):
    assert refusal(monkeypatch, max_text_chars="0").startswith(
        "TOKENPRISM_MAX_TEXT_CHARS=0 is out of range; use a whole number from 1 to 900000"
    )
    assert "tiktoken" in refusal(monkeypatch, max_text_chars="2000000")
    line = refusal(monkeypatch, max_compare="1")
    assert line.startswith("TOKENPRISM_MAX_COMPARE=1 is out of range; use a whole number from 2 to")
    assert "at least 2" in line
    assert refusal(monkeypatch, max_body_bytes="1").startswith(
        "TOKENPRISM_MAX_BODY_BYTES=1 is out of range; use a whole number from 1024 to"
    )
    assert refusal(monkeypatch, queue_wait_s="0").startswith(
        "TOKENPRISM_QUEUE_WAIT_S=0 is out of range; use a number of seconds from 0.1 to 300"
    )


def test_keyword_arguments_name_the_field(monkeypatch):
    clean_env(monkeypatch)
    with pytest.raises(settings_module.SettingsError) as caught:
        Settings(max_compare=0)
    assert caught.value.message.startswith("max_compare=0 is out of range; use a whole number from 2 to")


def test_several_bad_values_still_give_one_line(monkeypatch):
    line = refusal(monkeypatch, max_ids="0", workers="x")
    assert line.count("TOKENPRISM_") == 1 and "1 more" in line


def test_tokenizer_dir_must_hold_the_manifest(monkeypatch, tmp_path):
    line = refusal(monkeypatch, tokenizer_dir="/no/such/tokenprism-dir")
    assert (
        line.startswith("TOKENPRISM_TOKENIZER_DIR=/no/such/tokenprism-dir does not exist; ") and "MANIFEST.tsv" in line
    )
    line = refusal(monkeypatch, tokenizer_dir=str(tmp_path))
    assert line.startswith(f"TOKENPRISM_TOKENIZER_DIR={tmp_path} has no MANIFEST.tsv; ")
    (tmp_path / "file").write_text("x")
    line = refusal(monkeypatch, tokenizer_dir=str(tmp_path / "file"))
    assert line.startswith(f"TOKENPRISM_TOKENIZER_DIR={tmp_path / 'file'} is not a folder; ")
    assert 'TOKENPRISM_TOKENIZER_DIR="" is empty; ' in refusal(monkeypatch, tokenizer_dir="")


def test_data_dir_may_be_missing_but_not_empty_or_a_file(monkeypatch, tmp_path):
    clean_env(monkeypatch)
    assert Settings(data_dir=Path("/nonexistent-tokenprism")).data_dir == Path("/nonexistent-tokenprism")
    monkeypatch.setenv("TOKENPRISM_DATA_DIR", str(tmp_path / "later"))
    assert Settings().data_dir == tmp_path / "later"
    line = refusal(monkeypatch, data_dir="")
    assert line.startswith('TOKENPRISM_DATA_DIR="" is empty; ')
    assert refusal(monkeypatch, data_dir="   ").startswith('TOKENPRISM_DATA_DIR="   " is empty; ')
    (tmp_path / "file").write_text("x")
    line = refusal(monkeypatch, data_dir=str(tmp_path / "file"))
    assert line.startswith(f"TOKENPRISM_DATA_DIR={tmp_path / 'file'} is not a folder; ")


def test_odd_characters_in_a_value_stay_on_one_line(monkeypatch):
    line = refusal(monkeypatch, workers="1\n2")
    assert line.startswith('TOKENPRISM_WORKERS="1\\n2" is not a whole number; ')


def test_defaults_are_within_the_limits(monkeypatch):
    clean_env(monkeypatch)
    settings = Settings(data_dir=Path("/nonexistent-tokenprism"))
    for field, (low, high, _) in LIMITS.items():
        assert low <= getattr(settings, field) <= high, field


def run_cli(env: dict[str, str], *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if not k.upper().startswith("TOKENPRISM_")}
    return subprocess.run([str(SCRIPT), *args], capture_output=True, env={**base, **env}, timeout=timeout)


BAD_ENV = [
    ("TOKENPRISM_MAX_TEXT_CHARS", "0", "from 1 to 900000"),
    ("TOKENPRISM_MAX_TEXT_CHARS", "2000000", "from 1 to 900000"),
    ("TOKENPRISM_MAX_COMPARE", "1", "from 2 to"),
    ("TOKENPRISM_MAX_BODY_BYTES", "1", "from 1024 to"),
    ("TOKENPRISM_MAX_IDS", "abc", "from 1 to"),
    ("TOKENPRISM_RENDER_TOKENS", "-5", "from 1 to"),
    ("TOKENPRISM_MAX_RESPONSE_TOKENS", "0", "from 1 to"),
    ("TOKENPRISM_WORKERS", "abc", "from 1 to"),
    ("TOKENPRISM_QUEUE_WAIT_S", "nan", "from 0.1 to 300"),
    ("TOKENPRISM_MAX_QUEUE", "0", "from 1 to"),
    ("TOKENPRISM_TOKENIZER_DIR", "/no/such/tokenprism-dir", "MANIFEST.tsv"),
    ("TOKENPRISM_DATA_DIR", "", "is empty"),
    ("TOKENPRISM_DATA_DIR", "/etc/hostname", "is not a folder"),
]


@pytest.mark.parametrize("name, value, fix", BAD_ENV, ids=[f"{n}={v}" for n, v, _ in BAD_ENV])
def test_cli_prints_one_line_for_each_bad_setting(name, value, fix, tmp_path):
    env = {"TOKENPRISM_DATA_DIR": str(tmp_path / "data"), name: value}
    result = run_cli(env, "list")
    stderr = result.stderr.decode()
    assert result.returncode == 2, stderr
    assert result.stdout == b""
    assert stderr.startswith(f"tokenprism: error: {name}={value or chr(34) * 2} ") and stderr.count("\n") == 1
    assert fix in stderr and "Traceback" not in stderr


def test_serve_refuses_before_starting_the_server(tmp_path):
    env = {"TOKENPRISM_DATA_DIR": str(tmp_path / "data"), "TOKENPRISM_MAX_COMPARE": "1"}
    try:
        result = run_cli(env, "serve", "--port", "0", timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail("tokenprism serve started with TOKENPRISM_MAX_COMPARE=1 instead of refusing")
    stderr = result.stderr.decode()
    assert result.returncode == 2 and stderr.startswith("tokenprism: error: TOKENPRISM_MAX_COMPARE=1 is out of range")
    assert "Traceback" not in stderr and "Uvicorn" not in stderr
