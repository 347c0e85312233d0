"""A memory bound around one piece of work, for a process that runs user code (app/sandbox).

`memory_bound(extra)` lowers this process's soft RLIMIT_AS to what it maps now plus `extra`
bytes for the length of a `with` block, then puts the soft limit back: an allocation past
it fails (`MemoryError` in Python, NULL from malloc in C extensions such as `regex`) and
the process lives on. The hard limit is left alone, so the soft one can always be raised
again; the rlimit is per process, so only a process doing one piece of work at a time
(the sandbox child, the upload-checking child) may use it. Left out: platforms without
`resource` or /proc (the block then runs without a bound).
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from types import ModuleType

resource: ModuleType | None
try:
    import resource
except ImportError:  # not a POSIX system
    resource = None


def mapped_bytes() -> int:
    """This process's address space now (VmSize), or 0 when unknown."""
    try:
        with open("/proc/self/statm") as handle:
            return int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


@contextmanager
def memory_bound(extra: int):
    now = mapped_bytes()
    if resource is None or not now:
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    bound = now + extra if hard == resource.RLIM_INFINITY else min(now + extra, hard)
    resource.setrlimit(resource.RLIMIT_AS, (bound, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
