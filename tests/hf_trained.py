"""Hugging Face tokenizers trained here from standard-library sources (nothing downloaded), for
the tests of the huggingface backend and of uploads: a byte-level BPE, a BERT-style WordPiece
(lowercase, strip accents), a Unigram with NFKC and Metaspace, and a Llama-style BPE with byte
fallback. Each is small (700 tokens) and trains in well under a second."""

from __future__ import annotations

import json
from functools import cache

from tests.reference import stdlib_texts
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

SPECIALS = ["<|endoftext|>", "[CLS]", "[SEP]"]
KINDS_TRAINED = ["byte_level", "wordpiece", "unigram", "llama"]


@cache
def trained_json(kind: str) -> str:
    """The tokenizer.json text of the `kind` tokenizer (cached: training is deterministic)."""
    return train(kind).to_str()


def train(kind: str) -> Tokenizer:
    corpus = [text for _, text in stdlib_texts(count=8, max_chars=12_000)]
    if kind == "byte_level":
        library = Tokenizer(models.BPE())
        library.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        library.decoder = decoders.ByteLevel()
        trainer = trainers.BpeTrainer(
            vocab_size=700, special_tokens=SPECIALS, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
        )
    elif kind == "wordpiece":
        library = Tokenizer(models.WordPiece(unk_token="[UNK]"))
        library.normalizer = normalizers.BertNormalizer(lowercase=True, strip_accents=True)
        library.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        library.decoder = decoders.WordPiece()
        trainer = trainers.WordPieceTrainer(vocab_size=700, special_tokens=["[UNK]", *SPECIALS])
    elif kind == "unigram":
        library = Tokenizer(models.Unigram())
        library.normalizer = normalizers.NFKC()
        library.pre_tokenizer = pre_tokenizers.Metaspace()
        library.decoder = decoders.Metaspace()
        trainer = trainers.UnigramTrainer(vocab_size=700, special_tokens=["<unk>", *SPECIALS], unk_token="<unk>")
    else:  # Llama 2's tokenizer.json recipe: prepend ▁, spaces as ▁, <0xNN> pieces in the vocabulary
        library = Tokenizer(models.BPE(byte_fallback=True))
        library.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
        library.decoder = decoders.Sequence(
            [decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(), decoders.Strip(" ", 1, 0)]
        )
        trainer = trainers.BpeTrainer(vocab_size=700, special_tokens=["<unk>", *SPECIALS])
    library.train_from_iterator(corpus, trainer)
    if kind == "llama":
        config = json.loads(library.to_str())
        vocab = config["model"]["vocab"]
        vocab.update({f"<0x{byte:02X}>": len(vocab) + byte for byte in range(256)})
        library = Tokenizer.from_str(json.dumps(config))
    return library
