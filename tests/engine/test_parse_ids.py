"""`parse_ids`: ids typed by a person. Nesting at any depth is refused without recursing,
and only ASCII digits make an id; everything else is left for the engine's check to name."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.errors import BadTokenId
from app.tokenizers.typed_ids import parse_ids

SCRIPT = Path(sys.executable).with_name("tokenprism")
FLAT = "send a flat array of whole numbers"


@pytest.mark.parametrize("depth", [2, 1_000, 100_000])
def test_deep_nesting_is_refused_at_position_0(depth):
    for raw in ("[" * depth, "[" * depth + "]" * depth, "[" + '{"a":' * depth):
        with pytest.raises(BadTokenId) as caught:
            parse_ids(raw)
        assert "position 0" in caught.value.message and FLAT in caught.value.message


@pytest.mark.parametrize(
    "raw, position, kind",
    [
        ("[[1]]", 0, "a JSON array"),
        ("[1, [2]]", 1, "a JSON array"),
        ('[1, "a,[b", 3, {"x": 1}]', 3, "a JSON object"),
        ('[1, "\\"[", [2]]', 2, "a JSON array"),
        ("[1, 2, 3, []]", 3, "a JSON array"),
    ],
)
def test_nested_values_are_named_by_position(raw, position, kind):
    with pytest.raises(BadTokenId) as caught:
        parse_ids(raw)
    assert f"token id at position {position} is {kind}" in caught.value.message
    assert FLAT in caught.value.message


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("١٢٣", ["١٢٣"]),  # Arabic-Indic
        ("۱۲", ["۱۲"]),  # Extended Arabic-Indic (Persian)
        ("１２", ["１２"]),  # fullwidth
        ("𝟙𝟚", ["𝟙𝟚"]),  # mathematical double-struck
        ("१२", ["१२"]),  # Devanagari
        ("1, ١٢ 3", [1, "١٢", 3]),
        ("-٣", ["-٣"]),
        ('["١٢"]', ["١٢"]),
    ],
)
def test_only_ascii_digits_make_an_id(raw, expected):
    assert parse_ids(raw) == expected


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("[15339, 1917]", [15339, 1917]),
        ("15339 1917", [15339, 1917]),
        ("  1,2;3\n4\t5 ", [1, 2, 3, 4, 5]),
        ("+7 -2", [7, -2]),
        ("[]", []),
        ('[1, "[", "]", "{"]', [1, "[", "]", "{"]),
        ("[1, 2.5, true, null]", [1, 2.5, True, None]),
        ("", []),
    ],
)
def test_normal_inputs_still_parse(raw, expected):
    assert parse_ids(raw) == expected


@pytest.mark.parametrize("raw", ["[1, 2", "[1]]", '{"ids": [1]}', "[1, 2,]", "[" + "1" * 5000 + "]"])
def test_broken_json_gives_the_fix(raw):
    with pytest.raises(BadTokenId, match=r"\[15339, 1917\]"):
        parse_ids(raw)


def test_a_deep_object_at_the_top_is_not_an_array():
    with pytest.raises(BadTokenId, match="not a JSON array"):
        parse_ids('{"a":' * 100_000)


def test_a_long_flat_array_is_quick():
    ids = list(range(500_000))
    assert parse_ids(str(ids)) == ids


def decode(stdin: bytes, tmp_path) -> subprocess.CompletedProcess:
    env = {**os.environ, "TOKENPRISM_DATA_DIR": str(tmp_path / "data")}
    return subprocess.run([str(SCRIPT), "decode", "-t", "gpt2"], input=stdin, capture_output=True, env=env, timeout=120)


def test_cli_decode_refuses_deep_nesting_in_one_line(tmp_path):
    result = decode(b"[" * 100_000, tmp_path)
    stderr = result.stderr.decode()
    assert result.returncode == 2, stderr
    assert stderr.startswith("tokenprism: error: ") and stderr.count("\n") == 1
    assert "position 0" in stderr and FLAT in stderr and "Traceback" not in stderr


def test_cli_decode_names_unicode_digits(tmp_path):
    result = decode("١٢".encode(), tmp_path)
    stderr = result.stderr.decode()
    assert result.returncode == 2 and result.stdout == b""
    assert stderr.startswith("tokenprism: error: ") and "'١٢'" in stderr and "Traceback" not in stderr


def test_cli_decode_still_decodes(tmp_path):
    result = decode(b"[15496, 995]", tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == b"Hello world"


def test_a_huge_bad_id_is_named_briefly(registry):
    import pytest as _pytest

    from app.errors import BadTokenId

    tokenizer = registry.get("gpt2")
    for value in (10**4000, "x" * 100_000):
        with _pytest.raises(BadTokenId) as caught:
            tokenizer.validate_ids([1, value])
        assert len(caught.value.message) < 300 and "position 1" in caught.value.message
