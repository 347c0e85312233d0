"""Tokenizers users trained or added: `NAME.bpe` files (trained here) and `NAME.tokenizer`
files (added, see uploads.py) in the data directory's tokenizers folder.

The file name is the tokenizer's name: a model renamed with `mv` answers to its new name,
and the name in its header is for people only. `UserModels.models()` lists the folder
again only when the folder changed (its mtime: creating, renaming or deleting a file
changes it, and `write_atomically` publishes by renaming), and reads a file's header only
when the file is new or changed (its identity: device, inode, size, mtime). Only regular
files are read: a symbolic link, FIFO, directory, socket or device named like a model is
listed as unusable with the reason, never opened or followed, and so is a file larger than
any model of its kind can be (checked from the listing's own stat, before a byte is read:
a sparse 1 GiB `.tokenizer` is never read); requests for it get that reason.

A writer holds `name_lock(folder, name)` (an flock on `.NAME.lock`) from the start of
training until the file is in place. Listing the folder removes temp files
(`.NAME.bpe.*.tmp`, see `write_atomically`) that are over an hour old and whose name is
not locked: a writer was killed before it could rename or remove them.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import stat
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from app.bpe import model_file as bpe_file
from app.errors import InvalidInput, TokenizerFileError, TokenprismError, excerpt
from app.tokenizers.storage.stored_file import read_facts, stored_limit

USER_MODEL_SUFFIX = ".bpe"
UPLOAD_SUFFIX = ".tokenizer"  # uploads.py writes these
NAME_PATTERN = re.compile(r"[a-z0-9][a-z0-9_.-]{0,47}")  # matched whole, with fullmatch
STALE_TEMP_S = 3600
_SETTLED_NS = 2 * 10**9  # a folder mtime this old cannot change again within the same clock tick
_LOCK_FLAGS = os.O_RDWR | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC
_TEMP_FILE = re.compile(r"\.(?P<name>.+)\.bpe\.[a-z0-9_]+\.tmp")

Identity = tuple[int, int, int, int]  # st_dev, st_ino, st_size, st_mtime_ns


def check_name(name: str) -> str:
    if not NAME_PATTERN.fullmatch(name):
        raise InvalidInput(
            f"tokenizer name {excerpt(name)} is not allowed; use 1 to 48 characters from a-z, 0-9, '_', '.', '-', "
            "starting with a letter or digit"
        )
    return name


@dataclass(frozen=True)
class UserModel:
    name: str
    path: Path
    identity: Identity
    header: bpe_file.Header | None  # None when the file cannot be used; `error` says why
    error: TokenizerFileError | None = None
    kind: str = "bpe"
    facts: object | None = None  # stored_file.Facts of an added file

    @property
    def added(self) -> bool:
        return self.path.suffix == UPLOAD_SUFFIX


_FILE_TYPES = (
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
)


def identity_of(path: Path) -> Identity | None:
    """The identity of `path` itself (a symbolic link's own, never its target's)."""
    info = _lstat(path)
    return None if info is None else _identity(info)


def _folder_identity(folder: Path) -> Identity | None:
    """The folder's identity, through a symbolic link (a data directory may well be one)."""
    try:
        return _identity(os.stat(folder))
    except OSError:
        return None


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except OSError:
        return None


def _identity(info: os.stat_result) -> Identity:
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


class UserModels:
    def __init__(self, folder: Path):
        self.folder = folder
        self._models: dict[str, UserModel] = {}  # name -> model, as last listed
        self._stamp: Identity | None = None  # the folder's identity when listed; None: list again
        self._lock = threading.Lock()

    def models(self) -> dict[str, UserModel]:
        """name -> model, usable or not; the folder is listed again only if it changed."""
        with self._lock:
            stamp = _folder_identity(self.folder)
            if stamp is None or stamp != self._stamp:
                self._models = self._list(self._models) if stamp is not None else {}
                settled = stamp is not None and time.time_ns() - stamp[3] > _SETTLED_NS
                self._stamp = stamp if settled else None
            return self._models

    def forget(self) -> None:
        """List the folder again on the next call (a file changed without the folder changing)."""
        with self._lock:
            self._stamp = None

    def _list(self, known: dict[str, UserModel]) -> dict[str, UserModel]:
        remove_stale_temps(self.folder)
        found = {}
        with os.scandir(self.folder) as items:
            names = sorted(item.name for item in items)
        for file_name in names:
            name = file_name.removesuffix(USER_MODEL_SUFFIX).removesuffix(UPLOAD_SUFFIX)
            if name == file_name or not NAME_PATTERN.fullmatch(name) or name in found:
                continue  # not ours; or NAME.bpe next to NAME.tokenizer, which uploads.store never leaves
            path = self.folder / file_name
            info = _lstat(path)
            if info is None:
                continue  # deleted meanwhile
            old = known.get(name)
            found[name] = old if old is not None and old.identity == _identity(info) else _read(name, path, info)
        return found


