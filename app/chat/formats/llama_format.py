"""The `llama3` and `llama4` chat formats: messages -> the ids llama-models 0.3.0's
`ChatFormat(tokenizer).encode_dialog_prompt(messages).tokens` gives for text messages.

What that package does with system, user and assistant text messages, and so we do:
- `<|begin_of_text|>` starts the prompt (it belongs to the first message here).
- Each message is a header, then its content encoded on its own as plain text (a typed
  special-token string stays text), then the end of turn. The header is the header-start
  token, the role encoded as text, the header-end token, then "\\n\\n" encoded as text.
  llama3: `<|start_header_id|>`, `<|end_header_id|>`, `<|eot_id|>`; llama4:
  `<|header_start|>`, `<|header_end|>`, `<|eot|>`.
- Then the assistant's header alone, which primes the reply.
No merging, no validation of the order of roles: every message is its own turn.
Left out: names (Llama's messages have none: refused), tool messages and tool calls
(`ipython`, `<|eom|>`), images, RAG context.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.chat.messages import ChatMessage, Tool, refuse_tools
from app.chat.rendered import Part, Rendered
from app.errors import InvalidInput
from app.tokenizers.base import Tokenizer


@dataclass(frozen=True)
class LlamaFormat:
    name: str
    begin: str
    header_start: str
    header_end: str
    end_of_turn: str
    ids: dict[str, dict[str, int]]  # tokenizer -> special string -> id (what `formats_for` reads)
    roles: tuple[str, ...] = ("system", "user", "assistant")
    takes_names: bool = False  # a message with a name is refused (render)

    def render(self, tokenizer: Tokenizer, messages: Sequence[ChatMessage], tools: Sequence[Tool] = ()):
        refuse_tools(self.name, messages, tools)

        for position, message in enumerate(messages):
            if message.name is not None:
                raise InvalidInput(
                    f'message {position} has a name; Llama\'s chat format has no names: leave "name" out'
                )
        specials = self.ids[tokenizer.name]
        parts: list[Part] = []

        def special(text: str, message: int | None) -> None:
            parts.append(Part(text, (specials[text],), message, framing=True, special=True))

        def plain(text: str, message: int | None, framing: bool) -> None:
            parts.append(Part(text, tuple(tokenizer.encode(text)), message, framing))

        def header(role: str, message: int | None) -> None:
            special(self.header_start, message)
            plain(role, message, True)
            special(self.header_end, message)
            plain("\n\n", message, True)

        special(self.begin, 0)
        for index, message in enumerate(messages):
            header(message.role, index)
            plain(message.content, index, False)
            special(self.end_of_turn, index)
        header("assistant", None)
        return Rendered(tokenizer, self.name, tuple(parts))


LLAMA3 = LlamaFormat(
    "llama3",
    "<|begin_of_text|>",
    "<|start_header_id|>",
    "<|end_header_id|>",
    "<|eot_id|>",
    {
        "llama3": {
            "<|begin_of_text|>": 128000,
            "<|start_header_id|>": 128006,
            "<|end_header_id|>": 128007,
            "<|eot_id|>": 128009,
        }
    },
)
LLAMA4 = LlamaFormat(
    "llama4",
    "<|begin_of_text|>",
    "<|header_start|>",
    "<|header_end|>",
    "<|eot|>",
    {"llama4": {"<|begin_of_text|>": 200000, "<|header_start|>": 200005, "<|header_end|>": 200006, "<|eot|>": 200008}},
)
