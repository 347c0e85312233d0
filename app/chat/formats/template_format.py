"""The `template` chat format: a model's own Jinja chat template (Hugging Face's
`chat_template`) rendered as `transformers`' `apply_chat_template(messages,
add_generation_prompt=True, tokenize=False)` renders it, then encoded as that library
tokenizes a chat (`apply_chat_template(tokenize=True)`): the whole text at once, the
tokenizer's special-token strings recognised wherever they are (also inside a message),
no BOS or EOS added beyond what the template writes.

The template sees what transformers hands it for the same chat sent as OpenAI's JSON:
`messages` (dicts of role, content and name when given; any non-empty role, as transformers
passes it: the template may refuse one with `raise_exception`; an assistant message's calls as
`tool_calls`, `[{"id", "type": "function", "function": {"name", "arguments"}}]`, the arguments
the JSON text as sent, and no `content` key when it only calls tools (transformers drops a
null content; an empty one is taken as null); a tool result's `tool_call_id`),
`add_generation_prompt=True`, `bos_token` and `eos_token` (undefined when the template came
without them), `tools` (`[{"type": "function", "function": {"name", "description",
"parameters"}}]`, a missing description or schema left out; None when the chat has none) and
`documents=None`. With tools, a file's named `tool_use` template is used when it has one, as
transformers' `get_chat_template` picks.
It runs in a sandbox child (app/sandbox/templates.py: the same Jinja environment as
transformers), bounded in time (RENDER_WALL_S), output (the `max_text_chars` setting) and
memory; a template that does not parse, loops, grows too large or calls
`raise_exception` is a 422 (`InvalidInput`) saying so, with the template's own message or
the line. `check_template(source)` is the parse check an upload makes. `call` blocks:
callers run on worker threads.

Parts (app/chat/formats/template_parts.py says how they are found): every special token is a part of
its own; each message's content and its calls' arguments are its content, the framing around
them its own or the next message's; with tools, the template is rendered a second time
without them and the tokens the tools add are the tools' (`tools=True`, no message).
Left out: documents, `{% generation %}` masks, continuing a final message, a tool's `strict`
flag and the order of keys as sent (the template gets them in the order above).
Templates come from files users add: app/chat/formats/template_files.py reads them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from app.chat.formats import template_parts
from app.chat.messages import ChatMessage, Tool
from app.chat.rendered import Part, Rendered
from app.errors import InvalidInput
from app.sandbox import runner
from app.settings import get_settings
from app.tokenizers.base import Tokenizer
from app.tokenizers.tokens import clean_text

RENDER_WALL_S = 5.0  # the child is killed past this; it stops itself after RENDER_BUDGET_S of output
RENDER_BUDGET_S = 3.0
PARSE_WALL_S = 5.0


@dataclass(frozen=True)
class ChatTemplate:
    source: str  # the template chats are rendered with
    bos_token: str | None = None
    eos_token: str | None = None
    others: tuple[tuple[str, str], ...] = ()  # further named templates of the same file (e.g. "tool_use")


def _ask(request: tuple, wall_s: float) -> tuple:
    try:
        return runner.shared().call(request, wall_s)
    except runner.SandboxTimeout:
        return ("slow", f"it did not finish within {wall_s:g} s")
    except runner.SandboxDied:
        return ("died", "the process running it stopped")


def _refusal(answer: tuple, doing: str) -> InvalidInput:
    problem, detail = answer
    if problem == "raised":
        return InvalidInput(f"the chat template refused these messages: {detail}", code="template_raised")
    if problem == "invalid":
        return InvalidInput(
            f"the chat template does not parse, {detail}; fix the template's Jinja syntax there",
            code="template_invalid",
        )
    why = {
        "large": "makes too much text",
        "slow": "is too slow",
        "memory": "needs too much memory",
        "died": "crashed",
        "error": "failed",
    }.get(problem, "failed")
    return InvalidInput(
        f"the chat template {why} {doing}: {detail}; fix the template or use another chat format",
        code="template_failed",
    )


def check_template(source: str) -> None:
    """Nothing when `source` parses as a chat template; else an `InvalidInput` naming the line."""
    answer = _ask(("template", source), PARSE_WALL_S)
    if answer[0] != "ok":
        raise _refusal(answer, "while parsing")


def source_for(template: ChatTemplate, tools: Sequence[Tool]) -> str:
    """The template a chat is rendered with: the named `tool_use` one when there are tools and it exists."""
    return dict(template.others).get("tool_use", template.source) if tools else template.source


def template_messages(messages: Sequence[ChatMessage]) -> list[dict]:
    """The messages as transformers hands them to a template (the module docstring says how)."""
    listed = []
    for m in messages:
        item: dict = {"role": m.role}
        if m.content or not m.tool_calls:
            item["content"] = m.content
        if m.name is not None:
            item["name"] = m.name
        if m.tool_calls:
            item["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in m.tool_calls
            ]
        if m.tool_call_id is not None:
            item["tool_call_id"] = m.tool_call_id
        listed.append(item)
    return listed


def template_tools(tools: Sequence[Tool]) -> list[dict] | None:
    if not tools:
        return None
    return [
        t.sent
        if t.sent is not None
        # as sent, as transformers hands a dict on (key order, strict)
        else {
            "type": "function",
            "function": {
                "name": t.name,
                **({"description": t.description} if t.description is not None else {}),
                **({"parameters": t.parameters} if t.parameters is not None else {}),
            },
        }
        for t in tools
    ]


def render_text(
    template: ChatTemplate, messages: Sequence[ChatMessage], tools: Sequence[Tool] = (), source: str | None = None
) -> str:
    """The prompt text the template (or `source`, by default `source_for` the chat) makes of
    `messages` and `tools`, the reply primed."""
    context = {
        "messages": template_messages(messages),
        "add_generation_prompt": True,
        "tools": template_tools(tools),
        "documents": None,
    }
    for key, token in (("bos_token", template.bos_token), ("eos_token", template.eos_token)):
        if token is not None:  # as transformers: an unset token is undefined (renders empty), not "None"
            context[key] = token
    limit = get_settings().max_text_chars
    request = ("render", source or source_for(template, tools), context, limit, RENDER_BUDGET_S)
    answer = _ask(request, RENDER_WALL_S)
    if answer[0] != "ok":
        raise _refusal(answer, "while rendering")
    return answer[1]


def template_of(tokenizer: Tokenizer) -> ChatTemplate:
    """The tokenizer's chat template (render.formats_for offers this format only to one that has it)."""
    template = tokenizer.chat_template
    if not isinstance(template, ChatTemplate):
        raise InvalidInput(f"tokenizer {tokenizer.name} has no chat template; choose another chat format")
    return template


