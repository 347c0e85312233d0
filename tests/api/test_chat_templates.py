"""Chat templates that come with an upload, over real HTTP on a server of its own: a
tokenizer.json (a small one trained here with added special tokens, and deepseek_v4's in two
of the styles) is posted to /api/tokenizers with a template in the styles of Llama 3, Zephyr,
Gemma and ChatML / Qwen 2.5, in every shape a user has one (a tokenizer_config.json with a string or
named templates, bos/eos as strings or AddedToken dicts, a bare .jinja); then /api/chat and
/api/count (messages) give exactly `transformers`' `apply_chat_template(...,
add_generation_prompt=True)` text and ids, GET /api/tokenizers/{name} shows the template,
and the per-message counts and the overhead add up. Refusals at upload: test_chat_templates_refused.py."""

from __future__ import annotations

import gzip
import json

import httpx
import pytest

from app.local_server import start_server, stop_server
from tests.chat.test_template_format import BOS, EOS, STYLES
from tests.reference import TOKENIZER_DIR

tokenizers = pytest.importorskip("tokenizers")
transformers = pytest.importorskip("transformers")

DEEPSEEK = gzip.decompress((TOKENIZER_DIR / "deepseek_v4.tokenizer.json.gz").read_bytes()).decode()
SMALL_BOS, SMALL_EOS = "<s>", "</s>"
SMALL_SPECIALS = [
    SMALL_BOS,
    SMALL_EOS,
    "<|im_start|>",
    "<|im_end|>",
    "<|start_header_id|>",
    "<|end_header_id|>",
    "<|eot_id|>",
    "<start_of_turn>",
    "<end_of_turn>",
]
CHATS = {
    "one user": [{"role": "user", "content": "hi"}],
    "system, user, assistant, user": [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "What is 2+2?"},
        {"role": "assistant", "content": "4"},
        {"role": "user", "content": "And 3+3?"},
    ],
    "unicode": [
        {"role": "user", "content": "👋🏽 한국어, café, Ελληνικά, עברית\n\ttabs  and  spaces "},
        {"role": "assistant", "content": "日本語の文章です。"},
    ],
    "specials typed": [
        {
            "role": "user",
            "content": f"say <|im_start|>system or {BOS} or <|eot_id|> <s> <start_of_turn> {{{{ 1 }}}} <b>&amp;</b>",
        }
    ],
    "empty and whitespace": [{"role": "system", "content": ""}, {"role": "user", "content": "  \n "}],
}


def small_tokenizer_json() -> str:
    """The byte-level BPE of tests/hf_trained.py with the templates' special tokens added."""
    from tests.hf_trained import trained_json

    library = tokenizers.Tokenizer.from_str(trained_json("byte_level"))
    library.add_special_tokens(SMALL_SPECIALS)
    library.add_tokens(["<|user|>", "<|assistant|>"])  # Zephyr's markers are ordinary added tokens
    return library.to_str()


SMALL = small_tokenizer_json()


def config_file(shape: str, source: str, bos: str, eos: str) -> tuple[str, bytes]:
    """(file name, bytes) of a template in `shape`, as models publish them."""
    if shape == "jinja":
        return "chat_template.jinja", source.encode()
    config = {"add_bos_token": False, "model_max_length": 16384, "tokenizer_class": "LlamaTokenizerFast"}
    if shape == "string":
        config.update(chat_template=source, bos_token=bos, eos_token=eos)
    elif shape == "named":
        config.update(
            chat_template=[
                {"name": "tool_use", "template": "{{ raise_exception('tools only') }}"},
                {"name": "default", "template": source},
            ],
            bos_token=bos,
            eos_token=eos,
        )
    else:  # AddedToken dicts, as transformers saves them
        config.update(
            chat_template=source,
            **{
                key: {
                    "content": token,
                    "lstrip": False,
                    "normalized": False,
                    "rstrip": False,
                    "single_word": False,
                    "special": True,
                }
                for key, token in (("bos_token", bos), ("eos_token", eos))
            },
        )
    return "tokenizer_config.json", json.dumps(config, indent=2, ensure_ascii=False).encode()


# name -> (tokenizer.json text, style, shape): every style and every shape on the small tokenizer;
# two on deepseek_v4's 8 MB file, whose every style test_template_format.py renders in-process
# (each upload of it here costs a load: ~6 s in a suite worker)
UPLOADS = {
    **{
        f"ds-{style}": ("deepseek", style, shape)
        for style, shape in zip(("llama3", "zephyr"), ("added_token", "named"), strict=True)
    },
    **{
        f"small-{style}": ("small", style, shape)
        for style, shape in zip(STYLES, ("jinja", "string", "named", "added_token"), strict=True)
    },
}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    process, url = start_server(tmp_path_factory.mktemp("templates"))
    try:
        with httpx.Client(base_url=url, timeout=120) as client:
            yield client
    finally:
        stop_server(process)


@pytest.fixture(scope="module")
def references():
    """tokenizer -> transformers' tokenizer over the same tokenizer.json, with its bos and eos."""

    def make(text, bos, eos):
        return transformers.PreTrainedTokenizerFast(
            tokenizer_object=tokenizers.Tokenizer.from_str(text), bos_token=bos, eos_token=eos
        )

    return {
        "deepseek": (make(DEEPSEEK, BOS, EOS), make(DEEPSEEK, None, None)),
        "small": (make(SMALL, SMALL_BOS, SMALL_EOS), make(SMALL, None, None)),
    }


def upload(http: httpx.Client, name: str) -> dict:
    which, style, shape = UPLOADS[name]
    text, bos, eos = (DEEPSEEK, BOS, EOS) if which == "deepseek" else (SMALL, SMALL_BOS, SMALL_EOS)
    added = http.post(
        "/api/tokenizers",
        files={"file": ("tokenizer.json", text.encode()), "chat_template": config_file(shape, STYLES[style], bos, eos)},
        data={"name": name},
    )
    assert added.status_code == 201, added.text
    return added.json()


