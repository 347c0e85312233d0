"""The comparison at `/compare`: one text, several tokenizers side by side (see common.py
for how page state, addresses and fragments work).

The picker folds into a one-line summary (a `<details>`) once tokenizers are chosen, so the
text box and the first results fit one screen. More than `max_compare` tokenizers are never
an error wall: the page compares the first ones and names those left out (compare.js stops a
click past the limit before it is sent). In chat mode a tokenizer without a chat format
(app/chat/render.py) keeps its column, saying so, and the others are compared as usual; so does one
whose format has no tools when the chat has tools, calls or call ids (chat_tools.py).
Model names among the tokenizers are priced under their column's count, and rank the columns
by cost (budget_view.py); the picker keeps them as ticked model boxes, so they survive a post."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse

from app.chat.render import format_note
from app.errors import TokenprismError
from app.settings import Settings
from app.tokenizers import models
from app.tokenizers.lecture.scripts import by_script, token_ranges
from app.tokenizers.registry import Registry
from app.web import engine_calls
from app.web.deps import services
from app.web.edge.lean_route import LeanRoute
from app.web.markup.tokenview import build_view
from app.web.pages.budget_view import cheapest_first, cost_lines, rank_columns
from app.web.pages.chat_form import PageInput, focus_after, names_for, roles_for
from app.web.pages.chat_prompt import chat_result, chat_view, message_rows, render_page_chat, reply_tokens
from app.web.pages.chat_tools import ToolsBox, call_ids, check_size, takes_tools
from app.web.pages.chunk_view import ChunkMarks, chunk_marks
from app.web.pages.common import (
    HEAD_SLACK,
    TYPING_FIELDS,
    base_context,
    canonical,
    form_flag,
    is_htmx,
    model_named,
    name_directory,
    page_url,
    read_form,
    respond,
    tokenizer_groups,
)
from app.web.pages.fewest_view import fewest_counts
from app.web.pages.sample_notes import note_for

router = APIRouter(include_in_schema=False, route_class=LeanRoute)  # see lean_route.py
DEFAULT_COMPARE = ("gpt2", "cl100k_base", "o200k_base", "mistral_v1", "tokenprism_4k")
DEFAULT_CHAT_COMPARE = ("cl100k_base", "o200k_base", "o200k_harmony", "mistral_v3", "mistral_tekken")


@dataclass
class CompareState(PageInput):
    tokenizers: list[str] = field(default_factory=list)
    mode: str = "text"  # or "chat": one conversation, each tokenizer in its own chat format
    cuts: bool = False  # mark the cuts that not every tokenizer makes
    fewest: bool = False  # each column's fewest-tokens count (fewest_view.py)
    dropped: list[str] = field(default_factory=list)  # asked past max_compare: left out, and said so

    @classmethod
    def from_params(cls, params: Mapping, registry: Registry, from_form: bool = False) -> CompareState:
        chosen = [str(name) for name in params.getlist("tokenizers")] if hasattr(params, "getlist") else []
        mode = "chat" if params.get("mode") == "chat" else "text"
        if not chosen and not from_form:
            known = set(registry.names())
            chosen = [name for name in (DEFAULT_CHAT_COMPARE if mode == "chat" else DEFAULT_COMPARE) if name in known]
        state = cls(tokenizers=chosen, mode=mode, cuts=form_flag(params, "cuts"))
        state.read_input(params, text_mode="text")
        state.fewest = form_flag(params, "fewest")
        return state

    def keep_at_most(self, registry: Registry, most: int) -> None:
        """Keep the names of the first `most` distinct tokenizers; the rest go to `dropped`."""
        key = {asked: canonical(registry, asked) or asked for asked in self.tokenizers}
        kept = set(list(dict.fromkeys(key.values()))[:most])
        self.dropped += [asked for asked in self.tokenizers if key[asked] not in kept]
        self.tokenizers = [asked for asked in self.tokenizers if key[asked] in kept]

    def query(self, with_input: bool = True) -> list[tuple[str, str]]:
        return (
            [("tokenizers", name) for name in self.tokenizers]
            + self.input_pairs(with_input)
            + self.option_pairs()
            + [("cuts", "1")] * self.cuts
            + [("fewest", "1")] * (self.fewest and self.mode == "text")
        )


@dataclass
class Column:
    name: str
    kind: str
    vocab_size: int
    asked_as: str = ""  # the model name this column was asked for (gpt-4o), if not its tokenizer name
    result: Any = None  # engine_calls.Tokenized; chat_prompt.ChatTokenized in chat mode
    error: TokenprismError | None = None
    no_chat: bool = False  # chat mode, and this tokenizer has no chat format
    no_tools: str | None = None  # chat mode with tools, and this tokenizer's format has none: why it shows no prompt
    view: object = None  # TokenView
    delta: int = 0
    bar: float = 0.0  # percent of the largest count
    best: bool = False
    note: str | None = None  # what the sample shows, for this column's tokenizer (sample_notes.py)
    costs: list = field(
        default_factory=list
    )  # budget_view.CostLine per model asked with this tokenizer, cheapest first
    chunks: ChunkMarks | None = None  # with the Chunks option (chunk_view.py)
    fewest: object = None  # fewest_view.FewestView (counts only), with the Fewest tokens option


def render_compare(request: Request, settings: Settings, registry: Registry, state: CompareState):
    entries = {e.name: e for e in registry.entries()}
    columns: list[Column] = []
    error = None
    status = 200
    names: list[str] = []
    results: list = []
    chat = state.mode == "chat"
    state.keep_at_most(registry, settings.max_compare)
    named = False  # the tokenizers passed their check: the picker can stay folded
    try:
        names = engine_calls.check_tokenizer_names(state.tokenizers, registry, settings, minimum=2)
        named = True
        if chat and state.problem is not None:
            raise state.problem
        if chat:
            check_size(state.messages, state.tools_text, settings)
        messages = state.messages if chat else []
        text = "" if chat else engine_calls.check_text(state.text, settings)
    except TokenprismError as caught:
        error, status, names = caught, caught.status, []
    budget = max(500, settings.render_tokens // max(1, len(names)))
    box = ToolsBox.read(state.tools_text, state.messages) if chat else ToolsBox()
    tools_of = {name: takes_tools(registry, name) for name in names} if chat else {}
    chunks_of: dict[str, ChunkMarks | None] = {}  # the Chunks option's marks (chunk_view.py)
    for name in names:  # one tokenizer failing (a damaged file) shows its error in its column
        try:
            if chat and not registry.chat_formats(name):
                results.append(None)
            elif chat and box.used and not tools_of[name]:
                results.append("no tools")
            elif chat:
                rendered = render_page_chat(registry, settings, name, messages, box.tools, box.error is None)
                results.append(chat_result(rendered, messages, budget + HEAD_SLACK))
            else:
                tokenized = engine_calls.tokenize_head(
                    registry, settings, name, text, state.special, budget + HEAD_SLACK
                )
                chunks_of[name] = chunk_marks(tokenized.tokenizer, text, state.special) if state.chunks else None
                results.append(tokenized)
        except TokenprismError as caught:
            results.append(caught)
    list_limit = settings.max_response_tokens // max(1, len(names))
    cuts = (
        differing_cuts(
            [item.tokens[:budget] for item in results if isinstance(item, engine_calls.Tokenized)],
        )
        if state.cuts and not chat
        else frozenset()
    )
    for name, item in zip(names, results, strict=True):
        entry = entries.get(name)
        column = Column(name=name, kind=entry.kind if entry else "", vocab_size=entry.vocab_size if entry else 0)
        if isinstance(item, TokenprismError):
            column.error = item
        elif item is None:
            column.no_chat = True
        elif isinstance(item, str):
            column.no_tools = item
        else:
            column.result = item
            column.chunks = chunks_of.get(name)
            column.note = None if chat else note_for(state.text, item.tokenizer, getattr(entry, "version", None))
            column.fewest = (
                fewest_counts(item.tokenizer, item.text, state.special) if state.fewest and not chat else None
            )
            column.view = (
                chat_view(item, "text", state.ws, budget, list_limit)
                if chat
                else build_view(
                    item.text,
                    item.tokens,
                    "text",
                    state.ws,
                    budget,
                    item.ids,
                    list_limit,
                    lines=state.lines,
                    cuts=cuts,
                    chunk_ends=column.chunks.ends if column.chunks else frozenset(),
                )
            )
        columns.append(column)
    columns.sort(key=lambda c: c.no_chat or c.no_tools is not None)  # in chat mode, those that show a prompt first
    counted = [c for c in columns if c.result is not None]
    if counted:
        best = min(c.result.count for c in counted)
        most = max(c.result.count for c in counted) or 1
        for column in counted:
            column.delta = column.result.count - best
            column.best = column.delta == 0
            column.bar = round(100 * column.result.count / most, 2)
    script_rows = (
        []
        if chat or not counted
        else by_script(
            counted[0].result.text,
            {c.name: token_ranges(c.result.tokenizer, c.result.text, c.result.ids, state.special) for c in counted},
        )
    )
    lines = cost_lines(registry, state.tokenizers, {c.name: c.result.count for c in counted})
    columns = rank_columns(columns, lines)
    stats = counted[0].result.stats if counted else None
    asked_as: dict[str, str] = {}  # canonical name -> the first other name it was asked by
    for asked in state.tokenizers:
        if (canon := canonical(registry, asked)) is not None and canon != asked:
            asked_as.setdefault(canon, asked)
    for column in columns:
        column.asked_as = asked_as.get(column.name, "")
    url, fits = page_url("/compare", state)
    chosen = [name for name in dict.fromkeys(canonical(registry, asked) for asked in state.tokenizers) if name]
    checked = set(chosen)
    groups = tokenizer_groups(registry, checked)
    listed = {e.name for _, group in groups for e in group} | set(chosen) | set(names)
    chat_formats = {name: formats[0] for name in listed if (formats := registry.chat_formats(name))}
    format_names: list[str | None] = [n for n in names if n in chat_formats] or [None]  # None: no format's roles
    context = {
        **base_context(request, settings, "compare"),
        "state": state,
        "groups": groups,
        "checked": checked,
        "chosen": chosen,
        "chat_formats": chat_formats,
        "no_chat": [c.name for c in columns if c.no_chat],
        "picker_open": not named or bool(state.dropped),  # nothing to compare yet, or too many asked
        "models_of": {e.name: models.models_for(e.name) for _, group in groups for e in group},
        "directory": [] if is_htmx(request) else name_directory(registry, checked),
        "columns": columns,
        "cost_lines": cheapest_first(lines),
        "unpriced": [c for c in columns if not any(line.cost is not None for line in c.costs)] if lines else [],
        "asked_models": {n: canonical(registry, n) for n in state.tokenizers if model_named(registry, n) is not None},
        "error": error,
        "stats": stats,
        "script_rows": script_rows,  # cost by script (app/tokenizers/lecture/scripts.py), text mode only
        "cut_count": len(cuts) if state.cuts and not chat and counted else None,
        "chat_rows": message_rows(state.messages, None) if chat else [],
        "chat_counts": {c.name: c.result.rendered.message_counts() for c in counted} if chat else {},
        "chat_reply": {c.name: reply_tokens(c.result.rendered) for c in counted} if chat else {},
        "chat_roles": list(dict.fromkeys(role for name in format_names for role in roles_for(registry, name))),
        "chat_names": names_for(registry, names),
        "chat_tools": any(tools_of.values()),  # the editor offers calls and call ids
        "call_ids": call_ids(state.messages) if chat else [],
        "tools_box": box,
        "tools_note": None,  # the columns say which formats leave the tools out
        "chat_notes": {
            c.result.rendered.format: note for c in counted if chat and (note := format_note(c.result.rendered))
        },
        "editor_oob": is_htmx(request) and chat and request.headers.get("HX-Trigger-Name") not in TYPING_FIELDS,
        "editor_focus": focus_after(state.op, len(state.messages)),
    }
    return respond(request, "compare/compare.html", "compare/_fragment.html", context, status, url, fits)


def differing_cuts(token_lists: list) -> frozenset[int]:
    """Character offsets where some tokenizers start a token and others do not, within the part
    of the text that every column draws."""
    if len(token_lists) < 2:
        return frozenset()
    reach = min(max((t.end for t in tokens), default=0) for tokens in token_lists)
    starts = [{t.start for t in tokens if 0 < t.start < reach} for tokens in token_lists]
    return frozenset(set.union(*starts) - set.intersection(*starts))


@router.get("/compare")
async def compare(request: Request):
    settings, registry, pool = services(request)
    state = CompareState.from_params(request.query_params, registry)
    return await pool.run(render_compare, request, settings, registry, state, request=request)


@router.post("/compare")
async def compare_post(request: Request):
    settings, registry, pool = services(request)
    state = CompareState.from_params(await read_form(request, settings), registry, from_form=True)
    if not is_htmx(request):
        url, fits = page_url("/compare", state)
        if fits and state.tokenizers:  # none chosen: say so here (the bare URL means "the defaults")
            return RedirectResponse(url, status_code=303)
    return await pool.run(render_compare, request, settings, registry, state, request=request)
