"""The `tokenprism` console script, run as a user runs it: a real process, real files."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.conftest import start_server
from tests.reference import BUILTIN_NAMES, reference_ids, stdlib_texts

SCRIPT = Path(sys.executable).with_name("tokenprism")


def run(*args, data_dir: Path, stdin: bytes = b"") -> subprocess.CompletedProcess:
    env = {**os.environ, "TOKENPRISM_DATA_DIR": str(data_dir)}
    return subprocess.run([str(SCRIPT), *args], input=stdin, capture_output=True, env=env, timeout=120)


@pytest.fixture()
def cli_data(tmp_path) -> Path:
    return tmp_path / "data"


def test_list_prints_every_builtin(cli_data):
    result = run("list", data_dir=cli_data)
    assert result.returncode == 0
    rows = [line.split()[:3] for line in result.stdout.decode().splitlines()[1:]]
    assert [row[0] for row in rows] == BUILTIN_NAMES
    assert ["cl100k_base", "tiktoken", "100277"] in rows


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base", "mistral_v1"])
def test_encode_file_agrees_with_reference(name, cli_data, tmp_path):
    file_name, text = stdlib_texts(count=3)[2]
    source = tmp_path / file_name
    source.write_bytes(text.encode("utf-8"))
    result = run("encode", "-t", name, str(source), data_dir=cli_data)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == reference_ids(name, text)


SCRIPT_RANGES = [
    (0x20, 0x7E),
    (0xA0, 0x24F),
    (0x370, 0x3FF),
    (0x400, 0x4FF),
    (0x590, 0x6FF),
    (0x900, 0x97F),
    (0xE00, 0xE7F),
    (0x3040, 0x30FF),
    (0x4E00, 0x9FFF),
    (0xAC00, 0xD7A3),
    (0x1F300, 0x1FAFF),
    (0x9, 0xD),
]


def random_multiscript_text(seed: int, length: int = 3000) -> str:
    rng = random.Random(seed)
    pieces = []
    while sum(map(len, pieces)) < length:
        low, high = rng.choice(SCRIPT_RANGES)
        pieces.append("".join(chr(rng.randint(low, high)) for _ in range(rng.randint(1, 12))))
        pieces.append(rng.choice([" ", "  ", "\n", "\r\n", "", "\t"]))
    return "".join(pieces)


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base", "mistral_v1"])
def test_encode_random_unicode_agrees_with_reference(name, cli_data, tmp_path):
    source = tmp_path / "random.txt"
    for seed in range(3):
        text = random_multiscript_text(seed)
        source.write_bytes(text.encode("utf-8"))
        result = run("encode", "-t", name, str(source), data_dir=cli_data)
        assert json.loads(result.stdout) == reference_ids(name, text), f"seed {seed}"


def test_stdin_is_read_as_exact_bytes(cli_data):
    text = "a\r\nb\r\n\tc  👋"
    result = run("encode", "-t", "cl100k_base", "-", data_dir=cli_data, stdin=text.encode())
    ids = json.loads(result.stdout)
    assert ids == reference_ids("cl100k_base", text)
    back = run("decode", "-t", "cl100k_base", data_dir=cli_data, stdin=result.stdout)
    assert back.returncode == 0 and back.stdout == text.encode()


def test_allow_special(cli_data):
    text = b"x<|endoftext|>"
    plain = json.loads(run("encode", "-t", "gpt2", data_dir=cli_data, stdin=text).stdout)
    special = json.loads(run("encode", "-t", "gpt2", "--allow-special", data_dir=cli_data, stdin=text).stdout)
    assert 50256 in special and 50256 not in plain


def test_count_table_and_json(cli_data, tmp_path):
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text("hello world", encoding="utf-8")
    second.write_text("한국어 텍스트 " * 10, encoding="utf-8")
    args = ["count", "-t", "gpt2", "-t", "mistral_v1", str(first), str(second)]
    table = run(*args, data_dir=cli_data)
    assert table.returncode == 0
    lines = table.stdout.decode().splitlines()
    assert lines[0].split() == ["FILE", "gpt2", "mistral_v1"] and lines[-1].split()[0] == "TOTAL"
    report = json.loads(run(*args, "--json", data_dir=cli_data).stdout)
    expected = len(reference_ids("mistral_v1", second.read_text(encoding="utf-8")))
    assert report["files"][str(second)]["mistral_v1"] == expected
    assert report["total"]["gpt2"] == sum(row["gpt2"] for row in report["files"].values())


@pytest.mark.parametrize(
    "args, stdin, fragment",
    [
        (["encode", "-t", "gpt-9", "-"], b"x", "unknown tokenizer 'gpt-9'; use one of: gpt2"),
        (["encode", "-t", "gpt2", "/no/such/file"], b"", "no such file: /no/such/file"),
        (["encode", "-t", "gpt2", "-"], b"\xff\xfe", "not UTF-8"),
        (["decode", "-t", "gpt2"], b"[1, 99999999]", "token id 99999999 at position 1"),
        (["decode", "-t", "gpt2"], b"[1, true]", "True, not an integer"),
        (["decode", "-t", "cl100k_base"], b"[100256]", "not in cl100k_base's vocabulary"),
        (["decode", "-t", "gpt2"], b'{"ids": 1}', "write them as [15339, 1917]"),
        (["train", "/no/corpus", "--vocab-size", "300", "--name", "x"], b"", "no such file"),
        (["train", "-", "--vocab-size", "300", "--name", "cl100k_base"], b"abc", "built-in"),
        (["train", "-", "--vocab-size", "300", "--name", "Bad Name!"], b"abc", "not allowed"),
    ],
)
def test_bad_input_is_one_line_and_nonzero(args, stdin, fragment, cli_data):
    result = run(*args, data_dir=cli_data, stdin=stdin)
    err = result.stderr.decode()
    assert result.returncode != 0
    assert fragment in err, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_trained_tokenizer_works_everywhere(tmp_path):
    data_dir = tmp_path / "data"
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("".join(text for _, text in stdlib_texts(count=5)), encoding="utf-8")
    trained = run(
        "train",
        str(corpus),
        "--vocab-size",
        "400",
        "--pattern",
        "gpt4",
        "--name",
        "mini",
        "--special",
        "<|end|>",
        data_dir=data_dir,
    )
    assert trained.returncode == 0, trained.stderr
    assert b"merging" in trained.stderr and (data_dir / "tokenizers" / "mini.bpe").is_file()

    listed = run("list", data_dir=data_dir).stdout.decode().splitlines()
    assert any(line.split()[:3] == ["mini", "bpe", "400"] for line in listed)
    ids = json.loads(run("encode", "-t", "mini", str(corpus), data_dir=data_dir).stdout)
    assert max(ids) >= 256, "merges are used"
    assert run("decode", "-t", "mini", data_dir=data_dir, stdin=json.dumps(ids).encode()).stdout == corpus.read_bytes()
    again = run("train", str(corpus), "--vocab-size", "300", "--name", "mini", data_dir=data_dir)
    assert again.returncode != 0 and b"--force" in again.stderr

    process, base_url = start_server(data_dir)
    try:
        names = [t["name"] for t in httpx.get(f"{base_url}/api/tokenizers").json()["tokenizers"]]
        assert "mini" in names
        response = httpx.post(f"{base_url}/api/tokenize", json={"tokenizer": "mini", "text": "def main():"})
        assert response.status_code == 200
        assert [t["id"] for t in response.json()["tokens"]] == json.loads(
            run("encode", "-t", "mini", "-", data_dir=data_dir, stdin=b"def main():").stdout
        )
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.mark.parametrize("name, expected", [("cl100k_base", 129), ("o200k_base", 124)])
def test_count_chat_messages_as_openai_does(name, expected, cli_data, tmp_path):
    from tests.api.test_chat import COOKBOOK

    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps(COOKBOOK), encoding="utf-8")
    result = run("count", "--messages", str(chat), "-t", name, "--json", data_dir=cli_data)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)[name]["prompt_tokens"] == expected


def test_count_chat_refuses_tokenizers_without_a_chat_format(cli_data, tmp_path):
    chat = tmp_path / "chat.json"
    chat.write_text('[{"role": "user", "content": "hi"}]', encoding="utf-8")
    result = run("count", "--messages", str(chat), "-t", "gpt2", data_dir=cli_data)
    assert result.returncode == 2 and b"cl100k_base, o200k_base" in result.stderr


@pytest.mark.parametrize("name", ["gpt2", "mistral_v1", "tokenprism_4k"])
def test_tokenize_json_gives_the_engine_tokens(name, cli_data, registry):
    text = "héllo 👋 wörld\r\n\ta▁b <|endoftext|>"
    result = run("tokenize", "-t", name, "--json", data_dir=cli_data, stdin=text.encode())
    assert result.returncode == 0, result.stderr
    listed = json.loads(result.stdout)
    expected = registry.get(name).tokenize(text)
    assert [(t["id"], bytes.fromhex(t["bytes"]), t["start"], t["end"], t["special"]) for t in listed] == [
        (t.id, t.bytes, t.start, t.end, t.special) for t in expected
    ]
    assert [t["text"] for t in listed] == [t.text for t in expected]


def test_count_messages_agrees_with_the_chat_rendering(cli_data, tmp_path, registry):
    from app.chat.messages import ChatMessage
    from app.chat.render import DEFAULT_FORMAT, render

    messages = [
        {"role": "system", "content": "Sei kurz. [INST] <s>"},
        {"role": "user", "content": "Hi 👋 한국어"},
        {"role": "assistant", "content": "Gern. "},
        {"role": "user", "content": " <|im_end|>\n"},
    ]
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps({"messages": messages}), encoding="utf-8")
    names = [arg for name in DEFAULT_FORMAT for arg in ("-t", name)]
    result = run("count", "--messages", str(chat), *names, "--json", data_dir=cli_data)
    assert result.returncode == 0, result.stderr
    printed = json.loads(result.stdout)
    assert list(printed) == list(DEFAULT_FORMAT)
    for name, row in printed.items():
        rendered = render(registry.get(name), [ChatMessage(m["role"], m["content"]) for m in messages])
        assert row == {
            "prompt_tokens": rendered.count,
            "format": DEFAULT_FORMAT[name],
            "per_message": rendered.message_counts(),
            "overhead": rendered.overhead,
            "tools": 0,
        }
