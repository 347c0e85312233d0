"""POST /api/count: a text, a batch of texts or a chat counted by several tokenizers, with no token
budget (nothing is listed). Short texts on loaded tokenizers are counted on the event loop, the rest in
the pool. Leaves out token lists (tokens.py)."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import Response

from app.chat.render import format_note
from app.chat.tools import chat_texts
from app.errors import InvalidInput, TextTooLarge
from app.web import engine_calls, schemas
from app.web.api.common import budgets_of, chat_of, default_names, errors, hot_router
from app.web.deps import services
from app.web.edge.bodies import json_body_doc, read_json
from app.web.edge.json_body import dumps

INLINE_CHARS = 4_096  # /api/count texts up to this size are counted on the event loop (~0.1 ms)
api_post = hot_router()
OPENAI_CHAT_DEFAULT = ("cl100k_base", "o200k_base")  # /api/count's tokenizers for a chat, when none are named


@api_post.post(
    "/count",
    tags=["tokens"],
    response_model=schemas.CountResponse,
    response_model_exclude_none=True,
    responses=errors(400, 404, 413, 415, 422),
    openapi_extra=json_body_doc(schemas.CountRequest),
    summary="Count tokens of a text, a batch of texts, or a chat",
)
async def count(request: Request):
    """Send exactly one of `text`, `texts` or `messages`. Counting has no token budget: any text within
    `max_text_chars` is counted.

    `messages` are rendered in each tokenizer's own chat format, exactly as `POST /api/chat` renders them
    (`chatml` for cl100k_base and o200k_base, whose counts equal OpenAI's cookbook rule: 129 and 124 for its
    example; `harmony` for o200k_harmony; `mistral` for the Mistral tokenizers), so the two endpoints agree.
    Without `tokenizers`, cl100k_base and o200k_base count (OpenAI's chat encodings, as before chat formats
    existed); a tokenizer without a format is a 422 naming those that
    have one. With `tools` (function definitions, OpenAI's shape), their tokens are counted as the format
    writes them, apart in `chat.tools`; a format without tools is a 422 that says so."""
    settings, registry, pool = services(request)
    body = await read_json(request, schemas.CountRequest)
    given = [field for field in ("text", "texts", "messages") if getattr(body, field) is not None]
    if len(given) != 1:
        raise InvalidInput(f'send exactly one of "text", "texts" or "messages"; got {", ".join(given) or "none"}')
    if body.tools is not None and body.messages is None:
        raise InvalidInput('"tools" go with "messages" (a chat); leave "tools" out to count a text')
    if body.messages is not None:
        return await _count_chat(request, body, registry, settings, pool)
    texts = [body.text] if body.text is not None else body.texts
    assert texts is not None  # exactly one of the three was sent
    if len(texts) > schemas.MAX_TEXTS:
        raise TextTooLarge(
            f"{len(texts):,} texts sent; the limit is {schemas.MAX_TEXTS:,}. Send fewer per request",
            code="too_many_texts",
        )
    texts = engine_calls.check_texts(texts, settings)
    names, asked = engine_calls.names_and_models(registry, body.tokenizers, body.model)
    names = engine_calls.check_tokenizer_names(names or default_names(registry, settings), registry, settings)
    args = (registry, names, texts, body.allow_special)
    if sum(map(len, texts)) <= INLINE_CHARS and all(map(registry.is_loaded, names)):
        per_text = engine_calls.count_texts(*args)  # cheaper than a hop to a pool thread
    else:
        per_text = await pool.run(engine_calls.count_texts, *args, request=request)
    sizes = [(len(text), len(text.encode("utf-8"))) for text in texts]
    totals = {name: sum(counts) for name, counts in per_text.items()}
    result: dict[str, object] = {
        "counts": totals,
        "characters": sum(chars for chars, _ in sizes),
        "bytes": sum(size for _, size in sizes),
    }
    if body.texts is not None:
        result["items"] = [
            {"counts": {name: counts[i] for name, counts in per_text.items()}, "characters": chars, "bytes": size}
            for i, (chars, size) in enumerate(sizes)
        ]
    if asked:
        result["budgets"] = budgets_of(asked, totals, body.reply_tokens)
    return Response(dumps(result).encode("utf-8"), media_type="application/json")


async def _count_chat(request: Request, body: schemas.CountRequest, registry, settings, pool) -> Response:
    assert body.messages is not None  # the caller's test
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
    messages, tools = chat_of(body)
    names, asked = engine_calls.names_and_models(registry, body.tokenizers, body.model)

    def work() -> tuple[dict, list[str]]:  # schemas are serialised here, off the event loop, once they are checked
        rendered = engine_calls.count_messages(registry, settings, names or list(OPENAI_CHAT_DEFAULT), messages, tools)
        return rendered, engine_calls.check_texts(chat_texts(messages, tools), settings)

    rendered, fields = await pool.run(work, request=request)
    totals = {name: chat.count for name, chat in rendered.items()}
    result = {
        "counts": totals,
        "characters": sum(len(value) for value in fields),
        "bytes": sum(len(value.encode("utf-8")) for value in fields),
        "chat": {
            "formats": {name: chat.format for name, chat in rendered.items()},
            "per_message": {name: chat.message_counts() for name, chat in rendered.items()},
            "overhead": {name: chat.overhead for name, chat in rendered.items()},
            "tools": {name: chat.tools_count for name, chat in rendered.items()},
            "notes": {name: format_note(chat) for name, chat in rendered.items()},
        },
    }
    if asked:
        result["budgets"] = budgets_of(asked, totals, body.reply_tokens)
    return Response(dumps(result).encode("utf-8"), media_type="application/json")
