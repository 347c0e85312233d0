"""The HTML pages: the playground at `/` and the comparison at `/compare`, one router."""

from fastapi import APIRouter

from app.web.edge.lean_route import LeanRoute
from app.web.pages import compare, playground

router = APIRouter(include_in_schema=False, route_class=LeanRoute)  # see lean_route.py
router.routes.extend([*playground.router.routes, *compare.router.routes])
