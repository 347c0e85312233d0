"""Builds the C extensions (the BPE merge loops, the exact encoder of the tiktoken-style tokenizers
with its Unicode pretokenizer, the token inspector's merge parents of tiktoken-style ranks, the
pretokenizer's test binding, the training's chunk counting, and NFC where it can change);
everything else is in pyproject.toml.

The pretokenizer's Unicode class tables are generated first, from tiktoken's own regex classes
and from the `regex` module's (app/bpe/unicode_classes.py), into build/generated/: extensions
that compile app/bpe/pretokenize.c (or pretokenize_regex.c) take `include_dirs=[GENERATED]`. So
does app/backends/_nfc.c, for the table of NFC's boundaries (app/backends/nfc_tables.py)."""

import runpy
from pathlib import Path

from setuptools import Extension, setup

HERE = Path(__file__).resolve().parent
GENERATED = "build/generated"
CLASSES = runpy.run_path(str(HERE / "app/bpe/unicode_classes.py"))
for source, header in CLASSES["SOURCES"].items():
    CLASSES["write_header"](HERE / GENERATED / header, source)
NFC = runpy.run_path(str(HERE / "app/backends/nfc_tables.py"))
CLASSES["write_if_changed"](HERE / GENERATED / "nfc_boundaries.h", NFC["header"](NFC["boundaries"]()))
PRETOKENIZE = {
    "include_dirs": [GENERATED],
    "depends": [
        "app/bpe/pretokenize.h",
        "app/bpe/pretokenize.c",
        "app/bpe/pretokenize_deepseek.c",
        "app/bpe/chunk_map.h",
        "app/bpe/split_blocks.h",
        "app/bpe/unicode_classes.py",
    ],
}
ENGINE_HEADERS = [
    "app/bpe/merge_tables.h",
    "app/bpe/stop_strings.h",
    "app/bpe/merge.h",
    "app/bpe/token_lookup.h",
    "app/bpe/char_atoms.h",
    "app/bpe/chunk_cache.h",
    "app/bpe/engine_encode.h",
    "app/bpe/engine_batch.h",
    "app/bpe/id_ints.h",
    "app/bpe/run_cuts.h",
]

setup(
    ext_modules=[
        Extension(
            "app.bpe._core",
            ["app/bpe/_core.c"],
            depends=["app/bpe/merge.h", "app/bpe/merger.h", "app/bpe/train_state.h"],
            extra_compile_args=["-O2"],
        ),
        Extension(
            "app.bpe._engine",
            ["app/bpe/_engine.c", "app/bpe/pretokenize.c", "app/bpe/pretokenize_deepseek.c"],
            extra_compile_args=["-O3"],
            include_dirs=[GENERATED],
            depends=PRETOKENIZE["depends"] + ENGINE_HEADERS,
        ),
        Extension("app.inspect._parents", ["app/inspect/_parents.c"], extra_compile_args=["-O2"]),
        Extension(
            "app.backends._nfc",
            ["app/backends/_nfc.c"],
            extra_compile_args=["-O2"],
            include_dirs=[GENERATED],
            depends=["app/backends/nfc_tables.py"],
        ),
        Extension(
            "app.bpe._pretokenize_check",
            [
                "app/bpe/_pretokenize_check.c",
                "app/bpe/pretokenize.c",
                "app/bpe/pretokenize_deepseek.c",
                "app/bpe/pretokenize_regex.c",
            ],
            extra_compile_args=["-O2"],
            **PRETOKENIZE,
        ),
        Extension(
            "app.bpe._chunk_count",
            ["app/bpe/_chunk_count.c", "app/bpe/pretokenize_regex.c"],
            extra_compile_args=["-O2", "-pthread"],
            extra_link_args=["-pthread"],
            **PRETOKENIZE,
        ),
    ]
)
