"""Counting the prompt tokens of an OpenAI-style chat, the way OpenAI counts them.

The rule is the one of OpenAI's cookbook "How to count tokens with tiktoken" for the
chat models on cl100k_base and o200k_base (gpt-3.5-turbo-0613 and later, gpt-4, gpt-4o):

    prompt tokens = sum over messages of (tokens_per_message + tokens of each field value
                    (role, content, name) + tokens_per_name if the message has a name)
                    + reply_priming

with tokens_per_message = 3 (`<|start|>{role/name}\\n{content}<|end|>\\n`), tokens_per_name
= 1 and reply_priming = 3 (every reply is primed with `<|start|>assistant<|message|>`).
The cookbook's six-message example gives 129 prompt tokens with cl100k_base (gpt-4) and
124 with o200k_base (gpt-4o), the numbers the OpenAI API reported. gpt-3.5-turbo-0301
used 4 and -1 instead (127 for the same example); that rule is kept here as
`GPT_35_TURBO_0301` for callers that want it.

Special-token strings inside a message are plain text, as in the API. The rule is only
defined for the encodings of OpenAI's chat models; asking for any other tokenizer is an
`InvalidInput` that names the ones it is defined for. Function/tool definitions, images
and content arrays cost extra tokens the rule does not cover; they are not accepted.
No web code here: the API and the CLI both call `count_chat`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from app.errors import InvalidInput


@dataclass(frozen=True)
class ChatRule:
    name: str
    tokens_per_message: int  # the per-message envelope: <|start|>, the role/name separator, <|end|>
    tokens_per_name: int  # added when a message has a "name" (-1 in 0301: the name replaced the role)
    reply_priming: int  # <|start|>assistant<|message|>, once per prompt

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "tokens_per_message": self.tokens_per_message,
            "tokens_per_name": self.tokens_per_name,
            "reply_priming": self.reply_priming,
        }


OPENAI_CHAT = ChatRule("openai-chat (gpt-3.5-turbo-0613 and later, gpt-4, gpt-4o)", 3, 1, 3)
GPT_35_TURBO_0301 = ChatRule("gpt-3.5-turbo-0301", 4, -1, 3)

# tokenizer name -> the rule OpenAI's chat models on that encoding follow
CHAT_RULES: dict[str, ChatRule] = {"cl100k_base": OPENAI_CHAT, "o200k_base": OPENAI_CHAT}


@dataclass(frozen=True)
class ChatMessage:
    role: str
    content: str
    name: str | None = None

    def fields(self) -> list[str]:
        """The field values that are encoded, in the order the cookbook encodes them."""
        return [self.role, self.content] + ([self.name] if self.name is not None else [])


@dataclass(frozen=True)
class ChatCount:
    total: int  # prompt tokens, as the API's usage.prompt_tokens reports them
    per_message: list[int]  # each message with its envelope; total = sum + reply_priming
    rule: ChatRule


def chat_tokenizers() -> list[str]:
    """Names of the tokenizers chat counting is defined for."""
    return list(CHAT_RULES)


def rule_for(tokenizer_name: str) -> ChatRule:
    """The chat rule of a tokenizer, or an `InvalidInput` naming those that have one."""
    rule = CHAT_RULES.get(tokenizer_name)
    if rule is None:
        raise InvalidInput(
            f"chat counting is not defined for {tokenizer_name}: OpenAI's message format is known only for "
            f"{', '.join(CHAT_RULES)}; choose one of those, or count the text with \"text\" or \"texts\""
        )
    return rule


def count_chat(encode: Callable[[str], list[int]], messages: Sequence[ChatMessage], rule: ChatRule) -> ChatCount:
    """Prompt tokens of `messages` under `rule`; `encode` maps a string to its ids (no specials)."""
    per_message = []
    for message in messages:
        tokens = rule.tokens_per_message + sum(len(encode(value)) for value in message.fields())
        if message.name is not None:
            tokens += rule.tokens_per_name
        per_message.append(tokens)
    return ChatCount(total=sum(per_message) + rule.reply_priming, per_message=per_message, rule=rule)
