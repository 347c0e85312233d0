"""POST /api/tokenize (with the merge replay, the shortest encoding and chunks), /api/chat and
/api/compare: the endpoints that list tokens. Their answers are written as JSON text straight from ids
and bytes in a worker thread (`result_json`). Leaves out counting (count.py) and decoding (decode.py)."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import Response

from app.chat.render import format_note
from app.errors import InvalidInput
from app.tokenizers.lecture import shortest
from app.tokenizers.lecture.scripts import by_script
from app.tokenizers.tokens import char_ranges, text_stats
from app.web import engine_calls, schemas
from app.web.api.common import budgets_of, chat_of, default_names, errors, hot_router
from app.web.deps import services
from app.web.edge.bodies import json_body_doc, read_json
from app.web.edge.json_body import dumps, json_response, token_list

api_post = hot_router()


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
        budget = budgets_of([(model, name)] if model else [], {name: len(listed[1])}, body.reply_tokens)
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
    messages, tools = chat_of(body)

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
        budget = budgets_of([(model, name)] if model else [], {name: rendered.count}, body.reply_tokens)
        return json_response(
            f'{{"tokenizer":{dumps(name)},"format":{dumps(rendered.format)},"count":{rendered.count},'
            f'"text":{dumps(rendered.text)},"tokens":{listed},"messages":[{per_message}],"overhead":{rendered.overhead},'
            f'"tools":{rendered.tools_count},"note":{dumps(format_note(rendered))}'
            + (f',"budget":{dumps(budget[0])}}}' if budget else "}"),
            request.headers.get("accept-encoding", ""),
        )

    return await pool.run(work, request=request)


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
