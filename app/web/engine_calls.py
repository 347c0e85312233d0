"""What the pages and the API ask of the engine, in one place; plain functions, no HTTP or HTML.

Each call checks the request against the limits before any tokenizer runs, resolves the
tokenizers through the registry and returns plain results that a router renders as HTML
or JSON. These functions do CPU work: the routers run them on the bounded pool
(`pool.py`), one pool job per request, never on the event loop.

Token budget: a request that lists tokens counts them first (ids only, cheap) and refuses
with `too_many_tokens` when all its tokenizers together have more than
`max_response_tokens`, before any per-token object is made. Counting has no such budget.
Pages list only the head of the text (`head` tokens) and count the rest.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from app.chat.messages import ChatMessage, Tool
from app.chat.render import WHICH_CHAT, Rendered, render
from app.chat.tools import chat_texts, check_tool_chat, cleaned
from app.errors import InvalidInput, TextTooLarge, TokenprismError, excerpt
from app.pricing import budget
from app.settings import Settings
from app.tokenizers import models
from app.tokenizers.base import Tokenizer
from app.tokenizers.registry import Registry
from app.tokenizers.tokens import Stats, Token, clean_text, text_stats


class TooManyTokens(TokenprismError):
    code = "too_many_tokens"
    status = 413


def check_text(text: str, settings: Settings) -> str:
    """The text with lone surrogates cleaned, or `TextTooLarge` before any tokenizer sees it."""
    if len(text) > settings.max_text_chars:
        raise TextTooLarge(
            f"text is {len(text):,} characters; the limit is {settings.max_text_chars:,}. "
            "Send a shorter text, or split it and add up the counts"
        )
    return clean_text(text)


def check_texts(texts: list[str], settings: Settings, what: str = "the texts") -> list[str]:
    """Several texts that together stay within the text limit, each cleaned like `check_text`."""
    total = sum(len(text) for text in texts)
    if total > settings.max_text_chars:
        raise TextTooLarge(
            f"{what} add up to {total:,} characters; the limit for one request is {settings.max_text_chars:,}. "
            "Send fewer or shorter texts per request and add up the counts"
        )
    return [clean_text(text) for text in texts]


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
class Tokenized:
    """One tokenizer's ids for a text, and the tokens of the first `len(tokens)` of them."""

    tokenizer: Tokenizer
    text: str
    ids: list[int]
    tokens: list[Token]

    @property
    def count(self) -> int:
        return len(self.ids)

    @cached_property
    def stats(self) -> Stats:
        return text_stats(self.text, len(self.ids))


def budget_check(counts: dict[str, int], settings: Settings, what: str = "the text") -> None:
    total = sum(counts.values())
    if total > settings.max_response_tokens:
        each = ", ".join(f"{count:,} with {name}" for name, count in counts.items())
        raise TooManyTokens(
            f"{what} has {total:,} tokens ({each}); one request lists at most {settings.max_response_tokens:,}. "
            "POST /api/count counts a text of any size; to see every token, send a shorter text"
        )


def tokenize_listed(
    registry: Registry, settings: Settings, names: list[str], text: str, allow_special: bool = False
) -> tuple[str, list[tuple[Tokenizer, list[int], list[bytes]]]]:
    """The checked text and every token of it under each tokenizer, as (tokenizer, ids, pieces),
    within the budget."""
    text = check_text(text, settings)
    encoded = []
    for name in names:
        tokenizer = registry.get(name)
        encoded.append((tokenizer, tokenizer.encode(text, allow_special)))
        budget_check({t.name: len(ids) for t, ids in encoded}, settings)  # stop at the first that tips it over
    return text, [(t, ids, t.pieces_of(text, ids, allow_special)) for t, ids in encoded]


