"""GET /api/tokenizers (the list, a search, one tokenizer with its special tokens and chat formats) and
GET /api/models (model names, their tokenizers and facts). Reads of the registry and the model tables;
leaves out everything that takes a text (tokens.py, count.py)."""

from __future__ import annotations

from fastapi import APIRouter, Query, Request

from app.chat.formats.template_files import describe
from app.chat.formats.template_format import ChatTemplate
from app.chat.render import formats_of
from app.tokenizers import models
from app.web import schemas
from app.web.api.common import errors
from app.web.deps import services

MAX_SEARCH_CHARS, MAX_SEARCH_RESULTS = 200, 100  # GET /api/tokenizers?q=: the query, and the results at most
api = APIRouter(prefix="/api")


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
