"""The fewest-tokens plan (app/tokenizers/lecture/shortest.py) of a Hugging Face tokenizer.json.

Only a byte-level BPE file applies: its model is BPE with no continuing-subword prefix or
end-of-word suffix, and its pre-tokenizer includes ByteLevel, so every vocabulary entry
stands for bytes and the 256 bytes spell anything. Chunks are the pre-tokenizer's own
(`pre_tokenize_str`, by their character offsets); added tokens stay where the library's
own encoding puts them. A normalizer that changes the text is refused (the pieces would
no longer be the user's text). Left out: Metaspace/byte-fallback BPE files (Llama 2 style).
"""

from __future__ import annotations

import json

from app.errors import InvalidInput
from app.tokenizers.lecture.shortest_plan import APPLIES_TO, Plan, vocabulary


def hf_plan(tokenizer) -> Plan:
    library = tokenizer.library  # the backend's tokenizers.Tokenizer, special-token strings as text
    model = json.loads(library.model.__getstate__())
    steps = _pre_tokenizer_steps(library)
    if (
        model.get("type") != "BPE"
        or "ByteLevel" not in steps
        or model.get("continuing_subword_prefix")
        or model.get("end_of_word_suffix")
    ):
        raise InvalidInput(
            f"fewest tokens applies to {APPLIES_TO}; {tokenizer.name}'s tokenizer.json is a "
            f"{model.get('type')} model with pre-tokenizer {', '.join(steps) or 'none'}, not byte-level BPE; "
            "choose another tokenizer",
            code="shortest_not_applicable",
        )
    from app.backends.huggingface.backend import unbyte  # the library loads only when a file needs it

    tokens: dict[bytes, int] = {}
    for string, token_id in library.get_vocab(with_added_tokens=False).items():
        token = unbyte(string)
        tokens[token] = min(token_id, tokens.get(token, token_id))
    normalizer, pre_tokenizer = library.normalizer, library.pre_tokenizer

    def split(text: str) -> list[str]:
        if normalizer is not None and normalizer.normalize_str(text) != text:
            raise InvalidInput(
                f"{tokenizer.name}'s normalizer changes this text, so its fewest-token encoding "
                "would not spell what you typed; use another tokenizer"
            )
        return [text[start:end] for _, (start, end) in pre_tokenizer.pre_tokenize_str(text)]

    added = frozenset(library.get_added_tokens_decoder())
    return Plan(vocabulary(tokens), split, added)


def _pre_tokenizer_steps(library) -> list[str]:
    def flat(config: dict) -> list[str]:
        if config.get("type") == "Sequence":
            return [name for step in config["pretokenizers"] for name in flat(step)]
        return [config.get("type", "")]

    component = library.pre_tokenizer
    return [] if component is None else flat(json.loads(component.__getstate__()))
