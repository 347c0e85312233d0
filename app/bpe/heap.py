"""The process's C allocator, set for the engine's results (glibc only).

The lists an `encode_batch` of a MB of 1 KB documents makes hold ~2 MB of pointers, in ~1,000
blocks of the heap; freed, they leave its top free, and glibc gives a heap's top back to the
kernel once more than its trim threshold is free there: so every call's lists came from fresh
pages, a page fault for each 4 KB written. Measured (2026-12-03, o200k_base, 1 MB of prose, warm):
`encode_batch` of its documents 647 faults and 4.18 ms a call, 0 and 3.46 ms with `keep()`; on
two threads over the halves 1.26x one thread, 1.57x with it (two threads faulting at once also
wait on the kernel's lock of the process's mappings); `encode` of the MB as one text (one list
of 2 MB, a mapping of its own) 707-938 -> 476 faults, 4.8-5.1 -> 4.1-4.2 ms.

`keep()` sets glibc's top pad: a heap keeps TOP_PAD bytes free at its top when it gives memory
back, so a process holds at most that much more per malloc arena (glibc makes up to 8 a core).
Setting it also stops glibc raising its mmap threshold as it does by itself (to the largest block
freed, up to 32 MB), so `keep()` sets that too, to MMAP_THRESHOLD: a block under it comes from the
heap, and one text's result is no longer a mapping of its own, made and unmapped each call (a MB
of prose: its 2 MB list and its ids, 462-693 faults a call). Measured (2026-12-03, o200k_base, warm,
medians): `encode` of the MB as one text 5.30 -> 3.63 ms (a count takes 3.30); the room is the
heap's, not kept for it: blocks made between two calls can take it (three of 3 MB: 413 faults).
The engine's tables keep mappings of their own (table_memory.h), so a removed tokenizer's go back
to the system whole; a 200,000-token one left 17.9 of its 49.6 MB held after removal, against 13.5
with glibc's 128 KB threshold (tests/tokenizers/test_memory_server.py allows half). Not chosen:
an 8 MB mmap threshold with a 16 MB trim threshold, tables in the heap (a removed tokenizer left
27 of its 51 MB). The engine's modules call it when imported; it runs once.

Left out: other C libraries (musl, macOS's), whose allocators are left as they are.
"""

from __future__ import annotations

import ctypes
import sys
from functools import cache

TOP_PAD = 4 << 20
MMAP_THRESHOLD = 4 << 20
_M_TOP_PAD, _M_MMAP_THRESHOLD = -2, -3  # glibc's malloc.h


@cache
def keep() -> bool:
    """Sets glibc's top pad and mmap threshold (once a process); whether both are set."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # noqa: B018 (glibc's own symbol: not musl, whose mallopt does nothing)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(_M_TOP_PAD, TOP_PAD)) and bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD))
