"""The tokenizers tokenprism ships, registered with their facts and built on first use.

gpt2 (alias r50k_base), cl100k_base, o200k_base and o200k_harmony through tiktoken;
mistral_v1 and mistral_v3 through SentencePiece; tokenprism_4k, our own BPE; then
mistral_tekken (Mistral's tiktoken-style Tekken), qwen3_6 (tiktoken on NFC text) and
deepseek_v4 (a Hugging Face tokenizer.json); llama3 and llama4 (Meta's tiktoken-style
vocabularies, see app/backends/llama_backend.py). The five older ones come first, so the default comparison (the first `max_compare` built-ins)
keeps its columns. Every file is read through `files.read_verified`, so a damaged file
fails with its name and checksum.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from app.tokenizers.entry import Entry
from app.tokenizers.openai_encodings import OPENAI_ENCODINGS
from app.tokenizers.storage.files import load_tiktoken_ranks, read_verified

MISTRAL_FILE = "mistral-7b-v0.1.model"
MISTRAL_V3_FILE = "mistral-7b-v0.3.model"
TEKKEN_FILE = "tekken_240911.json.gz"
OWN_BPE_NAME = "tokenprism_4k"
OWN_BPE_FILE = "tokenprism_4k.bpe"

_VOCAB_SIZES = {"gpt2": 50257, "cl100k_base": 100277, "o200k_base": 200019, "o200k_harmony": 201088}
MISTRAL_V1_DESCRIPTION = "Mistral 7B v0.1 (SentencePiece BPE with byte fallback, the Llama 2 recipe), 32,000 pieces"
MISTRAL_V3_DESCRIPTION = (
    "Mistral 7B v0.3, Mixtral 8x22B, Codestral 22B, Mistral Large 2 (SentencePiece BPE with byte fallback, "
    "v3 control tokens), 32,768 pieces"
)
TEKKEN_DESCRIPTION = (
    "Mistral NeMo, Pixtral 12B, Ministral 8B (Tekken: tiktoken-style BPE, 131,072 ids, the first 1,000 special)"
)
DEEPSEEK_V4_FILE = "deepseek_v4.tokenizer.json.gz"
DEEPSEEK_V4_DESCRIPTION = (
    "DeepSeek V4 (DeepSeek-V4-Pro, DeepSeek-V4-Flash): byte-level BPE from its tokenizer.json, 129,280 ids"
)
LLAMA_FILES = {"llama3": "llama3.tiktoken", "llama4": "llama4.tiktoken"}  # copied by `make setup` (package_files.py)
LLAMA_DESCRIPTIONS = {"llama3": "Llama 3, 3.1, 3.2, 3.3 (Meta)", "llama4": "Llama 4 Scout and Maverick (Meta)"}
QWEN3_6_FILE = "qwen3_6.tiktoken.gz"
QWEN3_6_DESCRIPTION = (
    "Qwen 3.5 / 3.6 (Qwen3.6-27B, Qwen3.6-35B-A3B, Qwen3.5-27B...): byte-level BPE on NFC-normalized text, 248,077 ids"
)


def builtin_entries(tokenizer_dir: Path) -> list[tuple[Entry, tuple[str, ...]]]:
    """The built-ins in their listing order, each with its aliases; none is built yet."""
    return [
        *(_openai(name, tokenizer_dir) for name in ("gpt2", "cl100k_base", "o200k_base")),
        (
            Entry(
                "mistral_v1",
                "sentencepiece",
                32000,
                MISTRAL_V1_DESCRIPTION,
                lambda: _sentencepiece("mistral_v1", MISTRAL_V1_DESCRIPTION, MISTRAL_FILE, tokenizer_dir),
            ),
            (),
        ),
        (
            Entry(
                OWN_BPE_NAME,
                "bpe",
                4096,
                "tokenprism's own byte-level BPE, 4,096 tokens, trained on Python 3.11 standard library sources",
                lambda: _own_bpe(tokenizer_dir),
            ),
            (),
        ),
        _openai("o200k_harmony", tokenizer_dir),
        (
            Entry(
                "mistral_v3",
                "sentencepiece",
                32768,
                MISTRAL_V3_DESCRIPTION,
                lambda: _sentencepiece("mistral_v3", MISTRAL_V3_DESCRIPTION, MISTRAL_V3_FILE, tokenizer_dir),
            ),
            (),
        ),
        (Entry("mistral_tekken", "tiktoken", 131072, TEKKEN_DESCRIPTION, lambda: _tekken(tokenizer_dir)), ()),
        (Entry("qwen3_6", "tiktoken", 248077, QWEN3_6_DESCRIPTION, lambda: _qwen(tokenizer_dir)), ()),
        (Entry("deepseek_v4", "huggingface", 129280, DEEPSEEK_V4_DESCRIPTION, lambda: _deepseek(tokenizer_dir)), ()),
        *(
            (
                Entry(
                    name,
                    "tiktoken",
                    vocab_size,
                    LLAMA_DESCRIPTIONS[name],
                    partial(_llama, name, tokenizer_dir),
                ),
                (),
            )
            for name, vocab_size in (("llama3", 128256), ("llama4", 202048))
        ),
    ]


def register_builtins(registry, tokenizer_dir: Path) -> None:
    """Register the built-ins in `registry` (anything with `register(entry, aliases)`, a Registry)."""
    for entry, aliases in builtin_entries(tokenizer_dir):
        registry.register(entry, aliases)


def _openai(name: str, tokenizer_dir: Path) -> tuple[Entry, tuple[str, ...]]:
    spec = OPENAI_ENCODINGS[name]
    entry = Entry(name, "tiktoken", _VOCAB_SIZES[name], spec.description, _tiktoken_factory(spec, tokenizer_dir))
    return entry, ("r50k_base",) if name == "gpt2" else ()


def _tiktoken_factory(spec, tokenizer_dir: Path):
    def build():
        from app.backends.tiktoken_backend import TiktokenTokenizer

        return TiktokenTokenizer(spec, load_tiktoken_ranks(spec.file, tokenizer_dir))

    return build


def _sentencepiece(name: str, description: str, file: str, tokenizer_dir: Path):
    from app.backends.sentencepiece_backend import SentencePieceTokenizer

    return SentencePieceTokenizer(name, description, read_verified(file, tokenizer_dir))


def _tekken(tokenizer_dir: Path):
    from app.backends.tekken_backend import TekkenTokenizer

    return TekkenTokenizer("mistral_tekken", TEKKEN_DESCRIPTION, read_verified(TEKKEN_FILE, tokenizer_dir), TEKKEN_FILE)


def _qwen(tokenizer_dir: Path):
    from app.backends.qwen_backend import QWEN3_5_PATTERN, QWEN3_5_SPECIALS, QwenTokenizer
    from app.tokenizers.openai_encodings import OpenAIEncoding

    spec = OpenAIEncoding("qwen3_6", QWEN3_6_FILE, QWEN3_5_PATTERN, QWEN3_5_SPECIALS, QWEN3_6_DESCRIPTION)
    return QwenTokenizer(spec, load_tiktoken_ranks(QWEN3_6_FILE, tokenizer_dir))


def _llama(name: str, tokenizer_dir: Path):
    from app.backends.llama_backend import LLAMA3_PATTERN, LLAMA3_SPECIALS, LLAMA4_SPECIALS, LlamaTokenizer
    from app.tokenizers.openai_encodings import O200K_PATTERN, OpenAIEncoding

    pattern, specials = (LLAMA3_PATTERN, LLAMA3_SPECIALS) if name == "llama3" else (O200K_PATTERN, LLAMA4_SPECIALS)
    spec = OpenAIEncoding(name, LLAMA_FILES[name], pattern, specials, LLAMA_DESCRIPTIONS[name])
    return LlamaTokenizer(spec, load_tiktoken_ranks(LLAMA_FILES[name], tokenizer_dir))


def _deepseek(tokenizer_dir: Path):
    from app.backends.huggingface.backend import HuggingFaceTokenizer

    return HuggingFaceTokenizer("deepseek_v4", DEEPSEEK_V4_DESCRIPTION, read_verified(DEEPSEEK_V4_FILE, tokenizer_dir))


def _own_bpe(tokenizer_dir: Path):
    from app.bpe.model import BPETokenizer

    return BPETokenizer.loads(read_verified(OWN_BPE_FILE, tokenizer_dir), OWN_BPE_FILE)
