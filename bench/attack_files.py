"""Hostile tokenizer files and request bodies for `bench_attacks.py`, made on the spot.

Each function returns bytes an attacker could send: a `.tiktoken` ranks file of any size, a
Hugging Face `tokenizer.json` whose pre-tokenizer regex backtracks, vocabularies of two
million entries that still fit under the upload cap, and a multipart form around a file.
Nothing here talks to a server.
"""

from __future__ import annotations

import base64
import json


def tiktoken_ranks(count: int) -> bytes:
    """A `.tiktoken` file: the 256 bytes, then `count - 256` made-up two- to four-byte tokens."""
    lines = [base64.b64encode(bytes([b])) + b" %d" % b for b in range(256)]
    rank = 256
    width = 2
    while rank < count:
        value = rank.to_bytes(4, "big").lstrip(b"\0").rjust(width, b"\x01")
        lines.append(base64.b64encode(value) + b" %d" % rank)
        rank += 1
    return b"\n".join(lines) + b"\n"


def _byte_level_alphabet() -> list[str]:
    """GPT-2's bytes-to-characters table, the alphabet of a ByteLevel BPE vocabulary."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    shifted, extra = list(printable), 0
    for byte in range(256):
        if byte not in printable:
            printable.append(byte)
            shifted.append(256 + extra)
            extra += 1
    return [chr(c) for _, c in sorted(zip(printable, shifted, strict=True))]


def huggingface_bpe(pre_tokenizer: dict | None, extra_tokens: int = 0) -> bytes:
    """A byte-level BPE `tokenizer.json` (the 256 byte symbols, `extra_tokens` two-symbol merges)."""
    alphabet = _byte_level_alphabet()
    vocab = {symbol: i for i, symbol in enumerate(alphabet)}
    merges = []
    for k in range(extra_tokens):
        a, b = alphabet[k % 256], alphabet[(k // 256) % 256]
        if k >= 65536:  # past every pair of two symbols: made-up tokens no merge makes
            vocab[str(k)] = 256 + k
            continue
        vocab[a + b] = 256 + k
        merges.append(f"{a} {b}")
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}
    steps = [pre_tokenizer, byte_level] if pre_tokenizer else [byte_level]
    return json.dumps(
        {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": [],
            "normalizer": None,
            "pre_tokenizer": {"type": "Sequence", "pretokenizers": steps},
            "post_processor": None,
            "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False},
            "model": {
                "type": "BPE",
                "dropout": None,
                "unk_token": None,
                "continuing_subword_prefix": None,
                "end_of_word_suffix": None,
                "fuse_unk": False,
                "byte_fallback": False,
                "ignore_merges": False,
                "vocab": vocab,
                "merges": merges,
            },
        }
    ).encode()


def huggingface_wordlevel(count: int) -> bytes:
    """A WordLevel `tokenizer.json` of `count` words (whitespace split, an unknown token)."""
    vocab = {"[UNK]": 0, **{f"w{i}": i + 1 for i in range(count - 1)}}
    return json.dumps(
        {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": [],
            "normalizer": None,
            "pre_tokenizer": {"type": "Whitespace"},
            "post_processor": None,
            "decoder": None,
            "model": {"type": "WordLevel", "vocab": vocab, "unk_token": "[UNK]"},
        }
    ).encode()


def backtracking_split() -> dict:
    """A `Split` pre-tokenizer whose regex takes exponential time on a run of q with no r."""
    return {"type": "Split", "pattern": {"Regex": "(q|qq)+r"}, "behavior": "Isolated", "invert": False}


def multipart(fields: dict[str, str], file: bytes, file_name: str = "tokenizer.bin") -> tuple[bytes, str]:
    boundary = "tokenprism-attack-boundary"
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
        for name, value in fields.items()
    ]
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{file_name}"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n".encode()
        + file
        + b"\r\n"
    )
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"