@pytest.fixture(scope="module")
def uploaded(server):
    return {name: upload(server, name) for name in UPLOADS}


@pytest.mark.parametrize("name", UPLOADS)
def test_chat_and_count_give_transformers_text_and_ids(server, uploaded, references, name):
    which, style, shape = UPLOADS[name]
    assert uploaded[name]["chat_formats"] == ["template"]
    reference = references[which][shape == "jinja"]  # a bare .jinja brings no bos/eos: undefined, as there
    for chat_name, messages in CHATS.items():
        want_text = reference.apply_chat_template(
            messages, chat_template=STYLES[style], add_generation_prompt=True, tokenize=False
        )
        want_ids = list(
            reference.apply_chat_template(
                messages, chat_template=STYLES[style], add_generation_prompt=True, tokenize=True, return_dict=False
            )
        )
        chat = server.post("/api/chat", json={"tokenizer": name, "messages": messages})
        assert chat.status_code == 200, (chat_name, chat.text)
        body = chat.json()
        assert body["format"] == "template", chat_name
        assert body["text"] == want_text, chat_name
        assert [t["id"] for t in body["tokens"]] == want_ids, chat_name
        assert body["count"] == len(want_ids)
        assert body["tokens"][0]["start"] == 0 and body["tokens"][-1]["end"] == len(want_text)
        assert b"".join(bytes.fromhex(t["bytes"]) for t in body["tokens"]) == want_text.encode()
        specials = {t["text"] for t in body["tokens"] if t["special"]}
        assert specials == {
            reference.convert_ids_to_tokens(i)
            for i in want_ids
            if i in reference.all_special_ids or reference.convert_ids_to_tokens(i) in [*SMALL_SPECIALS, BOS, EOS]
        }, chat_name
        counted = server.post("/api/count", json={"tokenizers": [name], "messages": messages})
        assert counted.status_code == 200, counted.text
        chat_counts = counted.json()["chat"]
        assert counted.json()["counts"] == {name: len(want_ids)}
        assert chat_counts["formats"] == {name: "template"}
        assert chat_counts["per_message"][name] == [m["count"] for m in body["messages"]]
        assert chat_counts["overhead"][name] == body["overhead"]
        assert [m["role"] for m in body["messages"]] == [m["role"] for m in messages]
        assert sum(m["count"] for m in body["messages"]) <= body["count"]  # the rest primes the reply
        assert 0 < body["overhead"] < body["count"] or not any(m["content"].strip() for m in messages)


@pytest.mark.parametrize("name", ["ds-llama3", "ds-zephyr", "small-llama3", "small-gemma"])
def test_detail_shows_the_template_and_its_tokens(server, uploaded, name):
    which, style, shape = UPLOADS[name]
    detail = server.get(f"/api/tokenizers/{name}")
    assert detail.status_code == 200, detail.text
    body = detail.json()
    assert body["chat_formats"] == ["template"]
    bos, eos = (BOS, EOS) if which == "deepseek" else (SMALL_BOS, SMALL_EOS)
    given = (None, None) if shape == "jinja" else (bos, eos)
    assert body["chat_template"] == {
        "template": STYLES[style],
        "bos_token": given[0],
        "eos_token": given[1],
        "other_templates": ["tool_use"] if shape == "named" else [],
    }
    listed = {t["name"]: t for t in server.get("/api/tokenizers").json()["tokenizers"]}
    assert listed[name]["name"] == name
    assert server.get("/api/tokenizers/deepseek_v4").json().get("chat_formats") == []


def test_counts_add_up_on_a_chat_worked_by_hand(server, uploaded, references):
    """Llama 3's framing on the small tokenizer (a bare .jinja: bos_token renders empty), where
    every boundary is a special token or a newline: each message owns its header, content and
    <|eot_id|>; the overhead is all but the contents; the reply's header belongs to no message."""
    reference = references["small"][0]
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hello there"}]
    body = server.post("/api/chat", json={"tokenizer": "small-llama3", "messages": messages}).json()

    def n(text):
        return len(reference.encode(text, add_special_tokens=False))

    system = n("<|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|>")
    user = n("<|start_header_id|>user<|end_header_id|>\n\nHello there<|eot_id|>")
    priming = n("<|start_header_id|>assistant<|end_header_id|>\n\n")
    assert [m["count"] for m in body["messages"]] == [system, user]
    assert body["count"] == system + user + priming
    assert body["overhead"] == body["count"] - n("Be brief.") - n("Hello there")


def test_any_role_reaches_the_template_but_an_empty_one_is_4xx(server, uploaded, references):
    refused = server.post("/api/chat", json={"tokenizer": "small-chatml", "messages": [{"role": " ", "content": "x"}]})
    assert refused.status_code == 422 and "empty role" in refused.json()["error"]["message"], refused.text
    messages = [
        {"role": "user", "content": "weather?"},
        {"role": "ipython", "content": '{"t": 21}'},
        {"role": "function", "content": "ok"},
    ]
    chat = server.post("/api/chat", json={"tokenizer": "small-chatml", "messages": messages})
    assert chat.status_code == 200, chat.text
    assert chat.json()["text"] == references["small"][0].apply_chat_template(
        messages, chat_template=STYLES["chatml"], add_generation_prompt=True, tokenize=False
    )
    named = server.post(
        "/api/chat", json={"tokenizer": "small-chatml", "messages": [{"role": "user", "content": "hi", "name": "ann"}]}
    )
    assert named.status_code == 200 and "<|im_start|>user (ann)\n" in named.json()["text"]
