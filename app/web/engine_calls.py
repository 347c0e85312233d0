"""What the pages and the API ask of the engine, in one place.

Each call checks the request against the limits before any tokenizer runs, resolves the
tokenizer through the registry, runs the tokenizer work in a worker thread (tiktoken
releases the GIL, so one long request does not stall the others) and returns plain
results that a router renders as HTML or as JSON. No HTTP or HTML here.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from starlette.concurrency import run_in_threadpool

from app.errors import InvalidInput, TextTooLarge
from app.settings import Settings
from app.tokenizers.base import Tokenizer
from app.tokenizers.registry import Registry
from app.tokenizers.tokens import Segment, Stats, Token, clean_text, segments, text_stats


def check_text(text: str, settings: Settings) -> str:
    """The text with lone surrogates cleaned, or `TextTooLarge` before any tokenizer sees it."""
    if len(text) > settings.max_text_chars:
        raise TextTooLarge(
            f"text is {len(text):,} characters; the limit is {settings.max_text_chars:,}. "
            "Send a shorter text, or split it and add up the counts"
        )
    return clean_text(text)


def check_tokenizer_names(names: list[str], registry: Registry, settings: Settings, minimum: int = 1) -> list[str]:
    """Canonical names, duplicates dropped, within [minimum, settings.max_compare]."""
    canonical = list(dict.fromkeys(registry.resolve(name) for name in names))
    if not minimum <= len(canonical) <= settings.max_compare:
        raise InvalidInput(
            f"{len(canonical)} tokenizers chosen; choose {minimum} to {settings.max_compare} "
            f"from: {', '.join(registry.names())}"
        )
    return canonical


@dataclass
class TokenizeResult:
    tokenizer: Tokenizer
    text: str
    tokens: list[Token]

    @property
    def count(self) -> int:
        return len(self.tokens)

    @cached_property
    def stats(self) -> Stats:
        return text_stats(self.text, len(self.tokens))

    @cached_property
    def segments(self) -> list[Segment]:
        return segments(self.tokens)

    def to_dict(self, with_stats: bool = False) -> dict:
        result = {
            "tokenizer": self.tokenizer.name,
            "count": self.count,
            "tokens": [token_dict(token) for token in self.tokens],
        }
        if with_stats:
            result["stats"] = self.stats.to_dict()
        return result


def token_dict(token: Token) -> dict:
    return {
        "id": token.id,
        "text": token.text,
        "bytes": token.bytes.hex(),
        "start": token.start,
        "end": token.end,
        "special": token.special,
    }


async def tokenize(registry: Registry, settings: Settings, name: str, text: str, allow_special: bool = False) -> TokenizeResult:
    text = check_text(text, settings)
    tokenizer = await run_in_threadpool(registry.get, name)
    tokens = await run_in_threadpool(tokenizer.tokenize, text, allow_special)
    return TokenizeResult(tokenizer, text, tokens)


async def tokenize_many(
    registry: Registry, settings: Settings, names: list[str], text: str, allow_special: bool = False, minimum: int = 1
) -> list[TokenizeResult]:
    text = check_text(text, settings)
    names = check_tokenizer_names(names, registry, settings, minimum)
    return [await tokenize(registry, settings, name, text, allow_special) for name in names]


async def count(registry: Registry, settings: Settings, name: str, text: str, allow_special: bool = False) -> int:
    text = check_text(text, settings)
    tokenizer = await run_in_threadpool(registry.get, name)
    return len(await run_in_threadpool(tokenizer.encode, text, allow_special))


async def decode(registry: Registry, settings: Settings, name: str, ids: list[object]) -> TokenizeResult:
    """Text and tokens for user-given ids; a bad id is a `BadTokenId` naming it."""
    if len(ids) > settings.max_ids:
        raise TextTooLarge(f"{len(ids):,} ids sent; the limit is {settings.max_ids:,}. Send fewer ids per request")
    tokenizer = await run_in_threadpool(registry.get, name)
    text, tokens = await run_in_threadpool(tokenizer.tokens_for_ids, ids)
    return TokenizeResult(tokenizer, text, tokens)
