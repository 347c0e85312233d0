"""The chat prompt the pages draw: rendered in the tokenizer's own format with its errors in the editor's
words (`render_page_chat`), its tokens as the pages list them (`ChatTokenized`, `chat_view`), one row per
message with its count, and the reply priming's tokens.

A rendered prompt (app/chat/render.py) is drawn by the one token partial: its segments are
wrapped per part in `<span class="chat-part" data-message="i">` (framing parts add
`framing`), so a message's tokens can be lit together; `data-message="reply"` is the reply
priming, `data-message="tools"` the tools' definitions (class `tools`). Left out: images,
per-message formats, and the editor's fields (chat_form.py).
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass

from app.chat.messages import ChatMessage
from app.chat.render import Rendered
from app.errors import TokenprismError
from app.tokenizers.tokens import text_stats
from app.web import engine_calls
from app.web.engine_calls import Tokenized
from app.web.markup.tokenview import TokenView, build_view
from app.web.pages.chat_tools import chat_of, without_tools

PREVIEW_CHARS = 48


def in_page_words(error: TokenprismError) -> TokenprismError:
    """`error` as the editor says it: app/chat names a message by its index in the API's
    "messages" ("message 0"); the editor's cards are Message 1, 2, ... and "name" is a field."""
    message = re.sub(
        r"\bmessages\[(\d+)\]\.tool_calls\[(\d+)\](?:\.function)?\.?",
        lambda m: f"Message {int(m[1]) + 1}, call {int(m[2]) + 1}" + (": " if m[0].endswith(".") else ""),
        error.message,
    )
    message = re.sub(
        r"\bmessages\[(\d+)\]\.?", lambda m: f"Message {int(m[1]) + 1}" + ("'s " if m[0].endswith(".") else ""), message
    )
    message = re.sub(r"\bmessage (\d+)\b", lambda m: f"Message {int(m[1]) + 1}", message)
    message = message.replace('leave "name" out', "clear its name field")
    if message == error.message:
        return error
    worded = copy.copy(error)
    worded.message, worded.args = message, (message,)
    return worded


def render_page_chat(
    registry, settings, name: str, messages: list[ChatMessage], tools=(), with_tools: bool = True
) -> Rendered:
    """`engine_calls.render_chat` in the tokenizer's own format, its errors in the editor's words;
    without `with_tools`, the chat's tools, calls and call ids are left out."""
    try:
        chat = chat_of(messages) if with_tools else without_tools(messages)
        return engine_calls.render_chat(registry, settings, name, chat, None, tuple(tools) if with_tools else ())
    except TokenprismError as error:
        raise in_page_words(error) from error


@dataclass
class ChatTokenized(Tokenized):
    """A rendered chat prompt as the pages draw it: `text` and `tokens` are the prompt's."""

    rendered: Rendered | None = None
    content_chars: str = ""

    @property
    def stats(self):
        return text_stats(self.content_chars, len(self.ids))


def chat_result(rendered: Rendered, messages: list[ChatMessage], head: int) -> ChatTokenized:
    return ChatTokenized(
        rendered.tokenizer,
        rendered.text,
        rendered.ids,
        rendered.tokens(limit=head),
        rendered,
        "\n".join(m.content for m in messages),
    )


def chat_view(result: ChatTokenized, view: str, ws: bool, budget: int, list_limit: int) -> TokenView:
    """The prompt's token list, each part's segments wrapped with its message."""
    groups, offset, previous = [], 0, None
    assert result.rendered is not None  # a chat that tokenized was rendered
    for part in result.rendered.parts:
        key = (part.message, part.framing, part.tools)
        if key != previous and part.text:
            which = "tools" if part.tools else "reply" if part.message is None else part.message
            kinds = " framing" * part.framing + " tools" * part.tools
            groups.append((offset, f'class="chat-part{kinds}" data-message="{which}"'))
            previous = key
        offset += len(part.text)
    return build_view(result.text, result.tokens, view, ws, budget, result.ids, list_limit, groups=groups)


@dataclass
class MessageRow:
    index: int
    role: str
    name: str | None
    preview: str
    count: int


def message_rows(messages: list[ChatMessage], rendered: Rendered | None) -> list[MessageRow]:
    counts = rendered.message_counts() if rendered is not None else [0] * len(messages)
    rows = []
    for index, (message, count) in enumerate(zip(messages, counts, strict=True)):
        text = " ".join((message.content or getattr(message, "calls_text", "")).split())
        preview = text if len(text) <= PREVIEW_CHARS else text[: PREVIEW_CHARS - 1] + "…"
        rows.append(MessageRow(index, message.role, message.name, preview, count))
    return rows


def reply_tokens(rendered: Rendered) -> int:
    """Tokens of the reply's priming: parts in no message that are no tool definitions."""
    return sum(len(part.ids) for part in rendered.parts if part.message is None and not part.tools)
