"""Builds the one C extension (the BPE merge loops, training and encoding); everything else is in pyproject.toml."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("app.bpe._core", ["app/bpe/_core.c"], extra_compile_args=["-O2"])])
