"""The budget on the playground and the comparison, without a browser (TestClient): the figures
drawn are /api/tokenize's and /api/compare's budgets, the model select and the reply field are
kept in the address (no-JS form posts redirect to it) and in a share, a bad reply length is a 422
that names it while the tokens are still drawn, and model names on the comparison survive a post."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from app.web.share.state import ShareRequest, json_pairs, state_from, state_json
from tests.api.test_models_api import Elements

TEXT = "Will it fit, and what will it cost?"


def one(page: Elements, tag: str, **attrs: str) -> dict:
    [element] = page.select(tag, **attrs)
    return element


def test_the_playground_draws_the_api_s_budget(client):
    api = client.post("/api/tokenize", json={"tokenizer": "gpt-4o", "text": TEXT, "reply_tokens": 500}).json()["budget"]
    response = client.get("/", params={"tokenizer": "gpt-4o", "text": TEXT, "reply": "500"})
    assert response.status_code == 200
    page = Elements(response.text)
    assert one(page, "section", data_role="budget")["attrs"]["data-model"] == "gpt-4o"
    assert one(page, "span", data_role="context-used")["attrs"]["data-used"] == str(api["used"])
    assert one(page, "span", data_role="context-window")["text"] == "128,000"
    for role, key in [
        ("input-usd", "input_usd"),
        ("cached-input-usd", "cached_input_usd"),
        ("output-usd", "output_usd"),
    ]:
        assert one(page, "dd", data_role=role)["attrs"]["data-usd"] == api[key], role
    assert one(page, "dd", data_role="input-usd")["text"] == "$0.000025"  # 10 tokens at $2.50 per million
    assert one(page, "p", data_role="fits")["attrs"]["data-fits"] == "true"
    link = one(page, "a", data_role="facts-link")["attrs"]
    assert link["href"] == api["source"] and "noopener" in link["rel"]
    assert one(page, "span", data_role="prices-as-of")["text"] == api["prices_as_of"]
    assert one(page, "strong", data_role="budget-model")["text"] == "gpt-4o"  # named: no select
    assert page.select("select", name="budget") == []


def test_a_tokenizer_gets_a_select_of_its_priced_models_kept_in_the_address(client):
    html = client.get("/", params={"tokenizer": "o200k_base", "text": TEXT}).text
    page = Elements(html)
    select = html[html.index('<select name="budget"') :]
    options = [o["attrs"]["value"] for o in Elements(select[: select.index("</select>")]).select("option")]
    assert {"gpt-5", "gpt-4o", "gpt-4o-mini"} <= set(options) and "gpt-4" not in options
    assert one(page, "section", data_role="budget")["attrs"]["data-model"] == "gpt-5"  # the first
    form = {"tokenizer": "o200k_base", "text": TEXT, "budget": "gpt-4o-mini", "reply": "1,200"}
    posted = client.post("/", data=form, follow_redirects=False)
    assert posted.status_code == 303
    kept = parse_qs(urlsplit(posted.headers["location"]).query)
    assert kept["budget"] == ["gpt-4o-mini"] and kept["reply"] == ["1200"]
    page = Elements(client.get(posted.headers["location"]).text)
    assert one(page, "section", data_role="budget")["attrs"]["data-model"] == "gpt-4o-mini"
    assert one(page, "input", name="reply")["attrs"]["value"] == "1200"
    default = client.post("/", data={**form, "budget": "gpt-5"}, follow_redirects=False).headers["location"]
    assert "budget=" not in default  # the first choice is the default: not written


def test_a_bad_reply_length_is_a_422_that_names_it_and_the_tokens_stay(client):
    response = client.get("/", params={"tokenizer": "gpt-4o", "text": TEXT, "reply": "-5"})
    assert response.status_code == 422
    page = Elements(response.text)
    error = one(page, "div", data_role="reply-error")
    assert "'-5'" in error["text"] and "whole number" in error["text"]
    assert one(page, "input", name="reply")["attrs"]["aria-invalid"] == "true"
    assert one(page, "dd", data_role="token-count")["attrs"]["data-count"] == "10"
    assert one(page, "dd", data_role="input-usd")["text"] == "$0.000025"
    hostile = client.get("/", params={"tokenizer": "gpt-4o", "text": TEXT, "reply": "<img src=x onerror=alert(1)>"})
    assert hostile.status_code == 422 and "<img src=x" not in hostile.text and "&lt;img src=x" in hostile.text


def test_models_without_facts_say_so_and_decode_mode_prices_nothing(client):
    page = Elements(client.get("/", params={"tokenizer": "gpt-3.5", "text": TEXT}).text)
    assert "No published facts" in one(page, "p", data_role="no-facts")["text"]
    assert page.select("svg", **{"class": "context-bar"}) == [] and page.select("dd", data_role="input-usd") == []
    assert page.select("section", data_role="budget") != []
    assert (
        Elements(client.get("/", params={"tokenizer": "gpt2", "text": TEXT}).text).select("section", data_role="budget")
        == []
    )  # gpt2's models publish no facts: nothing to choose
    decode = client.get("/", params={"tokenizer": "gpt-4o", "mode": "decode", "ids": "1 2 3", "reply": "x"})
    assert decode.status_code == 200 and 'data-role="budget"' not in decode.text


def test_the_chat_mode_budget_is_api_chat_s(client):
    messages = [{"role": "user", "content": TEXT}]
    api = client.post("/api/chat", json={"tokenizer": "gpt-4o-mini", "messages": messages}).json()["budget"]
    page = Elements(
        client.get("/", params={"tokenizer": "gpt-4o-mini", "mode": "chat", "role": "user", "content": TEXT}).text
    )
    assert one(page, "span", data_role="context-used")["attrs"]["data-used"] == str(api["used"])
    assert one(page, "dd", data_role="input-usd")["attrs"]["data-usd"] == api["input_usd"]


def test_over_the_window_is_marked(client):
    text = "tokens " * 9_000  # past gpt-4's 8,192
    response = client.post("/", data={"tokenizer": "gpt-4", "text": text}, headers={"HX-Request": "true"})
    page = Elements(response.text)
    assert one(page, "div", data_role="context")["attrs"]["data-over"] == "true"
    assert "over the window by" in one(page, "strong", data_role="over")["text"]
    assert one(page, "p", data_role="fits")["attrs"]["data-fits"] == "false"


def test_the_budget_survives_a_share(registry):
    body = ShareRequest.model_validate(
        {"page": "playground", "tokenizer": "o200k_base", "text": TEXT, "budget": "gpt-4o", "reply": 700}
    ).root
    state = state_from("playground", json_pairs(body), registry, from_form=False)
    assert ("budget", "gpt-4o") in state.query() and ("reply", "700") in state.query()
    assert state_json("playground", state)["budget"] == "gpt-4o" and state_json("playground", state)["reply"] == 700


def test_the_comparison_ranks_models_by_the_api_s_cost(client):
    names = ["gpt2", "gpt-4", "gpt-4o", "gpt-4o-mini", "llama-3.1-8b"]
    api = client.post("/api/compare", json={"tokenizers": names, "text": TEXT}).json()["results"]
    by_model = {b["model"]: b for result in api for b in result["budgets"]}
    page = Elements(client.get("/compare", params=[*(("tokenizers", n) for n in names), ("text", TEXT)]).text)
    rows = page.select("tr", data_role="cost-row")
    assert [r["attrs"]["data-model"] for r in rows] == ["gpt-4o-mini", "gpt-4o", "gpt-4", "llama-3.1-8b"]
    drawn = [c["attrs"]["data-usd"] for c in page.select("td", data_role="cost-input")]
    assert drawn == [by_model[m]["input_usd"] or "" for m in ("gpt-4o-mini", "gpt-4o", "gpt-4", "llama-3.1-8b")]
    columns = [a["attrs"]["data-tokenizer"] for a in page.found if a["tag"] == "article"]
    assert columns == ["o200k_base", "cl100k_base", "gpt2", "llama3"]  # priced first, the others in their order
    note = one(page, "p", data_role="unpriced-note")["text"]
    assert "gpt2" in note and "no published prices for llama-3.1-8b" in note
    chips = [i["attrs"]["value"] for i in page.select("input", name="tokenizers") if "data-model" in i["attrs"]]
    assert chips == ["gpt-4", "gpt-4o", "gpt-4o-mini", "llama-3.1-8b"]


def test_model_names_on_the_comparison_survive_a_form_post(client):
    form = {"tokenizers": ["o200k_base", "gpt-4o", "gpt-4o-mini", "cl100k_base"], "text": TEXT}
    posted = client.post("/compare", data=form, follow_redirects=False)
    assert posted.status_code == 303
    assert parse_qs(urlsplit(posted.headers["location"]).query)["tokenizers"] == [
        "o200k_base",
        "gpt-4o",
        "gpt-4o-mini",
        "cl100k_base",
    ]
    page = Elements(client.get(posted.headers["location"]).text)
    assert [r["attrs"]["data-model"] for r in page.select("tr", data_role="cost-row")] == ["gpt-4o-mini", "gpt-4o"]
    assert len(page.select("article", data_tokenizer="o200k_base")) == 1  # two models, one column