def tokenize_merges(
    registry: Registry, settings: Settings, name: str, text: str, allow_special: bool, merges: int
) -> tuple[str, tuple[Tokenizer, list[int], list[bytes]]]:
    """As `tokenize_listed` for one `bpe` tokenizer cut to its first `merges` merges (a 422 for
    another kind, or `merges` past its merges): the merge replay (app/bpe/replay.py)."""
    from app.bpe import replay

    text = check_text(text, settings)
    model = replay.bpe_model(registry, name)
    cut = replay.with_first_merges(model, merges)
    ids = cut.encode(text, allow_special)
    budget_check({cut.name: len(ids)}, settings)
    return text, (cut, ids, cut.pieces_of(text, ids, allow_special))


def tokenize_head(
    registry: Registry, settings: Settings, name: str, text: str, allow_special: bool, head: int
) -> Tokenized:
    """All ids of `text`, and tokens for the first `head` of them (a page draws only those)."""
    text = check_text(text, settings)
    tokenizer = registry.get(name)
    ids = tokenizer.encode(text, allow_special)
    return Tokenized(tokenizer, text, ids, tokenizer.tokens_of(text, ids[:head], allow_special))


def count(registry: Registry, name: str, text: str, allow_special: bool = False) -> int:
    return registry.get(name).count(text, allow_special)


def count_texts(
    registry: Registry, names: list[str], texts: list[str], allow_special: bool = False
) -> dict[str, list[int]]:
    """Canonical tokenizer name -> the token count of each (already checked) text (`count_batch`: no ids kept)."""
    return {name: registry.get(name).count_batch(texts, allow_special) for name in names}


def check_decode_ids(ids: list[object], settings: Settings) -> None:
    if len(ids) > settings.max_ids:
        raise TextTooLarge(
            f"{len(ids):,} ids sent; the limit is {settings.max_ids:,}. Send fewer ids per request", code="too_many_ids"
        )


def decode(registry: Registry, settings: Settings, name: str, ids: list[object], head: int | None = None) -> Tokenized:
    """Text and tokens for user-given ids (tokens for the first `head` only, when given);
    a bad id is a `BadTokenId` naming it."""
    check_decode_ids(ids, settings)
    tokenizer = registry.get(name)
    checked = tokenizer.validate_ids(ids)
    if head is None:
        budget_check({tokenizer.name: len(checked)}, settings, "the ids")
    shown = checked if head is None else checked[:head]
    text, tokens = tokenizer.tokens_for_ids(shown)
    if len(shown) < len(checked):
        text = tokenizer.decode(checked)
    return Tokenized(tokenizer, text, checked, tokens)


def count_messages(
    registry: Registry, settings: Settings, names: list[str], messages: list[ChatMessage], tools: tuple[Tool, ...] = ()
) -> dict[str, Rendered]:
    """Canonical tokenizer name -> the chat (and its tools) rendered in that tokenizer's own format, as
    /api/chat renders it (so the two endpoints agree). Every name is checked for a format before any renders."""
    messages, tools = check_chat(messages, tools, settings)
    names = check_tokenizer_names(names, registry, settings)
    if without := [name for name in names if not registry.chat_formats(name)]:
        raise InvalidInput(
            f"{', '.join(without)} {'has' if len(without) == 1 else 'have'} no chat format here; chat prompts "
            f'are counted for {WHICH_CHAT}. Choose among those, or count the text with "text"'
        )
    return {name: render(registry.get(name), messages, tools=tools) for name in names}


def check_chat(
    messages: list[ChatMessage], tools: tuple[Tool, ...], settings: Settings
) -> tuple[list[ChatMessage], tuple[Tool, ...]]:
    """The chat checked as every format needs it (app/chat/tools.py: bounds first, so nothing deep is
    serialised), all its text together within the text limit, and cleaned of lone surrogates."""
    check_tool_chat(messages, tools)
    check_texts(
        chat_texts(messages, tools), settings, "the message fields and tools" if tools else "the message fields"
    )
    return cleaned(messages, tools)


def check_messages(messages: list[ChatMessage], settings: Settings) -> list[ChatMessage]:
    """The messages with their fields cleaned (lone surrogates), all fields together within the text limit."""
    return check_chat(messages, (), settings)[0]


