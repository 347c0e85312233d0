"""Pydantic models of every JSON request and response, with examples for /docs.

Requests are strict: a field of the wrong JSON type is a 422 (no `"5"` -> 5, no `1` ->
true) and an unknown field is a 422 too, so a typo such as `"tokenizer"` sent to
/api/count is reported instead of silently ignored. Token ids are the one exception:
they arrive as raw JSON values so that the engine sees exactly what was sent and can
name the bad one (`true`, `"5"`, `1.0`, `-1`, an id in a vocabulary gap).

Responses are documented here; the routes return plain dicts rendered off the event loop
(a long text has hundreds of thousands of tokens), and the tests validate every response
against these models, which forbid undeclared fields.

The models sit in a module per endpoint group (base: shared fields, base classes and the error body;
catalog: the GET answers; tokens, chat, count: the POST endpoints); this package names them all, so
`schemas.TokenizeRequest` reads the same from every caller.
"""

from __future__ import annotations

from app.web.schemas.base import (
    DEFAULT_TOKENIZERS_DOC,
    MAX_MESSAGES,
    MAX_NAME_CHARS,
    MAX_NAMES,
    MAX_TEXTS,
    MODELS_AMONG_NAMES_DOC,
    AllowSpecial,
    ErrorBody,
    ErrorResponse,
    Request,
    Response,
    TokenizerName,
    TokenizerNames,
)
from app.web.schemas.catalog import (
    ChatTemplateInfo,
    HealthResponse,
    LimitsResponse,
    ModelFacts,
    ModelInfo,
    ModelsResponse,
    TokenizerDetail,
    TokenizerInfo,
    TokenizersResponse,
)
from app.web.schemas.chat import (
    EXAMPLE_TOOL,
    EXAMPLE_TOOL_CHAT,
    TOOL_CALL_SCHEMA,
    TOOL_SCHEMA,
    ChatMessageCount,
    ChatMessageIn,
    ChatRequest,
    ChatResponse,
    Tools,
)
from app.web.schemas.count import ChatCountOut, CountItem, CountRequest, CountResponse
from app.web.schemas.tokens import (
    ChunkOut,
    CompareRequest,
    CompareResponse,
    CompareResult,
    DecodeRequest,
    DecodeResponse,
    ScriptRow,
    StatsOut,
    TokenizeRequest,
    TokenizeResponse,
    TokenOut,
)

__all__ = [
    "DEFAULT_TOKENIZERS_DOC",
    "EXAMPLE_TOOL",
    "EXAMPLE_TOOL_CHAT",
    "MAX_MESSAGES",
    "MAX_NAMES",
    "MAX_NAME_CHARS",
    "MAX_TEXTS",
    "MODELS_AMONG_NAMES_DOC",
    "TOOL_CALL_SCHEMA",
    "TOOL_SCHEMA",
    "AllowSpecial",
    "ChatCountOut",
    "ChatMessageCount",
    "ChatMessageIn",
    "ChatRequest",
    "ChatResponse",
    "ChatTemplateInfo",
    "ChunkOut",
    "CompareRequest",
    "CompareResponse",
    "CompareResult",
    "CountItem",
    "CountRequest",
    "CountResponse",
    "DecodeRequest",
    "DecodeResponse",
    "ErrorBody",
    "ErrorResponse",
    "HealthResponse",
    "LimitsResponse",
    "ModelFacts",
    "ModelInfo",
    "ModelsResponse",
    "Request",
    "Response",
    "ScriptRow",
    "StatsOut",
    "TokenOut",
    "TokenizeRequest",
    "TokenizeResponse",
    "TokenizerDetail",
    "TokenizerInfo",
    "TokenizerName",
    "TokenizerNames",
    "TokenizersResponse",
    "Tools",
]
