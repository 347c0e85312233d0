"""Chat prompts as the model sees them: messages (and tools) -> the ids a model is given,
as a `Rendered` prompt in parts (app/chat/rendered.py), in the tokenizer's chat format.

`render` checks what every format shares (app/chat/tools.py: tools, calls and results),
the format and the roles, then hands the chat to the format; `formats_for` / `formats_of`
say which formats a tokenizer has (its default first).

Formats (each exact against its reference library, tests/chat):
- `chatml` (cl100k_base, o200k_base), tiktokenizer's convention: per message
  `<|im_start|>` role[`:`name] `<|im_sep|>` content `<|im_end|>`, then
  `<|im_start|>assistant<|im_sep|>`. The three ids are those of OpenAI's chat models
  (100264-100266, 200264-200266); they are outside the plain encodings' vocabularies, so a
  part carries its own bytes. Its count equals OpenAI cookbook's rule (tests/api/test_chat.py);
  with tools, the counts OpenAI's API reported (app/chat/formats/chatml_format.py, its `note`).
- `harmony` (o200k_harmony, gpt-oss): `<|start|>` role[`:`name] `<|message|>` content
  `<|end|>` per message, then `<|start|>assistant`, as openai-harmony's
  `render_conversation_for_completion(conversation, Role.ASSISTANT)`, with function tools,
  calls and results; see app/chat/formats/harmony_format.py.

- `mistral` (mistral_v1, mistral_v3, mistral_tekken): `<s>[INST] user [/INST] assistant</s>`
  as mistral-common's `encode_chat_completion`, with its system-prompt placement, merging
  and validation per version; see app/chat/formats/mistral_format.py.
- `llama3` (llama3) and `llama4` (llama4): `<|begin_of_text|>`, then per message a header
  (`<|start_header_id|>` role `<|end_header_id|>` "\n\n", llama4's `<|header_start|>`...)
  content `<|eot_id|>` (`<|eot|>`), then the assistant's header, as llama-models'
  `ChatFormat.encode_dialog_prompt`; see app/chat/formats/llama_format.py.
- `template` (any tokenizer added with a chat template): the model's own Jinja template as
  transformers' `apply_chat_template` renders it; see app/chat/formats/template_format.py.

Content is always text: a special-token string typed in a message is ordinary tokens
(except in a template, as transformers reads it). Each format knows its `roles` and whether
it `takes_names` (chatml and harmony write role:name; mistral and llama refuse a name),
which the pages' chat editor offers. Tools: chatml (the counts OpenAI's API reports),
harmony and mistral (v3, tekken) render them; llama and mistral_v1 refuse them.
Left out: channels other than commentary, images.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.chat.formats.chatml_format import CHATML
from app.chat.formats.harmony_format import HARMONY
from app.chat.formats.llama_format import LLAMA3, LLAMA4
from app.chat.formats.mistral_format import MISTRAL
from app.chat.formats.template_format import TemplateFormat
from app.chat.messages import ChatMessage, Tool
from app.chat.rendered import Part, Rendered
from app.chat.tools import check_tool_chat
from app.errors import InvalidInput, excerpt
from app.tokenizers.base import Tokenizer

__all__ = ["DEFAULT_FORMAT", "FORMATS", "Part", "Rendered", "format_note", "formats_for", "formats_of", "render"]


FORMATS = {f.name: f for f in (CHATML, HARMONY, MISTRAL, LLAMA3, LLAMA4, TemplateFormat())}
DEFAULT_FORMAT = {
    "cl100k_base": "chatml",
    "o200k_base": "chatml",
    "o200k_harmony": "harmony",
    "mistral_v1": "mistral",
    "mistral_v3": "mistral",
    "mistral_tekken": "mistral",
    "llama3": "llama3",
    "llama4": "llama4",
}
WHICH_CHAT = f"{', '.join(DEFAULT_FORMAT)} and tokenizers added with a chat template"


def formats_for(tokenizer_name: str, has_template: bool = False) -> list[str]:
    """The chat formats of a tokenizer, its default first; `template` when it came with a chat
    template (`Registry.has_chat_template` tells by name, `formats_of` for a built tokenizer)."""
    names = [name for name, f in FORMATS.items() if tokenizer_name in f.ids]
    names.sort(key=lambda name: name != DEFAULT_FORMAT.get(tokenizer_name))
    return [*names, "template"] if has_template else names


def format_note(rendered: Rendered) -> str | None:
    """What a chat's format says of its counts (chatml: they follow the API's reported counts), or None."""
    return getattr(FORMATS[rendered.format], "note", None)


def formats_of(tokenizer: Tokenizer) -> list[str]:
    return formats_for(tokenizer.name, tokenizer.chat_template is not None)


def render(
    tokenizer: Tokenizer, messages: Sequence[ChatMessage], format_name: str | None = None, tools: Sequence[Tool] = ()
) -> Rendered:
    """The prompt `messages` (and `tools`, the functions offered) make for `tokenizer` in
    `format_name` (default: the tokenizer's own); an `InvalidInput` names the formats and
    roles allowed when these are not, names a bad tool or call, or says the format has no tools."""
    allowed = formats_of(tokenizer)
    if not allowed:
        raise InvalidInput(f"{tokenizer.name} has no chat format here; chat prompts work with {WHICH_CHAT}")
    name = format_name or allowed[0]
    if name not in allowed:
        raise InvalidInput(
            f"format {excerpt(name)} does not fit {tokenizer.name}; use {' or '.join(map(repr, allowed))}"
        )
    chat_format = FORMATS[name]
    if not messages:
        raise InvalidInput('messages is empty; send at least one message like {"role": "user", "content": "hi"}')
    any_role = getattr(chat_format, "any_role", False)  # a template decides itself which roles it takes
    for position, message in enumerate(messages):
        if any_role and not message.role.strip():
            raise InvalidInput(f"message {position} has an empty role; give one such as {', '.join(chat_format.roles)}")
        if message.role not in chat_format.roles and not any_role:
            raise InvalidInput(
                f"message {position} has role {excerpt(message.role)}, which {name} does not know; "
                f"use one of {', '.join(chat_format.roles)}"
            )
    check_tool_chat(messages, tools)  # the checks every format relies on (app/chat/tools.py)
    return chat_format.render(tokenizer, messages, tools)
