"""Benchmark texts we did not write, read offline from this machine, in classes.

- prose: documentation written by people: README, .txt, .md and .rst files (plain or .gz)
  under /usr/share/doc that read as prose (mostly letters and spaces, lines of several
  words; changelogs, copyright files and data tables left out), then the Python
  documentation's topic texts (pydoc_data/topics.py). Man pages are left out (roff, not
  prose, until rendered).
- code: Python sources of the running Python's standard library and of the venv's
  site-packages (files over 100 KB left out: generated tables).
- multilingual: the translations (msgstr) of the gettext .mo catalogs under
  /usr/share/locale, one message of each language in turn, so that the cut holds many.
- six scripts apart, by the catalogs' language codes (SCRIPTS): latin (with diacritics),
  cyrillic, arabic, devanagari, cjk, greek.

Selection is deterministic: sorted paths, shuffled with a fixed seed (for variety under
the size cut), each distinct message once; the bytes depend on what the machine has
installed (packages, translations), so figures compare on one machine. A class is cut at `limit` bytes of UTF-8; on a
machine with less, `Text.short` says so. `documents` cuts a text into ~1 KB documents at
whitespace.
"""

from __future__ import annotations

import ast
import gzip
import random
import struct
import sysconfig
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

DOC_DIR = Path("/usr/share/doc")
LOCALE_DIR = Path("/usr/share/locale")
SEED = 25
SCRIPTS = {
    "latin": ("cs", "pl", "vi", "tr", "hu", "ro", "sk", "lt", "lv", "hr", "sl", "is"),
    "cyrillic": ("ru", "uk", "bg", "sr", "be", "mk", "kk", "ky", "mn", "tg"),
    "arabic": ("ar", "fa", "ur", "ps", "ckb", "ug", "sd"),
    "devanagari": ("hi", "mr", "ne", "mai", "kok", "sa"),
    "cjk": ("zh_CN", "zh_TW", "zh_HK", "ja", "ko"),
    "greek": ("el",),
}
CLASSES = ("prose", "code", "multilingual", *SCRIPTS)
_PROSE_SUFFIXES = (".txt", ".md", ".rst", ".markdown")
_MAX_CODE_FILE = 100_000


@dataclass(frozen=True)
class Text:
    name: str
    text: str
    sources: int  # files or catalogs it holds text of
    short: bool  # the machine had less than the limit asked

    @property
    def size(self) -> int:
        return len(self.text.encode("utf-8"))


def load(name: str, limit: int) -> Text:
    """The class `name` (one of CLASSES), up to `limit` bytes of UTF-8."""
    if name == "prose":
        pieces: Iterable[tuple[int, str]] = _numbered(_prose_pieces())
    elif name == "code":
        pieces = _numbered(_code_pieces())
    elif name == "multilingual":
        pieces = _messages(_catalogs(None))
    elif name in SCRIPTS:
        pieces = _messages(_catalogs(SCRIPTS[name]))
    else:
        raise ValueError(f"unknown text class {name!r}; choose from {', '.join(CLASSES)}")
    return _cut(name, pieces, limit)


def documents(text: str, size: int = 1024) -> list[str]:
    """`text` cut into documents of at most `size` bytes of UTF-8, each cut just before a
    whitespace character in the second half of its window (else at the last whole
    character); the documents join to `text`."""
    data = text.encode("utf-8")
    found: list[str] = []
    start = 0
    while start < len(data):
        end = min(start + size, len(data))
        if end < len(data):
            window = data[start + size // 2 : end]
            cut = max(window.rfind(b" "), window.rfind(b"\n"), window.rfind(b"\t"))
            if cut > 0:
                end = start + size // 2 + cut
            else:
                while data[end] & 0xC0 == 0x80:  # inside a character: back to its first byte
                    end -= 1
        found.append(data[start:end].decode("utf-8"))
        start = end
    return found


def _cut(name: str, pieces: Iterable[tuple[int, str]], limit: int) -> Text:
    parts: list[str] = []
    sources: set[int] = set()
    total = 0
    for source, piece in pieces:
        sources.add(source)
        size = len(piece.encode("utf-8")) + 1
        if total + size > limit:
            rest = piece.encode("utf-8")[: limit - total].decode("utf-8", errors="ignore")
            parts.append(rest)
            return Text(name, "\n".join(parts), len(sources), short=False)
        parts.append(piece)
        total += size
    return Text(name, "\n".join(parts), len(sources), short=True)


def _numbered(texts: Iterable[str]) -> Iterator[tuple[int, str]]:
    return ((number, text) for number, text in enumerate(texts))


def _shuffled(paths: Iterable[Path]) -> list[Path]:
    ordered = sorted(paths)
    random.Random(SEED).shuffle(ordered)
    return ordered


def _prose_pieces() -> Iterator[str]:
    for path in _shuffled(_prose_paths()):
        text = _read_text(path)
        if text is not None and _reads_as_prose(text):
            yield text.strip() + "\n"
    yield from _pydoc_topics()


def _prose_paths() -> Iterator[Path]:
    if not DOC_DIR.is_dir():
        return
    for path in DOC_DIR.rglob("*"):
        name = path.name.lower().removesuffix(".gz")
        if any(word in name for word in ("changelog", "copyright", "license", "news")):
            continue
        if (name.startswith("readme") or name.endswith(_PROSE_SUFFIXES)) and path.is_file():
            yield path


def _reads_as_prose(text: str) -> bool:
    if len(text) < 500:
        return False
    letters = sum(c.isalpha() or c == " " for c in text)
    lines = [line for line in text.splitlines() if line.strip()]
    words = sum(len(line.split()) for line in lines)
    return letters >= 0.8 * len(text) and words >= 6 * len(lines)


def _pydoc_topics() -> Iterator[str]:
    path = Path(sysconfig.get_paths()["stdlib"]) / "pydoc_data" / "topics.py"
    if path.is_file():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict):
                topics = ast.literal_eval(node.value)
                yield from (topics[key] for key in sorted(topics))


