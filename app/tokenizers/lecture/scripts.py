"""Cost by script: a text's characters and tokens split by the Unicode script they are written in.

Each character gets one label: its Unicode Script property (`\\p{Script=...}`, the `regex`
module's data), with these changes: Hiragana and Katakana are one label,
"Hiragana/Katakana"; emoji (Extended_Pictographic from U+2000 on, skin-tone modifiers,
regional indicators) are "Emoji" rather than Common; a combining character (Script=Inherited:
accents, variation selectors, the zero-width joiner) takes the label of the character before
it, so "é" spelled e + U+0301 is Latin and 👍🏽‍ stays Emoji; digits, punctuation, spaces and
symbols are "Common". Scripts with no modern writers (Linear A, Old Persian, ...) are "Other".

Each token counts once, for one label (so the tokens per script sum to the token count
exactly, in whole numbers): the label most of the characters in its range have; a tie goes to
a label other than Common, then to the one met first. " 안" (space + Hangul) is Hangul,
" hello" Latin, and the three byte pieces a byte-level tokenizer may cut one syllable into are
three Hangul tokens. A token with an empty range (a marker a backend adds) takes the label of
the character at its position (or the last one). Characters per label sum to the text's length.

Leaves out: Script_Extensions (a mark used by several scripts is Common here), and
grapheme clusters (a flag of two regional indicators is two Emoji characters).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import regex

from app.tokenizers.tokens import char_ranges

COMMON, EMOJI, OTHER = "Common", "Emoji", "Other"
_INHERITED = ""  # takes the label of the character before it
# Scripts with a label of their own (Unicode long names); all others are "Other".
_SCRIPTS = [
    "Latin",
    "Cyrillic",
    "Greek",
    "Armenian",
    "Georgian",
    "Hebrew",
    "Arabic",
    "Syriac",
    "Thaana",
    "Nko",
    "Devanagari",
    "Bengali",
    "Gurmukhi",
    "Gujarati",
    "Oriya",
    "Tamil",
    "Telugu",
    "Kannada",
    "Malayalam",
    "Sinhala",
    "Thai",
    "Lao",
    "Tibetan",
    "Myanmar",
    "Khmer",
    "Ethiopic",
    "Cherokee",
    "Canadian_Aboriginal",
    "Mongolian",
    "Han",
    "Hiragana",
    "Katakana",
    "Hangul",
    "Bopomofo",
    "Yi",
    "Tifinagh",
    "Javanese",
    "Balinese",
    "Sundanese",
    "Ol_Chiki",
    "Tai_Le",
    "New_Tai_Lue",
    "Tai_Tham",
    "Tai_Viet",
    "Adlam",
    "Vai",
    "Bamum",
    "Lisu",
    "Meetei_Mayek",
    "Chakma",
    "Cham",
    "Tagalog",
    "Buginese",
    "Braille",
    "Runic",
    "Ogham",
    "Gothic",
    "Coptic",
    "Glagolitic",
    "Samaritan",
    "Mandaic",
    "Limbu",
    "Lepcha",
    "Saurashtra",
    "Kayah_Li",
    "Rejang",
    "Batak",
    "Osage",
    "Hanifi_Rohingya",
    "Wancho",
    "Nyiakeng_Puachue_Hmong",
    "Pahawh_Hmong",
    "Miao",
    "Yezidi",
    "Deseret",
    "Shavian",
]
_LABEL = {"Hiragana": "Hiragana/Katakana", "Katakana": "Hiragana/Katakana", "Nko": "N'Ko"}
_GROUPS = [
    ("emoji", EMOJI, r"[\p{Extended_Pictographic}\p{Emoji_Modifier}\p{Regional_Indicator}&&[^\x00-\u1fff]]"),
    *((f"s{i}", _LABEL.get(name, name.replace("_", " ")), rf"\p{{Script={name}}}") for i, name in enumerate(_SCRIPTS)),
    ("inherited", _INHERITED, r"\p{Script=Inherited}"),
    ("common", COMMON, r"\p{Script=Common}"),
]
_PATTERN = regex.compile("|".join(f"(?P<{key}>{pattern})" for key, _, pattern in _GROUPS), regex.V1)
_LABEL_OF_GROUP = {key: label for key, label, _ in _GROUPS}
_cache: dict[str, str] = {}


def label_of(char: str) -> str:
    """The label of one character on its own ("" for a combining one: it follows its base)."""
    label = _cache.get(char)
    if label is None:
        match = _PATTERN.match(char)
        label = _LABEL_OF_GROUP[match.lastgroup] if match and match.lastgroup else OTHER
        if len(_cache) < 100_000:
            _cache[char] = label
    return label


def labels(text: str) -> list[str]:
    """The label of each character of `text`, combining characters resolved to their base's."""
    out: list[str] = []
    previous = COMMON
    for char in text:
        label = _cache.get(char) or label_of(char) or previous
        out.append(label)
        previous = label
    return out


def token_label(chars: list[str], start: int, end: int) -> str:
    """The label a token over characters [start, end) counts for (see the module's rule)."""
    if end - start == 1:
        return chars[start]
    if end <= start:
        return chars[min(start, len(chars) - 1)] if chars else COMMON
    counts = Counter(chars[start:end])  # insertion order: the order met in the token
    most = max(counts.values())
    tied = [label for label, n in counts.items() if n == most]
    return next((label for label in tied if label != COMMON), tied[0])


@dataclass
class ScriptTally:
    """Characters per label, and tokens per label for each tokenizer, added up over texts."""

    names: list[str]
    characters: Counter = field(default_factory=Counter)
    tokens: dict[str, Counter] = field(default_factory=dict)

    def add(self, text: str, ranges_of: dict[str, list[tuple[int, int]]]) -> None:
        """One text, and each tokenizer's token character ranges over it (`token_ranges`)."""
        chars = labels(text)
        self.characters.update(chars)
        for name in self.names:
            self.tokens.setdefault(name, Counter()).update(token_label(chars, s, e) for s, e in ranges_of[name])

    def rows(self) -> list[dict]:
        """One row per label present, most characters first: {"script", "characters", "tokens":
        {name: n}, "tokens_per_character": {name: tokens / characters}}."""
        order = sorted(self.characters, key=lambda label: (-self.characters[label], label))
        rows = []
        for label in order:
            chars = self.characters[label]
            tokens = {name: self.tokens.get(name, Counter())[label] for name in self.names}
            rows.append(
                {
                    "script": label,
                    "characters": chars,
                    "tokens": tokens,
                    "tokens_per_character": {name: n / chars for name, n in tokens.items()},
                }
            )
        return rows


def token_ranges(tokenizer, text: str, ids: list[int], allow_special: bool = False) -> list[tuple[int, int]]:
    """The character range of every token of `ids` (all of `encode(text)`)."""
    return char_ranges(tokenizer.pieces_of(text, ids, allow_special))


def by_script(text: str, ranges_of: dict[str, list[tuple[int, int]]]) -> list[dict]:
    """The rows of `ScriptTally` for one text."""
    tally = ScriptTally(list(ranges_of))
    tally.add(text, ranges_of)
    return tally.rows()
