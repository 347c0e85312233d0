"""The budget in every count, over real HTTP (a server reading facts the test sets: tests/pricing/facts_rows.py):
/api/tokenize, /api/chat, /api/count and /api/compare with "model" or model names, each sum checked to the
last digit against Decimals worked here, unknown facts, over the window, and every refusal."""

from __future__ import annotations

from decimal import Decimal

import httpx
import pytest

from app.local_server import start_server, stop_server
from app.web import schemas
from tests.pricing.facts_rows import READ_ON, SOURCE, facts_env, price, write_facts

from .helpers import assert_error

TEXT = "Will it fit, and what will it cost? 모델 🤖"
CHAT = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": TEXT}]
MILLION = Decimal(1_000_000)


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    folder = tmp_path_factory.mktemp("budget")
    process, base_url = start_server(folder / "data", extra_env=facts_env(write_facts(folder / "facts.tsv")))
    try:
        with httpx.Client(base_url=base_url, timeout=60) as client:
            yield client
    finally:
        stop_server(process)


def post(api, path: str, body: dict, model=schemas.TokenizeResponse) -> dict:
    response = api.post(path, json=body)
    assert response.status_code == 200, response.text
    model.model_validate(response.json())  # the documented shape, no undeclared fields
    return response.json()


def check_priced(budget: dict, model: str, used: int) -> None:
    """`budget` is `model`'s facts applied to `used` tokens, to the last digit."""
    assert budget["model"] == model and budget["used"] == used
    assert Decimal(budget["input_usd"]) == used * price(model, 2) / MILLION
    assert Decimal(budget["output_usd_per_1k"]) == 1_000 * price(model, 4) / MILLION
    assert "E" not in budget["input_usd"] + budget["output_usd_per_1k"]  # exact decimal strings, never exponents
    assert (budget["prices_as_of"], budget["source"]) == (READ_ON, SOURCE)
    assert budget["share"] == used / budget["context_window"]


def test_tokenize_with_a_model_name_as_tokenizer(api):
    body = post(api, "/api/tokenize", {"tokenizer": "gpt-4o", "text": TEXT})
    assert body["tokenizer"] == "o200k_base"
    check_priced(body["budget"], "gpt-4o", body["count"])
    assert body["budget"]["context_window"] == 128_000 and body["budget"]["fits"] is True
    assert body["budget"]["room"] == 16_384 and body["budget"]["note"] is None
    assert Decimal(body["budget"]["cached_input_usd"]) == body["count"] * Decimal("1.25") / MILLION


def test_tokenize_with_model_alone_prices_a_reply(api):
    body = post(api, "/api/tokenize", {"model": "gpt-4o-mini", "text": TEXT, "reply_tokens": 777})
    assert body["tokenizer"] == "o200k_base"
    budget = body["budget"]
    check_priced(budget, "gpt-4o-mini", body["count"])
    assert Decimal(budget["cached_input_usd"]) == body["count"] * Decimal("0.075") / MILLION
    assert budget["reply_tokens"] == 777 and Decimal(budget["output_usd"]) == Decimal("0.0004662")  # 777 x 0.60 / 1e6
    same = post(api, "/api/tokenize", {"tokenizer": "o200k_base", "model": "gpt-4o-mini", "text": TEXT})
    assert same["budget"]["used"] == body["count"] and "reply_tokens" not in same["budget"]


def test_a_tokenizer_name_answers_no_budget(api):
    body = post(api, "/api/tokenize", {"tokenizer": "o200k_base", "text": TEXT})
    assert "budget" not in body
    assert "budget" not in post(api, "/api/tokenize", {"tokenizer": "gpt2", "text": TEXT})  # gpt2 is a tokenizer first


def test_refusals_name_the_model_and_the_fix(api):
    wrong = assert_error(
        api.post("/api/tokenize", json={"tokenizer": "cl100k_base", "model": "gpt-4o", "text": "x"}),
        422,
        "model_mismatch",
    )
    assert "gpt-4o" in wrong["message"] and "o200k_base" in wrong["message"] and "cl100k_base" in wrong["message"]
    unknown = assert_error(api.post("/api/tokenize", json={"model": "gpt-99-ultra", "text": "x"}), 422, "unknown_model")
    assert "gpt-99-ultra" in unknown["message"] and "GET /api/models" in unknown["message"]
    tokenizer = assert_error(api.post("/api/count", json={"model": "cl100k_base", "text": "x"}), 422, "unknown_model")
    assert '"tokenizer"' in tokenizer["message"]
    assert (
        "p50k_base"
        in assert_error(api.post("/api/chat", json={"model": "text-davinci-003", "messages": CHAT}), 404)["message"]
    )
    neither = assert_error(api.post("/api/tokenize", json={"text": "x"}), 422)
    assert '"tokenizer"' in neither["message"] and '"model"' in neither["message"]
    for bad in ("500", -1, 1.5, True):
        assert_error(api.post("/api/tokenize", json={"model": "gpt-4o", "text": "x", "reply_tokens": bad}), 422)
    apart = assert_error(
        api.post("/api/compare", json={"model": "gpt-4o", "tokenizers": ["gpt2"], "text": "x"}), 422, "model_mismatch"
    )
    assert "gpt2" in apart["message"] and "o200k_base" in apart["message"]


