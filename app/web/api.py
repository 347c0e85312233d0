"""The JSON API under /api (plus /healthz and /docs). To be filled in."""

from fastapi import APIRouter

router = APIRouter()
