"""Sharing over real HTTP: POST /api/share (JSON and the page's form), POST /share (the
no-JavaScript form), GET /s/{id} and its JSON twin GET /api/share/{id}. A 50 KB view
round-trips with the reference libraries' ids; caps, bad ids and bad bodies get a 4xx in
the one error shape; the store outlives a restart; a damaged store is a 503, not a 500."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from html import unescape
from html.parser import HTMLParser
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from app.local_server import start_server, stop_server
from tests.api.helpers import assert_error
from tests.reference import reference_ids

ID = re.compile(r"/s/([0-9a-f]{32})")
LINE = "The quick brown fox 1234567 naïve café 안녕하세요 Привет 🦊👍🏽\tend\n"
TEXT_50K = LINE * (50_000 // len(LINE.encode()) + 1)  # just over 50 KB of UTF-8
VOID = {"input", "meta", "link", "br", "img", "source", "hr", "wbr"}


class Page(HTMLParser):
    """What these tests read of a page: token counts, drawn token ids, the ids panel, the text box, the Share bar."""

    def __init__(self, html: str):
        super().__init__()
        self.counts: list[int] = []  # data-count of each [data-role=token-count]
        self.drawn: list[int] = []  # data-id (or data-ids) of each drawn token, in order
        self.ids_text = ""  # the ids panel's text
        self.textarea = ""
        self.share_link = None
        self.notes = 0
        self._in: list[str] = []
        self.feed(html)

    @property
    def ids(self) -> list[int]:
        return [int(number) for number in re.findall(r"\d+", self.ids_text)]

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("data-role") == "token-count":
            self.counts.append(int(attrs["data-count"]))
        if attrs.get("data-role") == "url-note":
            self.notes += 1
        if "data-share-link" in attrs:
            self.share_link = attrs.get("value")
        if tag == "bdi" and "data-id" in attrs:
            self.drawn += [int(i) for i in (attrs.get("data-ids") or attrs["data-id"]).split()]
        if tag not in VOID:
            wanted = (
                "ids"
                if attrs.get("data-role") == "ids"
                else "text"
                if tag == "textarea" and attrs.get("name") == "text"
                else ""
            )
            self._in.append(wanted or (self._in[-1] if self._in else ""))

    def handle_endtag(self, tag):
        if self._in:
            self._in.pop()

    def handle_data(self, data):
        if self._in and self._in[-1] == "ids":
            self.ids_text += data
        elif self._in and self._in[-1] == "text":
            self.textarea += data


def share(http, body, status=200):
    response = http.post("/api/share", json=body)
    assert response.status_code == status, response.text[:500]
    return response.json()


def test_a_short_view_shares_its_own_address_and_stores_nothing(http):
    answer = share(http, {"page": "playground", "tokenizer": "gpt2", "text": "hello world", "ws": True})
    assert answer["id"] is None
    parts = urlsplit(answer["url"])
    assert parts.path == "/" and parse_qs(parts.query) == {"tokenizer": ["gpt2"], "text": ["hello world"], "ws": ["1"]}
    form = http.post(
        "/api/share",
        files={
            "page": (None, "playground"),
            "tokenizer": (None, "gpt2"),
            "text": (None, "hello world"),
            "ws": (None, "1"),
        },
    )
    assert form.json() == answer


def test_a_50kb_text_round_trips_through_s_id(http):
    assert len(TEXT_50K.encode()) >= 50_000
    body = {"page": "playground", "tokenizer": "cl100k_base", "text": TEXT_50K}
    answer = share(http, body)
    assert ID.fullmatch(answer["url"]) and answer["url"] == f"/s/{answer['id']}"
    assert share(http, body) == answer  # the same view: the same id
    # the page's own form fields give the same id as the JSON
    fields = {"page": "playground", "tokenizer": "cl100k_base", "mode": "encode", "view": "text", "text": TEXT_50K}
    form = http.post("/api/share", files={key: (None, value) for key, value in fields.items()})
    assert form.status_code == 200 and form.json() == answer
    twin = http.get(f"/api/share/{answer['id']}").json()
    assert twin["page"] == "playground" and twin["id"] == answer["id"] and twin["url"] == answer["url"]
    assert twin["state"] == {
        "tokenizer": "cl100k_base",
        "mode": "encode",
        "view": "text",
        "text": TEXT_50K,
        "ws": False,
        "special": False,
        "lines": False,
        "chunks": False,
        "fewest": False,
    }
    assert twin["bytes"] > 50_000 and twin["created"].endswith("Z")
    assert share(http, {"page": twin["page"], **twin["state"]}) == answer  # the twin posts back to the same id
    response = http.get(answer["url"])
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    page = Page(response.text)
    expected = reference_ids("cl100k_base", TEXT_50K)
    assert page.counts == [len(expected)] and page.ids == expected
    assert 5_000 <= len(page.drawn) < len(expected) and page.drawn == expected[: len(page.drawn)]
    assert page.textarea == TEXT_50K
    assert page.notes == 0  # the address /s/{id} holds the text: no "too long for the address" note
    assert page.share_link.endswith(answer["url"])
    assert http.head(answer["url"]).status_code == 200


def test_a_comparison_round_trips_with_its_options(http):
    body = {
        "page": "compare",
        "tokenizers": ["gpt2", "cl100k_base", "mistral_v1"],
        "text": TEXT_50K,
        "ws": True,
        "cuts": True,
        "chunks": True,
    }
    answer = share(http, body)
    twin = http.get(f"/api/share/{answer['id']}").json()
    assert twin["state"] == {
        "tokenizers": ["gpt2", "cl100k_base", "mistral_v1"],
        "mode": "text",
        "text": TEXT_50K,
        "ws": True,
        "special": False,
        "lines": False,
        "cuts": True,
        "chunks": True,
        "fewest": False,
    }
    assert share(http, {"page": "compare", **twin["state"]}) == answer
    page = Page(http.get(answer["url"]).text)
    assert page.counts == [len(reference_ids(name, TEXT_50K)) for name in body["tokenizers"]]
    assert share(http, {**body, "ws": False})["id"] != answer["id"]  # the options are part of the view


def test_a_chat_and_a_list_of_ids_round_trip(http):
    messages = [
        {"role": "system", "content": "Be brief. " * 400},
        {"role": "user", "content": "안녕 🦊 " * 500, "name": "ada"},
    ]
    answer = share(http, {"page": "playground", "tokenizer": "o200k_base", "mode": "chat", "messages": messages})
    twin = http.get(f"/api/share/{answer['id']}").json()["state"]
    assert twin["mode"] == "chat" and twin["messages"] == messages
    assert http.get(answer["url"]).status_code == 200
    chat = http.post("/api/chat", json={"tokenizer": "o200k_base", "messages": messages}).json()
    assert Page(http.get(answer["url"]).text).counts[:1] == [chat["count"]]
    ids = reference_ids("gpt2", TEXT_50K[:8000])
    answer = share(http, {"page": "playground", "tokenizer": "gpt2", "mode": "decode", "ids": ids})
    twin = http.get(f"/api/share/{answer['id']}").json()["state"]
    assert twin["mode"] == "decode" and list(map(int, twin["ids"].split())) == ids
    assert share(http, {"page": "playground", "tokenizer": "gpt2", "mode": "decode", "ids": twin["ids"]}) == answer


def test_the_no_javascript_form_redirects_to_the_link(http):
    long_form = {"page": (None, "compare"), "tokenizers": (None, "gpt2"), "text": (None, TEXT_50K)}
    files = [*long_form.items(), ("tokenizers", (None, "o200k_base"))]
    response = http.post("/share", files=files, follow_redirects=False)
    assert response.status_code == 303 and ID.fullmatch(response.headers["location"])
    assert Page(http.get(response.headers["location"]).text).counts == [
        len(reference_ids("gpt2", TEXT_50K)),
        len(reference_ids("o200k_base", TEXT_50K)),
    ]
    response = http.post(
        "/share", data={"page": "playground", "tokenizer": "gpt2", "text": "short"}, follow_redirects=False
    )
    assert response.status_code == 303 and response.headers["location"] == "/?tokenizer=gpt2&text=short"
    refused = http.post("/share", data={"page": "tokenizers"}, follow_redirects=False)
    assert refused.status_code == 422 and refused.headers["content-type"].startswith("text/html")
    assert "page=playground or page=compare" in unescape(refused.text)


@pytest.mark.parametrize("bad", ["0" * 32, "nothere", "A" * 32, "0" * 31, "0" * 33, "0" * 5000, "é", "%00", "s p"])
def test_unknown_and_malformed_ids_are_404(http, bad):
    error = assert_error(http.get(f"/api/share/{bad}"), 404, "share_not_found")
    assert "32 hex digits" in error["message"]
    page = http.get(f"/s/{bad}")
    assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")
    assert 'data-code="share_not_found"' in page.text


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"page": "training", "text": "x"}, 422, "invalid_request"),
        ({"tokenizer": "gpt2", "text": "x"}, 422, "invalid_request"),
        ({"page": "playground", "tokenizer": "gpt2", "text": "x", "colour": "red"}, 422, "invalid_request"),
        ({"page": "playground", "tokenizer": "gpt2", "text": "x", "ws": "1"}, 422, "invalid_request"),
        ({"page": "playground", "tokenizer": "gpt2", "mode": "sing", "text": "x"}, 422, "invalid_request"),
        ({"page": "playground", "tokenizers": ["gpt2"], "text": "x"}, 422, "invalid_request"),
        ({"page": "playground", "tokenizer": "no-such-tokenizer", "text": "x" * 7000}, 404, "unknown_tokenizer"),
        ({"page": "compare", "tokenizers": ["gpt2"], "text": "x" * 7000}, 422, "invalid_input"),
        ({"page": "compare", "tokenizers": ["gpt2", "gpt2"], "text": "x" * 7000}, 422, "invalid_input"),
        ({"page": "compare", "tokenizers": ["gpt2", "cl100k_base"], "text": "x" * 500_001}, 413, "text_too_large"),
        (
            {"page": "playground", "mode": "chat", "messages": [{"role": "user", "content": "x"}] * 65},
            422,
            "invalid_request",
        ),
        ({"page": "playground", "mode": "chat", "messages": []}, 422, "invalid_request"),
    ],
)
def test_bad_bodies_are_refused_in_the_error_shape(http, body, status, code):
    assert_error(http.post("/api/share", json=body), status, code)


def test_bodies_that_are_not_json_or_too_large(http):
    assert_error(http.post("/api/share", content=b"hello", headers={"content-type": "text/plain"}), 415)
    assert_error(http.post("/api/share", content=b"{not json", headers={"content-type": "application/json"}), 400)
    big = {"page": "playground", "tokenizer": "gpt2", "text": "🦊" * 1_100_000}  # 4.4 MB
    assert_error(http.post("/api/share", json=big), 413, "body_too_large")
    assert_error(http.post("/api/share", files={"text": ("a.txt", b"file")}), 422)  # a file is not a field


def test_lone_surrogates_are_cleaned_before_storing(http):
    raw = '{"page": "playground", "tokenizer": "gpt2", "text": "\\ud800' + "x" * 7000 + '"}'
    answer = http.post("/api/share", content=raw.encode(), headers={"content-type": "application/json"}).json()
    assert http.get(f"/api/share/{answer['id']}").json()["state"]["text"] == "\ufffd" + "x" * 7000


def test_twenty_clients_share_the_same_view_at_once(http, live_server):
    body = {"page": "compare", "tokenizers": ["gpt2", "o200k_base"], "text": TEXT_50K + "concurrent"}

    def one(_):
        with httpx.Client(base_url=live_server, timeout=120) as client:
            return client.post("/api/share", json=body).json()

    with ThreadPoolExecutor(20) as pool:
        answers = list(pool.map(one, range(20)))
    assert len({answer["id"] for answer in answers}) == 1 and answers[0]["id"]


def test_the_share_routes_are_documented(http):
    spec = http.get("/openapi.json").json()
    post = spec["paths"]["/api/share"]["post"]
    assert set(post["requestBody"]["content"]) == {
        "application/json",
        "multipart/form-data",
        "application/x-www-form-urlencoded",
    }
    assert "ShareRequest" in spec["components"]["schemas"] and "ShareCreated" in str(post["responses"]["200"])
    for status in ("404", "409", "413", "422", "503"):
        assert post["responses"][status]["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/ErrorResponse"
        }
    assert "SharedView" in str(spec["paths"]["/api/share/{share_id}"]["get"]["responses"]["200"])


# ---- servers of their own: small caps, a restart, a damaged store ----------------------


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("share-caps")
    env = {"TOKENPRISM_MAX_SHARE_BYTES": "30000", "TOKENPRISM_MAX_SHARE_STORE_BYTES": "40000"}
    process, url = start_server(data_dir, extra_env=env)
    try:
        with httpx.Client(base_url=url, timeout=120) as client:
            yield client, data_dir, env
    finally:
        stop_server(process)


def distinct_text(i: int) -> str:
    import hashlib

    return "".join(hashlib.sha256(f"{i}-{j}".encode()).hexdigest() for j in range(200))  # 12.8 KB, ~7 KB zipped


def test_the_caps_and_a_restart(small):
    http, data_dir, env = small
    error = assert_error(http.post("/api/share", json={"page": "playground", "text": TEXT_50K}), 413, "share_too_large")
    assert "TOKENPRISM_MAX_SHARE_BYTES" in error["message"] and "30,000" in error["message"]
    kept = []
    for i in range(20):
        response = http.post("/api/share", json={"page": "playground", "tokenizer": "gpt2", "text": distinct_text(i)})
        if response.status_code != 200:
            error = assert_error(response, 409, "store_full")
            break
        kept.append((response.json()["id"], distinct_text(i)))
    assert 3 <= len(kept) < 20 and "TOKENPRISM_MAX_SHARE_STORE_BYTES" in error["message"]
    again = share(http, {"page": "playground", "tokenizer": "gpt2", "text": kept[0][1]})
    assert again["id"] == kept[0][0]  # a stored view is answered when the store is full
    assert share(http, {"page": "playground", "tokenizer": "gpt2", "text": "short"})["id"] is None
    full_page = http.post("/share", data={"page": "playground", "tokenizer": "gpt2", "text": distinct_text(99)})
    assert full_page.status_code == 409 and 'data-code="store_full"' in full_page.text
    # a restart (a new process on the same data directory) keeps every share
    process, url = start_server(data_dir, extra_env=env)
    try:
        with httpx.Client(base_url=url, timeout=120) as restarted:
            for key, text in kept:
                assert restarted.get(f"/api/share/{key}").json()["state"]["text"] == text
            assert_error(
                restarted.post("/api/share", json={"page": "playground", "text": distinct_text(98)}), 409, "store_full"
            )
    finally:
        stop_server(process)


def test_a_damaged_store_is_a_503_and_the_rest_works(tmp_path):
    (tmp_path / "shares.sqlite3").write_bytes(b"not a database " * 200)
    process, url = start_server(tmp_path)
    try:
        with httpx.Client(base_url=url, timeout=120) as http:
            error = assert_error_503(http.post("/api/share", json={"page": "playground", "text": TEXT_50K}))
            assert "shares.sqlite3" in error["message"] and str(tmp_path) not in error["message"]
            assert_error_503(http.get("/api/share/" + "0" * 32))
            page = http.get("/s/" + "0" * 32)
            assert page.status_code == 503 and 'data-code="share_store_unavailable"' in page.text
            assert share(http, {"page": "playground", "text": "short"})["id"] is None  # short views need no store
            assert http.post("/api/count", json={"text": "still fine", "tokenizers": ["gpt2"]}).status_code == 200
    finally:
        stop_server(process)
    assert (tmp_path / "shares.sqlite3").read_bytes() == b"not a database " * 200  # left for the operator


def assert_error_503(response: httpx.Response) -> dict:
    assert response.status_code == 503, response.text[:300]
    body = response.json()
    assert set(body) == {"error"} and body["error"]["code"] == "share_store_unavailable"
    return body["error"]
