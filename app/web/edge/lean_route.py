"""`LeanRoute`: an APIRoute for endpoints that take only the request and return a Response.

FastAPI's own route handler solves the endpoint's parameters (query, path, dependencies)
and serialises its return value on every request, ~40 µs that the hot POST endpoints do
not need: they read their JSON body with `bodies.read_json` and build their own response.
This route calls the endpoint directly. It is still an APIRoute, so OpenAPI documents it
from its declaration (`response_model`, `openapi_extra`, `responses`), and errors reach
the app's exception handlers as usual. FastAPI documents custom route classes
("Custom Request and APIRoute class").
"""

from __future__ import annotations

import inspect

from fastapi.routing import APIRoute


class LeanRoute(APIRoute):
    def get_route_handler(self):
        endpoint = self.endpoint
        parameters = list(inspect.signature(endpoint).parameters)
        if parameters != ["request"]:
            raise TypeError(f"{endpoint.__name__}: a LeanRoute endpoint takes only `request`, not {parameters}")

        async def handler(request):
            return await endpoint(request)

        return handler
