"""/healthz, /docs (Swagger UI from local files) and GET /api/limits. Leaves out the tokenizer
catalog (catalog.py) and the POST endpoints (tokens.py, count.py, decode.py)."""

from __future__ import annotations

from fastapi import APIRouter, Request

from app.web import schemas
from app.web.api.common import default_names
from app.web.assets import swagger_paths
from app.web.deps import services

router = APIRouter()  # /healthz and /docs
api = APIRouter(prefix="/api")


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
