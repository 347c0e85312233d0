"""One error shape everywhere: `{"error": {"code", "message"}}` with a 4xx status.

Exception handlers turn the engine's `TokenprismError`, FastAPI's request validation
errors (malformed JSON, wrong types, missing fields) and HTTP errors (404, 405) into that
shape. API paths get JSON; page paths get the same code and message in the error page.
Anything unexpected is a 500 in the same shape, and is logged.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.errors import EXCERPT_CHARS, TokenprismError, excerpt
from app.web.edge.security import SECURITY_HEADERS

log = logging.getLogger("tokenprism")

JSON_PREFIXES = ("/api", "/healthz", "/openapi.json")


def wants_json(request: Request) -> bool:
    """API paths, and htmx requests (the page's script shows their message in place)."""
    return request.url.path.startswith(JSON_PREFIXES) or request.headers.get("HX-Request") == "true"


def error_response(request: Request, status: int, code: str, message: str):
    if wants_json(request):
        return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)
    templates = request.app.state.templates
    return templates.TemplateResponse(
        request, "error.html", {"status": status, "code": code, "message": message}, status_code=status
    )


def describe_validation_error(error: RequestValidationError) -> tuple[int, str, str]:
    problems = []
    for item in error.errors():
        if item.get("type") == "json_invalid":
            detail = item.get("ctx", {}).get("error", "")
            return 400, "invalid_json", f"request body is not valid JSON ({detail}); send a JSON object"
        where = ".".join(str(part) for part in item.get("loc", ()) if part != "body") or "body"
        # field names and pydantic's messages ("Input tag 'x…'") can quote client input
        problems.append(
            f"{excerpt(where, quote=False)}: {excerpt(item.get('msg', 'invalid'), 4 * EXCERPT_CHARS, quote=False)}"
        )
    return (
        422,
        "invalid_request",
        "; ".join(problems[:5]) + ("" if len(problems) <= 5 else f"; and {len(problems) - 5} more"),
    )


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(TokenprismError)
    async def on_tokenprism_error(request: Request, error: TokenprismError):
        response = error_response(request, error.status, error.code, error.message)
        response.headers.update(error.headers)
        return response

    @app.exception_handler(RequestValidationError)
    async def on_validation_error(request: Request, error: RequestValidationError):
        return error_response(request, *describe_validation_error(error))

    @app.exception_handler(StarletteHTTPException)
    async def on_http_error(request: Request, error: StarletteHTTPException):
        messages = {
            404: f"no page or endpoint at {request.url.path}; see /docs for the API",
            405: f"{request.method} is not allowed on {request.url.path}; see /docs for the methods",
        }
        message = messages.get(error.status_code) or str(error.detail)
        if error.status_code == 400 and str(error.detail) == "There was an error parsing the body":
            message = (
                "the request body could not be parsed (it is not UTF-8, or its JSON is nested too deeply); "
                "send a UTF-8 JSON object as shown in /docs"
            )
        code = {400: "unparsable_body", 404: "not_found", 405: "method_not_allowed"}.get(
            error.status_code, "http_error"
        )
        response = error_response(request, error.status_code, code, message)
        for name, value in (error.headers or {}).items():
            response.headers[name] = value
        return response

    @app.exception_handler(Exception)
    async def on_unexpected(request: Request, error: Exception):
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        response = error_response(
            request, 500, "internal_error", "something went wrong on our side; it has been logged"
        )
        # Starlette answers this outside every middleware, SecurityHeaders' too: add them here
        for name, value in SECURITY_HEADERS:
            response.headers[name.decode()] = value.decode()
        return response
