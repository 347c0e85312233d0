"""The token inspector and the vocabulary browser: two JSON endpoints and two pages.

- `GET /api/tokenizers/{name}/tokens/{id}`: one token's facts (`app.inspect.facts`);
  `?tree=true` adds the whole merge tree, `?same_in=false` skips the other tokenizers.
- `GET /api/tokenizers/{name}/vocab?q=&mode=&offset=&limit=`: search (`app.inspect.search`).
- `/tokenizers/{name}`: the browser (stats chart, special tokens, live search with paging;
  htmx requests get the results fragment, the page works as a plain GET form without JS).
- `/tokenizers/{name}/tokens/{id}`: the inspector page. Its "same bytes elsewhere" part
  loads every built-in tokenizer the first time, so the page asks for it separately
  (`?with=same-in`: htmx loads it when the page shows; without JS it is a link).

Names resolve through the registry (a model name or alias redirects the pages to the
tokenizer's own address); unknown names are 404s and bad ids or queries 422s in the one
error shape. Index building, searching and rendering run on the work pool. The page's
view model (escaping, the tree, the chart) is in `views.py`.
"""

from __future__ import annotations

from urllib.parse import quote

from fastapi import APIRouter, Query, Request
from fastapi.responses import RedirectResponse, Response

from app.errors import TokenprismError
from app.inspect import search as vocab_search
from app.inspect.cache import inspected
from app.inspect.facts import merge_tree, same_in_names, same_in_one, token_facts
from app.web.api.common import errors
from app.web.deps import services
from app.web.edge.json_body import dumps, finished_response, json_response
from app.web.inspector import schemas, views
from app.web.pages.common import base_context, is_htmx

router = APIRouter()


# ---- API ----


@router.get(
    "/api/tokenizers/{name}/tokens/{token_id}",
    tags=["tokenizers"],
    response_model=schemas.TokenFacts,
    responses=errors(404, 422),
    summary="One token: bytes, text, merge parents, the same bytes elsewhere",
)
async def api_token(
    request: Request,
    name: str,
    token_id: str,
    tree: bool = Query(False, description="Add the whole merge tree down to tokens with no parents."),
    same_in: bool = Query(
        True, description="Look the bytes up in every other built-in tokenizer (loads them on first use)."
    ),
):
    """`name` may be a model name or alias; the answer names the tokenizer. An id that is not a whole number, out
    of range or a gap in the vocabulary is a 422 naming it."""
    _, registry, pool = services(request)

    def work() -> dict:
        facts = token_facts(registry, name, token_id, with_same_in=False)
        if tree:
            found = inspected(registry.get(facts["tokenizer"]))
            facts["tree"] = views.tree_json(merge_tree(found, facts["id"]))
        return facts

    facts = await pool.run(work, request=request)
    if same_in:
        facts["same_in"] = await _same_in(request, facts)
    return Response(dumps(facts).encode("utf-8"), media_type="application/json")


async def _same_in(request: Request, facts: dict) -> dict[str, int | None]:
    """The same bytes in every other built-in: one pool job per tokenizer (the first lookup loads and
    indexes it, up to a second or two), so other requests get a thread in between."""
    _, registry, pool = services(request)
    data, special = bytes.fromhex(facts["bytes"]), facts["special"]
    return {
        other: await pool.run(same_in_one, registry, other, data, special, request=request)
        for other in same_in_names(registry, facts["tokenizer"])
    }


@router.get(
    "/api/tokenizers/{name}/vocab",
    tags=["tokenizers"],
    response_model=schemas.VocabResponse,
    responses=errors(404, 422),
    summary="Search a tokenizer's vocabulary",
)
async def api_vocab(
    request: Request,
    name: str,
    q: str = Query("", description=f"At most {vocab_search.MAX_QUERY_CHARS} characters; empty: every token."),
    mode: str = Query(
        "substring",
        description="substring (bytes contain the query's UTF-8), prefix, "
        "regex (over each token's text, time-bounded) or id (1234 or 1000-1100).",
    ),
    offset: int = Query(0, description=f"0 to {vocab_search.MAX_OFFSET:,}"),
    limit: int = Query(vocab_search.DEFAULT_LIMIT, description=f"1 to {vocab_search.MAX_LIMIT}"),
):
    """Every match is counted in `total`, in id order; `matches` is one page of them. `stats` describe the whole
    vocabulary: tokens by byte length, whole words with a leading space, tokens that are not valid UTF-8."""
    _, registry, pool = services(request)
    vocab_search.check(q, mode, offset, limit)

    def work() -> Response:
        found = inspected(registry.get(name))
        return json_response(
            dumps(vocab_search.search(found, q, mode, offset, limit)), request.headers.get("accept-encoding", "")
        )

    return await pool.run(work, request=request)


# ---- pages ----


def _canonical_or_redirect(request: Request, name: str) -> str | RedirectResponse:
    canonical = services(request).registry.resolve(name)
    if canonical == name:
        return canonical
    path = quote(request.url.path.replace(f"/tokenizers/{name}", f"/tokenizers/{canonical}", 1))
    query = f"?{request.url.query}" if request.url.query else ""
    return RedirectResponse(path + query, status_code=307)


@router.get("/tokenizers/{name}", include_in_schema=False)
async def vocab_page(
    request: Request,
    name: str,
    q: str = "",
    mode: str = "substring",
    offset: int = 0,
    limit: int = vocab_search.DEFAULT_LIMIT,
):
    canonical = _canonical_or_redirect(request, name)
    if isinstance(canonical, Response):
        return canonical
    settings, registry, pool = services(request)

    def work() -> Response:
        found = inspected(registry.get(canonical))
        error, status, result = None, 200, None
        try:
            result = vocab_search.search(found, q, mode, offset, limit)
        except TokenprismError as problem:
            error, status = views.in_page_words(problem.message), problem.status
        context = {
            **base_context(request, settings, "tokenizers"),
            **views.vocab_context(registry, found, q, mode, limit, result, error),
        }
        template = "inspector/_vocab_results.html" if is_htmx(request) else "inspector/tokenizer_vocab.html"
        return _html(request, template, context, status)

    return await pool.run(work, request=request)


@router.get("/tokenizers/{name}/tokens/{token_id}", include_in_schema=False)
async def token_page(request: Request, name: str, token_id: str, with_: str = Query("", alias="with")):
    canonical = _canonical_or_redirect(request, name)
    if isinstance(canonical, Response):
        return canonical
    settings, registry, pool = services(request)
    facts = await pool.run(token_facts, registry, canonical, token_id, False, request=request)
    if with_ == "same-in":
        facts["same_in"] = await _same_in(request, facts)

    def work() -> Response:
        found = inspected(registry.get(canonical))
        context = {
            **base_context(request, settings, "tokenizers"),
            **views.token_context(registry, found, facts, merge_tree(found, facts["id"]), with_ == "same-in"),
        }
        return _html(request, "inspector/token_inspector.html", context, 200)

    return await pool.run(work, request=request)


def _html(request: Request, template: str, context: dict, status: int) -> Response:
    html = request.app.state.templates.get_template(template).render(context)
    return finished_response(
        html.encode("utf-8"),
        "text/html; charset=utf-8",
        request.headers.get("accept-encoding", ""),
        status,
        {"Vary": "HX-Request", "Cache-Control": "no-store"},
    )
