"""The playground at `/`: one tokenizer, text -> tokens or ids -> text (see common.py for
how page state, addresses and fragments work), and in text and chat mode the prompt's budget
under a model (budget_view.py: which model, the reply field)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse

from app.chat.render import format_note
from app.errors import InvalidInput, TokenprismError
from app.settings import Settings
from app.tokenizers.registry import Registry
from app.tokenizers.typed_ids import parse_ids
from app.web import engine_calls
from app.web.deps import services
from app.web.edge.lean_route import LeanRoute
from app.web.markup.text_escapes import render_decoded
from app.web.markup.tokenview import VIEWS, build_view
from app.web.pages.budget_view import Budget, PlaygroundBudget, parse_reply, playground_model
from app.web.pages.chat_form import PageInput, focus_after, names_for, roles_for
from app.web.pages.chat_prompt import (
    ChatTokenized,
    chat_result,
    chat_view,
    message_rows,
    render_page_chat,
    reply_tokens,
)
from app.web.pages.chat_tools import ToolsBox, call_ids, takes_tools
from app.web.pages.chunk_view import NO_MARKS, chunk_marks
from app.web.pages.common import (
    HEAD_SLACK,
    TYPING_FIELDS,
    base_context,
    canonical,
    form_flag,
    is_htmx,
    name_directory,
    named_tokenizer,
    page_text,
    page_url,
    picker_context,
    read_form,
    respond,
    tokenizer_groups,
)
from app.web.pages.fewest_view import fewest_view
from app.web.pages.sample_notes import note_for

router = APIRouter(include_in_schema=False, route_class=LeanRoute)  # see lean_route.py
DEFAULT_TOKENIZER = "o200k_base"
MODES = ("encode", "decode", "chat")


@dataclass
class PlaygroundState(PageInput):
    tokenizer: str = DEFAULT_TOKENIZER
    mode: str = "encode"  # or "decode", "chat"
    ids: str = ""
    view: str = "text"
    model: str = ""  # the picker's search box: a model (or tokenizer) name, see `named_tokenizer`
    budget: str = ""  # the model priced, from the budget select; "" for its first (budget_view.playground_model)
    reply: str = ""  # the expected reply length in tokens, as typed (budget_view.parse_reply)
    fewest: bool = False  # the "Fewest tokens" option (fewest_view.py)

    @classmethod
    def from_params(cls, params: Mapping) -> PlaygroundState:
        state = cls(
            tokenizer=str(params.get("tokenizer") or DEFAULT_TOKENIZER),
            model=str(params.get("model") or "").strip(),
            mode=str(params.get("mode")) if params.get("mode") in MODES else "encode",
            ids=page_text(str(params.get("ids") or "")),
            view=str(params.get("view")) if params.get("view") in VIEWS else "text",
            budget=str(params.get("budget") or "").strip(),
            reply=str(params.get("reply") or "").strip(),
        )
        state.read_input(params, text_mode="encode")
        state.fewest = form_flag(params, "fewest")
        return state

    def query(self, with_input: bool = True) -> list[tuple[str, str]]:
        pairs = [("tokenizer", self.tokenizer)]
        if self.mode == "decode":
            pairs += [("mode", "decode"), *([("ids", self.ids)] if with_input else [])]
        else:
            pairs += self.input_pairs(with_input)
        if self.view != "text":
            pairs.append(("view", self.view))
        pairs += [(key, value) for key, value in (("budget", self.budget), ("reply", self.reply)) if value]
        return pairs + self.option_pairs() + [("fewest", "1")] * (self.fewest and self.mode == "encode")


def settle(registry: Registry, state: PlaygroundState) -> tuple[PlaygroundBudget, int | None, InvalidInput | None]:
    """The tokenizer name as the page keeps it, and the budget's model and reply length, written back
    the way the address keeps them (`budget` only when not the first choice, `reply` as digits)."""
    state.tokenizer = named_tokenizer(registry, state.tokenizer, state.model)
    choice = playground_model(registry, state.tokenizer, canonical(registry, state.tokenizer), state.budget)
    state.budget = (
        choice.model if choice.model is not None and choice.options and choice.model != choice.default else ""
    )
    if choice.model is None:  # nothing to price: the field is not shown, and its value is not kept
        state.reply = ""
    if state.mode == "decode":  # no budget drawn: the field is hidden, and kept as it is for the other modes
        return choice, None, None
    try:
        reply = parse_reply(state.reply)
    except InvalidInput as caught:
        return choice, None, caught
    state.reply = "" if reply is None else str(reply)
    return choice, reply, None


def render_playground(request: Request, settings: Settings, registry: Registry, state: PlaygroundState):
    choice, reply, reply_error = settle(registry, state)
    result: engine_calls.Tokenized | None = None
    error: TokenprismError | None = None
    marks = NO_MARKS
    status = 200
    head = settings.render_tokens + HEAD_SLACK
    box = ToolsBox.read(state.tools_text, state.messages) if state.mode == "chat" else ToolsBox()
    chat_tools, tools_note = False, None
    try:
        if state.mode == "chat":
            if state.problem is not None:
                raise state.problem
            chat_tools = takes_tools(registry, state.tokenizer)
            tools_note = box.left_out(state.tokenizer, chat_tools)
            result = chat_result(
                render_page_chat(registry, settings, state.tokenizer, state.messages, box.tools, tools_note is None),
                state.messages,
                head,
            )
        elif state.mode == "decode":
            result = engine_calls.decode(registry, settings, state.tokenizer, parse_ids(state.ids), head)
        else:
            result = engine_calls.tokenize_head(registry, settings, state.tokenizer, state.text, state.special, head)
            marks = chunk_marks(result.tokenizer, result.text, state.special) if state.chunks else NO_MARKS
    except TokenprismError as caught:
        error, status = caught, caught.status
    rendered = result.rendered if isinstance(result, ChatTokenized) else None  # a chat's, drawn
    budget = None
    if result is not None and state.mode != "decode" and choice.model is not None:
        budget = Budget.of(choice.model, result.count, reply)
    if reply_error is not None and status == 200:  # the tokens are drawn all the same; the field says what is wrong
        status = reply_error.status
    fewest = (
        fewest_view(result.tokenizer, result.text, state.special, state.view, state.ws, settings)
        if result is not None and state.mode == "encode" and state.fewest
        else None
    )
    view = None
    if isinstance(result, ChatTokenized):  # the chat mode's
        view = chat_view(result, state.view, state.ws, settings.render_tokens, settings.max_response_tokens)
    elif result is not None:
        view = build_view(
            result.text,
            result.tokens,
            state.view,
            state.ws,
            settings.render_tokens,
            result.ids,
            settings.max_response_tokens,
            lines=state.lines,
            chunk_ends=marks.ends,
            cuts=fewest.bpe_only_cuts if fewest else frozenset(),
        )
    url, fits = page_url("/", state)
    decoded_url = None
    if result is not None and state.mode == "decode":
        as_text = PlaygroundState(tokenizer=state.tokenizer, text=result.text, special=state.special)
        decoded_url, decoded_fits = page_url("/", as_text)
        decoded_url = decoded_url if decoded_fits else None
    picker = picker_context(registry, state.tokenizer)
    shown = result.tokenizer.name if result else picker["chosen"]
    entry = next((e for e in registry.entries() if e.name == shown), None)
    typing = request.headers.get("HX-Trigger-Name") in TYPING_FIELDS
    context = {
        **base_context(request, settings, "playground"),
        **picker,
        # htmx: the line under the picker is swapped too, unless the request came from typing
        "picker_oob": is_htmx(request) and not typing,
        # chat: the editor is swapped after its buttons and selects; while typing, only its counts
        "editor_oob": is_htmx(request) and state.mode == "chat" and not typing,
        "counts_oob": is_htmx(request) and state.mode == "chat" and typing,
        "editor_focus": focus_after(state.op, len(state.messages)),
        "chat_roles": roles_for(registry, shown),
        "chat_names": names_for(registry, [shown]),
        "chat_tools": chat_tools,  # the editor offers calls and call ids
        "call_ids": call_ids(state.messages) if state.mode == "chat" else [],
        "tools_box": box,
        "tools_note": tools_note,
        "chat_note": format_note(rendered) if rendered is not None else None,
        "show_counts": True,
        "chat_rows": message_rows(state.messages, rendered),
        "chat_reply": reply_tokens(rendered) if rendered is not None else 0,
        "directory": []
        if is_htmx(request)
        else name_directory(registry, [picker["chosen"]]),  # the full page's <datalist>
        "state": state,
        "budget_choice": choice,
        "budget": budget,
        "reply_error": reply_error,
        "groups": tokenizer_groups(registry, [picker["chosen"]]),
        "entry": entry,
        "result": result,
        "error": error,
        "view": view,
        "chunk_marks": marks if state.chunks and state.mode == "encode" and result is not None else None,
        "note": note_for(state.text, result.tokenizer, getattr(entry, "version", None))
        if result is not None and state.mode == "encode"
        else None,  # what the sample shows (sample_notes.py)
        "decoded_url": decoded_url,
        "view_text": render_decoded(result.text, state.ws) if result is not None and state.mode == "decode" else "",
        "fewest": fewest,
    }
    return respond(request, "playground/playground.html", "playground/_fragment.html", context, status, url, fits)


@router.get("/")
async def playground(request: Request):
    settings, registry, pool = services(request)
    state = PlaygroundState.from_params(request.query_params)
    return await pool.run(render_playground, request, settings, registry, state, request=request)


@router.post("/")
async def playground_post(request: Request):
    settings, registry, pool = services(request)
    state = PlaygroundState.from_params(await read_form(request, settings))
    if not is_htmx(request):
        settle(registry, state)
        url, fits = page_url("/", state)
        if fits:  # post/redirect/get: the address bar shows a link that reproduces the view
            return RedirectResponse(url, status_code=303)
    return await pool.run(render_playground, request, settings, registry, state, request=request)
