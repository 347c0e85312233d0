"""The JSON API under /api, plus /healthz and /docs (Swagger UI from local files).

Thin over the engine: parse (schemas), call `engine_calls`, return a dict. Every failure
is a `TokenprismError` or a validation error, rendered by `errors.py` in the one shape
`{"error": {"code", "message"}}`. Responses that grow with the text (tokenize, compare,
decode) are built and serialised in a worker thread, so a request with hundreds of
thousands of tokens does not hold the event loop while its JSON is written.

Decisions (also in the OpenAPI descriptions):
- /api/count (texts) and /api/compare without "tokenizers" use the first `max_compare`
  built-ins (`default_names`, listed by /api/limits), not every built-in: one request takes
  at most `max_compare` tokenizers. Others, and user-trained ones, are used only when named. /api/count with
  "messages" and no "tokenizers" uses the tokenizers chat counting is defined for.
- Counts are keyed by canonical name: "r50k_base" is answered as "gpt2".
- Every field that takes a tokenizer name takes a model name too (GET /api/models lists them):
  "gpt-4o" is answered as "o200k_base"; a model whose tokenizer is not shipped is a 404.
- A model ("model", or a model name where a tokenizer name goes) adds its budget (app/pricing/budget.py:
  context used, exact costs) to tokenize, chat, count and compare; "model" decides the tokenizer, and a
  different tokenizer asked with it is a 422 (engine_calls.resolve_with_model, names_and_models).
- /api/decode's "text" is the reference library's decode of the ids; the tokens' ranges
  index into "tokens_text" (the tokens' bytes decoded), which differs only where that
  library drops or rewrites pieces.
"""

from __future__ import annotations

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from app.chat.formats.template_files import describe
from app.chat.formats.template_format import ChatTemplate
from app.chat.render import format_note, formats_of
from app.chat.tools import chat_message, chat_texts, parse_tools
from app.errors import BadTokenId, InvalidInput, TextTooLarge
from app.tokenizers import models
from app.tokenizers.lecture import shortest
from app.tokenizers.lecture.scripts import by_script
from app.tokenizers.tokens import char_ranges, text_and_ranges, text_stats
from app.web import engine_calls, schemas
from app.web.assets import swagger_paths
from app.web.deps import services
from app.web.edge.bodies import json_body_doc, read_json
from app.web.edge.json_body import dumps, json_response, token_list
from app.web.edge.lean_route import LeanRoute

INLINE_CHARS = 4_096  # /api/count texts up to this size are counted on the event loop (~0.1 ms)
MAX_SEARCH_CHARS, MAX_SEARCH_RESULTS = 200, 100  # GET /api/tokenizers?q=: the query, and the results at most

router = APIRouter()  # /healthz and /docs
api = APIRouter(prefix="/api")
api_post = APIRouter(prefix="/api", route_class=LeanRoute)  # the hot paths: see lean_route.py

_ERROR_DESCRIPTIONS = {
    400: "The body is not valid JSON (or not UTF-8).",
    415: "The body is not sent as Content-Type: application/json.",
    404: "Unknown tokenizer or model, or a model whose tokenizer is not shipped; the message lists the valid names.",
    413: "Text, ids or request body over the limits of GET /api/limits.",
    422: "A field is missing, of the wrong type, unknown or invalid; the message names it.",
}


def errors(*statuses: int) -> dict:
    return {status: {"model": schemas.ErrorResponse, "description": _ERROR_DESCRIPTIONS[status]} for status in statuses}


def default_names(registry, settings) -> list[str]:
    """The tokenizers of /api/count and /api/compare when a request names none (schemas.DEFAULT_TOKENIZERS_DOC)."""
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


OPENAI_CHAT_DEFAULT = ("cl100k_base", "o200k_base")  # /api/count's tokenizers for a chat, when none are named


@api.get("/limits", tags=["meta"], response_model=schemas.LimitsResponse, summary="The limits this server enforces")
async def limits(request: Request):
    settings, registry = services(request).settings, services(request).registry
    return {
        "max_text_chars": settings.max_text_chars,
        "max_body_bytes": settings.max_body_bytes,
        "max_ids": settings.max_ids,
        "max_compare": settings.max_compare,
        "default_tokenizers": default_names(registry, settings),
        "max_response_tokens": settings.max_response_tokens,
        "max_texts": schemas.MAX_TEXTS,
        "max_messages": schemas.MAX_MESSAGES,
    }


# ---- tokenizers ----


