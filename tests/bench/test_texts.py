"""bench/texts.py, the loader of the engine benchmark's texts: deterministic, every class
non-empty and its kind, documents of about 1 KB cut at whitespace. Not the timings."""

from __future__ import annotations

import struct
import sys
import unicodedata
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import texts

LIMIT = 60_000
SCRIPT_NAMES = {  # the Unicode name each script class's letters mostly start with
    "cyrillic": "CYRILLIC",
    "arabic": "ARABIC",
    "devanagari": "DEVANAGARI",
    "greek": "GREEK",
}


@pytest.fixture(scope="module", params=texts.CLASSES)
def loaded(request) -> texts.Text:
    return texts.load(request.param, LIMIT)


def test_each_class_is_non_empty_utf8_and_within_its_limit(loaded):
    assert loaded.text and loaded.sources > 0
    assert LIMIT // 2 < loaded.size <= LIMIT or loaded.short
    loaded.text.encode("utf-8")  # no lone surrogates


def test_loading_twice_gives_the_same_text(loaded):
    assert texts.load(loaded.name, LIMIT) == loaded


def test_each_class_is_what_it_says(loaded):
    letters = [c for c in loaded.text if c.isalpha()]
    non_ascii = sum(not c.isascii() for c in letters) / len(letters)
    if loaded.name in ("prose", "code"):
        assert non_ascii < 0.05
    if loaded.name == "code":
        assert "def " in loaded.text and "import " in loaded.text
    if loaded.name == "prose":
        words = loaded.text.split()
        assert sum(word.isalpha() for word in words) > 0.6 * len(words)
    if loaded.name in SCRIPT_NAMES:
        named = sum(unicodedata.name(c, "").startswith(SCRIPT_NAMES[loaded.name]) for c in letters)
        assert named > 0.5 * len(letters)
    if loaded.name == "cjk":
        assert sum(unicodedata.name(c, "").startswith(("CJK", "HANGUL", "HIRAGANA", "KATAKANA")) for c in letters) > (
            0.5 * len(letters)
        )
    if loaded.name == "latin":
        assert 0.05 < non_ascii < 0.6  # letters with diacritics among plain ones
    if loaded.name == "multilingual":
        assert non_ascii > 0.3


def test_documents_are_near_1_kb_cut_before_whitespace_and_join_to_the_text(loaded):
    found = texts.documents(loaded.text)
    assert "".join(found) == loaded.text
    sizes = [len(document.encode("utf-8")) for document in found]
    assert max(sizes) <= 1024
    assert sum(size >= 512 for size in sizes[:-1]) >= 0.95 * len(sizes[:-1])
    cut_at_space = sum(following[:1].isspace() for following in found[1:])
    assert cut_at_space >= 0.9 * (len(found) - 1)


def test_documents_of_a_text_without_whitespace_are_cut_between_characters():
    found = texts.documents("東京" * 1000)
    assert "".join(found) == "東京" * 1000
    assert all(len(document.encode("utf-8")) in (1023, 1024) for document in found[:-1])


def test_a_mo_catalog_gives_its_translations_without_the_header():
    messages = [("", "Content-Type: text/plain; charset=UTF-8\n"), ("file", "Datei"), ("one\0many", "eins\0viele")]
    originals = [m[0].encode() for m in messages]
    translations = [m[1].encode() for m in messages]
    header = 28
    table = header + 16 * len(messages)
    data, offsets = b"", []
    for raw in originals + translations:
        offsets.append((len(raw), table + len(data)))
        data += raw + b"\0"
    catalog = struct.pack("<7I", 0x950412DE, 0, len(messages), header, header + 8 * len(messages), 0, 0)
    catalog += b"".join(struct.pack("<2I", *entry) for entry in offsets) + data
    assert texts.mo_translations(catalog) == ["Datei", "eins", "viele"]
    assert texts.mo_translations(b"not a catalog at all") == []