def render_chat(
    registry: Registry,
    settings: Settings,
    name: str,
    messages: list[ChatMessage],
    format_name: str | None,
    tools: tuple[Tool, ...] = (),
) -> Rendered:
    """The chat prompt as `name`'s model sees it (app/chat/render.py), within the token budget."""
    messages, tools = check_chat(messages, tools, settings)
    rendered = render(registry.get(name), messages, format_name, tools)
    budget_check({rendered.tokenizer.name: rendered.count}, settings, "the chat")
    return rendered


# ---- models and their budgets (app/pricing/budget.py) ----


def is_model_name(registry: Registry, name: str) -> bool:
    """A model name (GET /api/models) that is not also a tokenizer name or alias (gpt2 is a tokenizer)."""
    return not registry.has(name) and models.find(name) is not None


def model_tokenizer(registry: Registry, model: str) -> str:
    """The canonical tokenizer of `"model"`; a 422 for a name that is no model's, a 404 for a model
    whose tokenizer is not shipped (as a model name in "tokenizer" is)."""
    if models.find(model) is None:
        hint = f'; {model} is a tokenizer: send it as "tokenizer"' if registry.has(model) else ""
        raise InvalidInput(
            f'unknown model {excerpt(model)}: "model" takes a model name from GET /api/models, such as gpt-4o{hint}',
            code="unknown_model",
        )
    return registry.resolve(model)


def mismatch(model: str, wanted: str, asked: str, field: str = "tokenizer") -> InvalidInput:
    return InvalidInput(
        f'model {excerpt(model)} uses the {wanted} tokenizer, not {asked}; leave out "{field}" (the model '
        f"decides the tokenizer) or send {wanted}",
        code="model_mismatch",
    )


def resolve_with_model(registry: Registry, tokenizer: str | None, model: str | None) -> tuple[str, str | None]:
    """For /api/tokenize and /api/chat: the canonical tokenizer, and the model whose budget is answered
    ("model", else the model name given as "tokenizer", else None). "model" alone decides the tokenizer;
    with a "tokenizer" that is another, a 422."""
    if model is not None:
        wanted = model_tokenizer(registry, model)
        if tokenizer is not None and (asked := registry.resolve(tokenizer)) != wanted:
            raise mismatch(model, wanted, asked)
        return wanted, model
    if tokenizer is None:
        raise InvalidInput(
            'send "tokenizer" (a tokenizer or model name, GET /api/tokenizers) or "model" (GET /api/models)'
        )
    return registry.resolve(tokenizer), (tokenizer if is_model_name(registry, tokenizer) else None)


def names_and_models(
    registry: Registry, names: list[str] | None, model: str | None
) -> tuple[list[str] | None, list[tuple[str, str]]]:
    """For /api/count and /api/compare: the tokenizer names to run (None: the request's default) and
    the (model, canonical tokenizer) pairs to answer budgets for: "model" first, then the model names
    among `names`, each once. "model" without `names` runs its tokenizer alone; with `names`, its
    tokenizer must be among them (a 422 otherwise)."""
    asked: list[tuple[str, str]] = []
    if model is not None:
        wanted = model_tokenizer(registry, model)
        if names is None:
            names = [model]
        elif wanted not in (tokenizers := [registry.resolve(name) for name in names]):
            raise mismatch(model, wanted, ", ".join(dict.fromkeys(tokenizers)), "tokenizers")
        asked.append((model, wanted))
    for name in names or []:
        if is_model_name(registry, name):
            asked.append((name, registry.resolve(name)))
    unique: dict[str, tuple[str, str]] = {}  # a model's name in lower case, without a Hub organisation -> the pair
    for pair in asked:
        unique.setdefault(models.bare(pair[0]), pair)
    return names, list(unique.values())


def budgets_json(asked: list[tuple[str, str]], counts: dict[str, int], reply_tokens: int | None) -> list[dict]:
    """The budget of each (model, tokenizer) pair for the tokenizer's count, as JSON-ready dicts."""
    return [budget.as_json(budget.model_budget(model, counts[tokenizer], reply_tokens)) for model, tokenizer in asked]
