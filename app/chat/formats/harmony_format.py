"""The `harmony` chat format (o200k_harmony, gpt-oss): messages and function tools -> the ids
openai-harmony 0.0.8's `render_conversation_for_completion(conversation, Role.ASSISTANT)` gives.

How a chat maps onto openai-harmony's messages (and so what we render):
- a text message (system, developer, user, assistant) is `Message.from_author_and_content(
  Author.new(role, name), content)`: `<|start|>` role[`:`name] `<|message|>` content `<|end|>`;
- tools go in a developer message as `DeveloperContent.new().with_instructions(content)
  .with_function_tools([...])` renders them: "# Instructions\\n\\n" content "\\n\\n" then the
  `# Tools` section (app/chat/formats/harmony_schema.py). The chat's first developer message takes
  them; a chat without one gets a developer message holding only the tools, after its
  leading system messages, as gpt-oss prompts are laid out (system, developer, then the talk);
- an assistant message's tool calls are one message each after its text (the text message is
  left out when the content is empty): `<|start|>assistant to=functions.NAME<|channel|>
  commentary <|constrain|>json<|message|>` arguments `<|call|>`;
- a `tool` message is `<|start|>functions.NAME to=assistant<|channel|>commentary<|message|>`
  content `<|end|>`, NAME the function of the call its `tool_call_id` answers (or its
  `name` when it has no id);
- then `<|start|>assistant`, the reply's priming.
Parts: headers, channels and specials are framing; content and call arguments are content;
the tools' text is `tools` (framing counted apart); a developer message made only for the
tools belongs to no message (`message` None). Each header piece is encoded on its own, as
the library does. Left out: channels on text messages (analysis, final), system content
(model identity, reasoning effort), the browser and python tools.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from app.chat.formats.harmony_schema import tools_section
from app.chat.messages import ChatMessage, Tool
from app.chat.rendered import Part, Rendered, encoded_parts
from app.errors import InvalidInput, excerpt
from app.tokenizers.base import Tokenizer

SPECIALS = {
    "<|start|>": 200006,
    "<|end|>": 200007,
    "<|message|>": 200008,
    "<|channel|>": 200005,
    "<|constrain|>": 200003,
    "<|call|>": 200012,
}
INSTRUCTIONS = "# Instructions\n\n"


@dataclass(frozen=True)
class Piece:
    text: str
    message: int | None
    framing: bool
    tools: bool = False


def _tool_names(messages: Sequence[ChatMessage]) -> list[str | None]:
    """Each message's function name if it is a tool result (from the call it answers), else None;
    an `InvalidInput` for calls and results harmony cannot place."""
    calls: dict[str, str] = {}
    names: list[str | None] = []
    for position, message in enumerate(messages):
        if message.tool_calls and message.role != "assistant":
            raise InvalidInput(
                f"message {position} is a {message.role} message with tool_calls; only assistant "
                "messages call tools: move the calls to an assistant message"
            )
        if message.tool_call_id is not None and message.role != "tool":
            raise InvalidInput(
                f"message {position} is a {message.role} message with a tool_call_id; only tool "
                "messages answer calls: make it a tool message or leave tool_call_id out"
            )
        calls.update((call.id, call.name) for call in message.tool_calls)
        names.append(_answered(position, message, calls) if message.role == "tool" else None)
    return names


def _answered(position: int, message: ChatMessage, calls: dict[str, str]) -> str:
    if message.tool_call_id is None:
        if message.name is None:
            raise InvalidInput(
                f"message {position} is a tool result without a tool_call_id; give the id of the "
                "assistant's call it answers (harmony names the function that answers)"
            )
        return message.name
    name = calls.get(message.tool_call_id)
    if name is None:
        raise InvalidInput(
            f"message {position} answers tool call {excerpt(message.tool_call_id)}, which no "
            "earlier assistant message made; use the id of an earlier call"
        )
    if message.name is not None and message.name != name:
        raise InvalidInput(
            f"message {position} is named {excerpt(message.name)} but answers a call to "
            f"{excerpt(name)}; leave the name out or make it the function's"
        )
    return name


class HarmonyFormat:
    name = "harmony"
    ids: ClassVar[dict[str, dict[str, int]]] = {
        "o200k_harmony": SPECIALS
    }  # tokenizer -> special string -> id (what `formats_for` reads)
    roles = ("system", "developer", "user", "assistant", "tool")
    takes_names = True  # role:name in the header (a tool message's name is its function's)

    def render(self, tokenizer: Tokenizer, messages: Sequence[ChatMessage], tools: Sequence[Tool] = ()):

        tool_names = _tool_names(messages)
        section = tools_section(tools) if tools else None
        holder = next((i for i, m in enumerate(messages) if m.role == "developer"), None) if tools else None
        leading = next((i for i, m in enumerate(messages) if m.role != "system"), len(messages))
        own = leading if section is not None and holder is None else None  # where a tools-only message goes
        out = _Writer(tokenizer)
        for index, message in enumerate(messages):
            if index == own and section is not None:  # own is None without a section
                out.tools_message(section)
            if index == holder and section is not None:  # so is holder
                out.header(index, "developer", message.name)
                out.text(
                    Piece(INSTRUCTIONS, index, True),
                    Piece(message.content, index, False),
                    Piece("\n\n" + section, index, True, tools=True),
                )
                out.special("<|end|>", index)
            elif message.role == "tool":
                out.header(index, None, f"functions.{tool_names[index]}", "assistant", "commentary")
                out.text(Piece(message.content, index, False))
                out.special("<|end|>", index)
            else:
                if message.content or not message.tool_calls:
                    out.header(index, message.role, message.name)
                    out.text(Piece(message.content, index, False))
                    out.special("<|end|>", index)
                for call in message.tool_calls:
                    out.header(index, "assistant", message.name, f"functions.{call.name}", "commentary", "json")
                    out.text(Piece(call.arguments, index, False))
                    out.special("<|call|>", index)
        if own == len(messages) and section is not None:
            out.tools_message(section)
        out.special("<|start|>", None)
        out.text(Piece("assistant", None, True))
        return Rendered(tokenizer, self.name, tuple(out.parts))


class _Writer:
    """Parts in order: special tokens, and text encoded one call at a time (as the library's
    `render_text_into`), a call's tokens cut into a part per run of one piece."""

    def __init__(self, tokenizer: Tokenizer):
        self.tokenizer = tokenizer
        self.parts: list = []

    def special(self, text: str, message: int | None) -> None:

        self.parts.append(Part(text, (SPECIALS[text],), message, framing=True, special=True))

    def header(
        self,
        message: int | None,
        role: str | None,
        name: str | None,
        recipient: str | None = None,
        channel: str | None = None,
        constrain: str | None = None,
    ) -> None:
        """`<|start|>` role[`:`name] [` to=`recipient] [`<|channel|>`channel] [` <|constrain|>`type]
        `<|message|>`; a tool message (role None) writes its function's name alone."""
        self.special("<|start|>", message)
        label = role if role is not None else name
        assert label is not None  # a tool message (role None) gives its function's name
        self.text(Piece(label, message, True))
        if role is not None and name is not None:
            self.text(Piece(f":{name}", message, True))
        if recipient is not None:
            self.text(Piece(f" to={recipient}", message, True))
        if channel is not None:
            self.special("<|channel|>", message)
            self.text(Piece(channel, message, True))
        if constrain is not None:
            self.text(Piece(" ", message, True))
            self.special("<|constrain|>", message)
            self.text(Piece(constrain, message, True))
        self.special("<|message|>", message)

    def tools_message(self, section: str) -> None:
        """A developer message holding only the tools (`DeveloperContent.new().with_function_tools`)."""
        self.header(None, "developer", None)
        self.text(Piece(section, None, True, tools=True))
        self.special("<|end|>", None)

    def text(self, *pieces: Piece) -> None:

        if len(pieces) == 1:  # kept even when empty: a message's content part
            p = pieces[0]
            self.parts.append(Part(p.text, tuple(self.tokenizer.encode(p.text)), p.message, p.framing, tools=p.tools))
        else:
            self.parts += encoded_parts(self.tokenizer, [p for p in pieces if p.text])


HARMONY = HarmonyFormat()
