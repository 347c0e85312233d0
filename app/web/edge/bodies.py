"""JSON request bodies: read, parsed and validated in one lean step, and documented in /docs.

FastAPI's declared body parameters cost ~150 µs a request (dependency solving around the
parse), more than counting 1 KB of text. The API's POST routes call `read_json(request,
Model)` instead: the body must be `application/json` (or `+json`), is parsed by `json`
and validated strictly by the pydantic model; failures become the same
`RequestValidationError` FastAPI would raise, so `errors.py` answers in the one shape.
`json_body_doc(Model)` puts the model in the route's OpenAPI entry (`openapi_extra`), and
`install_body_schemas` adds those models to the schema's components.
"""

from __future__ import annotations

import email.message
import json
from typing import TypeVar

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError

from app.errors import TokenprismError

M = TypeVar("M", bound=BaseModel)
_DOCUMENTED: dict[str, type[BaseModel]] = {}


class UnsupportedMediaType(TokenprismError):
    code = "unsupported_media_type"
    status = 415


def _is_json(content_type: str) -> bool:
    message = email.message.Message()
    message["content-type"] = content_type
    subtype = message.get_content_subtype()
    return message.get_content_maintype() == "application" and (subtype == "json" or subtype.endswith("+json"))


async def read_json(request: Request, model: type[M]) -> M:
    check_json_type(request)
    return parse_json(await request.body(), model)


def check_json_type(request: Request) -> None:
    content_type = request.headers.get("content-type", "")
    if content_type != "application/json" and not _is_json(content_type):
        raise UnsupportedMediaType(
            f"the body's Content-Type is {content_type or 'missing'!r}; send JSON with Content-Type: application/json"
        )


def parse_json(raw: bytes, model: type[M]) -> M:
    """The body `raw` parsed and validated as `model`, failing as `read_json` does (for a large
    body, call it on a thread: POST /api/train does)."""
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as error:
        raise RequestValidationError(
            [
                {
                    "type": "json_invalid",
                    "loc": ("body", error.pos),
                    "msg": "JSON decode error",
                    "input": {},
                    "ctx": {"error": error.msg},
                }
            ]
        ) from None
    except (UnicodeDecodeError, RecursionError):
        raise TokenprismError(
            "the request body could not be parsed (it is not UTF-8, or its JSON is nested too deeply); "
            "send a UTF-8 JSON object as shown in /docs",
            code="unparsable_body",
        ) from None
    except ValueError as error:  # a number past Python's digit limit for int()
        raise RequestValidationError(
            [
                {
                    "type": "json_invalid",
                    "loc": ("body",),
                    "msg": "JSON decode error",
                    "input": {},
                    "ctx": {"error": str(error)},
                }
            ]
        ) from None
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise RequestValidationError(
            [{**item, "loc": ("body", *item["loc"])} for item in error.errors(include_url=False)]
        ) from None


def json_body_doc(model: type[BaseModel]) -> dict:
    """`openapi_extra` for a route whose body `read_json` reads as `model`."""
    _DOCUMENTED[model.__name__] = model
    schema = {"$ref": f"#/components/schemas/{model.__name__}"}
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}}


def install_body_schemas(app: FastAPI) -> None:
    build = app.openapi

    def openapi() -> dict:
        if app.openapi_schema:
            return app.openapi_schema
        schema = build()
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        for name, model in _DOCUMENTED.items():
            model_schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
            for nested, nested_schema in model_schema.pop("$defs", {}).items():
                components.setdefault(nested, nested_schema)
            components.setdefault(name, model_schema)
        return schema

    app.openapi = openapi  # type: ignore[method-assign]  # FastAPI's documented way to extend its schema