def _read(name: str, path: Path, info: os.stat_result) -> UserModel:
    """The model in `path`, whose lstat is `info`: the file type and size are checked first."""
    identity = _identity(info)
    problem = _unusable(path, info)
    if problem is not None:
        return UserModel(name, path, identity, None, TokenizerFileError(problem))
    try:
        if path.suffix == UPLOAD_SUFFIX:
            facts = read_facts(path)
            header = bpe_file.Header(name, facts.vocab_size, facts.description, "")
            return UserModel(name, path, identity, header, kind=facts.kind, facts=facts)
        return UserModel(name, path, identity, bpe_file.read_header(path))
    except TokenizerFileError as error:
        return UserModel(name, path, identity, None, error)
    except OSError as error:
        return UserModel(name, path, identity, None, TokenizerFileError(f"cannot read {path}: {error.strerror}"))


def _unusable(path: Path, info: os.stat_result) -> str | None:
    """Why `path` cannot be a model without opening it (None: it may be)."""
    for is_type, what in _FILE_TYPES:
        if is_type(info.st_mode):
            return (
                f"{path} is {what}, not a regular file; tokenprism reads only regular files: "
                "remove it, or put the model file itself in its place"
            )
    if path.suffix == UPLOAD_SUFFIX:
        limit, what = stored_limit(), "an added tokenizer (TOKENPRISM_MAX_UPLOAD_BYTES and its facts line)"
    else:
        limit, what = bpe_file.MAX_FILE_BYTES, "a trained model"
    if info.st_size > limit:
        return (
            f"{path} is {info.st_size:,} bytes, over the {limit:,} bytes {what} may have; it is not read: "
            "remove it, and add or train the tokenizer again"
        )
    return None


@contextmanager
def name_lock(folder: Path, name: str) -> Iterator[None]:
    """Hold the lock of `name` in `folder`; if another process holds it, fail at once.

    The lock file `.NAME.lock` exists only while it is held: the holder removes it before
    letting go. A process that opened the file just before that and then got the lock holds
    a removed file, so after locking each checks that the path is still its file, else
    tries again with the new one."""
    lock_path = folder / f".{check_name(name)}.lock"
    for _ in range(100):  # another try only when a holder removed the file between our open and lock
        handle = _open_lock(folder, lock_path)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(handle)
            raise TokenprismError(
                f"another process is training {name} right now; wait for it to finish or choose another name",
                code="name_busy",
                status=409,
            ) from None
        if _same_file(handle, lock_path):
            break
        os.close(handle)
    else:
        raise TokenprismError(f"the lock file {lock_path} keeps changing; try again", code="name_busy", status=409)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):  # still held: nobody else can be using this file as their lock
            os.unlink(lock_path)
        os.close(handle)


def _open_lock(folder: Path, lock_path: Path) -> int:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        return os.open(lock_path, _LOCK_FLAGS | os.O_CREAT, 0o644)
    except OSError as error:
        raise TokenprismError(
            f"cannot create the lock file {lock_path} ({error.strerror}); check the data directory", status=500
        ) from None


def _same_file(handle: int, path: Path) -> bool:
    try:
        on_disk = os.stat(path)
    except OSError:
        return False
    held = os.fstat(handle)
    return (held.st_dev, held.st_ino) == (on_disk.st_dev, on_disk.st_ino)


def remove_stale_temps(folder: Path) -> None:
    """Remove the temp files in `folder` that are over STALE_TEMP_S old and whose name is not locked."""
    try:
        with os.scandir(folder) as items:
            temps = [(item.name, match["name"]) for item in items if (match := _TEMP_FILE.fullmatch(item.name))]
    except OSError:
        return
    for file_name, name in temps:
        _remove_if_stale(folder / file_name, name)


def _remove_if_stale(path: Path, name: str) -> None:
    try:
        info = os.lstat(path)
    except OSError:
        return
    if not stat.S_ISREG(info.st_mode) or time.time() - info.st_mtime < STALE_TEMP_S:
        return
    try:
        lock = os.open(path.parent / f".{name}.lock", _LOCK_FLAGS)
    except FileNotFoundError:
        path.unlink(missing_ok=True)  # its name was never locked
        return
    except OSError:
        return
    try:
        fcntl.flock(lock, fcntl.LOCK_SH | fcntl.LOCK_NB)
        path.unlink(missing_ok=True)
    except OSError:
        pass  # locked: its writer is alive
    finally:
        os.close(lock)
