"""Which job runners are alive: each holds an flock on `OWNER.lock` in the owners folder.

A runner's lock file is made under a temp name (`.OWNER.claim`), locked, then renamed into
place, so no other process ever sees it unlocked; the kernel drops the lock when the
process dies, SIGKILL included. `alive` tells a held lock from a free one and removes the
file of a dead runner. Left out: locks on network file systems (flock there is unreliable).
"""

from __future__ import annotations

import fcntl
import os
import secrets
from pathlib import Path


def claim(folder: Path) -> tuple[str, int]:
    """A new owner id and the open, locked descriptor of its lock file (kept until close)."""
    owner = secrets.token_hex(8)
    temp = folder / f".{owner}.claim"
    handle = os.open(temp, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    os.rename(temp, folder / f"{owner}.lock")
    return owner, handle


def alive(path: Path) -> bool:
    """Whether a runner holds the lock file `path`; a dead runner's file is removed."""
    try:
        handle = os.open(path, os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(handle)
        return True
    except OSError:
        pass
    path.unlink(missing_ok=True)
    os.close(handle)
    return False
