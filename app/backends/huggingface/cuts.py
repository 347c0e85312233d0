"""Where a long text may be cut for counting, so that its pieces' counts add up to its own count.

The library encodes one text on one thread; cut into pieces, a long text is counted on all
of the library's threads (`encode_batch_fast` spreads a batch over them), and its ASCII
pieces can be counted without the library's pre-tokenizer (`ascii_counter`). A cut is exact
only where no token can cross it, which depends on the file's rules, so it is allowed for
one set of rules, proven here: no normalizer, and the pre-tokenizer of DeepSeek's files
(`PROVEN_STEPS`: digits in runs of up to three, CJK runs, then one regex, then ByteLevel
without its own regex), with no added token that holds a line end or strips the space on
its left. Under those rules a line end followed by an ASCII letter is always a chunk boundary:
the digit and CJK splits leave both characters in one piece; in that piece the regex match
holding the line end ends right after it (its alternatives that may hold a line end, `\\s*[\\r\\n]+`,
` ?[\\p{P}\\p{S}]+[\\r\\n]*` and the later whitespace ones, cannot take a letter, and
`\\s*[\\r\\n]+` comes before `\\s+(?!\\S)`, the one look past the cut), so the next match starts
at the letter, as it does at the start of the cut piece (the regex has no anchor and no
look back); and no added token can span the cut. Every other file is never cut.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import tokenizers

PIECE_CHARS = 1 << 12  # a text is cut into pieces of about this many characters
_CUT = re.compile(r"\n(?=[A-Za-z])")
PROVEN_REGEXES = [  # deepseek_v4's Splits (upload_check does not probe them again)
    r"\p{N}{1,3}",
    "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+",
    "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+|"
    " ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+",
]
PROVEN_STEPS = [
    *(
        {"type": "Split", "pattern": {"Regex": regex}, "behavior": "Isolated", "invert": False}
        for regex in PROVEN_REGEXES
    ),
    {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
]

Cutter = Callable[[str], list[str]]


def proven(library: tokenizers.Tokenizer) -> bool:
    """Whether the file's rules are the proven ones (see the module's docstring)."""
    normalizer = None if library.normalizer is None else json.loads(library.normalizer.__getstate__())
    if normalizer not in (None, {"type": "Sequence", "normalizers": []}) or library.pre_tokenizer is None:
        return False
    config = json.loads(library.pre_tokenizer.__getstate__())
    if config.get("type") != "Sequence" or config.get("pretokenizers") != PROVEN_STEPS:
        return False
    return not any("\n" in token.content or token.lstrip for token in library.get_added_tokens_decoder().values())


def cutter(library: tokenizers.Tokenizer) -> Cutter | None:
    """`cut` when the file's rules are the proven ones, else None (never cut)."""
    return cut if proven(library) else None


def cut(text: str) -> list[str]:
    """`text` in pieces of about PIECE_CHARS (more where no cut is near), each cut after a line end
    followed by an ASCII letter; they join to `text`."""
    pieces: list[str] = []
    start = 0
    while len(text) - start > 2 * PIECE_CHARS and (found := _CUT.search(text, start + PIECE_CHARS)):
        pieces.append(text[start : found.end()])
        start = found.end()
    pieces.append(text[start:])
    return pieces
