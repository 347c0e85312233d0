"""Cost by script (app/tokenizers/lecture/scripts.py): labels, the token rule, exact sums, and /api/compare's by_script."""

from __future__ import annotations

import random

import httpx
import pytest

from app.tokenizers.lecture import scripts
from tests.reference import BUILTIN_NAMES

MIXED = (
    "Hello, world! 안녕하세요 세계. Привет, мир. Γειά σου. שלום. مرحبا. नमस्ते दुनिया. 你好世界 こんにちは カタカナ "
    "สวัสดี 🦜👍🏽 e\u0301 42 𐎠"
)


def test_labels_of_each_script():
    text = "aé1 안ひカ漢🦜👍🏽 Пα שم न ไ 𐎠 e\u0301"
    assert scripts.labels(text) == [
        "Latin",
        "Latin",
        "Common",
        "Common",
        "Hangul",
        "Hiragana/Katakana",
        "Hiragana/Katakana",
        "Han",
        "Emoji",
        "Emoji",
        "Emoji",
        "Common",
        "Cyrillic",
        "Greek",
        "Common",
        "Hebrew",
        "Arabic",
        "Common",
        "Devanagari",
        "Common",
        "Thai",
        "Common",
        "Other",
        "Common",
        "Latin",
        "Latin",
    ]  # e + U+0301: both Latin


def test_token_rule():
    chars = scripts.labels(" 안 hello, ©")
    assert scripts.token_label(chars, 0, 2) == "Hangul"  # a tie with Common goes to the script
    assert scripts.token_label(chars, 2, 9) == "Latin"  # " hello," 5 of 7
    assert scripts.token_label(chars, 9, 11) == "Common"  # "©" is a symbol, not an emoji
    assert scripts.token_label(chars, 3, 3) == "Latin"  # an empty range: the character at its place
    assert scripts.token_label(chars, 11, 11) == "Common"  # at the end: the last one


@pytest.mark.parametrize("name", BUILTIN_NAMES)
def test_per_script_figures_sum_to_the_totals(registry, name):
    texts = [MIXED, "", "   ", "🦜", "".join(random.Random(7).choice(MIXED) for _ in range(300))]
    for text in texts:
        tokenizer = registry.get(name)
        ids = tokenizer.encode(text)
        rows = scripts.by_script(text, {name: scripts.token_ranges(tokenizer, text, ids)})
        assert sum(row["characters"] for row in rows) == len(text)
        assert sum(row["tokens"][name] for row in rows) == len(ids)
        assert all(row["characters"] > 0 for row in rows)
        assert len({row["script"] for row in rows}) == len(rows)


def test_korean_and_english_by_hand(registry):
    # cl100k_base spells "안녕하세요 hello world" as 안 (2 byte pieces), 녕 (2), 하세요, " hello", " world":
    # Hangul has 5 characters and 5 tokens; Latin 10 letters and 2 tokens; the 2 spaces ride with the words.
    text = "안녕하세요 hello world"
    tokenizer = registry.get("cl100k_base")
    ids = tokenizer.encode(text)
    assert [tokenizer.token_bytes([i])[0] for i in ids] == [
        "안".encode()[:2],
        "안".encode()[2:],
        "녕".encode()[:2],
        "녕".encode()[2:],
        "하세요".encode(),
        b" hello",
        b" world",
    ]
    rows = {row["script"]: row for row in scripts.by_script(text, {"c": scripts.token_ranges(tokenizer, text, ids)})}
    assert rows["Hangul"]["characters"] == 5 and rows["Hangul"]["tokens"] == {"c": 5}
    assert rows["Hangul"]["tokens_per_character"] == {"c": 1.0}
    assert rows["Latin"]["characters"] == 10 and rows["Latin"]["tokens"] == {"c": 2}
    assert rows["Common"]["characters"] == 2 and rows["Common"]["tokens"] == {"c": 0}
    assert list(rows) == ["Latin", "Hangul", "Common"]  # most characters first


def test_tally_adds_texts():
    tally = scripts.ScriptTally(["a"])
    tally.add("ab", {"a": [(0, 2)]})
    tally.add("안", {"a": [(0, 1), (0, 1)]})
    assert [(r["script"], r["characters"], r["tokens"]["a"]) for r in tally.rows()] == [
        ("Latin", 2, 1),
        ("Hangul", 1, 2),
    ]


def test_api_compare_by_script_over_http(live_server):
    text = "안녕하세요 hello world"
    response = httpx.post(
        f"{live_server}/api/compare", json={"text": text, "tokenizers": ["cl100k_base", "gpt2"]}, timeout=60
    )
    assert response.status_code == 200, response.text
    body = response.json()
    rows = {row["script"]: row for row in body["by_script"]}
    assert set(rows) == {"Latin", "Hangul", "Common"}
    assert rows["Hangul"] == {
        "script": "Hangul",
        "characters": 5,
        "tokens": {"cl100k_base": 5, "gpt2": rows["Hangul"]["tokens"]["gpt2"]},
        "tokens_per_character": {"cl100k_base": 1.0, "gpt2": rows["Hangul"]["tokens"]["gpt2"] / 5},
    }
    for result in body["results"]:
        assert sum(row["tokens"][result["tokenizer"]] for row in rows.values()) == result["count"]
    assert sum(row["characters"] for row in rows.values()) == len(text)
