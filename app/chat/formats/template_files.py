"""A user's chat template file -> a `ChatTemplate`: what `tokenprism add --chat-template FILE`
and the `chat_template` field of an upload accept, and how the template is kept in a stored
tokenizer's facts.

Two shapes, told apart by content: a JSON object (a model's `tokenizer_config.json`, or a
`chat_template.json`) whose `chat_template` is a string or a list of named templates
(`[{"name": "default", "template": "..."}, {"name": "tool_use", ...}]`), with its
`bos_token` / `eos_token` as strings or AddedToken objects (`{"content": "<s>", ...}`); or a
bare Jinja template (`chat_template.jinja`), taken as it is. Of named templates, chats use
`default` (or the only one), as `transformers` picks; the others are kept by name. The file is
bounded (MAX_FILE_BYTES), must be UTF-8, each template at most MAX_TEMPLATE_CHARS, and each
must parse (checked in the sandbox, a refusal naming the template and line). Left out: the
config's other settings (the tokenizer file carries the tokenizer) and templates kept in
other files of a model folder.
"""

from __future__ import annotations

import json
import re

from app.chat.formats.template_format import ChatTemplate, check_template
from app.errors import InvalidInput, excerpt

MAX_FILE_BYTES = 4 << 20  # a tokenizer_config.json lists every added token: Gemma 3's is over 1 MB
MAX_TEMPLATE_CHARS = 100_000  # the longest published templates are near 20,000


def read(data: bytes, file_name: str = "") -> ChatTemplate:
    """The chat template in a file's bytes, checked; an `InvalidInput` saying what is wrong."""
    what = f"the chat template file {excerpt(file_name)}" if file_name else "the chat template file"
    if len(data) > MAX_FILE_BYTES:
        raise InvalidInput(
            f"{what} is {len(data):,} bytes, over {MAX_FILE_BYTES:,}; send the model's "
            "tokenizer_config.json or the template alone (.jinja)",
            code="template_invalid",
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InvalidInput(
            f"{what} is not UTF-8 text (byte {error.start}); send a tokenizer_config.json or a .jinja file",
            code="template_invalid",
        ) from None
    if not text.strip():
        raise InvalidInput(
            f"{what} is empty; send a tokenizer_config.json with a chat_template, or a .jinja file",
            code="template_invalid",
        )
    template = _from_json(text, what) if _is_json(text) else ChatTemplate(text)
    for name, source in (("default", template.source), *template.others):
        if len(source) > MAX_TEMPLATE_CHARS:
            raise InvalidInput(
                f"the chat template {name!r} is {len(source):,} characters, over {MAX_TEMPLATE_CHARS:,}",
                code="template_invalid",
            )
    for name, source in (("default", template.source), *template.others):
        try:
            check_template(source)
        except InvalidInput as error:
            named = "" if not template.others else f" (template {excerpt(name)})"
            raise InvalidInput(
                error.message.replace("the chat template", f"the chat template{named}", 1), code=error.code
            ) from None
    return template


def _is_json(text: str) -> bool:
    """A JSON object starts `{` then `"` or `}`; a Jinja template mostly starts `{{`, `{%` or `{#`."""
    return re.match(r'\s*\{\s*["}]', text) is not None


def _from_json(text: str, what: str) -> ChatTemplate:
    try:
        config = json.loads(text)
    except ValueError as error:
        line = getattr(error, "lineno", None)
        raise InvalidInput(
            f"{what} is not valid JSON{f' (line {line})' if line else ''}; send the model's "
            "tokenizer_config.json as it is, or the template alone as a .jinja file",
            code="template_invalid",
        ) from None
    if not isinstance(config, dict) or "chat_template" not in config:
        raise InvalidInput(
            f'{what} is JSON without a "chat_template" key; this model\'s tokenizer_config.json has '
            "no template (look for chat_template.jinja beside it)",
            code="template_invalid",
        )
    chosen, others = _named(config["chat_template"], what)
    return ChatTemplate(chosen, _token(config, "bos_token", what), _token(config, "eos_token", what), others)


def _named(value: object, what: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """The chats' template and the other named ones."""
    if isinstance(value, str):
        return value, ()
    shape = 'a string or a list of {"name": ..., "template": ...}'
    if not isinstance(value, list) or not value:
        raise InvalidInput(f'the "chat_template" in {what} is neither {shape}', code="template_invalid")
    named: dict[str, str] = {}
    for position, item in enumerate(value):
        if not (isinstance(item, dict) and isinstance(item.get("name"), str) and isinstance(item.get("template"), str)):
            raise InvalidInput(
                f'chat_template[{position}] in {what} is not {{"name": ..., "template": ...}} with two strings',
                code="template_invalid",
            )
        named[item["name"]] = item["template"]
    if "default" not in named and len(named) > 1:
        raise InvalidInput(
            f"{what} names {len(named)} chat templates ({', '.join(map(repr, named))}) and none is "
            "'default', so no one is used for chats; name the chats' template 'default'",
            code="template_invalid",
        )
    chosen = "default" if "default" in named else next(iter(named))
    return named.pop(chosen), tuple(named.items())


def _token(config: dict, key: str, what: str) -> str | None:
    value = config.get(key)
    if isinstance(value, dict):  # an AddedToken as transformers saves it
        value = value.get("content")
    if value is None or isinstance(value, str):
        return value
    raise InvalidInput(f'{key} in {what} is neither a string nor {{"content": ...}}', code="template_invalid")


def to_facts(template: ChatTemplate, file_name: str) -> dict:
    """How the template is stored in a tokenizer's facts line (uploads.Facts.chat_template)."""
    return {
        "template": template.source,
        "bos_token": template.bos_token,
        "eos_token": template.eos_token,
        "others": dict(template.others),
        "file": file_name[:200],
    }


def from_facts(stored: dict) -> ChatTemplate:
    return ChatTemplate(
        stored["template"], stored.get("bos_token"), stored.get("eos_token"), tuple(stored.get("others", {}).items())
    )


def describe(template: ChatTemplate) -> dict:
    """What GET /api/tokenizers/{name} tells of a tokenizer's chat template: the template itself."""
    return {
        "template": template.source,
        "bos_token": template.bos_token,
        "eos_token": template.eos_token,
        "other_templates": [name for name, _ in template.others],
    }
