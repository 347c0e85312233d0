"""A stand-in chat format that renders tools, for the tests of the paths around the formats
(parsing, checks, /api/chat, /api/count) while no real format renders them yet.

`ToolsFormat` is chatml with tool definitions written before the messages (one part per
tool, marked `tools`), each call after its message's content (the name as framing, the
arguments as content) and the legacy `function` role allowed. `installed()` puts it in
place of chatml for cl100k_base and o200k_base. Nothing here claims to be any model's format.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from dataclasses import dataclass

import pytest

from app.chat import render as render_module
from app.chat.render import CHATML, Part, Rendered


@dataclass(frozen=True)
class ToolsFormat:
    name: str = "chatml"
    ids: dict = None
    roles: tuple[str, ...] = (*CHATML.roles, "function")
    takes_names: bool = True

    def render(self, tokenizer, messages, tools=()):
        specials = CHATML.ids[tokenizer.name]
        parts: list[Part] = []

        def special(text, message):
            parts.append(Part(text, (specials[text],), message, framing=True, special=True))

        def plain(text, message, framing, tools=False):
            parts.append(Part(text, tuple(tokenizer.encode(text)), message, framing, tools=tools))

        for tool in tools:
            schema = json.dumps(tool.parameters, sort_keys=True, ensure_ascii=False)
            plain(f"{tool.name}({schema}) {tool.description or ''}\n", None, True, tools=True)
        for index, message in enumerate(messages):
            special("<|im_start|>", index)
            plain(message.role if message.name is None else f"{message.role}:{message.name}", index, True)
            special("<|im_sep|>", index)
            plain(message.content, index, False)
            for call in message.tool_calls:
                plain(f" {call.name}:", index, True)
                plain(call.arguments, index, False)
            special("<|im_end|>", index)
        special("<|im_start|>", None)
        plain("assistant", None, True)
        special("<|im_sep|>", None)
        return Rendered(tokenizer, self.name, tuple(parts))


FAKE = ToolsFormat(ids=CHATML.ids)


@contextmanager
def installed():
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(render_module.FORMATS, "chatml", FAKE)
        yield FAKE


def content_count(rendered: Rendered) -> int:
    return sum(len(part.ids) for part in rendered.parts if not part.framing and not part.tools)
