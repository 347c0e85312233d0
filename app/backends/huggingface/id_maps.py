"""Each id's string and bytes in a Hugging Face tokenizer: what the backend's `piece`,
`id_to_bytes`, `has_id` and `token_bytes` read, and the highest id.

The backend builds the maps on first use, not with the tokenizer: counting and encoding
never read them, and for deepseek_v4's 129,280 ids they took ~0.5 s of its ~1.9 s build (the
library's whole vocabulary as a dict, then one `id_to_token` call and one byte conversion an
id), which every `tokenprism count -t deepseek_v4` paid. The highest id (the vocabulary's
size, which the registry's memory budget reads at once) is its own, cheaper call.

An id's string is the library's `id_to_token` (an added token's content before the model's
entry); its own bytes are `pieces.own_bytes_function`'s for a vocabulary entry and the UTF-8 of
an added token's content; with ByteLevel as the only decoder, a sequence of ids decodes each
through the byte-level table as the library does, added tokens too.

Left out: ids the library names no string for (holes in the numbering): not in the maps.
"""

from __future__ import annotations

from dataclasses import dataclass

import tokenizers
from app.backends.huggingface.pieces import own_bytes_function, unbyte


@dataclass(frozen=True)
class IdMaps:
    strings: dict[int, str]  # id -> the library's string
    own: dict[int, bytes]  # id -> the bytes it stands for on its own
    in_sequence: dict[int, bytes]  # with ByteLevel as the only decoder: each id's bytes in a sequence


def highest_id(library: tokenizers.Tokenizer) -> int:
    """The highest id of the library's vocabulary and added tokens, -1 when it has none."""
    return max(library.get_vocab(with_added_tokens=True).values(), default=-1)


def id_maps(library: tokenizers.Tokenizer, decoders: list[dict], byte_level_only: bool) -> IdMaps:
    added = library.get_added_tokens_decoder()  # id -> AddedToken
    ids = sorted(set(library.get_vocab(with_added_tokens=True).values()))
    strings = {i: s for i in ids if (s := library.id_to_token(i)) is not None}
    own = own_bytes_function(library, decoders)
    own_bytes = {i: s.encode("utf-8") if i in added else own(s) for i, s in strings.items()}
    in_sequence = own_bytes
    if byte_level_only and any(unbyte(added[i].content) != own_bytes[i] for i in added):
        in_sequence = {i: unbyte(s) for i, s in strings.items()}  # as the library decodes
    return IdMaps(strings, own_bytes, in_sequence)
