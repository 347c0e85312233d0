"""The chat editor the playground and the comparison share, and the page input it belongs to.

Messages travel as parallel fields, `role`, `name`, `content`, `calls` (an assistant card's
tool calls, JSON as typed) and `call_id` (a tool card's), repeated once per message in order:
in the form (one editor card each) and in the page address; `name`, `calls` and `call_id` are
left out of the address when no message has one. The tools box is one field, `tools`
(chat_tools.py reads it and the calls). The editor's buttons are submit buttons
named `op` (`add`, `remove:2`, `up:2`, `down:2`), so adding, removing and reordering work
the same with htmx and with a plain form post (which redirects to the new address). With
htmx the editor is swapped whole; `focus_after` names the control that gets the focus back.

The prompt it renders is drawn by chat_prompt.py. Left out: images, per-message formats.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from app.chat.messages import ChatMessage
from app.chat.render import FORMATS
from app.errors import TextTooLarge, TokenprismError
from app.web.pages.chat_tools import EditorMessage
from app.web.pages.common import form_flag, page_text
from app.web.pages.samples import BY_KEY, DEFAULT_TEXT

MAX_PAGE_MESSAGES = 64  # editor cards on one page; the API takes more
DEFAULT_CHAT = (
    ChatMessage("system", "You are a helpful assistant. Answer in one sentence."),
    ChatMessage("user", "How many tokens does this chat really cost? 🤔"),
)
ANY_ROLES = ("system", "user", "assistant")  # offered when the tokenizer has no chat format


class TooManyMessages(TextTooLarge):
    code = "too_many_messages"


def messages_from(params: Mapping) -> list[ChatMessage]:
    """The chat in `params` (a form or a query string), the editor's `op` applied; the default
    chat when there is none. (Its size is bounded by the form's field limit or the URL's.)"""
    roles, names, contents = _getlist(params, "role"), _getlist(params, "name"), _getlist(params, "content")
    calls, call_ids = _getlist(params, "calls"), _getlist(params, "call_id")
    count = posted_count(params)
    if count == 0:
        return list(DEFAULT_CHAT)
    field = lambda values, i: str(values[i]) if i < len(values) else ""  # noqa: E731 - a short lookup
    messages = [
        card(
            field(roles, i).strip() or "user",
            page_text(field(contents, i)),
            page_text(field(names, i)) or None,
            page_text(field(calls, i)),
            page_text(field(call_ids, i)).strip() or None,
        )
        for i in range(count)
    ]
    return apply_op(messages, str(params.get("op") or ""))


def card(role: str, content: str, name: str | None, calls_text: str = "", call_id: str | None = None) -> ChatMessage:
    """One editor card: a plain `ChatMessage` unless its calls box holds something."""
    if calls_text:
        return EditorMessage(role, content, name, tool_call_id=call_id, calls_text=calls_text)
    return ChatMessage(role, content, name, tool_call_id=call_id)


def _getlist(params: Mapping, key: str) -> list:
    return params.getlist(key) if hasattr(params, "getlist") else []


def posted_count(params: Mapping) -> int:
    """How many editor cards `params` holds (0: none, the default chat)."""
    return max(len(_getlist(params, "role")), len(_getlist(params, "content")))


def origins(op: str, posted: int) -> list[int | None]:
    """Where each card stood among the `posted` ones before the button `op` (None: the card it
    added), worked out by `apply_op` itself on stand-ins whose role is their index. The cards
    carry it (data-was), so live.js keeps keys typed while the answer was on its way with their message."""
    stand_ins = apply_op([ChatMessage(str(i), "") for i in range(posted)], op)
    return [int(m.role) if m.role.isdigit() else None for m in stand_ins]


def read_chat(params: Mapping) -> tuple[list[ChatMessage], TooManyMessages | None]:
    """The page's chat and, when it is too long to edit here, the error to show (the editor
    keeps the first messages, so nothing typed is dropped without a word)."""
    messages = messages_from(params)
    if len(messages) <= MAX_PAGE_MESSAGES:
        return messages, None
    return messages[:MAX_PAGE_MESSAGES], TooManyMessages(
        f"{len(messages)} messages; this page edits at most {MAX_PAGE_MESSAGES}. "
        "Remove some, or send the chat to POST /api/chat or /api/count"
    )


def apply_op(messages: list[ChatMessage], op: str) -> list[ChatMessage]:
    """The editor's button: `add` a message (the turn that comes next), `remove:i`, `up:i`, `down:i`."""
    if op == "add":
        if len(messages) < MAX_PAGE_MESSAGES:
            last = messages[-1] if messages else None
            calling = last is not None and last.role == "assistant" and getattr(last, "calls_text", "").strip()
            next_role = "tool" if calling else "assistant" if last is not None and last.role == "user" else "user"
            messages.append(ChatMessage(next_role, ""))
        return messages
    action, _, where = op.partition(":")
    if not where.isdigit() or not 0 <= (i := int(where)) < len(messages):
        return messages
    if action == "remove" and len(messages) > 1:
        del messages[i]
    elif action == "up" and i > 0:
        messages[i - 1], messages[i] = messages[i], messages[i - 1]
    elif action == "down" and i + 1 < len(messages):
        messages[i], messages[i + 1] = messages[i + 1], messages[i]
    return messages


