"""Builds the C extensions (the BPE merge loops, the ASCII split patterns, and the token inspector's
merge parents of tiktoken-style ranks); everything else is in pyproject.toml."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("app.bpe._core", ["app/bpe/_core.c"], extra_compile_args=["-O2"]),
        Extension("app.bpe._ascii_split", ["app/bpe/_ascii_split.c"], extra_compile_args=["-O2"]),
        Extension("app.inspect._parents", ["app/inspect/_parents.c"], extra_compile_args=["-O2"]),
    ]
)