@api.get(
    "/tokenizers",
    tags=["tokenizers"],
    response_model=schemas.TokenizersResponse,
    responses=errors(422),
    summary="List the tokenizers, or search them",
)
async def list_tokenizers(
    request: Request,
    q: str | None = Query(
        None,
        min_length=1,
        max_length=MAX_SEARCH_CHARS,
        description="Search instead: the tokenizer this name (or alias, or model name) stands for, "
        "then those whose name contains it, then those of the models whose name "
        "contains it (after a Hub organisation such as meta-llama/), any case; "
        "at most `limit`.",
    ),
    limit: int = Query(MAX_SEARCH_RESULTS, ge=1, le=MAX_SEARCH_RESULTS, description="With `q`: how many at most."),
):
    """Built-in tokenizers first, then the ones users trained. Listing loads none of them. The pages' pickers
    list the built-ins and the recent ones, and find the others with `q`."""
    registry = services(request).registry
    if q is not None:
        return {"tokenizers": [entry.info() for entry in registry.search(q, limit)]}
    return {"tokenizers": registry.infos()}


@api.get(
    "/models", tags=["tokenizers"], response_model=schemas.ModelsResponse, summary="Model names and their tokenizers"
)
async def list_models(request: Request):
    """Every model name (or prefix of model names) that GET /api/tokenizers/{name}, the `tokenizer(s)` fields of
    the POST endpoints, the pages and the CLI take instead of a tokenizer name, with the tokenizer it stands for
    and its `facts` (context window, largest output, prices per million tokens, source and date read; null where
    none are published). The OpenAI part is tiktoken's own table (`tiktoken/model.py`, tiktoken 0.14.0). After
    it come the names that only the facts table holds (gpt-4o-mini), with the prefix rule that covers them."""
    registry = services(request).registry
    facts = request.app.state.facts

    def row(model: models.Model, name: str | None = None) -> dict:  # name: a facts row that `model`'s rule covers
        fact = facts.get(name or model.label)  # a prefix rule has facts only when a row names it ("gpt-4o-*")
        listed = (
            {**model.info(), "covered_by": None}
            if name is None
            else {**model.info(), "name": name, "prefix": False, "covered_by": model.label}
        )
        return {**listed, "available": registry.has(model.tokenizer), "facts": None if fact is None else fact.info()}

    labels = {model.label.lower() for model in models.MODELS}
    extra = [(fact.model, models.find(fact.model)) for fact in facts.rows() if fact.model.lower() not in labels]
    return {
        "models": [
            *(row(model) for model in models.MODELS),
            *(row(model, name) for name, model in extra if model is not None),
        ]
    }


@api.get(
    "/tokenizers/{name}",
    tags=["tokenizers"],
    response_model=schemas.TokenizerDetail,
    responses=errors(404, 422),
    summary="One tokenizer, with its special tokens",
)
async def get_tokenizer(request: Request, name: str):
    """`name` may be a model name: /api/tokenizers/gpt-4o answers o200k_base."""
    _, registry, pool = services(request)
    tokenizer = await pool.run(registry.get, name, request=request)
    special = dict(tokenizer.special_tokens)
    for token_id in sorted(tokenizer.special_ids):  # control pieces (SentencePiece's <s>) have no dict entry
        special.setdefault(tokenizer.id_to_bytes(token_id).decode("utf-8", errors="replace"), token_id)
    return {
        **tokenizer.info(),
        "models": models.models_for(tokenizer.name),
        "builtin": registry.is_builtin(tokenizer.name),
        "special_tokens": special,
        "chat_counting": bool(formats_of(tokenizer)),
        "chat_formats": formats_of(tokenizer),
        "chat_template": describe(template) if isinstance(template := tokenizer.chat_template, ChatTemplate) else None,
    }


# ---- tokens ----


@api_post.post(
    "/tokenize",
    tags=["tokens"],
    response_model=schemas.TokenizeResponse,
    responses=errors(400, 404, 413, 415, 422),
    openapi_extra=json_body_doc(schemas.TokenizeRequest),
    summary="Tokenize a text: ids, bytes and character ranges",
)
async def tokenize(request: Request):
    """Each token's `bytes` (hex) join to the text's UTF-8; `[start, end)` is the smallest character range
    holding them, so tokens that split a character (a piece of an emoji) share its range. A text of more
    than `max_response_tokens` tokens (GET /api/limits) is a 413 `too_many_tokens`: /api/count counts any size."""
    settings, registry, pool = services(request)
    body = await read_json(request, schemas.TokenizeRequest)
    name, model = engine_calls.resolve_with_model(registry, body.tokenizer, body.model)

    def work() -> Response:
        if body.encoding == "shortest":
            return json_response(
                shortest_json(registry, settings, name, body), request.headers.get("accept-encoding", "")
            )
        if body.merges is not None:  # the merge replay: a bpe tokenizer cut to its first k merges
            text, listed = engine_calls.tokenize_merges(
                registry, settings, name, body.text, body.allow_special, body.merges
            )
            return json_response(
                result_json(text, *listed, merges=body.merges, chunks=chunks_of(body, text, listed[0])),
                request.headers.get("accept-encoding", ""),
            )
        text, [listed] = engine_calls.tokenize_listed(registry, settings, [name], body.text, body.allow_special)
        budget = _budgets([(model, name)] if model else [], {name: len(listed[1])}, body.reply_tokens)
        return json_response(
            result_json(text, *listed, budget=budget[0] if budget else None, chunks=chunks_of(body, text, listed[0])),
            request.headers.get("accept-encoding", ""),
        )

    return await pool.run(work, request=request)


