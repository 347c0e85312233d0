"""The JSON API under /api, plus /healthz and /docs (Swagger UI from local files).

Thin over the engine: parse (schemas), call `engine_calls`, return a dict. Every failure
is a `TokenprismError` or a validation error, rendered by `errors.py` in the one shape
`{"error": {"code", "message"}}`. Responses that grow with the text (tokenize, compare,
decode) are built and serialised in a worker thread, so a request with hundreds of
thousands of tokens does not hold the event loop while its JSON is written.

Decisions (also in the OpenAPI descriptions):
- /api/count and /api/compare without "tokenizers" use every built-in tokenizer (at most
  `max_compare`); user-trained ones are counted only when named. /api/count with
  "messages" and no "tokenizers" uses the tokenizers chat counting is defined for.
- Counts are keyed by canonical name: "r50k_base" is answered as "gpt2".
- /api/decode's "text" is the reference library's decode of the ids; the tokens' ranges
  index into "tokens_text" (the tokens' bytes decoded), which differs only where that
  library drops or rewrites pieces.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from fastapi import APIRouter, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from app.errors import BadTokenId, InvalidInput, TextTooLarge
from app.tokenizers.chat import CHAT_RULES, ChatMessage, chat_tokenizers
from app.web import engine_calls, schemas
from app.web.assets import swagger_paths
from app.web.deps import RegistryDep, SettingsDep

router = APIRouter()
api = APIRouter(prefix="/api")

_ERROR_DESCRIPTIONS = {
    400: "The body is not valid JSON (or not UTF-8).",
    404: "Unknown tokenizer; the message lists the valid names.",
    413: "Text, ids or request body over the limits of GET /api/limits.",
    422: "A field is missing, of the wrong type, unknown or invalid; the message names it.",
}


def errors(*statuses: int) -> dict:
    return {status: {"model": schemas.ErrorResponse, "description": _ERROR_DESCRIPTIONS[status]} for status in statuses}


_JSON_CHUNK = 2_000  # list items per json.dumps call; see _json_parts


def _json(value) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def _json_parts(value):
    """JSON text of `value` in pieces. json.dumps holds the GIL for its whole C call (about 200 ms
    for 100,000 tokens), which would stall the event loop thread too; long lists go in chunks."""
    if isinstance(value, dict):
        yield "{"
        for index, (key, item) in enumerate(value.items()):
            yield ("," if index else "") + _json(key) + ":"
            yield from _json_parts(item)
        yield "}"
    elif isinstance(value, list) and len(value) > _JSON_CHUNK:
        yield "["
        for start in range(0, len(value), _JSON_CHUNK):
            yield ("," if start else "") + _json(value[start : start + _JSON_CHUNK])[1:-1]
        yield "]"
    else:
        yield _json(value)


async def json_off_loop(build: Callable[[], dict]) -> Response:
    """Build and serialise a large response in a worker thread, in pieces (see `_json_parts`)."""
    body = await run_in_threadpool(lambda: "".join(_json_parts(build())).encode("utf-8"))
    return Response(body, media_type="application/json")


def default_names(registry, settings) -> list[str]:
    return [entry.name for entry in registry.entries() if not entry.user][: settings.max_compare]


# ---- meta ----


@router.get("/healthz", tags=["meta"], response_model=schemas.HealthResponse, summary="Liveness check")
async def healthz():
    return {"status": "ok"}


@router.get("/docs", include_in_schema=False)
async def docs(request: Request):
    script, stylesheet = swagger_paths()
    return request.app.state.templates.TemplateResponse(
        request,
        "docs.html",
        {"swagger_js": script, "swagger_css": stylesheet, "openapi_url": request.app.openapi_url},
    )


@api.get("/limits", tags=["meta"], response_model=schemas.LimitsResponse, summary="The limits this server enforces")
async def limits(settings: SettingsDep):
    return {
        "max_text_chars": settings.max_text_chars,
        "max_body_bytes": settings.max_body_bytes,
        "max_ids": settings.max_ids,
        "max_compare": settings.max_compare,
        "max_texts": schemas.MAX_TEXTS,
        "max_messages": schemas.MAX_MESSAGES,
    }


# ---- tokenizers ----


@api.get("/tokenizers", tags=["tokenizers"], response_model=schemas.TokenizersResponse, summary="List the tokenizers")
async def list_tokenizers(registry: RegistryDep):
    """Built-in tokenizers first, then the ones users trained. Listing loads none of them."""
    return {"tokenizers": await run_in_threadpool(registry.infos)}


@api.get(
    "/tokenizers/{name}",
    tags=["tokenizers"],
    response_model=schemas.TokenizerDetail,
    responses=errors(404, 422),
    summary="One tokenizer, with its special tokens",
)
async def get_tokenizer(name: str, registry: RegistryDep):
    tokenizer = await run_in_threadpool(registry.get, name)
    special = dict(tokenizer.special_tokens)
    for token_id in sorted(tokenizer.special_ids):  # control pieces (SentencePiece's <s>) have no dict entry
        special.setdefault(tokenizer.id_to_bytes(token_id).decode("utf-8", errors="replace"), token_id)
    return {
        **tokenizer.info(),
        "builtin": registry.is_builtin(tokenizer.name),
        "special_tokens": special,
        "chat_counting": tokenizer.name in CHAT_RULES,
    }


# ---- tokens ----


@api.post(
    "/tokenize",
    tags=["tokens"],
    response_model=schemas.TokenizeResponse,
    responses=errors(400, 404, 413, 422),
    summary="Tokenize a text: ids, bytes and character ranges",
)
async def tokenize(body: schemas.TokenizeRequest, registry: RegistryDep, settings: SettingsDep):
    """Each token's `bytes` (hex) join to the text's UTF-8; `[start, end)` is the smallest character range
    holding them, so tokens that split a character (a piece of an emoji) share its range."""
    result = await engine_calls.tokenize(registry, settings, body.tokenizer, body.text, body.allow_special)
    return await json_off_loop(lambda: result.to_dict(with_stats=True))


@api.post(
    "/compare",
    tags=["tokens"],
    response_model=schemas.CompareResponse,
    responses=errors(400, 404, 413, 422),
    summary="Tokenize one text with several tokenizers",
)
async def compare(body: schemas.CompareRequest, registry: RegistryDep, settings: SettingsDep):
    names = body.tokenizers if body.tokenizers is not None else default_names(registry, settings)
    results = await engine_calls.tokenize_many(registry, settings, names, body.text, body.allow_special)
    return await json_off_loop(lambda: {"results": [result.to_dict(with_stats=True) for result in results]})


@api.post(
    "/count",
    tags=["tokens"],
    response_model=schemas.CountResponse,
    response_model_exclude_none=True,
    responses=errors(400, 404, 413, 422),
    summary="Count tokens of a text, a batch of texts, or a chat",
)
async def count(body: schemas.CountRequest, registry: RegistryDep, settings: SettingsDep):
    """Send exactly one of `text`, `texts` or `messages`.

    `messages` are counted the way OpenAI counts chat prompts for its models on cl100k_base (gpt-4,
    gpt-3.5-turbo-0613 and later) and o200k_base (gpt-4o), the rule of OpenAI's cookbook "How to count tokens
    with tiktoken": 3 tokens per message, plus the tokens of its role, content and name, plus 1 if it has a
    name, plus 3 for the reply's priming (`<|start|>assistant<|message|>`). The older gpt-3.5-turbo-0301 rule
    (4 per message, -1 per name) is not used. Other tokenizers have no defined chat format: asking for them is
    a 422 naming the ones that do. Function/tool definitions are not counted."""
    given = [field for field in ("text", "texts", "messages") if getattr(body, field) is not None]
    if len(given) != 1:
        raise InvalidInput(
            f"send exactly one of \"text\", \"texts\" or \"messages\"; got {', '.join(given) or 'none'}"
        )
    if body.messages is not None:
        return await _count_chat(body, registry, settings)
    texts = [body.text] if body.text is not None else body.texts
    if len(texts) > schemas.MAX_TEXTS:
        raise TextTooLarge(
            f"{len(texts):,} texts sent; the limit is {schemas.MAX_TEXTS:,}. Send fewer per request",
            code="too_many_texts",
        )
    names = body.tokenizers if body.tokenizers is not None else default_names(registry, settings)
    per_text = await engine_calls.count_texts(registry, settings, names, texts, body.allow_special)
    sizes = [(len(text), len(text.encode("utf-8"))) for text in engine_calls.check_texts(texts, settings)]
    result = {
        "counts": {name: sum(counts) for name, counts in per_text.items()},
        "characters": sum(chars for chars, _ in sizes),
        "bytes": sum(size for _, size in sizes),
    }
    if body.texts is not None:
        result["items"] = [
            {"counts": {name: counts[i] for name, counts in per_text.items()}, "characters": chars, "bytes": size}
            for i, (chars, size) in enumerate(sizes)
        ]
    return result


async def _count_chat(body: schemas.CountRequest, registry, settings) -> dict:
    if len(body.messages) > schemas.MAX_MESSAGES:
        raise TextTooLarge(
            f"{len(body.messages):,} messages sent; the limit is {schemas.MAX_MESSAGES:,}. Send fewer per request",
            code="too_many_messages",
        )
    if body.allow_special:
        raise InvalidInput(
            "allow_special does not apply to messages: OpenAI counts special-token strings in messages as "
            "plain text; leave it out"
        )
    messages = [ChatMessage(m.role, m.content, m.name) for m in body.messages]
    names = body.tokenizers if body.tokenizers is not None else chat_tokenizers()
    counts = await engine_calls.count_messages(registry, settings, names, messages)
    fields = engine_calls.check_texts([value for m in messages for value in m.fields()], settings)
    rule = next(iter(counts.values())).rule
    return {
        "counts": {name: chat.total for name, chat in counts.items()},
        "characters": sum(len(value) for value in fields),
        "bytes": sum(len(value.encode("utf-8")) for value in fields),
        "chat": {"rule": rule.to_dict(), "per_message": {name: chat.per_message for name, chat in counts.items()}},
    }


@api.post(
    "/decode",
    tags=["tokens"],
    response_model=schemas.DecodeResponse,
    responses=errors(400, 404, 413, 422),
    summary="Decode token ids to text, token by token",
)
async def decode(body: schemas.DecodeRequest, registry: RegistryDep, settings: SettingsDep):
    """`text` equals the reference library's decode (tiktoken's `decode`, SentencePiece's `decode`). A bad id
    (negative, too large, a gap in the vocabulary, not a whole number) is a 422 naming it and its position."""
    tokenizer = await run_in_threadpool(registry.get, body.tokenizer)
    if len(body.ids) <= settings.max_ids:
        _refuse_nested(body.ids, tokenizer.vocab_size)
    result = await engine_calls.decode(registry, settings, tokenizer.name, body.ids)
    text = await engine_calls.reference_decode(result)
    return await json_off_loop(
        lambda: {
            "tokenizer": result.tokenizer.name,
            "text": text,
            "count": result.count,
            "tokens": [engine_calls.token_dict(token) for token in result.tokens],
            "tokens_text": result.text,
        }
    )


def _refuse_nested(ids: list, vocab_size: int) -> None:
    """Arrays, objects and long strings among the ids: named here briefly, not echoed whole."""
    for position, value in enumerate(ids):
        if isinstance(value, (list, dict)) or (isinstance(value, str) and len(value) > 20):
            kinds = {list: "a JSON array", dict: "a JSON object"}
            what = kinds.get(type(value)) or f"a string of {len(value):,} characters"
            raise BadTokenId(
                f"token id at position {position} is {what}, not an integer; "
                f"send whole numbers from 0 to {vocab_size - 1}"
            )


router.include_router(api)
