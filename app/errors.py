"""The one error type of tokenprism, shared by the engine, the web app and the CLI.

Every failure a client can cause is a `TokenprismError` with a machine-readable `code`,
an HTTP `status` and a message that names the bad input and says how to fix it. The web
layer renders it as `{"error": {"code", "message"}}`; the CLI prints the message.
A message quotes what the client sent through `excerpt`, never whole: a 30 MB value makes
a short error, not a 30 MB one.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

EXCERPT_CHARS = 80


def excerpt(value: object, limit: int = EXCERPT_CHARS, quote: bool = True) -> str:
    """`repr(value)` (or with quote=False the text itself) for a message, cut to about `limit`
    characters with the full length said: 'xxxx…' (30,000,000 characters)."""
    text = value if isinstance(value, str) and not quote else None
    if isinstance(value, str) and quote:
        if len(value) <= limit:
            return repr(value)
        return f"{value[:limit]!r}… ({len(value):,} characters)"
    text = text if text is not None else repr(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


class TokenprismError(Exception):
    code = "bad_request"
    status = 400
    headers: Mapping[str, str] = MappingProxyType({})  # extra response headers (Retry-After on a 503)

    def __init__(self, message: str, *, code: str | None = None, status: int | None = None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status

    def to_dict(self) -> dict:
        return {"error": {"code": self.code, "message": self.message}}


class UnknownTokenizer(TokenprismError):
    code = "unknown_tokenizer"
    status = 404

    def __init__(self, name: str, valid: list[str], message: str | None = None):
        super().__init__(
            message
            or f"unknown tokenizer {excerpt(name)}; use one of: {', '.join(valid)}, "
            "or a model name such as gpt-4o (GET /api/models)"
        )
        self.name = name
        self.valid = valid


class NameTaken(TokenprismError):
    """A new tokenizer's name already means something: a built-in, an alias, a model name."""

    code = "name_taken"
    status = 409


class BadTokenId(TokenprismError):
    code = "bad_token_id"
    status = 422


class TextTooLarge(TokenprismError):
    code = "text_too_large"
    status = 413


class InvalidInput(TokenprismError):
    code = "invalid_input"
    status = 422


class TokenizerFileError(TokenprismError):
    """A shipped or saved tokenizer file is missing, damaged or fails its checksum."""

    code = "tokenizer_file_error"
    status = 500