@api_post.post(
    "/chat",
    tags=["tokens"],
    response_model=schemas.ChatResponse,
    responses=errors(400, 404, 413, 415, 422),
    openapi_extra=json_body_doc(schemas.ChatRequest),
    summary="A chat prompt as the model sees it: framing tokens, per-message counts",
)
async def chat(request: Request):
    """The messages rendered in the tokenizer's chat format (`chatml` for cl100k_base and o200k_base with
    `<|im_start|>`/`<|im_sep|>`/`<|im_end|>`, `harmony` for o200k_harmony), then tokenized: the ids a model
    is given. Special-token strings inside content stay text. A tokenizer with no format, a format that does
    not fit it, or a role the format does not know is a 422 naming what is allowed. `tools` (OpenAI's function
    tools) are written as the format writes them and counted apart (`tools`); assistant `tool_calls` and `tool`
    results count in their messages; a bad tool or call is a 422 naming it (docs/api.md, Tools)."""
    settings, registry, pool = services(request)
    body = await read_json(request, schemas.ChatRequest)
    name, model = engine_calls.resolve_with_model(registry, body.tokenizer, body.model)
    messages, tools = _chat_of(body)

    def work() -> Response:
        rendered = engine_calls.render_chat(registry, settings, name, messages, body.format, tools)
        tokens = rendered.tokens()
        special = {t.id for t in tokens if t.special}
        listed = token_list(
            [t.id for t in tokens], [t.bytes for t in tokens], special, [(t.start, t.end) for t in tokens]
        )
        per_message = ",".join(
            f'{{"role":{dumps(m.role)},"count":{n}}}' for m, n in zip(messages, rendered.message_counts(), strict=True)
        )
        budget = _budgets([(model, name)] if model else [], {name: rendered.count}, body.reply_tokens)
        return json_response(
            f'{{"tokenizer":{dumps(name)},"format":{dumps(rendered.format)},"count":{rendered.count},'
            f'"text":{dumps(rendered.text)},"tokens":{listed},"messages":[{per_message}],"overhead":{rendered.overhead},'
            f'"tools":{rendered.tools_count},"note":{dumps(format_note(rendered))}'
            + (f',"budget":{dumps(budget[0])}}}' if budget else "}"),
            request.headers.get("accept-encoding", ""),
        )

    return await pool.run(work, request=request)


def _chat_of(body: schemas.ChatRequest | schemas.CountRequest) -> tuple[list, tuple]:
    """The request's messages and tools (app/chat/tools.py reads the tool fields and names what is wrong)."""
    messages = [
        chat_message(i, m.role, m.content, m.name, m.tool_calls, m.tool_call_id)
        for i, m in enumerate(body.messages or [])
    ]
    return messages, parse_tools(body.tools)


def _budgets(asked: list[tuple[str, str]], counts: dict[str, int], reply_tokens: int | None) -> list[dict] | None:
    """The budgets of the (model, tokenizer) pairs asked, or None when no model was asked."""
    return engine_calls.budgets_json(asked, counts, reply_tokens) if asked else None


def shortest_json(registry, settings, name: str, body: schemas.TokenizeRequest) -> str:
    """/api/tokenize with `encoding: shortest` (app/tokenizers/lecture/shortest.py) as JSON text."""
    if body.merges is not None:
        raise InvalidInput('"encoding": "shortest" uses the whole vocabulary; leave out "merges" or the encoding')
    text = engine_calls.check_text(body.text, settings)
    found = shortest.shortest(registry.get(name), text, body.allow_special)
    engine_calls.budget_check({name: len(found.ids)}, settings)
    differences = shortest.char_spans(text.encode("utf-8"), found.differences())
    return result_json(
        text, registry.get(name), found.ids, found.pieces, bpe_count=len(found.bpe_ids), differences=differences
    )


def chunks_of(body: schemas.TokenizeRequest, text: str, tokenizer) -> dict | None:
    """The chunks fields of a tokenize answer, when asked (`"chunks": true`); each chunk holds a token
    or more, so they are as bounded as the tokens."""
    if not body.chunks:
        return None
    found = tokenizer.chunks(text, body.allow_special)
    return {
        "chunks": None if found is None else [{"start": start, "end": end} for start, end in found],
        "chunk_count": None if found is None else len(found),
        "chunks_note": tokenizer.chunks_note,
    }


