"""A page's state as a share: what POST /api/share and /share take, the document the share
store keeps (app/shares/store.py), and the state as JSON (GET /api/share/{id}).

The document is the page's own address: `{"v": 1, "page": "playground" | "compare",
"query": [[key, value], ...]}`, where `query` is exactly what `PlaygroundState.query()` or
`CompareState.query()` write into a URL. Opening a share feeds those pairs to the same
`from_params` that reads a URL, and the page's own render function draws it: there is no
second renderer, and a share shows what the same URL would, had it fit. Two requests that
give the same page state give the same document, hence the same id.

Taken in: the page's form fields (what the page posts, plus `page`), or JSON with the same
names (`PlaygroundShare`, `CompareShare`; chat messages as a list). Checked as the page
would: tokenizer names resolve, a comparison has 2 to max_compare of them, the text or the
chat within the text limit, at most 64 messages, the playground's reply length a number of tokens.
A chat's tools and each message's `tool_calls` are kept as the page's boxes hold them: JSON
(turned into the box's text), or a string as typed (a box that does not parse yet). The store checks the bytes. Left out:
sharing the training or tokenizer pages, and a share's title or description.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import Field, RootModel
from starlette.datastructures import QueryParams

from app.errors import InvalidInput
from app.settings import Settings
from app.shares.errors import ShareDamaged
from app.shares.store import Share
from app.tokenizers.registry import Registry
from app.tokenizers.tokens import clean_text
from app.web import engine_calls
from app.web.pages.budget_view import parse_reply
from app.web.pages.chat_form import MAX_PAGE_MESSAGES
from app.web.pages.chat_tools import check_size
from app.web.pages.compare import CompareState
from app.web.pages.playground import DEFAULT_TOKENIZER, PlaygroundState, settle
from app.web.schemas import ChatMessageIn, Request, Response, TokenizerName, TokenizerNames
from app.web.schemas.budget import ModelName, ReplyTokens

PAGES = {"playground": "/", "compare": "/compare"}  # page -> its path
DOC_VERSION = 1
# The on/off options of each page: its state's bool fields, written `name=1` in its address
# (tests/web/test_share_state.py checks that these are all of them).
FLAGS = {
    "playground": ("ws", "special", "lines", "chunks", "fewest"),
    "compare": ("ws", "special", "lines", "cuts", "chunks", "fewest"),
}

Messages = Annotated[
    list[ChatMessageIn] | None,
    Field(
        None,
        min_length=1,
        max_length=MAX_PAGE_MESSAGES,
        description=f"The chat (with mode chat): at most {MAX_PAGE_MESSAGES} messages, as the page edits them.",
    ),
]
TEXT_DOC = "The text (modes encode/text). Omitted: the page's default text."
TOOLS_DOC = (
    "The tools box (mode chat): OpenAI's list of function tools, or a string as typed in the box. "
    "Messages take `tool_calls` (a list, or the calls box's text) and `tool_call_id` likewise."
)


def box_text(value: Any) -> str:
    """A box's content from JSON: a string as typed, anything else written as JSON."""
    if value is None or isinstance(value, str):
        return value or ""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (ValueError, RecursionError):
        raise InvalidInput("the tools or tool calls are nested too deep to keep; flatten them") from None


def box_json(text: str) -> Any:
    """A box's content for JSON: what it holds when it parses, else the text as typed."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return text


class PlaygroundShare(Request):
    page: Literal["playground"]
    tokenizer: TokenizerName = DEFAULT_TOKENIZER
    mode: Literal["encode", "decode", "chat"] = "encode"
    text: str | None = Field(None, description=TEXT_DOC)
    ids: str | list[int] | None = Field(None, description="The ids (mode decode): a JSON array, or a string as typed.")
    view: Literal["text", "ids", "bytes"] = "text"
    messages: Messages = None
    tools: Any = Field(None, description=TOOLS_DOC)
    budget: ModelName | None = Field(
        None,
        description="The model the budget prices, when the tokenizer is no model "
        "name: one of its models with facts. Omitted: the first of them.",
    )
    reply: ReplyTokens | None = Field(None, description="The expected reply length in tokens that the budget prices.")
    ws: bool = False
    special: bool = False
    lines: bool = False
    chunks: bool = False
    fewest: bool = False


class CompareShare(Request):
    page: Literal["compare"]
    tokenizers: TokenizerNames | None = Field(
        None, description="2 to max_compare names. Omitted: the page's default set."
    )
    mode: Literal["text", "chat"] = "text"
    text: str | None = Field(None, description=TEXT_DOC)
    messages: Messages = None
    tools: Any = Field(None, description=TOOLS_DOC)
    ws: bool = False
    special: bool = False
    lines: bool = False
    cuts: bool = False
    chunks: bool = False
    fewest: bool = False


class ShareRequest(RootModel[Annotated[PlaygroundShare | CompareShare, Field(discriminator="page")]]):
    """One page's state: the playground's or the comparison's fields, with `page` naming which."""

    model_config = {
        "json_schema_extra": {
            "examples": [
                {"page": "playground", "tokenizer": "cl100k_base", "text": "A long text ...", "view": "ids"},
                {"page": "compare", "tokenizers": ["gpt2", "o200k_base"], "text": "A long text ...", "ws": True},
            ]
        }
    }


