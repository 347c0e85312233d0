"""The `chatml` chat format of OpenAI's API models (cl100k_base, o200k_base), tools included.

Text messages, tiktokenizer's convention (its count equals OpenAI cookbook's rule): per message
`<|im_start|>` role[`:`name] `<|im_sep|>` content `<|im_end|>`, then
`<|im_start|>assistant<|im_sep|>` primes the reply. The three ids are those of OpenAI's chat
models (100264-100266, 200264-200266), outside the plain encodings' vocabularies.

Tools: OpenAI publishes no rendering of them, only the prompt tokens its API reports. This
format follows the rule that reproduces those counts (gpt-tokenizer's published cases, gpt-4o,
o200k_base; openai-chat-tokens', gpt-3.5-turbo, cl100k_base: tests/chat/chatml_tool_cases.json),
and draws it as parts whose tokens number what the rule counts:
- the definitions, `namespace functions {...}` (app/chat/formats/chatml_functions.py) encoded on its
  own after the header "# Tools: functions\\n\\n", close the first system message, whose content
  first gains a "\\n" unless empty or ending in one; without a system message they are a system
  message of their own before the first message;
- each call of an assistant message, after its content: "\\n", the function's name, "(", the
  arguments (content), ")";
- a legacy `function` message, and a `tool` message answering a call, have the function's name
  as their header instead of a role;
- `tool_choice` (a keyword of `render`): "none" writes " none" after the reply's role, a named
  function " to=functions." and its name ("auto" or None: nothing).
The header texts are ours: the counts are the API's, the text is not OpenAI's (`NOTE`). Tool
results and several calls in one message follow the legacy rule for one call and one function
message, which is what the published cases cover.
Left out: `tool_choice` "required" (no published count), content arrays, images.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from app.chat.formats.chatml_functions import namespace_text
from app.chat.messages import ChatMessage, Tool
from app.chat.rendered import Part, Rendered
from app.errors import InvalidInput, excerpt
from app.tokenizers.base import Tokenizer

START, END, SEP = "<|im_start|>", "<|im_end|>", "<|im_sep|>"
TOOLS_HEADER = "# Tools: functions\n\n"
NOTE = (
    "OpenAI publishes no chat format for its API models: chatml counts follow the prompt tokens "
    "OpenAI's API reported (OpenAI cookbook's rule for messages; for tools, calls and results the "
    "cases gpt-tokenizer and openai-chat-tokens publish), and the framing drawn around tools and "
    "calls is ours, sized to those counts"
)


@dataclass(frozen=True)
class ChatmlFormat:
    name: str = "chatml"
    ids: dict[str, dict[str, int]] = field(
        default_factory=lambda: {  # tokenizer -> special -> id
            "cl100k_base": {START: 100264, END: 100265, SEP: 100266},
            "o200k_base": {START: 200264, END: 200265, SEP: 200266},
        }
    )
    roles: tuple[str, ...] = ("system", "user", "assistant", "tool", "developer", "function")
    takes_names: bool = True  # role:name in the header
    note: str | None = NOTE  # what the API and the page say about these counts

    def render(
        self,
        tokenizer: Tokenizer,
        messages: Sequence[ChatMessage],
        tools: Sequence[Tool] = (),
        *,
        tool_choice: str | None = None,
    ):
        """The prompt, with `tool_choice` None, "auto", "none" or the name of a listed tool."""

        _check(messages, tools, tool_choice)
        specials = self.ids[tokenizer.name]
        called = {call.id: call.name for message in messages for call in message.tool_calls}
        host = next((i for i, m in enumerate(messages) if m.role == "system"), None) if tools else None
        parts: list[Part] = []

        def special(text: str, message: int | None, tools: bool = False) -> None:
            parts.append(Part(text, (specials[text],), message, framing=True, special=True, tools=tools))

        def plain(text: str, message: int | None, framing: bool, tools: bool = False) -> None:
            parts.append(Part(text, tuple(tokenizer.encode(text)), message, framing, tools=tools))

        def definitions(message: int | None) -> None:
            plain(TOOLS_HEADER, message, True, tools=True)
            plain(namespace_text(tools), message, True, tools=True)

        if tools and host is None:
            special(START, None, tools=True)
            plain("system", None, True, tools=True)
            special(SEP, None, tools=True)
            definitions(None)
            special(END, None, tools=True)
        for index, message in enumerate(messages):
            special(START, index)
            plain(_header(message, called), index, True)
            special(SEP, index)
            if index == host and message.content and not message.content.endswith("\n"):
                alone, padded = tokenizer.encode(message.content), tokenizer.encode(message.content + "\n")
                if padded[: len(alone)] == alone:
                    plain(message.content, index, False)
                    parts.append(Part("\n", tuple(padded[len(alone) :]), index, True, tools=True))
                else:  # the newline joins the content's last token (":\n"): a content token
                    parts.append(Part(message.content + "\n", tuple(padded), index, False))
            else:
                plain(message.content, index, False)
            if index == host:
                definitions(index)
            for call in message.tool_calls:
                plain("\n", index, True)
                plain(call.name, index, True)
                plain("(", index, True)
                plain(call.arguments, index, False)
                plain(")", index, True)
            special(END, index)
        special(START, None)
        plain("assistant", None, True)
        if tool_choice == "none":
            plain(" none", None, True)
        elif tool_choice not in (None, "auto"):
            plain(" to=functions.", None, True)
            plain(tool_choice, None, True)
        special(SEP, None)
        return Rendered(tokenizer, self.name, tuple(parts))


def _header(message: ChatMessage, called: dict[str, str]) -> str:
    """role[:name]; a function's result is headed by the function's name."""
    if message.role == "function":
        return message.name or ""
    if message.role == "tool" and message.tool_call_id in called:
        return called[message.tool_call_id]
    return message.role if message.name is None else f"{message.role}:{message.name}"


def _check(messages: Sequence[ChatMessage], tools: Sequence[Tool], tool_choice: str | None) -> None:
    for position, message in enumerate(messages):
        if message.role == "function" and not message.name:
            raise InvalidInput(
                f"message {position} has role function but no name; a function message is the "
                'result of the function its "name" gives: add it, or use role "tool" with '
                "the tool_call_id of the call it answers"
            )
    if tool_choice in (None, "auto"):
        return
    if not tools:
        raise InvalidInput(f'tool_choice {excerpt(tool_choice)} needs tools; send "tools" or leave tool_choice out')
    if tool_choice != "none" and tool_choice not in {tool.name for tool in tools}:
        raise InvalidInput(
            f'tool_choice {excerpt(tool_choice)} is no listed tool; give "auto", "none" or '
            'the name of one of the tools ("required" has no published count)'
        )


CHATML = ChatmlFormat()
