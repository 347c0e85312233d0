"""create_app(): builds the FastAPI app, mounts static/, installs middleware, error
handlers and the routers. Nothing else happens here."""

from __future__ import annotations

import logging

from fastapi import FastAPI
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

from app.settings import Settings, get_settings
from app.tokenizers.registry import Registry, default_registry
from app.web import api, pages
from app.web.assets import STATIC_DIR, TEMPLATES_DIR, missing_assets
from app.web.errors import install_error_handlers
from app.web.security import BodyLimit, SecurityHeaders

log = logging.getLogger("tokenprism")


def create_app(settings: Settings | None = None, registry: Registry | None = None) -> FastAPI:
    settings = settings or get_settings()
    app = FastAPI(
        title="tokenprism",
        summary="See how real tokenizers cut your text: count, tokenize, compare and decode.",
        version="0.1.0",
        docs_url=None,  # served by api.py from local Swagger UI files, never a CDN
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.registry = registry or default_registry(settings)
    app.state.templates = Jinja2Templates(directory=TEMPLATES_DIR)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    install_error_handlers(app)
    app.include_router(api.router)
    app.include_router(pages.router)
    app.add_middleware(GZipMiddleware, minimum_size=2000)  # token fragments are large and repetitive
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(SecurityHeaders)
    if missing := missing_assets():
        log.warning("static files missing (run `make setup`): %s", ", ".join(missing))
    return app
