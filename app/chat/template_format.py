"""The `template` chat format: a model's own Jinja chat template (Hugging Face's
`chat_template`) rendered as `transformers`' `apply_chat_template(messages,
add_generation_prompt=True, tokenize=False)` renders it, then encoded as that library
tokenizes a chat (`apply_chat_template(tokenize=True)`): the whole text at once, the
tokenizer's special-token strings recognised wherever they are (also inside a message),
no BOS or EOS added beyond what the template writes.

The template sees `messages` (dicts of role, content and name when given; any non-empty role,
as transformers passes it: the template may refuse one with `raise_exception`),
`add_generation_prompt=True`, `bos_token` and `eos_token` (undefined when the template came
without them), `tools=None` and `documents=None`.
It runs in a sandbox child (app/sandbox/templates.py: the same Jinja environment as
transformers), bounded in time (RENDER_WALL_S), output (the `max_text_chars` setting) and
memory; a template that does not parse, loops, grows too large or calls
`raise_exception` is a 422 (`InvalidInput`) saying so, with the template's own message or
the line. `check_template(source)` is the parse check an upload makes. `call` blocks:
callers run on worker threads.

Parts, and what each message is charged (approximate: a template may change or drop a
message's text): every special token is a part of its own; each message's content is
looked for in the rendered text in order, from where the previous one was found, and the
tokens that start inside it are that message's content. Framing between two contents goes
to the earlier message up to and including its first special token (its end of turn),
the rest to the later one (the next header); framing before the first content goes to
the first message found, after the last one's end of turn to none (the reply priming).
Left out: tools, documents, `{% generation %}` masks, continuing a final message.
Templates come from files users add: app/chat/template_files.py reads them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.chat.messages import ChatMessage, Tool, refuse_tools
from app.errors import InvalidInput
from app.sandbox import runner
from app.settings import get_settings
from app.tokenizers.base import Tokenizer

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
        return InvalidInput(f"the chat template does not parse, {detail}; fix the template's Jinja syntax there",
                            code="template_invalid")
    why = {"large": "makes too much text", "slow": "is too slow", "memory": "needs too much memory",
           "died": "crashed", "error": "failed"}.get(problem, "failed")
    return InvalidInput(f"the chat template {why} {doing}: {detail}; fix the template or use another chat format",
                        code="template_failed")


def check_template(source: str) -> None:
    """Nothing when `source` parses as a chat template; else an `InvalidInput` naming the line."""
    answer = _ask(("template", source), PARSE_WALL_S)
    if answer[0] != "ok":
        raise _refusal(answer, "while parsing")


def render_text(template: ChatTemplate, messages: Sequence[ChatMessage]) -> str:
    """The prompt text the template makes of `messages`, the reply primed."""
    listed = [{"role": m.role, "content": m.content, **({"name": m.name} if m.name is not None else {})}
              for m in messages]
    context = {"messages": listed, "add_generation_prompt": True, "tools": None, "documents": None}
    for key, token in (("bos_token", template.bos_token), ("eos_token", template.eos_token)):
        if token is not None:  # as transformers: an unset token is undefined (renders empty), not "None"
            context[key] = token
    limit = get_settings().max_text_chars
    answer = _ask(("render", template.source, context, limit, RENDER_BUDGET_S), RENDER_WALL_S)
    if answer[0] != "ok":
        raise _refusal(answer, "while rendering")
    return answer[1]


def _owners(text: str, tokens, messages: Sequence[ChatMessage]) -> list[tuple[int | None, bool]]:
    """(message, framing) for each token, as the module docstring says."""
    spans, cursor = [], 0
    for index, message in enumerate(messages):
        found = text.find(message.content, cursor) if message.content else -1
        if found >= 0:
            spans.append((index, found, found + len(message.content)))
            cursor = found + len(message.content)
    owners, span, closed = [], 0, False  # `closed`: the gap after spans[span-1] has had its special token
    for token in tokens:
        while span < len(spans) and token.start >= spans[span][2]:
            span, closed = span + 1, False
        if span < len(spans) and spans[span][1] <= token.start:
            owners.append((spans[span][0], False))
            continue
        if span == 0:
            owners.append((spans[0][0] if spans else None, True))
            continue
        later = spans[span][0] if span < len(spans) else None
        owners.append((later if closed else spans[span - 1][0], True))
        closed = closed or token.special
    return owners


class TemplateFormat:
    """The `template` format: for every tokenizer that came with a chat template (its
    `chat_template`, set from the stored upload's facts); fits render.FORMATS."""

    name = "template"
    ids: dict = {}  # no tokenizer has it by name (render.formats_for): it goes with the template
    roles = ("system", "user", "assistant", "tool")  # what the pages' editor offers: the roles templates know
    any_role = True  # as transformers: any role reaches the template, which may refuse it (raise_exception)
    takes_names = True  # each message's name is given to the template

    def render(self, tokenizer: Tokenizer, messages: Sequence[ChatMessage], tools: Sequence[Tool] = ()):
        refuse_tools(self.name, messages, tools)
        from app.chat.render import Part, Rendered

        text = render_text(tokenizer.chat_template, messages)
        tokens = tokenizer.tokenize(text, allow_special=True)
        owners = _owners(text, tokens, messages)
        parts: list[Part] = []
        run: list[int] = []  # positions in `tokens` of the part being gathered

        def close(end: int) -> None:
            start = tokens[run[0]].start if parts else 0
            message, framing = owners[run[0]]
            own = tuple(tokens[i]._replace(start=tokens[i].start - start, end=tokens[i].end - start) for i in run)
            special = len(run) == 1 and tokens[run[0]].special
            parts.append(Part(text[start:end], tuple(t.id for t in own), message, framing, special, own))
            run.clear()

        for position, token in enumerate(tokens):
            if run and (token.special or tokens[run[-1]].special or owners[position] != owners[run[-1]]):
                close(token.start)
            run.append(position)
        if run:
            close(len(text))
        return Rendered(tokenizer, self.name, tuple(parts), len(messages))