def _tools_mask(tokenizer: Tokenizer, messages, tools, ids: list[int]) -> tuple[list[bool], bool]:
    """Which of `ids` the tools added, and whether diffed (template_parts.tools_mask); none when the
    chat has no tools or the template cannot render it without them."""
    if not tools:
        return [False] * len(ids), True
    template = template_of(tokenizer)
    try:
        bare = render_text(template, messages, (), source=source_for(template, tools))
    except InvalidInput:
        return [False] * len(ids), True
    return template_parts.tools_mask(ids, tokenizer.encode(clean_text(bare), allow_special=True))


class TemplateFormat:
    """The `template` format: for every tokenizer that came with a chat template (its
    `chat_template`, set from the stored upload's facts); fits render.FORMATS."""

    name = "template"
    ids: ClassVar[
        dict[str, dict[str, int]]
    ] = {}  # no tokenizer has it by name (render.formats_for): it goes with the template
    roles = ("system", "user", "assistant", "tool")  # what the pages' editor offers: the roles templates know
    any_role = True  # as transformers: any role reaches the template, which may refuse it (raise_exception)
    takes_names = True  # each message's name is given to the template

    def render(self, tokenizer: Tokenizer, messages: Sequence[ChatMessage], tools: Sequence[Tool] = ()):
        text = render_text(template_of(tokenizer), messages, tools)
        tokens = tokenizer.tokenize(text, allow_special=True)
        mask, diffed = _tools_mask(tokenizer, messages, tools, [t.id for t in tokens])
        owners = template_parts.owners(text, tokens, messages, mask, diffed)
        parts: list[Part] = []
        run: list[int] = []  # positions in `tokens` of the part being gathered

        def close(end: int) -> None:
            start = tokens[run[0]].start if parts else 0
            message, framing, tool = owners[run[0]]
            own = tuple(tokens[i]._replace(start=tokens[i].start - start, end=tokens[i].end - start) for i in run)
            special = len(run) == 1 and tokens[run[0]].special
            parts.append(Part(text[start:end], tuple(t.id for t in own), message, framing, special, own, tool))
            run.clear()

        for position, token in enumerate(tokens):
            if run and (token.special or tokens[run[-1]].special or owners[position] != owners[run[-1]]):
                close(token.start)
            run.append(position)
        if run:
            close(len(text))
        return Rendered(tokenizer, self.name, tuple(parts), len(messages))
