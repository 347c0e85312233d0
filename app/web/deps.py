"""What the routes take from the app: its settings, registry and work pool, in one call.

`services(request)` returns them as the app built them (`create_app(settings, registry)`;
tests pass their own there). A plain function rather than FastAPI dependencies: FastAPI's
dependency solving cost ~60 µs a dependency per request, more than the JSON parse and
half of counting 1 KB of text.
"""

from __future__ import annotations

from typing import NamedTuple

from fastapi import Request

from app.settings import Settings
from app.tokenizers.registry import Registry
from app.web.pool import WorkPool


class Services(NamedTuple):
    settings: Settings
    registry: Registry
    pool: WorkPool


def services(request: Request) -> Services:
    return request.app.state.services