class ShareCreated(Response):
    id: str | None = Field(description="The stored share's id; null when the address holds the whole view.")
    url: str = Field(
        description="The link's path on this server: /s/{id}, or the page's own address.",
        examples=["/s/3f6c0a1d9b2e4c5f8a7b6c5d4e3f2a1b"],
    )


class SharedView(Response):
    id: str
    url: str
    page: Literal["playground", "compare"]
    state: dict[str, Any] = Field(description="The page's fields, as POST /api/share takes them (add `page`).")
    created: str = Field(description="When it was first shared (UTC, ISO 8601).")
    bytes: int = Field(description="The size of the stored view (its canonical JSON).")


def json_pairs(body: PlaygroundShare | CompareShare) -> QueryParams:
    """The JSON body as the page's form fields, for the page's own `from_params`."""
    pairs: list[tuple[str, str]] = []
    if isinstance(body, PlaygroundShare):
        pairs += [("tokenizer", body.tokenizer), ("mode", body.mode), ("view", body.view)]
        if body.ids is not None:
            pairs.append(("ids", body.ids if isinstance(body.ids, str) else " ".join(map(str, body.ids))))
        pairs += [
            (key, str(value)) for key, value in (("budget", body.budget), ("reply", body.reply)) if value is not None
        ]
    else:
        pairs += [("tokenizers", name) for name in body.tokenizers or []] + [("mode", body.mode)]
    if body.text is not None:
        pairs.append(("text", body.text))
    for message in body.messages or []:
        pairs += [
            ("role", message.role),
            ("name", message.name or ""),
            ("content", message.content or ""),
            ("calls", box_text(message.tool_calls)),
            ("call_id", box_text(message.tool_call_id)),
        ]
    if body.tools is not None:
        pairs.append(("tools", box_text(body.tools)))
    pairs += [(flag, "1") for flag in FLAGS[body.page] if getattr(body, flag)]
    return QueryParams([(key, clean_text(value)) for key, value in pairs])  # JSON can carry lone surrogates


def state_from(page: str, params: Mapping, registry: Registry, from_form: bool) -> PlaygroundState | CompareState:
    """The page's state from form fields or query pairs, read by the page's own code."""
    if page == "playground":
        state = PlaygroundState.from_params(params)
        settle(registry, state)  # the tokenizer name, the budget's model and reply as the address keeps them
        return state
    if page == "compare":
        return CompareState.from_params(params, registry, from_form=from_form)
    shown = page if len(page) <= 40 else page[:37] + "..."
    raise InvalidInput(f"page {shown!r} cannot be shared; send page=playground or page=compare with the page's fields")


def check_shareable(page: str, state, registry: Registry, settings: Settings) -> None:
    """What the page would refuse is refused here too, before anything is stored."""
    if page == "playground":
        registry.resolve(state.tokenizer)
        if state.mode != "decode":
            parse_reply(state.reply)
    else:
        engine_calls.check_tokenizer_names(state.tokenizers, registry, settings, minimum=2)
    if state.mode == "chat":
        if state.problem is not None:
            raise state.problem
        check_size(state.messages, state.tools_text, settings)
    elif state.mode != "decode":  # ids are bounded by the share's byte cap
        engine_calls.check_text(state.text, settings)


def document(page: str, state) -> dict:
    """What the store keeps: the page and its address query."""
    return {"v": DOC_VERSION, "page": page, "query": [[key, value] for key, value in state.query()]}


def opened(share: Share, registry: Registry) -> tuple[str, PlaygroundState | CompareState]:
    """A stored document back as (page, state), through the same `from_params` a URL goes through."""
    doc = share.document
    query = doc.get("query")
    if (
        doc.get("v") != DOC_VERSION
        or doc.get("page") not in PAGES
        or not isinstance(query, list)
        or not all(isinstance(p, list) and len(p) == 2 and all(isinstance(v, str) for v in p) for p in query)
    ):
        raise ShareDamaged(f"the shared view {share.id} was stored in a form this server does not read; share it again")
    page = doc["page"]
    return page, state_from(page, QueryParams([tuple(pair) for pair in query]), registry, from_form=False)


def state_json(page: str, state) -> dict:
    """The state with the fields POST /api/share takes: only the input its mode shows."""
    out: dict[str, Any] = {"tokenizer": state.tokenizer} if page == "playground" else {"tokenizers": state.tokenizers}
    out["mode"] = state.mode
    if page == "playground":
        out["view"] = state.view
        if state.budget:
            out["budget"] = state.budget
        if (
            state.reply.isascii() and state.reply.isdigit()
        ):  # settled: digits, or kept as typed in decode mode (not checked there)
            out["reply"] = int(state.reply)
    if state.mode == "chat":
        out["messages"] = [
            {
                "role": m.role,
                "content": m.content,
                **({"name": m.name} if m.name is not None else {}),
                **({"tool_calls": box_json(m.calls_text)} if getattr(m, "calls_text", "") else {}),
                **({"tool_call_id": m.tool_call_id} if m.tool_call_id else {}),
            }
            for m in state.messages
        ]
        if state.tools_text.strip():
            out["tools"] = box_json(state.tools_text)
    elif state.mode == "decode":
        out["ids"] = state.ids
    else:
        out["text"] = state.text
    out.update((flag, getattr(state, flag)) for flag in FLAGS[page])
    return out
