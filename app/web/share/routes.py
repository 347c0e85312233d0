"""Sharing a view: the routes. The state and its checks are in state.py, the storage
in app/shares/store.py.

- `POST /api/share`: the page's form fields (multipart or urlencoded, plus `page`: what
  static/js/share.js sends) or JSON (`share_state.ShareRequest`) -> `{"id", "url"}`. A state
  whose address fits (the page's own rule, common.MAX_QUERY_CHARS) is answered with that
  address and `id: null`, and nothing is stored; a longer one is stored and gets `/s/{id}`.
- `POST /share`: the same from the page's Share button without JavaScript; a 303 to the link.
- `GET /s/{id}`: the shared view, drawn by the playground's or the comparison's own render
  function from the stored state; the page's Share bar shows the link.
- `GET /api/share/{id}`: its JSON twin, the state with the fields POST /api/share takes.

Sharing is open to everyone (TOKENPRISM_ADMIN_TOKEN does not apply): it changes nothing but
the share store, and is bounded by the body limit, the per-share cap and the store cap.
Unknown or malformed ids are a 404 (page or JSON), never a 500. Store and render work run
on the work pool, one job per request.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from app.errors import TokenprismError
from app.shares.store import ShareStore
from app.web import schemas
from app.web.deps import services
from app.web.edge.bodies import json_body_doc, read_json
from app.web.edge.json_body import dumps
from app.web.pages.common import page_url, read_form
from app.web.pages.compare import render_compare
from app.web.pages.playground import render_playground
from app.web.share.state import (
    PAGES,
    ShareCreated,
    SharedView,
    ShareRequest,
    check_shareable,
    document,
    json_pairs,
    opened,
    state_from,
    state_json,
)

router = APIRouter()
FORM_TYPES = ("multipart/form-data", "application/x-www-form-urlencoded")
_STATUSES = {
    400: "The body is not valid JSON (or not UTF-8).",
    404: "No share has that id (ids are 32 hex digits), or a tokenizer name is unknown.",
    409: "The share store is full (TOKENPRISM_MAX_SHARE_STORE_BYTES): `store_full`.",
    413: "The text is over the text limit, the view over TOKENPRISM_MAX_SHARE_BYTES, or the body over the body limit.",
    415: "The body is neither JSON nor a form.",
    422: "A field is missing, of the wrong type, unknown or invalid; the message names it.",
    503: "The share store cannot be used now (busy: retry after Retry-After; or its file is damaged).",
}
_FORM_SCHEMA = {
    "type": "object",
    "required": ["page"],
    "properties": {"page": {"type": "string", "enum": list(PAGES)}},
    "additionalProperties": {"type": "string"},
    "description": "The page's own form fields (what the page posts), plus `page`.",
}


class ShareNotFound(TokenprismError):
    code = "share_not_found"
    status = 404


def _responses(*statuses: int) -> dict:
    return {status: {"model": schemas.ErrorResponse, "description": _STATUSES[status]} for status in statuses}


def _post_body_doc() -> dict:
    extra = json_body_doc(ShareRequest)
    content = extra["requestBody"]["content"]
    for media_type in FORM_TYPES:
        content[media_type] = {"schema": _FORM_SCHEMA}
    return extra


def share_store(request: Request) -> ShareStore:
    """The app's one store, made on first use (a store opens its file per call)."""
    store = getattr(request.app.state, "share_store", None)
    if store is None:
        settings = services(request).settings
        store = ShareStore(settings.share_store_path, settings.max_share_bytes, settings.max_share_store_bytes)
        request.app.state.share_store = store
    return store


async def read_share(request: Request):
    """(page, fields, from_form) from a form or a JSON body."""
    if request.headers.get("content-type", "").startswith(FORM_TYPES):
        form = await read_form(request, services(request).settings)
        return str(form.get("page") or ""), form, True
    body = (await read_json(request, ShareRequest)).root
    return body.page, json_pairs(body), False


def make_share(request: Request, page: str, fields, from_form: bool) -> dict:
    """{"id", "url"}: the page's address when it holds the whole state, else a stored share. On the pool."""
    settings, registry, _ = services(request)
    state = state_from(page, fields, registry, from_form)
    check_shareable(page, state, registry, settings)
    url, fits = page_url(PAGES[page], state)
    if fits:
        return {"id": None, "url": url}
    key = share_store(request).put(document(page, state))
    return {"id": key, "url": f"/s/{key}"}


def open_share(request: Request, key: str):
    share = share_store(request).get(key)
    if share is None:
        shown = key if len(key) <= 40 else key[:37] + "..."
        raise ShareNotFound(
            f"no shared view has the id {shown!r}; a share id is 32 hex digits, as in a /s/<id> "
            "link. Check the link, or share the view again"
        )
    page, state = opened(share, services(request).registry)
    return share, page, state


@router.post(
    "/api/share",
    tags=["share"],
    summary="Share a view",
    responses={
        200: {"model": ShareCreated, "description": "The link: /s/{id}, or the page's own address."},
        **_responses(400, 404, 409, 413, 415, 422, 503),
    },
    openapi_extra=_post_body_doc(),
)
async def api_share(request: Request):
    """A link that reproduces a playground or comparison view: its text (or chat), tokenizer(s) and options.
    A view whose address fits in a URL gets that address (`id` null, nothing stored); a longer one is stored
    once, content-addressed (the same view always gets the same id), and gets `/s/{id}`."""
    page, fields, from_form = await read_share(request)
    answer = await services(request).pool.run(make_share, request, page, fields, from_form, request=request)
    return Response(dumps(answer).encode(), media_type="application/json")


@router.get(
    "/api/share/{share_id}",
    tags=["share"],
    summary="A shared view's state",
    responses={200: {"model": SharedView, "description": "The page and its fields."}, **_responses(404, 422, 503)},
)
async def api_shared(request: Request, share_id: str):
    """The stored state of `/s/{share_id}`: POST `{"page": page, **state}` to /api/share and you get the same id."""

    def work() -> bytes:
        share, page, state = open_share(request, share_id)
        return dumps(
            {
                "id": share.id,
                "url": f"/s/{share.id}",
                "page": page,
                "state": state_json(page, state),
                "created": share.created,
                "bytes": share.raw_size,
            }
        ).encode()

    return Response(await services(request).pool.run(work, request=request), media_type="application/json")


@router.post("/share", include_in_schema=False)
async def share_form(request: Request):
    """The Share button without JavaScript: a 303 to the link (the plain address when it fits)."""
    form = await read_form(request, services(request).settings)
    answer = await services(request).pool.run(
        make_share, request, str(form.get("page") or ""), form, True, request=request
    )
    return RedirectResponse(answer["url"], status_code=303)


@router.get("/s/{share_id}", include_in_schema=False)
async def shared_view(request: Request, share_id: str):
    settings, registry, pool = services(request)

    def work():
        share, page, state = open_share(request, share_id)
        # The pages' Share bar shows this link (common.base_context); the address holds the whole view.
        request.state.share = {"id": share.id, "path": f"/s/{share.id}", "link": f"{request.base_url}s/{share.id}"}
        render = render_playground if page == "playground" else render_compare
        return render(request, settings, registry, state)

    return await pool.run(work, request=request)
