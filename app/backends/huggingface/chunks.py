"""The chunks of a Hugging Face tokenizer.json: what its pre-tokenizer cuts a text into.

As the library encodes: the added tokens it matched in the text are chunks of their own;
each stretch between them goes through the file's normalizer, then its pre-tokenizer
(`PreTokenizedString`, the object `pre_tokenize_str` works on), and each split is mapped
back to characters of the text the user typed (offsets into the original, in characters).
With no normalizer this equals `pre_tokenizer.pre_tokenize_str` of the stretch; with no
pre-tokenizer the stretch is one chunk. Left out: characters the pre-tokenizer drops
(BERT's spaces) or the normalizer removes are in no chunk, so the chunks may leave gaps.
"""

from __future__ import annotations

import tokenizers

Chunk = tuple[int, int]


def chunks(
    library: tokenizers.Tokenizer, text: str, encoding: tokenizers.Encoding, added: dict[int, str]
) -> list[Chunk]:
    """The chunks of `text`, whose `encoding` by `library` holds the added tokens (id -> string) it matched:
    those whose string is in the text where the token is (an unknown token, `<unk>`, is not)."""
    found: list[Chunk] = []
    position = 0
    for token_id, (start, end) in zip(encoding.ids, encoding.offsets, strict=True):
        if token_id in added and start >= position and added[token_id] in text[start:end]:
            found += _stretch(library, text, position, start)
            found.append((start, end))
            position = end
    return found + _stretch(library, text, position, len(text))


def _stretch(library: tokenizers.Tokenizer, text: str, start: int, end: int) -> list[Chunk]:
    if start >= end:
        return []
    split = tokenizers.PreTokenizedString(text[start:end])
    if library.normalizer is not None:
        split.normalize(library.normalizer.normalize)
    if library.pre_tokenizer is not None:
        library.pre_tokenizer.pre_tokenize(split)
    spans = split.get_splits(offset_referential="original", offset_type="char")
    return [(start + low, start + high) for _, (low, high), _ in spans if low < high]
