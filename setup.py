"""Builds the C extensions (the BPE merge loops, the exact encoder of the tiktoken-style tokenizers
with its pretokenizer, and the token inspector's merge parents of tiktoken-style ranks); everything
else is in pyproject.toml."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("app.bpe._core", ["app/bpe/_core.c"], depends=["app/bpe/merge.h"], extra_compile_args=["-O2"]),
        Extension(
            "app.bpe._engine",
            ["app/bpe/_engine.c", "app/bpe/pretokenize.c"],
            depends=["app/bpe/merge.h", "app/bpe/pretokenize.h", "app/bpe/token_lookup.h", "app/bpe/chunk_cache.h"],
            extra_compile_args=["-O2"],
        ),
        Extension("app.inspect._parents", ["app/inspect/_parents.c"], extra_compile_args=["-O2"]),
    ]
)
