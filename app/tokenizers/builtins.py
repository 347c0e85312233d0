"""The five tokenizers tokenprism ships, registered with their facts and built on first use.

gpt2 (alias r50k_base), cl100k_base and o200k_base through tiktoken; mistral_v1 through
SentencePiece; tokenprism_4k, our own BPE. Every file is read through
`files.read_verified`, so a damaged file fails with its name and checksum.
"""

from __future__ import annotations

from pathlib import Path

from app.tokenizers.files import load_tiktoken_ranks, read_verified
from app.tokenizers.openai_encodings import OPENAI_ENCODINGS
from app.tokenizers.registry import Entry, Registry

MISTRAL_FILE = "mistral-7b-v0.1.model"
OWN_BPE_NAME = "tokenprism_4k"
OWN_BPE_FILE = "tokenprism_4k.bpe"

_VOCAB_SIZES = {"gpt2": 50257, "cl100k_base": 100277, "o200k_base": 200019}


def register_builtins(registry: Registry, tokenizer_dir: Path) -> None:
    for name, spec in OPENAI_ENCODINGS.items():
        registry.register(
            Entry(name, "tiktoken", _VOCAB_SIZES[name], spec.description, _tiktoken_factory(spec, tokenizer_dir)),
            aliases=("r50k_base",) if name == "gpt2" else (),
        )
    registry.register(
        Entry(
            "mistral_v1",
            "sentencepiece",
            32000,
            "Mistral 7B v0.1 (SentencePiece BPE with byte fallback, the Llama 2 recipe), 32,000 pieces",
            lambda: _sentencepiece(tokenizer_dir),
        )
    )
    registry.register(
        Entry(
            OWN_BPE_NAME,
            "bpe",
            4096,
            "tokenprism's own byte-level BPE, 4,096 tokens, trained on Python 3.11 standard library sources",
            lambda: _own_bpe(tokenizer_dir),
        )
    )


def _tiktoken_factory(spec, tokenizer_dir: Path):
    def build():
        from app.tokenizers.tiktoken_backend import TiktokenTokenizer

        return TiktokenTokenizer(spec, load_tiktoken_ranks(spec.file, tokenizer_dir))

    return build


def _sentencepiece(tokenizer_dir: Path):
    from app.tokenizers.sentencepiece_backend import SentencePieceTokenizer

    return SentencePieceTokenizer(
        "mistral_v1",
        "Mistral 7B v0.1 (SentencePiece BPE with byte fallback, the Llama 2 recipe), 32,000 pieces",
        read_verified(MISTRAL_FILE, tokenizer_dir),
    )


def _own_bpe(tokenizer_dir: Path):
    from app.bpe.model import BPETokenizer

    return BPETokenizer.loads(read_verified(OWN_BPE_FILE, tokenizer_dir), OWN_BPE_FILE)