def focus_after(op: str, count: int) -> tuple[int, str] | None:
    """Where the focus goes after the editor's button `op` (the chat now has `count` messages):
    the message that moved keeps it, on the same button unless that one is now disabled; after
    Remove, the next message's Remove (or the text of the one left); after Add, the new text."""
    if op == "add":
        return count - 1, "content"
    action, _, where = op.partition(":")
    if not where.isdigit():
        return None
    i = int(where)
    if action == "up" and 0 < i < count:
        return i - 1, "move-up" if i - 1 > 0 else "move-down"
    if action == "down" and 0 <= i < count - 1:
        return i + 1, "move-down" if i + 1 < count - 1 else "move-up"
    if action == "remove" and i <= count:
        return min(i, count - 1), "remove" if count > 1 else "content"
    return None


def chat_query(messages: list[ChatMessage]) -> list[tuple[str, str]]:
    with_names = any(m.name is not None for m in messages)
    with_calls = any(getattr(m, "calls_text", "") for m in messages)
    with_ids = any(m.tool_call_id for m in messages)
    pairs: list[tuple[str, str]] = []
    for message in messages:
        pairs.append(("role", message.role))
        if with_names:
            pairs.append(("name", message.name or ""))
        pairs.append(("content", message.content))
        if with_calls:
            pairs.append(("calls", getattr(message, "calls_text", "")))
        if with_ids:
            pairs.append(("call_id", message.tool_call_id or ""))
    return pairs


def _format_of(registry, tokenizer_name: str | None):
    formats = registry.chat_formats(tokenizer_name) if tokenizer_name else []
    return FORMATS[formats[0]] if formats else None


def roles_for(registry, tokenizer_name: str | None) -> tuple[str, ...]:
    """The roles the editor offers: those of the tokenizer's chat format."""
    chat_format = _format_of(registry, tokenizer_name)
    return chat_format.roles if chat_format is not None else ANY_ROLES


def names_for(registry, tokenizer_names: Sequence[str | None]) -> bool:
    """Whether the editor offers a name per message: when the chat format of one of these
    tokenizers takes names, or none has a format. (A chat that has a name keeps its name
    fields all the same, so a format that refuses it says so and the name can be cleared.)"""
    chat_formats = [f for f in (_format_of(registry, name) for name in tokenizer_names) if f is not None]
    return not chat_formats or any(f.takes_names for f in chat_formats)


@dataclass
class PageInput:
    """What both pages take in: a text or a chat, and the options for drawing it. Subclasses
    add their own fields and read the rest with `read_input`, write it with `input_pairs`."""

    text: str = DEFAULT_TEXT
    ws: bool = False
    special: bool = False
    lines: bool = False  # per-line counts (text only)
    chunks: bool = False  # mark where the pre-tokenizer's chunks end (text only; chunk_view.py)
    mode: str = ""
    messages: list[ChatMessage] = field(default_factory=lambda: list(DEFAULT_CHAT))
    tools_text: str = ""  # the tools box as typed (JSON; chat_tools.read_tools)
    problem: TokenprismError | None = None  # a chat the page cannot take (too many messages)
    op: str = ""  # the chat editor's button, if one was pressed
    origins: list[int | None] = field(default_factory=list)  # per card, where it stood before `op` (`origins`)

    def read_input(self, params: Mapping, text_mode: str) -> None:
        """Text (a sample button picks one and switches to `text_mode`), options and chat."""
        self.ws, self.special, self.lines = (
            form_flag(params, "ws"),
            form_flag(params, "special"),
            form_flag(params, "lines"),
        )
        self.chunks = form_flag(params, "chunks")
        if "text" in params:
            self.text = page_text(str(params.get("text")))
        if (sample := BY_KEY.get(str(params.get("sample")))) is not None:
            self.text, self.mode = sample.text, text_mode
        self.op = str(params.get("op") or "")
        self.messages, self.problem = read_chat(params)
        self.tools_text = page_text(str(params.get("tools") or ""))
        self.origins = origins(self.op, posted_count(params))

    def input_pairs(self, with_input: bool) -> list[tuple[str, str]]:
        """The chat (in chat mode) or the text, for the address; the options go last (`option_pairs`)."""
        if self.mode == "chat":
            tools = [("tools", self.tools_text)] if self.tools_text.strip() else []
            return [("mode", "chat"), *(chat_query(self.messages) + tools if with_input else [])]
        return [("text", self.text)] if with_input else []

    def option_pairs(self) -> list[tuple[str, str]]:
        return (
            [("ws", "1")] * self.ws
            + [("special", "1")] * self.special
            + [("lines", "1")] * self.lines
            + [("chunks", "1")] * self.chunks
        )
