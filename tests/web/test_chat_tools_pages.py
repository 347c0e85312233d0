"""Tools on the pages without JavaScript (app/web/pages/chat_tools.py, chat_form.py, chat_prompt.py): the tools box,
calls and call ids posted as form fields, drawn and counted as POST /api/chat counts them, kept in
the address, a bad box answered beside it, a format without tools saying so, and the comparison."""

from __future__ import annotations

import html
import json
import re
from urllib.parse import urlencode

import pytest
from starlette.datastructures import QueryParams

from app.errors import InvalidInput
from app.web.pages.chat_form import chat_query, read_chat
from app.web.pages.chat_prompt import in_page_words, reply_tokens
from app.web.pages.chat_tools import chat_of, read_tools

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather in a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}
CALL_ID = "call00001"  # one id every format takes (Mistral's: 9 letters or digits)
API_CHAT = [
    {"role": "system", "content": "You check the weather."},
    {"role": "user", "content": "Weather in Paris?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": CALL_ID, "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}
        ],
    },
    {"role": "tool", "content": '{"temp": 21}', "tool_call_id": CALL_ID, "name": "get_weather"},
]


def form(tokenizer: str, tools: str = json.dumps([WEATHER]), names: bool = False, **extra) -> list[tuple[str, str]]:
    """The playground's chat form: the chat above as the editor posts it (calls in the short form)."""
    calls = json.dumps([{"id": CALL_ID, "name": "get_weather", "arguments": {"city": "Paris"}}])
    pairs = [("tokenizer", tokenizer), ("mode", "chat"), ("tools", tools)]
    for m in API_CHAT:
        pairs += [
            ("role", m["role"]),
            ("content", m["content"] or ""),
            ("calls", calls if m.get("tool_calls") else ""),
            ("call_id", m.get("tool_call_id") or ""),
        ]
        if names:
            pairs.append(("name", m.get("name") or ""))
    return pairs + [(k, v) for k, v in extra.items()]


def post(client, path: str, pairs: list[tuple[str, str]], **options):
    """A plain form post, fields repeated in order as a browser sends them."""
    return client.post(
        path, content=urlencode(pairs), headers={"Content-Type": "application/x-www-form-urlencoded"}, **options
    )


def api_chat(client, tokenizer: str, names: bool = False) -> dict:
    messages = [m if names else {k: v for k, v in m.items() if k != "name"} for m in API_CHAT]
    answer = client.post("/api/chat", json={"tokenizer": tokenizer, "messages": messages, "tools": [WEATHER]})
    assert answer.status_code == 200, answer.text
    return answer.json()


def figure(html: str, role: str) -> int:
    found = re.search(rf'data-role="{role}"[^>]*>([\d,]+)<', html)
    assert found, role
    return int(found[1].replace(",", ""))


@pytest.mark.parametrize("tokenizer,names", [("cl100k_base", False), ("o200k_harmony", True), ("mistral_v3", False)])
def test_the_playground_counts_tools_calls_and_results_as_the_api(client, tokenizer, names):
    api = api_chat(client, tokenizer, names)
    page = post(client, "/", form(tokenizer, names=names), follow_redirects=True)
    assert page.status_code == 200
    text = page.text
    assert api["tools"] > 0
    assert figure(text, "token-count") == api["count"]
    assert figure(text, "tools-count") == api["tools"] == figure(text, "tools-row-count")
    assert figure(text, "overhead") == api["overhead"]
    assert [int(n.replace(",", "")) for n in re.findall(r'data-role="message-count">([\d,]+)<', text)] == [
        m["count"] for m in api["messages"]
    ]
    assert 'class="chat-part tools"' in text or 'class="chat-part framing tools"' in text
    assert 'data-message="tools"' in text and 'data-role="tools-legend"' in text
    assert 'id="calls-2"' in text and 'id="call-id-3"' in text  # the assistant's calls box, the tool's call id
    assert f'<option value="{CALL_ID}">' in text  # the call ids offered to a tool card
    assert ('data-role="chat-note"' in text) == (tokenizer == "cl100k_base")  # chatml's word on its counts


def test_the_address_keeps_the_tools_and_calls(client):
    page = post(client, "/", form("cl100k_base"), follow_redirects=False)
    assert page.status_code == 303
    query = QueryParams(page.headers["location"].split("?", 1)[1])
    assert json.loads(query["tools"]) == [WEATHER]
    assert query.getlist("call_id") == ["", "", "", CALL_ID] and query.getlist("calls")[2].startswith("[")
    messages, problem = read_chat(query)
    assert problem is None and chat_query(messages) == [p for p in form("cl100k_base")[3:]]


def test_a_bad_tools_box_is_answered_beside_it_and_the_chat_still_drawn(client):
    for tools, says in [
        ("[{", "the tools box is not JSON"),
        ('[{"type": "function", "function": {}}]', "has no name"),
        ('{"type": "function", "function": {"name": "a b"}}', "is 'a b'; a tool name is"),
        (json.dumps([{"name": "f", "parameters": []}]), "parameters is an array"),
    ]:
        page = post(client, "/", form("cl100k_base", tools=tools), follow_redirects=True)
        assert page.status_code == 200, tools
        error = re.search(r'data-role="tools-error"[^>]*>([^<]*)<', page.text)
        assert error and says in html.unescape(error[1]), (tools, error)
        assert 'data-role="token-count"' in page.text and 'data-role="tools-left-out"' in page.text


