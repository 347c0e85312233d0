"""The process's C allocator, set for the engine's results (glibc only).

The list of a MB of text's ids holds ~2 MB of pointers, and the engine writes the ids to a
buffer of about as much first. glibc gives a block over its mmap threshold (128 KB, raised only
to the size of the last such block freed) a mapping of its own and unmaps it when freed, and it
gives back the top of a heap once more than 128 KB of it is free: so every call's buffers came
fresh from the kernel, a page fault for each 4 KB written. Measured (2026-12-03, o200k_base,
1 MB of prose): 938 faults and 5.06 ms an `encode` of it as one text, 3.57 ms with `keep()`; an
`encode_batch` of its 1 KB documents 647 faults and 4.18 ms, 3.74 ms; the same on two threads
over the halves 1.26x one thread, 1.62x with it (two threads faulting at once also wait on the
kernel's lock of the process's mappings).

`keep()` has blocks of up to MMAP_THRESHOLD come from the heap, which keeps up to
TRIM_THRESHOLD free at its top before it gives memory back: a process holds at most that much
more per malloc arena (glibc makes up to 8 a core, one a thread that allocates while another
holds its arena), memory it had in use a moment before. The engine's modules call it when
imported; it runs once.

Left out: other C libraries (musl, macOS's), whose allocators are left as they are.
"""

from __future__ import annotations

import ctypes
import sys

MMAP_THRESHOLD = 8 << 20
TRIM_THRESHOLD = 16 << 20
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's malloc.h

_kept: bool | None = None


def keep() -> bool:
    """Sets glibc's thresholds (once a process); whether they are set."""
    global _kept
    if _kept is None:
        _kept = _set_thresholds()
    return _kept


def _set_thresholds() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # noqa: B018 (glibc's own symbol: not musl, whose mallopt does nothing)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))
