"""Builds the C extensions (the BPE merge loops, the exact encoder of the tiktoken-style tokenizers
with its Unicode pretokenizer, the token inspector's merge parents of tiktoken-style ranks, the
pretokenizer's test binding, the training's chunk counting, and NFC where it can change);
everything else is in pyproject.toml.

The pretokenizer's Unicode class tables are generated first, from tiktoken's own regex classes
and from the `regex` module's (app/bpe/unicode_classes.py), into build/generated/: extensions
that compile app/bpe/csrc/split/pretokenize.c (or pretokenize_regex.c) take it in their
`include_dirs`. So does app/backends/_nfc.c, for the table of NFC's boundaries
(app/backends/nfc_tables.py)."""

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
C = "app/bpe/csrc"  # the C of our BPE, by concern: engine/, split/ (the pretokenizer), train/; merge.h shared
C_DIRS = [GENERATED, C, f"{C}/engine", f"{C}/split", f"{C}/train"]  # every header is included by its bare name
PRETOKENIZE = {
    "include_dirs": C_DIRS,
    "depends": [
        f"{C}/split/pretokenize.h",
        f"{C}/split/pretokenize.c",
        f"{C}/split/pretokenize_deepseek.c",
        f"{C}/split/spans.h",
        f"{C}/split/split_blocks.h",
        f"{C}/split/split_blocks_deepseek.h",
        f"{C}/train/chunk_map.h",
        "app/bpe/unicode_classes.py",
    ],
}
ENGINE_HEADERS = [
    f"{C}/engine/{name}"
    for name in (
        "merge_tables.h",
        "stop_strings.h",
        "token_lookup.h",
        "char_atoms.h",
        "table_memory.h",
        "chunk_cache.h",
        "token_memo.h",
        "engine_encode.h",
        "engine_batch.h",
        "utf8_write.h",
        "id_ints.h",
    )
] + [f"{C}/merge.h", f"{C}/split/run_cuts.h"]

setup(
    ext_modules=[
        Extension(
            "app.bpe._core",
            [f"{C}/train/_core.c"],
            include_dirs=C_DIRS,
            depends=[f"{C}/merge.h", f"{C}/train/merger.h", f"{C}/train/train_state.h"],
            extra_compile_args=["-O2"],
        ),
        Extension(
            "app.bpe._engine",
            [f"{C}/engine/_engine.c", f"{C}/split/pretokenize.c", f"{C}/split/pretokenize_deepseek.c"],
            extra_compile_args=["-O3"],
            include_dirs=C_DIRS,
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
                f"{C}/split/_pretokenize_check.c",
                f"{C}/split/pretokenize.c",
                f"{C}/split/pretokenize_deepseek.c",
                f"{C}/split/pretokenize_regex.c",
            ],
            extra_compile_args=["-O2"],
            **PRETOKENIZE,
        ),
        Extension(
            "app.bpe._chunk_count",
            [f"{C}/train/_chunk_count.c", f"{C}/split/pretokenize_regex.c"],
            extra_compile_args=["-O2", "-pthread"],
            extra_link_args=["-pthread"],
            **PRETOKENIZE,
        ),
    ]
)
