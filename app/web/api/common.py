"""What the API's route modules share: the router of the hot routes, the documented error
responses, the tokenizers a request that names none uses, a request's budgets, and a chat
request's messages and tools. Leaves out the routes."""

from __future__ import annotations

from fastapi import APIRouter

from app.chat.tools import chat_message, parse_tools
from app.web import engine_calls, schemas
from app.web.edge.lean_route import LeanRoute

_ERROR_DESCRIPTIONS = {
    400: "The body is not valid JSON (or not UTF-8).",
    415: "The body is not sent as Content-Type: application/json.",
    404: "Unknown tokenizer or model, or a model whose tokenizer is not shipped; the message lists the valid names.",
    413: "Text, ids or request body over the limits of GET /api/limits.",
    422: "A field is missing, of the wrong type, unknown or invalid; the message names it.",
}


def hot_router() -> APIRouter:
    """A router for /api POST routes on the hot path (tokenize, count, decode): LeanRoute's lean
    body reading and JSON writing, see app/web/edge/lean_route.py."""
    return APIRouter(prefix="/api", route_class=LeanRoute)


def errors(*statuses: int) -> dict:
    return {status: {"model": schemas.ErrorResponse, "description": _ERROR_DESCRIPTIONS[status]} for status in statuses}


def default_names(registry, settings) -> list[str]:
    """The tokenizers of /api/count and /api/compare when a request names none (schemas.DEFAULT_TOKENIZERS_DOC)."""
    return [entry.name for entry in registry.entries() if not entry.user][: settings.max_compare]


def chat_of(body: schemas.ChatRequest | schemas.CountRequest) -> tuple[list, tuple]:
    """The request's messages and tools (app/chat/tools.py reads the tool fields and names what is wrong)."""
    messages = [
        chat_message(i, m.role, m.content, m.name, m.tool_calls, m.tool_call_id)
        for i, m in enumerate(body.messages or [])
    ]
    return messages, parse_tools(body.tools)


def budgets_of(asked: list[tuple[str, str]], counts: dict[str, int], reply_tokens: int | None) -> list[dict] | None:
    """The budgets of the (model, tokenizer) pairs asked, or None when no model was asked."""
    return engine_calls.budgets_json(asked, counts, reply_tokens) if asked else None
