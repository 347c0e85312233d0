"""POST /api/decode: token ids back to text, token by token, each bad id named with its position.
Leaves out encoding (tokens.py)."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import Response

from app.errors import BadTokenId
from app.tokenizers.tokens import text_and_ranges
from app.web import engine_calls, schemas
from app.web.api.common import errors, hot_router
from app.web.deps import services
from app.web.edge.bodies import json_body_doc, read_json
from app.web.edge.json_body import dumps, json_response, token_list

api_post = hot_router()


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
