"""A small generated corpus in every input format, with the documents each file holds.

`make_corpus(root)` writes, under root:

    docs/           text files in nested folders (.txt, .md, .py), a hidden file, a
                    node_modules/ folder to --exclude, and bad.txt (not UTF-8)
    data/a.jsonl    records with a "text" field, and bad lines: not JSON, no field,
                    a number, not UTF-8, blank lines (not records)
    data/b.jsonl.gz good records
    data/broken.jsonl.gz  not gzip at all: one unreadable file
    data/c.parquet  a "text" column in several row groups, with a null

and returns the documents expected from a full read (default options), in corpus order,
and the numbers of bad files and bad records. Texts mix code, prose and several scripts.
"""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

from tests.reference import stdlib_texts

WORDS = [
    "the",
    "token",
    "naïve",
    "café",
    "日本語",
    "の",
    "文章",
    "한국어",
    "텍스트",
    "русский",
    "Ελληνικά",
    "العربية",
    "😀",
    "👍🏽",
    "def",
    "return",
    "x = 1",
    "\n",
    "  ",
    "\t",
    "1234",
    "3.14",
    "<|endoftext|>",
]


def prose(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


def make_corpus(root: Path, seed: int = 7) -> tuple[list[str], int, int]:
    rng = random.Random(seed)
    code = [text for _, text in stdlib_texts(count=12, max_chars=6_000)]
    docs, data = root / "docs", root / "data"
    for folder in (docs / "a" / "deep", docs / "b", docs / "node_modules", docs / ".git", data):
        folder.mkdir(parents=True, exist_ok=True)
    files = {  # corpus order: a folder's files by name, then its folders by name
        docs / "intro.md": prose(rng, 300),
        docs / "a" / "one.py": code[0],
        docs / "a" / "two.txt": prose(rng, 50) + "\r\n" + code[1],
        docs / "a" / "deep" / "x.py": code[2],
        docs / "b" / "empty.txt": "",
        docs / "b" / "long.txt": "\n".join(code[3:8]),
    }
    for path, text in files.items():
        path.write_bytes(text.encode("utf-8"))
    (docs / "bad.txt").write_bytes(b"caf\xe9 is Latin-1\n")  # sorts before intro.md: checked below
    (docs / ".hidden.txt").write_text("never read", encoding="utf-8")
    (docs / ".git" / "HEAD").write_text("never read", encoding="utf-8")
    (docs / "node_modules" / "lib.txt").write_text("excluded", encoding="utf-8")
    documents = list(files.values())
    bad_records = 1  # bad.txt

    records = [prose(rng, rng.randint(1, 80)) for _ in range(120)] + code[8:10]
    lines = [json.dumps({"id": i, "text": text}, ensure_ascii=bool(i % 2)).encode() for i, text in enumerate(records)]
    lines[5:5] = [b"{not json", b'{"id": 1}', b'{"text": 42}', b'{"text": "caf\xe9"}', b"", b"   "]
    bad_records += 4
    (data / "a.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    documents += records

    gz_records = [prose(rng, rng.randint(5, 40)) for _ in range(60)]
    (data / "b.jsonl.gz").write_bytes(
        gzip.compress("".join(json.dumps({"text": t}) + "\n" for t in gz_records).encode())
    )
    documents += gz_records
    (data / "broken.jsonl.gz").write_bytes(b'{"text": "a plain file named .gz"}\n')

    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [prose(rng, rng.randint(1, 60)) for _ in range(90)] + [code[10], code[11]]
    column = [*rows[:40], None, *rows[40:]]
    pq.write_table(pa.table({"text": column, "n": list(range(len(column)))}), data / "c.parquet", row_group_size=25)
    bad_records += 1
    documents += rows
    bad_files = 1  # broken.jsonl.gz
    # Corpus order is docs/ (bad.txt first by name), then data/ (a, b, broken, c): the
    # documents above are in that order, without the bad ones.
    return documents, bad_files, bad_records
