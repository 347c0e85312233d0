"""Build-time generator of the Unicode class tables the C pretokenizer (pretokenize.c) reads.

One class byte per code point (letter Lu/Ll/Lt/Lm/Lo, mark, number, newline \\r \\n, other
White_Space, other), as a two-stage table: the code point's high bits pick a block, blocks
that are equal are stored once. The table `pretok_next` reads is asked of tiktoken's own
regex engine (the one whose chunks the OpenAI encoders must reproduce), not of Python's
`unicodedata` or the `regex` module: both are on other Unicode versions and disagree with it
on thousands of code points (docs/decisions.md). A second table, which `pretok_next_regex`
reads, is asked of the `regex` module: tokenprism's own BPE splits with it, so its training
must count the `regex` module's chunks (SOURCES). setup.py runs `write_header` for both
before compiling; tests use `classes`.

Left out: the split patterns themselves (pretokenize.c) and case folding (the only
non-ASCII fold the contractions see, U+017F for 's', is written in pretokenize.c).
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

# The class numbers, as pretokenize.c names them (PT_OTHER ... PT_NEWLINE).
OTHER, LU, LL, LT, LM, LO, MARK, NUMBER, PUNCT, SPACE, NEWLINE = range(11)  # white space last: >= SPACE
NAMES = ("OTHER", "LU", "LL", "LT", "LM", "LO", "MARK", "NUMBER", "PUNCT", "SPACE", "NEWLINE")
# The pattern tiktoken is asked about, for each class that is not OTHER (NEWLINE is \r \n, set after).
PATTERNS = {LU: r"\p{Lu}", LL: r"\p{Ll}", LT: r"\p{Lt}", LM: r"\p{Lm}", LO: r"\p{Lo}", MARK: r"\p{M}"}
PATTERNS |= {NUMBER: r"\p{N}", SPACE: r"\s"}
# Punctuation and symbols, a class only in the Hugging Face library's table (DeepSeek's pattern
# names them; the OpenAI ones see them as OTHER).
EXTRA_PATTERNS = {"tokenizers": {PUNCT: r"[\p{P}\p{S}]"}}
LAST = 0x10FFFF
# Who is asked -> the generated header setup.py writes (in build/generated/).
SOURCES = {"tiktoken": "pretokenize_classes.h", "regex": "pretokenize_classes_regex.h"}
SOURCES |= {"tokenizers": "pretokenize_classes_onig.h"}  # the Hugging Face library's Oniguruma
_LIBRARY_SLICE = 1 << 14  # characters the Hugging Face library is asked about at once (members)
BLOCK_BITS = 8  # 256 code points a block: 141 distinct blocks, so a byte numbers them (~40 KB in all)


def code_points() -> list[int]:
    """Every code point a Python str of valid UTF-8 can hold (surrogates excluded)."""
    return [c for c in range(LAST + 1) if not 0xD800 <= c <= 0xDFFF]


@cache
def _every_character() -> str:
    return "".join(map(chr, code_points()))


def members(pattern: str, source: str = "tiktoken") -> set[int]:
    """The code points `source`'s regex engine matches with `pattern` (a one-character class).

    For tiktoken, an Encoding over the 256 single bytes encodes exactly the pattern's matches
    and drops the rest, so decoding the encoding of every code point gives the class."""
    text = _every_character()
    if source == "tokenizers":
        from tokenizers import Regex, pre_tokenizers  # the runtime library (pyproject.toml pins it for the build)

        split, found = pre_tokenizers.Split(Regex(pattern), behavior="removed"), set[int]()
        # A slice at a time: the library takes 4x as long over the whole 1.1M characters at once
        # (and a one-character class cannot match across a slice's edge).
        for first in range(0, len(text), _LIBRARY_SLICE):
            part = text[first : first + _LIBRARY_SLICE]
            kept = split.pre_tokenize_str(part)
            bounds = [0, *(at for _, span in kept for at in span), len(part)]  # character offsets
            found.update(ord(c) for start, end in zip(bounds[::2], bounds[1::2], strict=True) for c in part[start:end])
        return found
    if source == "regex":
        import regex  # a build requirement pinned in pyproject.toml, as tiktoken is

        return {ord(c) for c in regex.findall(pattern, text)}
    if source != "tiktoken":
        raise ValueError(f"no class source {source!r}; use one of: {', '.join(SOURCES)}")
    import tiktoken  # a build requirement (pyproject.toml); imported here so the module loads without it

    ranks = {bytes([b]): b for b in range(256)}
    enc = tiktoken.Encoding(f"class {pattern}", pat_str=pattern, mergeable_ranks=ranks, special_tokens={})
    return {ord(c) for c in enc.decode_bytes(enc.encode_ordinary(text)).decode("utf-8")}


def classes(source: str = "tiktoken") -> bytearray:
    """The class of every code point 0..U+10FFFF as `source` (SOURCES) has it, one byte each
    (surrogates are OTHER)."""
    table = bytearray(LAST + 1)
    for cls, pattern in (PATTERNS | EXTRA_PATTERNS.get(source, {})).items():
        for c in members(pattern, source):
            if table[c] != OTHER:
                raise ValueError(f"U+{c:04X} is in both {NAMES[table[c]]} and {NAMES[cls]}")
            table[c] = cls
    letters = members(r"\p{L}", source)
    if letters != {c for c in range(LAST + 1) if LU <= table[c] <= LO}:
        raise ValueError(r"\p{L} is not the union of Lu, Ll, Lt, Lm and Lo")
    table[ord("\r")] = table[ord("\n")] = NEWLINE
    return table


def two_stage(table: bytearray, bits: int = BLOCK_BITS) -> tuple[list[int], list[bytes]]:
    """(block number of each 2**bits code points, the distinct blocks)."""
    size = 1 << bits
    numbers: dict[bytes, int] = {}  # block -> its number, in order of first use
    index = [
        numbers.setdefault(bytes(table[start : start + size]), len(numbers)) for start in range(0, len(table), size)
    ]
    return index, list(numbers)


def header(table: bytearray, source: str = "tiktoken") -> str:
    """The C header: PT_BLOCK_BITS, pt_stage1 (a block number a byte) and pt_stage2 (the blocks)."""
    index, blocks = two_stage(table)
    if len(blocks) > 256:
        raise ValueError(f"{len(blocks)} distinct blocks do not fit the byte of pt_stage1")
    lines = [
        f"/* Generated by app/bpe/unicode_classes.py from {source}'s regex classes; do not edit. */",
        "#include <stdint.h>",
        f"#define PT_BLOCK_BITS {BLOCK_BITS}",
        f'#define PT_SOURCE_VERSION "{source_version(source)}"',
        *(f"#define PT_{name} {value}" for value, name in enumerate(NAMES)),
        f"static const uint8_t pt_stage1[{len(index)}] = {{",
        *(" " + ",".join(map(str, index[k : k + 32])) + "," for k in range(0, len(index), 32)),
        "};",
        f"static const uint8_t pt_stage2[{len(blocks) << BLOCK_BITS}] = {{",
        *(" " + ",".join(map(str, block)) + "," for block in blocks),
        "};",
    ]
    return "\n".join(lines) + "\n"


def source_version(source: str) -> str:
    """The version of the library whose classes a table holds (a table is only right for it)."""
    from importlib import metadata

    return metadata.version(source)


def write_header(path: str | Path, source: str = "tiktoken") -> Path:
    """Writes `source`'s header at `path` unless it already holds the same text (so nothing recompiles)."""
    return write_if_changed(path, header(classes(source), source))


def write_if_changed(path: str | Path, text: str) -> Path:
    """Writes a generated header unless `path` already holds the same text (setup.py uses it for
    app/backends/nfc_tables.py's header too)."""
    path = Path(path)
    if not path.exists() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".tmp")
        partial.write_text(text)
        partial.replace(path)
    return path


if __name__ == "__main__":
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "build/generated")
    for name, file in SOURCES.items():
        print(write_header(folder / file, name))