def test_the_shapes_people_paste_are_taken():
    one = read_tools(json.dumps(WEATHER))
    assert read_tools(json.dumps([WEATHER])) == one == read_tools(json.dumps({"tools": [WEATHER]}))
    assert read_tools(json.dumps(WEATHER["function"])) == one and read_tools("  ") == ()


def test_a_format_without_tools_says_so_in_place(client):
    data = [*form("llama3")[:3], ("role", "user"), ("content", "hi"), ("calls", ""), ("call_id", "")]
    page = post(client, "/", data, follow_redirects=True)
    assert page.status_code == 200
    assert "llama3&#39;s chat format has no tools" in page.text or "llama3's chat format has no tools" in page.text
    plain = client.post(
        "/api/chat", json={"tokenizer": "llama3", "messages": [{"role": "user", "content": "hi"}]}
    ).json()
    assert figure(page.text, "token-count") == plain["count"]


def test_call_errors_name_the_card():
    with pytest.raises(InvalidInput) as caught:
        chat_of(read_chat(QueryParams(urlencode([("role", "assistant"), ("content", ""), ("calls", "[1")])))[0])
    assert in_page_words(caught.value).message.startswith("Message 1's tool calls are not JSON")
    worded = in_page_words(InvalidInput("messages[2].tool_calls[0].function.name 'x' is no listed tool"))
    assert worded.message == "Message 3, call 1: name 'x' is no listed tool"
    assert (
        in_page_words(InvalidInput("messages[3].tool_call_id 'y' answers no")).message
        == "Message 4's tool_call_id 'y' answers no"
    )


def test_the_reply_priming_leaves_the_tools_out(registry):
    from app.chat.messages import ChatMessage, Tool
    from app.chat.render import render

    rendered = render(registry.get("mistral_v3"), [ChatMessage("user", "hi")], tools=(Tool("f"),))
    assert rendered.tools_count > 0 and reply_tokens(rendered) == 0  # mistral writes its tools in no message


def test_the_comparison_renders_the_tools_in_each_format(client):
    names = ["cl100k_base", "o200k_harmony", "mistral_v3", "llama3"]
    data = [("tokenizers", n) for n in names] + [p for p in form("x") if p[0] not in ("tokenizer",)]
    page = post(client, "/compare", data, follow_redirects=True)
    assert page.status_code == 200
    text = page.text
    for name in names[:3]:
        api = api_chat(client, name, names=name == "o200k_harmony")
        counts = dict(re.findall(r'data-tokenizer="([^"]+)" data-role="tools-count">([\d,]+)<', text))
        assert int(counts[name]) == api["tools"], name
        assert re.search(
            rf'data-tokenizer="{name}"[^>]*aria-labelledby[^>]*>.*?data-count="{api["count"]}"', text, re.S
        )
    assert 'data-role="no-tools"' in text
    assert re.search(r'data-tokenizer="llama3" aria-labelledby[^>]*>.*?data-role="no-tools"', text, re.S)


def test_a_share_keeps_the_tools_and_calls(client, registry):
    from app.web.share.state import ShareRequest, document, json_pairs, state_from, state_json

    body = {
        "page": "compare",
        "tokenizers": ["cl100k_base", "mistral_v3"],
        "mode": "chat",
        "tools": [WEATHER],
        "messages": API_CHAT[1:],
    }
    shared = client.post("/api/share", json=body)
    assert shared.status_code == 200, shared.text
    page = client.get(shared.json()["url"])
    counts = dict(re.findall(r'data-tokenizer="([^"]+)" data-role="tools-count">([\d,]+)<', page.text))
    assert int(counts["mistral_v3"]) == api_chat(client, "mistral_v3")["tools"]
    state = state_from("compare", json_pairs(ShareRequest.model_validate(body).root), registry, from_form=False)
    back = state_json("compare", state)
    assert back["tools"] == [WEATHER] and back["messages"][1]["tool_calls"] == API_CHAT[2]["tool_calls"]
    assert back["messages"][2]["tool_call_id"] == CALL_ID
    twin = state_from(
        "compare", json_pairs(ShareRequest.model_validate({"page": "compare", **back}).root), registry, from_form=False
    )
    assert document("compare", twin) == document("compare", state)
    typed = {**body, "tools": "[{ not yet"}  # a box that does not parse is kept as typed
    state = state_from("compare", json_pairs(ShareRequest.model_validate(typed).root), registry, from_form=False)
    assert state_json("compare", state)["tools"] == "[{ not yet"


@pytest.mark.parametrize(
    "tools,calls",
    [
        ("[" * 50_000, ""),
        ("[]", "[" * 50_000),
        ("[1, null]", "[1]"),
        ('"x"', '"x"'),
        ('{"tools": 3}', '{"function": []}'),
        ("[" * 40 + "]" * 40, "{}"),
    ],
)
def test_hostile_boxes_get_words_not_a_500(client, tools, calls):
    pairs = [
        ("mode", "chat"),
        ("tokenizer", "cl100k_base"),
        ("tools", tools),
        ("role", "user"),
        ("content", "hi"),
        ("calls", ""),
        ("call_id", ""),
        ("role", "assistant"),
        ("content", ""),
        ("calls", calls),
        ("call_id", ""),
    ]
    for path, extra in (("/", []), ("/compare", [("tokenizers", "cl100k_base"), ("tokenizers", "mistral_v3")])):
        page = post(client, path, pairs + extra, follow_redirects=True)
        assert page.status_code < 500, (path, page.status_code)
        assert 'data-role="tools-error"' in page.text or 'data-role="message"' in page.text
