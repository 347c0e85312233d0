"""One reading of a chat's counts for every format that renders tools: each message's count,
the tools' count and the reply priming add up to the prompt, and no token is in two of them.
chatml writes the tools inside the system message; its count once held them too, so the
pages' per-message table (system, user, tools, reply) counted them twice."""

from __future__ import annotations

import pytest

from app.chat.messages import ChatMessage, Tool, ToolCall
from app.chat.render import render

WEATHER = Tool(
    "get_weather",
    "Weather in a city",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
CHAT = [
    ChatMessage("system", "Be brief."),
    ChatMessage("user", "Weather in Paris?"),
    ChatMessage("assistant", "", tool_calls=(ToolCall("abcDEF123", "get_weather", '{"city": "Paris"}'),)),
    ChatMessage("tool", "18 C, sunny", tool_call_id="abcDEF123"),
]


@pytest.mark.parametrize("tokenizer", ["cl100k_base", "o200k_base", "o200k_harmony", "mistral_v3", "mistral_tekken"])
def test_messages_tools_and_priming_add_up_without_overlap(registry, tokenizer):
    rendered = render(registry.get(tokenizer), CHAT, tools=(WEATHER,))
    priming = sum(len(p.ids) for p in rendered.parts if p.message is None and not p.tools)
    assert rendered.tools_count > 0
    assert sum(rendered.message_counts()) + rendered.tools_count + priming == rendered.count
    without = render(registry.get(tokenizer), CHAT[:2])
    assert rendered.message_counts()[1] == without.message_counts()[1]  # the user message is the same either way
