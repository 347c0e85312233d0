"""Chat templates refused or contained, over real HTTP on a server of its own.

At upload (POST /api/tokenizers with `chat_template`): a template that does not parse (the
message names the line), JSON without a chat_template, named templates without a default,
non-UTF-8 bytes, a file over the limit and a config that is not JSON (naming its line) are
each a 4xx saying what is wrong, and nothing is stored. At chat time (POST /api/chat):
templates that loop, emit huge output, recurse, call `raise_exception` or use a token they
were not given are each a clear 4xx within seconds, alone and eight at once (a 503
`server_busy` when the sandbox is full is fine, a 500 is not), while /healthz, polled all
along, answers every probe fast; the server serves a good template afterwards."""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from app.chat.formats import template_files
from app.local_server import start_server, stop_server
from tests.api.helpers import assert_error
from tests.api.test_chat_templates import SMALL, STYLES

pytestmark = pytest.mark.serial  # times the server's answers: run alone, not beside another test worker
GOOD = STYLES["chatml"]
HI = [{"role": "user", "content": "hi"}]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("refused")
    process, url = start_server(data_dir)
    try:
        with httpx.Client(base_url=url, timeout=120) as client:
            yield client, data_dir
    finally:
        stop_server(process)


def stored(data_dir) -> list[str]:
    folder = data_dir / "tokenizers"
    return sorted(p.name for p in folder.iterdir() if not p.name.startswith(".")) if folder.exists() else []


def add(http: httpx.Client, name: str, template: tuple[str, bytes] | str) -> httpx.Response:
    files = {"file": ("tokenizer.json", SMALL.encode())}
    data = {"name": name}
    if isinstance(template, str):
        data["chat_template"] = template  # the text field
    else:
        files["chat_template"] = template
    return http.post("/api/tokenizers", files=files, data=data)


REFUSED = {
    "does not parse": (("chat_template.jinja", b"{% for m in messages %}\n{{ m.content }\n{% endfor %}"), "line 2"),
    "does not parse, in JSON": (
        (
            "tokenizer_config.json",
            json.dumps({"chat_template": "{{ bos_token }}\n\n{% if messages %}{% endfor %}"}).encode(),
        ),
        "line 3",
    ),
    "does not parse, as text": ("{% if x %}\n{% else %}\n{% else %}", "line 3"),
    "JSON without chat_template": (
        ("tokenizer_config.json", b'{"bos_token": "<s>", "model_max_length": 8192}'),
        'without a "chat_template"',
    ),
    "named without default": (
        (
            "tokenizer_config.json",
            json.dumps(
                {"chat_template": [{"name": "tool_use", "template": GOOD}, {"name": "rag", "template": GOOD}]}
            ).encode(),
        ),
        "none is 'default'",
    ),
    "not UTF-8": (("chat_template.jinja", "{{ 'caf\xe9' }}".encode("latin-1")), "not UTF-8"),
    "over the limit": (
        ("tokenizer_config.json", b'{"x": "' + b"y" * template_files.MAX_FILE_BYTES + b'"}'),
        "over 4,194,304",
    ),
    "not JSON": (
        ("tokenizer_config.json", b'{\n  "chat_template": "{{ x }}",\n  "eos_token": </s>\n}'),
        "not valid JSON (line 3)",
    ),
}


@pytest.mark.parametrize("case", REFUSED)
def test_bad_templates_are_refused_at_upload_and_nothing_is_kept(store, case):
    http, data_dir = store
    template, said = REFUSED[case]
    error = assert_error(add(http, "refused", template), 422, "template_invalid")
    assert said in error["message"], error["message"]
    assert stored(data_dir) == []
    assert_error(http.get("/api/tokenizers/refused"), 404)


def test_an_empty_file_input_adds_the_tokenizer_without_a_template(store):
    http, _data_dir = store
    added = add(http, "no-template", ("", b""))
    assert added.status_code == 201 and added.json()["chat_formats"] == [], added.text
    assert_error(http.post("/api/chat", json={"tokenizer": "no-template", "messages": HI}), 422)
    assert http.delete("/api/tokenizers/no-template").status_code == 204