def test_chat_budget_is_the_whole_prompt_and_agrees_with_count(api):
    body = post(api, "/api/chat", {"model": "gpt-4o", "messages": CHAT, "reply_tokens": 100}, schemas.ChatResponse)
    assert body["count"] > sum(m["count"] for m in body["messages"]) - body["overhead"]  # framing is in
    check_priced(body["budget"], "gpt-4o", body["count"])
    assert Decimal(body["budget"]["output_usd"]) == Decimal("0.001")
    counted = post(api, "/api/count", {"messages": CHAT, "tokenizers": ["gpt-4o", "gpt-4"]}, schemas.CountResponse)
    assert [b["model"] for b in counted["budgets"]] == ["gpt-4o", "gpt-4"]
    assert counted["budgets"][0]["used"] == body["count"] == counted["counts"]["o200k_base"]
    assert counted["budgets"][1]["cached_input_usd"] is None and "cached-input price" in counted["budgets"][1]["note"]


def test_count_answers_one_budget_per_model_in_order(api):
    body = post(
        api,
        "/api/count",
        {"text": TEXT, "tokenizers": ["gpt-4.1", "gpt2", "o3", "gpt-4o", "GPT-4.1"]},
        schemas.CountResponse,
    )
    assert [b["model"] for b in body["budgets"]] == ["gpt-4.1", "o3", "gpt-4o"]
    check_priced(body["budgets"][0], "gpt-4.1", body["counts"]["o200k_base"])
    unknown = body["budgets"][1]  # o3: a model with no facts here
    assert unknown["used"] == body["counts"]["o200k_base"] and "no facts" in unknown["note"]
    assert all(
        unknown[field] is None
        for field in (
            "context_window",
            "share",
            "fits",
            "room",
            "input_usd",
            "cached_input_usd",
            "output_usd_per_1k",
            "prices_as_of",
            "source",
        )
    )
    alone = post(api, "/api/count", {"text": TEXT, "model": "gpt-4o"}, schemas.CountResponse)
    assert list(alone["counts"]) == ["o200k_base"] and alone["budgets"][0]["model"] == "gpt-4o"
    assert "budgets" not in post(api, "/api/count", {"text": TEXT}, schemas.CountResponse)


def test_texts_are_budgeted_as_their_sum(api):
    body = post(api, "/api/count", {"texts": [TEXT, TEXT + "!"], "model": "gpt-4o-mini"}, schemas.CountResponse)
    check_priced(body["budgets"][0], "gpt-4o-mini", body["counts"]["o200k_base"])
    assert body["counts"]["o200k_base"] == sum(item["counts"]["o200k_base"] for item in body["items"])


def test_over_the_window(api):
    text = "budget " * 9_000  # 9,000 tokens or so with cl100k_base: over gpt-4's 8,192 here
    body = post(api, "/api/count", {"text": text, "model": "gpt-4", "reply_tokens": 10}, schemas.CountResponse)
    budget = body["budgets"][0]
    assert budget["used"] == body["counts"]["cl100k_base"] > 8_192
    assert budget["fits"] is False and budget["room"] == 0 and budget["share"] > 1
    assert Decimal(budget["input_usd"]) == budget["used"] * Decimal(30) / MILLION
    short = post(api, "/api/count", {"text": "hi", "model": "gpt-4", "reply_tokens": 8_200}, schemas.CountResponse)
    assert (
        short["budgets"][0]["fits"] is False and short["budgets"][0]["room"] == 8_192 - short["counts"]["cl100k_base"]
    )


def test_compare_gives_each_column_the_budgets_of_its_models(api):
    asked = ["gpt-4o", "cl100k_base", "gpt-4o-mini", "mistral-7b-instruct-v0.3"]
    body = post(api, "/api/compare", {"text": TEXT, "tokenizers": asked, "reply_tokens": 50}, schemas.CompareResponse)
    columns = {result["tokenizer"]: result for result in body["results"]}
    assert list(columns) == ["o200k_base", "cl100k_base", "mistral_v3"]
    o200k = columns["o200k_base"]
    assert [b["model"] for b in o200k["budgets"]] == ["gpt-4o", "gpt-4o-mini"]
    for budget in o200k["budgets"]:
        check_priced(budget, budget["model"], o200k["count"])
    assert columns["cl100k_base"]["budgets"] == []
    mistral = columns["mistral_v3"]["budgets"][0]
    assert mistral["context_window"] == 32_768 and mistral["used"] == columns["mistral_v3"]["count"]
    assert mistral["input_usd"] is None and mistral["room"] is None and mistral["fits"] is None  # no largest output
    assert "input price" in mistral["note"]
    plain = post(api, "/api/compare", {"text": TEXT, "tokenizers": ["gpt2", "o200k_base"]}, schemas.CompareResponse)
    assert all("budgets" not in result for result in plain["results"])


def test_the_schema_documents_the_budget(api):
    spec = api.get("/openapi.json").json()["components"]["schemas"]
    for request in ("TokenizeRequest", "ChatRequest", "CountRequest", "CompareRequest"):
        assert {"model", "reply_tokens"} <= set(spec[request]["properties"]), request
    assert "tokenizer" not in spec["TokenizeRequest"].get("required", [])
    assert {"input_usd", "fits", "room", "share", "note"} <= set(spec["BudgetOut"]["properties"])
