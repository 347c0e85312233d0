"""Builds the C extensions (the BPE merge loops, the exact encoder of the tiktoken-style tokenizers
with its Unicode pretokenizer, the token inspector's merge parents of tiktoken-style ranks, and the
pretokenizer's test binding); everything else is in pyproject.toml.

The pretokenizer's Unicode class table is generated first, from tiktoken's own regex classes
(app/bpe/unicode_classes.py), into build/generated/: extensions that compile
app/bpe/pretokenize.c take `include_dirs=[GENERATED]`."""

import runpy
from pathlib import Path

from setuptools import Extension, setup

HERE = Path(__file__).resolve().parent
GENERATED = "build/generated"
runpy.run_path(str(HERE / "app/bpe/unicode_classes.py"))["write_header"](HERE / GENERATED / "pretokenize_classes.h")
PRETOKENIZE = {"include_dirs": [GENERATED], "depends": ["app/bpe/pretokenize.h", "app/bpe/unicode_classes.py"]}
ENGINE_HEADERS = ["app/bpe/merge.h", "app/bpe/token_lookup.h", "app/bpe/chunk_cache.h"]

setup(
    ext_modules=[
        Extension("app.bpe._core", ["app/bpe/_core.c"], depends=["app/bpe/merge.h"], extra_compile_args=["-O2"]),
        Extension(
            "app.bpe._engine",
            ["app/bpe/_engine.c", "app/bpe/pretokenize.c"],
            extra_compile_args=["-O2"],
            include_dirs=[GENERATED],
            depends=PRETOKENIZE["depends"] + ENGINE_HEADERS,
        ),
        Extension("app.inspect._parents", ["app/inspect/_parents.c"], extra_compile_args=["-O2"]),
        Extension(
            "app.bpe._pretokenize_check",
            ["app/bpe/_pretokenize_check.c", "app/bpe/pretokenize.c"],
            extra_compile_args=["-O2"],
            **PRETOKENIZE,
        ),
    ]
)
