"""create_app(): builds the FastAPI app, mounts static/, installs middleware, error
handlers and the routes, and holds the services the routes share (settings, registry,
the work pool). Nothing else happens here."""

from __future__ import annotations

import logging
import sys

from fastapi import FastAPI
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

from app.pricing.facts import install_facts
from app.settings import Settings, get_settings
from app.tokenizers.registry import Registry, default_registry
from app.web import api, inspector, pages, share, tokenizer_store, training
from app.web.assets import STATIC_DIR, TEMPLATES_DIR, missing_assets
from app.web.deps import Services
from app.web.edge.bodies import install_body_schemas
from app.web.edge.errors import install_error_handlers
from app.web.edge.hosts import HostCheck, HostRule
from app.web.edge.rate_limit import RateLimit, write_rules
from app.web.edge.security import BodyLimit, BodyWatch, HeadAsGet, LargeBody, SecurityHeaders
from app.web.markup.formatting import install_filters
from app.web.pool import WorkPool

log = logging.getLogger("tokenprism")
GIL_SWITCH_S = 0.001


def create_app(settings: Settings | None = None, registry: Registry | None = None) -> FastAPI:
    settings = settings or get_settings()
    facts = install_facts(settings.data_dir)  # model facts, checked now: a bad override file stops the start
    # The event loop thread competes for the GIL with the pool threads running Python; at
    # the default 5 ms switch interval it waits up to that long at every turn, which put
    # /healthz's p99 near 200 ms under load (100 ms at 1 ms; bench/bench_hostile.py).
    sys.setswitchinterval(GIL_SWITCH_S)
    app = FastAPI(
        title="tokenprism",
        summary="See how real tokenizers cut your text: count, tokenize, compare and decode.",
        version="0.1.0",
        docs_url=None,  # served by app/web/api/meta.py from local Swagger UI files, never a CDN
        redoc_url=None,
    )
    registry = registry or default_registry(settings)
    app.state.templates = Jinja2Templates(directory=TEMPLATES_DIR)
    install_filters(app.state.templates)
    pool = WorkPool(settings.workers, settings.max_queue, settings.queue_wait_s)
    app.state.services = Services(settings, registry, pool)
    app.state.facts = facts
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    install_error_handlers(app)
    install_body_schemas(app)
    # The routes go straight into the app's own list: FastAPI wraps each `include_router`
    # in a layer that re-matches every route of the router, twice per request.
    app.router.routes.extend([*api.ROUTES, *pages.router.routes, *tokenizer_store.router.routes])
    app.router.routes.extend(inspector.router.routes)  # token inspector, vocabulary browser: /tokenizers/{name}/...
    app.router.routes.extend(share.router.routes)  # sharing a view: /api/share, /share, /s/{id}
    training.install(app)  # the BPE lab: /api/train, /train, merge replay; its job runner starts and stops with the app
    # Pages and token lists are compressed on the pool (json_body.py); this is for the rest.
    app.add_middleware(GZipMiddleware, minimum_size=2000, compresslevel=6)
    app.add_middleware(HeadAsGet)
    app.add_middleware(
        BodyLimit,
        max_bytes=settings.max_body_bytes,
        max_inflight=settings.max_inflight_body_bytes,
        uploads=[
            LargeBody(
                "/api/tokenizers",
                settings.max_upload_bytes,
                "file_too_large",
                f"the tokenizer file is over {settings.max_upload_bytes:,} bytes "
                "(TOKENPRISM_MAX_UPLOAD_BYTES); send a smaller file",
            ),
            LargeBody(
                "/tokenizers",
                settings.max_upload_bytes,
                "file_too_large",  # the page's form
                f"the tokenizer file is over {settings.max_upload_bytes:,} bytes "
                "(TOKENPRISM_MAX_UPLOAD_BYTES); send a smaller file",
            ),
            *training.large_bodies(settings),
        ],
    )
    app.add_middleware(RateLimit, rules=write_rules(settings))  # shares, uploads, training: per client
    app.add_middleware(BodyWatch, timeout_s=settings.body_timeout_s)  # outside the two above: times their drains too
    app.add_middleware(HostCheck, rule=HostRule.from_settings(settings))  # before any body is read: DNS rebinding
    app.add_middleware(SecurityHeaders)
    if missing := missing_assets():
        log.warning("static files missing (run `make setup`): %s", ", ".join(missing))
    return app