HOSTILE = {  # name -> (template, what the refusal says)
    "loop": ("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}", "too slow"),
    "huge range": ("{% for i in range(10**9) %}{% endfor %}", "failed"),
    "huge output": ("{% for i in range(100000) %}{{ 'x' * 100000 }}{% endfor %}", "too much text"),
    "huge string": ("{{ 'x' * 10**10 }}", "too much memory"),
    "recursion": ("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", "recurses"),
    "raise": (
        "{% if messages[0]['role'] != 'system' %}{{ raise_exception('Conversation must start with a "
        "system message, <b>please</b>') }}{% endif %}",
        "Conversation must start with a system message, <b>please</b>",
    ),
    "no eos given": (STYLES["zephyr"], "eos_token"),
    "escape": ("{{ messages.__class__.__mro__[1].__subclasses__() }}", "failed"),
}


@pytest.fixture(scope="module")
def hostile(store):
    http, _ = store
    for name, (template, _) in HOSTILE.items():
        added = add(http, f"h-{name.replace(' ', '-')}", ("chat_template.jinja", template.encode()))
        assert added.status_code == 201, added.text
    assert add(http, "h-good", ("chat_template.jinja", GOOD.encode())).status_code == 201
    return http


class Prober:
    """Polls /healthz on a thread of its own while the block runs (`times`: each probe's wait),
    from just before the block starts to just after it ends."""

    def __init__(self, url: str):
        self.url, self.times, self.failures = url, [], []
        self.done = threading.Event()

    def run(self):
        with httpx.Client(base_url=self.url, timeout=30) as client:
            while not self.done.is_set():
                started = time.monotonic()
                answer = client.get("/healthz")
                self.times.append(time.monotonic() - started)
                if answer.status_code != 200:
                    self.failures.append(answer.status_code)
                time.sleep(0.05)

    def __enter__(self):
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()
        while not self.times and not self.failures and self.thread.is_alive():
            time.sleep(0.01)
        return self

    def __exit__(self, *exc):
        seen = len(self.times)
        while len(self.times) == seen and self.thread.is_alive():
            time.sleep(0.01)
        self.done.set()
        self.thread.join(30)


@pytest.mark.parametrize("case", HOSTILE)
def test_hostile_templates_are_clear_4xx_within_seconds_while_healthz_is_fast(hostile, case):
    said = HOSTILE[case][1]
    with Prober(str(hostile.base_url)) as probe:
        started = time.monotonic()
        answer = hostile.post("/api/chat", json={"tokenizer": f"h-{case.replace(' ', '-')}", "messages": HI})
        took = time.monotonic() - started
        counted = hostile.post("/api/count", json={"tokenizers": [f"h-{case.replace(' ', '-')}"], "messages": HI})
    error = assert_error(answer, 422)
    assert said in error["message"] and error["code"].startswith("template_"), error
    assert assert_error(counted, 422)["message"] == error["message"]
    assert took < 15, took  # the bound is 5 s; generous for a loaded machine
    assert probe.times and not probe.failures and max(probe.times) < 1.0, (max(probe.times), probe.failures)
    good = hostile.post("/api/chat", json={"tokenizer": "h-good", "messages": HI})
    assert good.status_code == 200 and good.json()["text"].endswith("<|im_start|>assistant\n")


def test_eight_hostile_chats_at_once_do_not_hang_the_server(hostile):
    names = ["h-loop", "h-recursion", "h-huge-output", "h-loop", "h-huge-string", "h-loop", "h-raise", "h-loop"]

    def chat(name):
        with httpx.Client(base_url=str(hostile.base_url), timeout=120) as client:
            return client.post("/api/chat", json={"tokenizer": name, "messages": HI})

    with Prober(str(hostile.base_url)) as probe, ThreadPoolExecutor(len(names)) as pool:
        started = time.monotonic()
        answers = list(pool.map(chat, names))
        took = time.monotonic() - started
    for name, answer in zip(names, answers, strict=True):
        if answer.status_code == 503:
            assert assert_error(answer, 503, "server_busy") and answer.headers.get("retry-after"), name
        else:
            assert_error(answer, 422)
    assert took < 60, took
    assert probe.times and not probe.failures and max(probe.times) < 1.0, (max(probe.times), probe.failures)
    good = hostile.post("/api/chat", json={"tokenizer": "h-good", "messages": HI})
    assert good.status_code == 200, good.text
