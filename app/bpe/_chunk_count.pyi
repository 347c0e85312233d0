"""Types of the C extension app/bpe/csrc/train/_chunk_count.c (training's chunk counting on threads).

Written from the C source's argument parsing and return values; mypy reads this, Python never does.
"""

def count_chunks(
    family: int, documents: list[str] | tuple[str, ...], threads: int, /
) -> tuple[list[str], list[int]] | None: ...
