"""Types of the C extension app/bpe/_ascii_split.c (the OpenAI split patterns on ASCII text).

Written from the C source; mypy reads this, Python never does.
"""

def split(kind: int, text: str, /) -> list[str]:
    """The chunks of ASCII `text` by the split pattern of gpt2 (kind 0), cl100k_base (1) or o200k_base (2)."""
