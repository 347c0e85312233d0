"""`tokenprism add FILE --chat-template CFG`, `count --messages` and `list`, run as a user runs
them (a real process, `python -m app.cli` from this tree, its own data directory): the count is
`transformers`' for the template; a bad template file exits 2 naming the line, and nothing is
stored; `list` shows which tokenizers have a chat format."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.api.test_chat_templates import SMALL, SMALL_BOS, SMALL_EOS, config_file, tokenizers, transformers
from tests.chat.test_template_format import STYLES

ROOT = Path(__file__).resolve().parents[2]
CHAT = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Hi <|im_end|> there, café 👋"},
    {"role": "assistant", "content": "Hello!"},
    {"role": "user", "content": "Bye"},
]


def run(*args: str, data_dir: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "TOKENPRISM_DATA_DIR": str(data_dir)}
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args], capture_output=True, env=env, timeout=120, cwd=ROOT, text=True
    )


@pytest.fixture()
def files(tmp_path):
    (tmp_path / "tokenizer.json").write_text(SMALL)
    (tmp_path / "chat.json").write_text(json.dumps(CHAT))
    return tmp_path


@pytest.mark.parametrize("style", ["chatml", "gemma"])
def test_add_with_a_template_then_count_messages_gives_transformers_count(files, style):
    name, data = config_file("added_token", STYLES[style], SMALL_BOS, SMALL_EOS)
    (files / name).write_bytes(data)
    data_dir = files / "data"
    added = run(
        "add", str(files / "tokenizer.json"), "--name", "x", "--chat-template", str(files / name), data_dir=data_dir
    )
    assert added.returncode == 0, added.stderr
    assert f"chat template from {files / name}" in added.stderr
    reference = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tokenizers.Tokenizer.from_str(SMALL), bos_token=SMALL_BOS, eos_token=SMALL_EOS
    )
    want = len(
        reference.apply_chat_template(
            CHAT, chat_template=STYLES[style], add_generation_prompt=True, tokenize=True, return_dict=False
        )
    )
    counted = run("count", "--messages", str(files / "chat.json"), "-t", "x", data_dir=data_dir)
    assert counted.returncode == 0, counted.stderr
    assert counted.stdout.startswith(f"x: {want} prompt tokens (template; per message: ")
    as_json = run("count", "--messages", str(files / "chat.json"), "-t", "x", "--json", data_dir=data_dir)
    report = json.loads(as_json.stdout)["x"]
    assert report["prompt_tokens"] == want and report["format"] == "template" and len(report["per_message"]) == 4
    listed = {line.split()[0]: line.split()[3] for line in run("list", data_dir=data_dir).stdout.splitlines()[1:]}
    assert listed["x"] == "template" and listed["cl100k_base"] == "chatml" and listed["gpt2"] == "-"


@pytest.mark.parametrize(
    "content, said",
    [
        ("{% for m in messages %}\n{{ m.content }\n{% endfor %}", "line 2"),
        ('{\n  "chat_template": "{{ x }}",\n  "eos_token": </s>\n}', "not valid JSON (line 3)"),
        ('{"bos_token": "<s>"}', 'without a "chat_template"'),
    ],
)
def test_a_bad_template_file_exits_2_naming_the_problem_and_stores_nothing(files, content, said):
    (files / "cfg.json").write_text(content)
    data_dir = files / "data"
    added = run(
        "add",
        str(files / "tokenizer.json"),
        "--name",
        "x",
        "--chat-template",
        str(files / "cfg.json"),
        data_dir=data_dir,
    )
    assert added.returncode == 2, (added.returncode, added.stderr)
    assert said in added.stderr and "Traceback" not in added.stderr, added.stderr
    assert len(added.stderr.strip().splitlines()) == 1
    assert "x " not in run("list", data_dir=data_dir).stdout


def test_a_missing_template_file_exits_2(files):
    added = run(
        "add",
        str(files / "tokenizer.json"),
        "--name",
        "x",
        "--chat-template",
        str(files / "nope.json"),
        data_dir=files / "data",
    )
    assert added.returncode == 2 and "no such file" in added.stderr and "--chat-template" in added.stderr, added.stderr
    directory = run(
        "add", str(files / "tokenizer.json"), "--name", "x", "--chat-template", str(files), data_dir=files / "data"
    )
    assert directory.returncode == 2 and "not a regular file" in directory.stderr, directory.stderr
