"""The `mistral` chat format: messages -> the ids mistral-common's
`MistralTokenizer.encode_chat_completion` gives, for mistral_v1, mistral_v3 and mistral_tekken.

What mistral-common 1.13.1 does with messages (system, user, assistant, tool) and tools, and so we do:
- Validation first: no names; a chat of one message is a user or system message; with more
  than one message, the last one is not an assistant's (the model answers a user or a tool
  result); roles follow each other as mistral_tools.FOLLOWS allows (a system message never
  follows an assistant's); an assistant message has content or tool calls.
- Every non-empty system message joins the system prompt ("\\n\\n" between them); it is not a
  turn of its own. Consecutive user (or assistant) messages merge into one turn, "\\n\\n"
  between the non-empty ones. A chat whose first turn is not a user's gets an empty one first.
- `<s>` starts the prompt. A user turn is `[INST] content [/INST]` and an assistant turn is
  its content then `</s>`; content is encoded as plain text (a typed `[INST]` is text).
- v1 (mistral_v1, Mistral 7B v0.1): `[INST]`/`[/INST]` are text, each user turn one
  SentencePiece encode of "[INST] {content} [/INST]" (so with the dummy-prefix space);
  the system prompt goes before the FIRST user turn's content.
- v3 (mistral_v3 and mistral_tekken): `[INST]`, `[/INST]` are control tokens (ids 3, 4)
  around the encoded content; the system prompt goes before the LAST user turn's content;
  an assistant's content loses its trailing spaces.
- Tools (v3 only; mistral_v1 refuses them, and its calls and results, with a 422):
  `[AVAILABLE_TOOLS]` definitions `[/AVAILABLE_TOOLS]` just before the last user turn's
  `[INST]` (in no message, marked tools); an assistant turn with calls is `[TOOL_CALLS]`
  their JSON `</s>`; each tool message is a turn of its own, `[TOOL_RESULTS]` JSON
  `[/TOOL_RESULTS]`. The JSON and mistral-common's checks are app/chat/formats/mistral_tools.py's; the
  special ids differ between the two (TOOL_IDS).

Each encode call covers one string built from pieces (framing text, system prompts, message
contents); its tokens go to the piece holding their last character, so a token that spans
a seam (SentencePiece's "▁Be" after "[INST] ") counts for the content it ends in. Left out:
images, prefix (continued) assistant messages, names (but a tool result's, which v3 does not write).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from app.chat.formats.mistral_tools import Piece, calls, check_chat, check_tools, definitions, result
from app.chat.messages import ChatMessage, Tool
from app.chat.rendered import Part, Rendered, encoded_parts
from app.errors import InvalidInput
from app.tokenizers.base import Tokenizer

JOIN = "\n\n"
TEXT_IDS = {"<s>": 1, "</s>": 2, "[INST]": 3, "[/INST]": 4}
TOOL_IDS = {
    "mistral_v3": {
        "[TOOL_CALLS]": 5,
        "[AVAILABLE_TOOLS]": 6,
        "[/AVAILABLE_TOOLS]": 7,
        "[TOOL_RESULTS]": 8,
        "[/TOOL_RESULTS]": 9,
    },
    "mistral_tekken": {
        "[AVAILABLE_TOOLS]": 5,
        "[/AVAILABLE_TOOLS]": 6,
        "[TOOL_RESULTS]": 7,
        "[/TOOL_RESULTS]": 8,
        "[TOOL_CALLS]": 9,
    },
}


def _check(messages: Sequence[ChatMessage]) -> None:
    for i, message in enumerate(messages):
        if message.name is not None and message.role != "tool":
            raise InvalidInput(f'message {i} has a name; Mistral\'s chat format has no names: leave "name" out')
        if message.role == "assistant" and not message.content and not message.tool_calls:
            raise InvalidInput(
                f"message {i} is an empty assistant message; Mistral needs assistant messages "
                "to have content or tool calls: write some or remove the message"
            )
    if len(messages) == 1 and messages[0].role not in ("user", "system"):
        raise InvalidInput("a Mistral chat starts with a user or system message; add a user message first")
    if len(messages) > 1 and messages[-1].role == "assistant":
        raise InvalidInput(
            f"message {len(messages) - 1} is an assistant message, but a Mistral prompt ends with a "
            "user message or a tool result (the model answers it); add one, or remove the last "
            "assistant message"
        )
    check_chat(messages)


def _refuse_v1(messages: Sequence[ChatMessage], tools: Sequence[Tool]) -> None:
    """mistral_v1 (Mistral 7B v0.1's tokenizer) has no tools: mistral-common refuses its calls and
    results and drops its tools without a word; we say so for all three."""
    fix = "leave them out, or use mistral_v3 or mistral_tekken, whose format has tools"
    if tools:
        raise InvalidInput(f"mistral_v1 (Mistral 7B v0.1) has no tools in Mistral's chat format; {fix}")
    for i, message in enumerate(messages):
        if message.tool_calls or message.role == "tool" or message.tool_call_id is not None:
            raise InvalidInput(
                f"message {i} has tool calls or is a tool result, which mistral_v1 (Mistral 7B v0.1) "
                f"does not have in Mistral's chat format; {fix}"
            )


def _turns(messages: Sequence[ChatMessage]) -> list[tuple[str, list[int]]]:
    """Mistral's turns: (role, the indices of the messages merged into it), system messages left out."""
    turns: list[tuple[str, list[int]]] = []
    previous = None
    for i, message in enumerate(messages):
        if message.role != "system":
            if message.role == previous and message.role != "tool":  # each tool result is a turn of its own
                turns[-1][1].append(i)
            else:
                turns.append((message.role, [i]))
        previous = message.role
    if not turns or turns[0][0] != "user":
        turns.insert(0, ("user", []))
    return turns


def _joined(messages: Sequence[ChatMessage], indices: list[int], owner: int) -> list[Piece]:
    """The non-empty contents of `indices` joined by JOIN, as pieces; a join belongs to the message after it."""
    pieces: list[Piece] = []
    for i in indices:
        if messages[i].content:
            if pieces:
                pieces.append(Piece(JOIN, i, True))
            pieces.append(Piece(messages[i].content, i, False))
    return pieces or [Piece("", owner, False)]


@dataclass(frozen=True)
class MistralFormat:
    name: str
    ids: dict[str, dict[str, int]]  # tokenizer -> special string -> id (what `formats_for` reads)
    version: dict[str, int]  # tokenizer -> 1 or 3
    roles: tuple[str, ...] = ("system", "user", "assistant", "tool")
    takes_names: bool = False  # a message with a name is refused (_check), but for a tool result's

    def render(self, tokenizer: Tokenizer, messages: Sequence[ChatMessage], tools: Sequence[Tool] = ()):

        v1 = self.version[tokenizer.name] == 1
        if v1:
            _refuse_v1(messages, tools)
        _check(messages)
        check_tools(tools)
        system = [i for i, m in enumerate(messages) if m.role == "system" and m.content]
        turns = _turns(messages)
        users = [n for n, (role, _) in enumerate(turns) if role == "user"]
        with_system = users[0] if v1 else users[-1]
        parts: list[Part] = []

        def special(token: str, message: int | None, tools: bool = False) -> None:
            parts.append(Part(token, (self.ids[tokenizer.name][token],), message, True, True, tools=tools))

        def encode(pieces: list[Piece], tools: bool = False) -> None:
            parts.extend(replace(p, tools=tools) for p in encoded_parts(tokenizer, [p for p in pieces if p.text]))

        first = 0
        special("<s>", first)
        for n, (role, indices) in enumerate(turns):
            owner = indices[0] if indices else first
            if role == "tool":
                special("[TOOL_RESULTS]", owner)
                encode(result(messages[owner], owner))
                special("[/TOOL_RESULTS]", owner)
                continue
            if role == "assistant" and messages[owner].tool_calls:  # _check: then every message of the turn has calls
                special("[TOOL_CALLS]", owner)
                encode(calls(messages, indices))
                special("</s>", indices[-1])
                continue
            if role == "assistant":
                pieces = _joined(messages, indices, owner)
                if not v1:  # v3 strips the assistant's trailing spaces
                    while pieces and pieces[-1].text.endswith(" "):
                        trimmed = pieces[-1].text.rstrip(" ")
                        pieces[-1:] = [Piece(trimmed, pieces[-1].message, pieces[-1].framing)] if trimmed else []
                encode(pieces)
                special("</s>", indices[-1])
                continue
            content = _joined(messages, indices, owner)
            if n == with_system and system:
                content = [*_joined(messages, system, system[0]), Piece(JOIN, owner, True), *content]
            if v1:
                encode([Piece("[INST] ", owner, True), *content, Piece(" [/INST]", owner, True)])
                continue
            if n == users[-1] and tools:  # the definitions go before the last user turn, in no message
                special("[AVAILABLE_TOOLS]", None, tools=True)
                encode(definitions(tools), tools=True)
                special("[/AVAILABLE_TOOLS]", None, tools=True)
            special("[INST]", owner)
            encode(content)
            special("[/INST]", indices[-1] if indices else owner)
        return Rendered(tokenizer, self.name, tuple(parts))


MISTRAL = MistralFormat(
    "mistral",
    {
        "mistral_v1": {"<s>": 1, "</s>": 2},
        "mistral_v3": TEXT_IDS | TOOL_IDS["mistral_v3"],
        "mistral_tekken": TEXT_IDS | TOOL_IDS["mistral_tekken"],
    },
    {"mistral_v1": 1, "mistral_v3": 3, "mistral_tekken": 3},
)
