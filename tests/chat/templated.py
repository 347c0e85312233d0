"""A tokenizer carrying a chat template of a test's own, built once: `copy.copy` of a backend
rebuilds it from its file (the backends' `__reduce__`, for pickling to worker processes),
seconds for deepseek_v4, on every call."""

from __future__ import annotations

from app.chat.formats.template_format import ChatTemplate


def with_chat_template(tokenizer, template: ChatTemplate):
    """A shallow copy of `tokenizer` (its tables shared) with `template` as its chat template."""
    given = object.__new__(type(tokenizer))
    given.__dict__.update(vars(tokenizer))
    given.chat_template = template
    return given
