"""`tokenprism count --messages` with tools, as a user runs it (a real process, real files):
--tools TOOLS.json or tools inside the chat file, the same counts as the engine and the API,
and one line naming the file and the field for every bad input.

The counts are checked with the stand-in format that renders tools (tests/chat/tools_fake.py),
put in place of chatml in the child process, and for the real formats (which count tools or
say they have none, as render() does in this process).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from app.chat.render import DEFAULT_FORMAT, render
from app.errors import InvalidInput
from app.settings import REPO_ROOT
from tests.chat.test_tools_parse import WEATHER, call, chat, read
from tests.chat.tools_fake import installed

WITH_FAKE = (
    "from tests.chat.tools_fake import FAKE; from app.chat import render; render.FORMATS['chatml'] = FAKE; "
    "from app.cli import main; raise SystemExit(main())"
)


def run(*args, data_dir, fake: bool = False) -> subprocess.CompletedProcess:
    command = [sys.executable, "-c", WITH_FAKE] if fake else [sys.executable, "-m", "app.cli"]
    env = {**os.environ, "TOKENPRISM_DATA_DIR": str(data_dir)}
    return subprocess.run([*command, "count", *args], capture_output=True, env=env, cwd=REPO_ROOT, timeout=120)


def write(path, value):
    path.write_text(json.dumps(value), encoding="utf-8")
    return str(path)


def test_tools_in_the_chat_file_or_in_tools_json_give_the_engine_counts(tmp_path, registry):
    body = write(
        tmp_path / "body.json", {"model": "gpt-4o", "messages": chat(), "tools": [WEATHER], "tool_choice": "auto"}
    )
    messages = write(tmp_path / "chat.json", chat())
    tools = write(tmp_path / "tools.json", [WEATHER])
    tools_body = write(tmp_path / "tools_body.json", {"tools": [WEATHER]})
    printed = []
    for args in ([body], [messages, "--tools", tools], [messages, "--tools", tools_body]):
        result = run(
            "--messages", *args, "-t", "cl100k_base", "-t", "o200k_base", "--json", data_dir=tmp_path, fake=True
        )
        assert result.returncode == 0, result.stderr
        printed.append(json.loads(result.stdout))
    assert printed[0] == printed[1] == printed[2]
    parsed_messages, parsed_tools = read(chat(), [WEATHER])
    with installed():
        for name in ("cl100k_base", "o200k_base"):
            rendered = render(registry.get(name), parsed_messages, tools=parsed_tools)
            assert printed[0][name] == {
                "prompt_tokens": rendered.count,
                "format": "chatml",
                "overhead": rendered.overhead,
                "per_message": rendered.message_counts(),
                "tools": rendered.tools_count,
            }
            assert rendered.tools_count > 0
    table = run("--messages", body, "-t", "cl100k_base", data_dir=tmp_path, fake=True)
    assert f"; tools {printed[0]['cl100k_base']['tools']})" in table.stdout.decode()


@pytest.mark.parametrize("name", list(DEFAULT_FORMAT))
def test_each_real_format_counts_as_the_engine_or_refuses_alike(tmp_path, registry, name):
    body = write(tmp_path / "body.json", {"messages": chat(), "tools": [WEATHER]})
    result = run("--messages", body, "-t", name, "--json", data_dir=tmp_path)
    parsed_messages, parsed_tools = read(chat(), [WEATHER])
    try:
        rendered = render(registry.get(name), parsed_messages, tools=parsed_tools)
    except InvalidInput as error:
        assert result.returncode == 2 and result.stderr.decode().strip() == f"tokenprism: error: {error.message}"
        return
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)[name]["tools"] == rendered.tools_count
    assert json.loads(result.stdout)[name]["prompt_tokens"] == rendered.count


def test_a_chat_without_tools_reports_tools_zero(tmp_path):
    plain = write(tmp_path / "plain.json", [{"role": "user", "content": "hi"}])
    result = run("--messages", plain, "-t", "cl100k_base", "--json", data_dir=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["cl100k_base"]["tools"] == 0
    table = run("--messages", plain, "-t", "cl100k_base", data_dir=tmp_path)
    assert b"tools" not in table.stdout  # the table line is as before without tools


BAD = [  # (chat file, tools file or None, words stderr must hold)
    (chat(), {"type": "function"}, ['tools.json: "tools" is an object']),
    (chat(), [{"type": "function", "function": {"name": "get weather"}}], ["tools.json: tools[0].function.name"]),
    (chat(call(arguments="{x")), [WEATHER], ["chat.json: messages[1].tool_calls[0].function.arguments", "not JSON"]),
    (chat(call(name="nope")), [WEATHER], ["'nope' is no listed tool"]),
    (chat(answer="c9"), [WEATHER], ["'c9' answers no earlier call"]),
    ({"messages": chat(), "tools": [WEATHER]}, [WEATHER], ['has "tools" and --tools gives them too']),
    ([{"role": "user", "content": "x", "refusal": None}], None, ["message 0 in", '"tool_calls", "tool_call_id"']),
    ([{"role": "user", "content": None}], None, ["chat.json: messages[0] has no content"]),
]


@pytest.mark.parametrize("messages, tools, words", BAD, ids=[words[0][:40] for *_, words in BAD])
def test_bad_tool_files_end_in_one_line_naming_the_problem(tmp_path, messages, tools, words):
    args = ["--messages", write(tmp_path / "chat.json", messages)]
    if tools is not None:
        args += ["--tools", write(tmp_path / "tools.json", tools)]
    result = run(*args, "-t", "cl100k_base", data_dir=tmp_path)
    stderr = result.stderr.decode()
    assert result.returncode == 2 and stderr.count("\n") == 1 and "Traceback" not in stderr, stderr
    for word in words:
        assert word in stderr, stderr


def test_tools_need_messages_and_deep_files_are_refused(tmp_path):
    tools = write(tmp_path / "tools.json", [WEATHER])
    result = run("--tools", tools, data_dir=tmp_path)
    assert result.returncode == 2 and b"--tools goes with --messages" in result.stderr
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    result = run("--messages", write(tmp_path / "chat.json", chat()), "--tools", str(deep), data_dir=tmp_path)
    assert result.returncode == 2 and b"nested too deeply" in result.stderr, result.stderr
