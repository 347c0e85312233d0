"""Types of the C extension app/inspect/_parents.c (merge parents worked out from tiktoken ranks).

Written from the C source; mypy reads this, Python never does.
"""

def work_out(tokens: list[bytes], first: int, longest: int, /) -> tuple[bytes, bytes, bytes]:
    """The merge parents of tokens[first:]: (left, right, how), left and right native int32 ranks (-1 none),
    how one byte each (0 merge, 1 split, 2 none, 3 longer than `longest`)."""