def result_json(
    text: str,
    tokenizer,
    ids: list[int],
    pieces: list[bytes],
    merges: int | None = None,
    chunks: dict | None = None,
    **budget,
) -> str:
    """One tokenize result (`schemas.TokenizeResponse`, or `CompareResult` with `budgets=`) as JSON text;
    `budget=`/`budgets=` that are None are left out, `chunks` (from `chunks_of`) added as they are."""
    stats = dumps(text_stats(text, len(ids)).to_dict())
    tokens = token_list(ids, pieces, tokenizer.special_ids)
    extra = "" if merges is None else f',"merges":{merges}'
    extra += "".join(f',"{key}":{dumps(value)}' for key, value in budget.items() if value is not None)
    extra += "".join(f',"{key}":{dumps(value)}' for key, value in (chunks or {}).items())
    return f'{{"tokenizer":{dumps(tokenizer.name)},"count":{len(ids)},"tokens":{tokens},"stats":{stats}{extra}}}'


@api_post.post(
    "/compare",
    tags=["tokens"],
    response_model=schemas.CompareResponse,
    responses=errors(400, 404, 413, 415, 422),
    openapi_extra=json_body_doc(schemas.CompareRequest),
    summary="Tokenize one text with several tokenizers",
)
async def compare(request: Request):
    """The token budget (`max_response_tokens`) is over all the tokenizers of the request together."""
    settings, registry, pool = services(request)
    body = await read_json(request, schemas.CompareRequest)
    names, asked = engine_calls.names_and_models(registry, body.tokenizers, body.model)
    names = engine_calls.check_tokenizer_names(names or default_names(registry, settings), registry, settings)

    def work() -> Response:
        text, listed = engine_calls.tokenize_listed(registry, settings, names, body.text, body.allow_special)

        def budgets(tokenizer, ids) -> list[dict] | None:  # the models asked that use this column's tokenizer
            mine = [pair for pair in asked if pair[1] == tokenizer.name]
            return engine_calls.budgets_json(mine, {tokenizer.name: len(ids)}, body.reply_tokens) if asked else None

        results = ",".join(result_json(text, *one, budgets=budgets(*one[:2])) for one in listed)
        rows = by_script(text, {tokenizer.name: char_ranges(pieces) for tokenizer, _, pieces in listed})
        return json_response(
            f'{{"results":[{results}],"by_script":{dumps(rows)}}}', request.headers.get("accept-encoding", "")
        )

    return await pool.run(work, request=request)


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
        result["budgets"] = _budgets(asked, totals, body.reply_tokens)
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
    messages, tools = _chat_of(body)
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
        result["budgets"] = _budgets(asked, totals, body.reply_tokens)
    return Response(dumps(result).encode("utf-8"), media_type="application/json")


@api_post.post(
    "/decode",
    tags=["tokens"],
    response_model=schemas.DecodeResponse,
    responses=errors(400, 404, 413, 415, 422),
    openapi_extra=json_body_doc(schemas.DecodeRequest),
    summary="Decode token ids to text, token by token",
)
async def decode(request: Request):
    """`text` equals the reference library's decode (tiktoken's `decode`, SentencePiece's `decode`). A bad id
    (negative, too large, a gap in the vocabulary, not a whole number) is a 422 naming it and its position.
    More ids than `max_response_tokens` is a 413 `too_many_tokens`."""
    settings, registry, pool = services(request)
    body = await read_json(request, schemas.DecodeRequest)
    name = registry.resolve(body.tokenizer)

    def work() -> Response:
        tokenizer = registry.get(name)
        engine_calls.check_decode_ids(body.ids, settings)
        _refuse_nested(body.ids, tokenizer.vocab_size)
        ids = tokenizer.validate_ids(body.ids)
        engine_calls.budget_check({name: len(ids)}, settings, "the ids")
        pieces = tokenizer.token_bytes(ids)
        tokens_text, ranges = text_and_ranges(pieces)
        tokens = token_list(ids, pieces, tokenizer.special_ids, ranges)
        body_json = (
            f'{{"tokenizer":{dumps(name)},"text":{dumps(tokenizer.decode(ids))},"count":{len(ids)},'
            f'"tokens":{tokens},"tokens_text":{dumps(tokens_text)}}}'
        )
        return json_response(body_json, request.headers.get("accept-encoding", ""))

    return await pool.run(work, request=request)


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


ROUTES = [*router.routes, *api.routes, *api_post.routes]  # what create_app adds, in this order
