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
from app.tokenizers.chat import ChatCount, ChatMessage, count_chat, rule_for
from app.tokenizers.registry import Registry
from app.tokenizers.tokens import Stats, Token, clean_text, text_stats


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
            f"{len(canonical)} tokenizer{'' if len(canonical) == 1 else 's'} chosen; choose {minimum} to {settings.max_compare} "
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


async def tokenize_each(
    registry: Registry, settings: Settings, names: list[str], text: str, allow_special: bool = False, minimum: int = 1
) -> list:
    """Like `tokenize_many`, but the tokenizers run concurrently (in worker threads) and a
    tokenizer that fails (a damaged file, say) gives its error in its place instead of
    failing the whole comparison. The text and the names are checked first, as there."""
    import asyncio

    from app.errors import TokenprismError

    text = check_text(text, settings)
    names = check_tokenizer_names(names, registry, settings, minimum)

    async def one(name: str):
        try:
            return await tokenize(registry, settings, name, text, allow_special)
        except TokenprismError as error:
            return error

    return list(await asyncio.gather(*(one(name) for name in names)))


async def count(registry: Registry, settings: Settings, name: str, text: str, allow_special: bool = False) -> int:
    text = check_text(text, settings)
    tokenizer = await run_in_threadpool(registry.get, name)
    return len(await run_in_threadpool(tokenizer.encode, text, allow_special))


async def decode(registry: Registry, settings: Settings, name: str, ids: list[object]) -> TokenizeResult:
    """Text and tokens for user-given ids; a bad id is a `BadTokenId` naming it."""
    if len(ids) > settings.max_ids:
        raise TextTooLarge(
            f"{len(ids):,} ids sent; the limit is {settings.max_ids:,}. Send fewer ids per request", code="too_many_ids"
        )
    tokenizer = await run_in_threadpool(registry.get, name)
    text, tokens = await run_in_threadpool(tokenizer.tokens_for_ids, ids)
    return TokenizeResult(tokenizer, text, tokens)


async def reference_decode(result: TokenizeResult) -> str:
    """The text the tokenizer's own library decodes `decode()`'s (validated) ids to."""
    return await run_in_threadpool(result.tokenizer.decode, [token.id for token in result.tokens])


def check_texts(texts: list[str], settings: Settings, what: str = "the texts") -> list[str]:
    """Several texts that together stay within the text limit, each cleaned like `check_text`."""
    total = sum(len(text) for text in texts)
    if total > settings.max_text_chars:
        raise TextTooLarge(
            f"{what} add up to {total:,} characters; the limit for one request is {settings.max_text_chars:,}. "
            "Send fewer or shorter texts per request and add up the counts"
        )
    return [clean_text(text) for text in texts]


async def count_texts(
    registry: Registry, settings: Settings, names: list[str], texts: list[str], allow_special: bool = False
) -> dict[str, list[int]]:
    """Canonical tokenizer name -> the token count of each text; one worker-thread call per tokenizer."""
    texts = check_texts(texts, settings)
    names = check_tokenizer_names(names, registry, settings)
    return {name: await run_in_threadpool(_count_each, registry, name, texts, allow_special) for name in names}


def _count_each(registry: Registry, name: str, texts: list[str], allow_special: bool) -> list[int]:
    tokenizer = registry.get(name)  # built on first use, cached after
    return [len(tokenizer.encode(text, allow_special)) for text in texts]


async def count_messages(
    registry: Registry, settings: Settings, names: list[str], messages: list[ChatMessage]
) -> dict[str, ChatCount]:
    """Canonical tokenizer name -> the chat's prompt tokens under OpenAI's rule (see `app.tokenizers.chat`)."""
    fields = check_texts([value for message in messages for value in message.fields()], settings, "the message fields")
    cleaned, position = [], 0
    for message in messages:
        size = len(message.fields())
        role, content, *name = fields[position : position + size]
        cleaned.append(ChatMessage(role, content, name[0] if name else None))
        position += size
    names = check_tokenizer_names(names, registry, settings)
    rules = {name: rule_for(name) for name in names}  # every name checked before any tokenizer runs
    return {
        name: await run_in_threadpool(lambda name=name, rule=rule: count_chat(registry.get(name).encode, cleaned, rule))
        for name, rule in rules.items()
    }