@cache
def _code_paths() -> tuple[Path, ...]:
    """The Python files of the standard library and the installed packages (a walk of ~20,000
    files, seconds on a busy machine: once a process)."""
    roots = [Path(sysconfig.get_paths()["stdlib"]), Path(sysconfig.get_paths()["purelib"])]
    seen: set[Path] = set()
    paths = []
    for root in roots:
        for path in root.rglob("*.py"):
            if path.resolve() not in seen and path.is_file() and path.stat().st_size <= _MAX_CODE_FILE:
                seen.add(path.resolve())
                paths.append(path)
    return tuple(paths)


def _code_pieces() -> Iterator[str]:
    for path in _shuffled(_code_paths()):
        text = _read_text(path)
        if text:
            yield text


def _read_text(path: Path) -> str | None:
    try:
        data = path.read_bytes()
        if path.suffix == ".gz":
            data = gzip.decompress(data)
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError, EOFError, gzip.BadGzipFile):
        return None


def _catalogs(languages: tuple[str, ...] | None) -> list[list[Path]]:
    """The .mo files of each language (all of them when `languages` is None), in order."""
    if not LOCALE_DIR.is_dir():
        return []
    codes = languages or tuple(
        sorted(p.name for p in LOCALE_DIR.iterdir() if p.is_dir() and not p.name.startswith("en"))
    )
    found = [sorted((LOCALE_DIR / code / "LC_MESSAGES").glob("*.mo")) for code in codes]
    return [files for files in found if files]


def _messages(catalogs: list[list[Path]]) -> Iterator[tuple[int, str]]:
    """Distinct translations, one of each language in turn, with the catalog they came from."""
    per_language = [_language_messages(files) for files in catalogs]
    seen: set[str] = set()
    number = {path: n for n, path in enumerate(path for files in catalogs for path in files)}
    while per_language:
        for messages in list(per_language):
            found = next(messages, None)
            if found is None:
                per_language.remove(messages)
            elif found[1] not in seen:
                seen.add(found[1])
                yield number[found[0]], found[1]


def _language_messages(files: list[Path]) -> Iterator[tuple[Path, str]]:
    for path in files:
        for message in mo_translations(path.read_bytes()):
            yield path, message


def mo_translations(data: bytes) -> list[str]:
    """The non-empty translations of a gettext .mo catalog (its header entry left out;
    plural forms each on their own), or [] for a catalog that is not UTF-8 or not a .mo."""
    if len(data) < 20:
        return []
    for order in ("<", ">"):
        magic, _, count, originals, translations = struct.unpack(order + "5I", data[:20])
        if magic == 0x950412DE:
            break
    else:
        return []
    found = []
    try:
        for index in range(count):
            id_length, _ = struct.unpack_from(order + "2I", data, originals + 8 * index)
            length, offset = struct.unpack_from(order + "2I", data, translations + 8 * index)
            if id_length == 0:
                continue  # the header: metadata, not a message
            raw = data[offset : offset + length].decode("utf-8")
            found += [form for form in raw.split("\0") if form.strip()]
    except (struct.error, UnicodeDecodeError):
        return []
    return found
