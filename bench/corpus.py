"""Offline benchmark corpora built from this Python's standard library sources.

`stdlib_documents(n)` gives whole .py files (sorted by path, tests excluded) until n
characters are reached; `mixed_text(n)` adds prose and text across scripts. Nothing is
downloaded; the exact bytes depend on the Python version.
"""

from __future__ import annotations

import random
import sysconfig
from pathlib import Path

STDLIB = Path(sysconfig.get_paths()["stdlib"])


def stdlib_documents(chars: int) -> list[str]:
    documents, total = [], 0
    for path in sorted(STDLIB.rglob("*.py")):
        if {"test", "tests", "site-packages", "idlelib"} & set(path.relative_to(STDLIB).parts):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        documents.append(text[: chars - total])
        total += len(documents[-1])
        if total >= chars:
            break
    return documents


def unicode_text(chars: int, seed: int = 0) -> str:
    rnd = random.Random(seed)
    words = [
        "안녕하세요",
        "토큰화",
        "日本語",
        "の",
        "文章",
        "Ελληνικά",
        "русский",
        "текст",
        "العربية",
        "café",
        "naïve",
        "😀",
        "👍🏽",
        "🎉",
        "中文",
        "ÆØÅ",
        "\r\n",
        "\t",
        "  ",
        "123",
        "4.5",
    ]
    parts, size = [], 0
    while size < chars:
        word = rnd.choice(words)
        parts.append(word + rnd.choice(" \n "))
        size += len(parts[-1])
    return "".join(parts)


def mixed_text(chars: int) -> str:
    """About 60% code, 25% prose (pydoc topics, license), 15% text across scripts."""
    prose = (STDLIB / "pydoc_data" / "topics.py").read_text(encoding="utf-8") + (STDLIB / "LICENSE.txt").read_text()
    code = "".join(stdlib_documents(int(chars * 0.6)))
    return code + prose[: int(chars * 0.25)] + unicode_text(int(chars * 0.15))
