"""The recipe for the shipped model tokenizers/tokenprism_4k.bpe, as one command.

    python -m app.bpe.default_model           # rebuild it and print its sha256
    python -m app.bpe.default_model --check   # rebuild to a temp file, compare

The corpus is a fixed, sorted list of Python standard library files (prose-heavy
pydoc topics and license text, plus code from argparse to unittest), each file one
document, read from this interpreter's stdlib. Its sha256 is pinned: on another Python
version the corpus differs and the model would too, which the recipe says before
training. The sha256 of the model file belongs in tokenizers/MANIFEST.tsv. Left out:
downloading anything, and registering the model (see `builtins`).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from app.bpe.model import BPETokenizer
from app.settings import REPO_ROOT
from app.tokenizers.openai_encodings import ENDOFTEXT

NAME = "tokenprism_4k"
VOCAB_SIZE = 4096
PATTERN = "gpt4"
SPECIAL_TOKENS = (ENDOFTEXT,)
DESCRIPTION = "tokenprism's own byte-level BPE, 4,096 tokens, trained on Python 3.11 standard library sources"
MODEL_PATH = REPO_ROOT / "tokenizers" / f"{NAME}.bpe"
PYTHON_VERSION = "3.11.7"
CORPUS_SHA256 = "e6b067dce77488fe9cf42a1cb28a6c435f287901a9c236d53735b31d296b04a4"

CORPUS_FILES = sorted(
    [
        "LICENSE.txt",
        "argparse.py",
        "dataclasses.py",
        "enum.py",
        "functools.py",
        "inspect.py",
        "pathlib.py",
        "pydoc_data/topics.py",
        "subprocess.py",
        "textwrap.py",
        "typing.py",
        "json/__init__.py",
        "json/decoder.py",
        "json/encoder.py",
        "json/scanner.py",
        "json/tool.py",
        "email/_encoded_words.py",
        "email/_header_value_parser.py",
        "email/_parseaddr.py",
        "email/_policybase.py",
        "email/charset.py",
        "email/contentmanager.py",
        "email/feedparser.py",
        "email/generator.py",
        "email/header.py",
        "email/headerregistry.py",
        "email/message.py",
        "email/parser.py",
        "email/policy.py",
        "email/quoprimime.py",
        "email/utils.py",
        "logging/__init__.py",
        "logging/config.py",
        "logging/handlers.py",
        "unittest/async_case.py",
        "unittest/case.py",
        "unittest/loader.py",
        "unittest/main.py",
        "unittest/mock.py",
        "unittest/result.py",
        "unittest/runner.py",
        "unittest/suite.py",
    ]
)  # paths relative to sysconfig.get_paths()["stdlib"]


def corpus(stdlib: Path | None = None) -> list[str]:
    """The training documents: each corpus file's text, in CORPUS_FILES order."""
    root = stdlib or Path(sysconfig.get_paths()["stdlib"])
    return [(root / name).read_text(encoding="utf-8") for name in CORPUS_FILES]


def corpus_sha256(documents: list[str]) -> str:
    digest = hashlib.sha256()
    for name, text in zip(CORPUS_FILES, documents, strict=True):
        data = text.encode("utf-8")
        digest.update(f"{name}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def train(documents: list[str]) -> BPETokenizer:
    return BPETokenizer.train(
        documents, VOCAB_SIZE, pattern=PATTERN, special_tokens=SPECIAL_TOKENS, name=NAME, description=DESCRIPTION
    )


def build(path: Path) -> str:
    """Train on the pinned corpus, save to `path` (plus a .vocab listing beside it), and
    return the model file's sha256."""
    documents = corpus()
    found = corpus_sha256(documents)
    if found != CORPUS_SHA256:
        print(
            f"warning: the corpus from this Python's standard library has sha256 {found}, not {CORPUS_SHA256}; "
            f"this Python ({sys.version.split()[0]}) differs from {PYTHON_VERSION}, so the model will differ "
            "from the shipped one",
            file=sys.stderr,
        )
    started = time.perf_counter()
    tokenizer = train(documents)
    seconds = time.perf_counter() - started
    tokenizer.save(path)
    path.with_suffix(".vocab").write_text(tokenizer.vocab_text(), encoding="utf-8")
    print(f"trained {NAME} on {sum(map(len, documents)):,} characters in {seconds:.2f} s")
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.bpe.default_model", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--check", action="store_true", help="rebuild into a temp file and compare with the shipped one"
    )
    args = parser.parse_args(argv)
    if not args.check:
        sha256 = build(MODEL_PATH)
        print(f"wrote {MODEL_PATH}\nsha256 {sha256}  (put it in tokenizers/MANIFEST.tsv)")
        return 0
    with tempfile.TemporaryDirectory() as directory:
        rebuilt = Path(directory) / MODEL_PATH.name
        sha256 = build(rebuilt)
        same = MODEL_PATH.is_file() and rebuilt.read_bytes() == MODEL_PATH.read_bytes()
    if same:
        print(f"ok: {MODEL_PATH} is reproduced byte for byte (sha256 {sha256})")
        return 0
    print(f"MISMATCH: the rebuilt model (sha256 {sha256}) differs from {MODEL_PATH}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
