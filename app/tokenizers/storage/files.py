"""All reading of tokenizer files: the shipped ones under tokenizers/ and saved ones.

Shipped files are listed in tokenizers/MANIFEST.tsv with the sha256 of their uncompressed
content; every read verifies it and a mismatch or a missing file is a
`TokenizerFileError` naming the file. `.gz` files are decompressed on read. Files in the
data directory are opened with `open_regular`, which never blocks on a FIFO or device
named like a model. Nothing here ever touches the network, and nothing here knows how a
tokenizer works.
"""

from __future__ import annotations

import base64
import binascii
import errno
import gzip
import hashlib
import os
import stat
import tempfile
import zlib
from functools import lru_cache
from pathlib import Path
from typing import BinaryIO

from app.errors import TokenizerFileError
from app.settings import get_settings
from app.tokenizers.storage.package_list import missing_hint

MANIFEST_NAME = "MANIFEST.tsv"


@lru_cache(maxsize=4)
def read_manifest(tokenizer_dir: Path) -> dict[str, str]:
    """file name -> expected sha256 of its uncompressed content."""
    path = tokenizer_dir / MANIFEST_NAME
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise TokenizerFileError(f"cannot read {path}: {error.strerror}; restore it from the repository") from None
    expected = {}
    for line in lines:
        if line.strip() and not line.startswith("#"):
            name, sha256, *_ = line.split("\t")
            expected[name] = sha256
    return expected


def read_verified(name: str, tokenizer_dir: Path | None = None) -> bytes:
    """The uncompressed bytes of a shipped file, after checking its sha256 against the MANIFEST."""
    directory = tokenizer_dir or get_settings().tokenizer_dir
    expected = read_manifest(directory).get(name)
    if expected is None:
        raise TokenizerFileError(f"{name} is not listed in {directory / MANIFEST_NAME}; add its sha256 there")
    path = directory / name
    try:
        raw = path.read_bytes()
    except OSError as error:
        fix = missing_hint(name) or "restore it from the repository"
        raise TokenizerFileError(f"cannot read tokenizer file {path}: {error.strerror}; {fix}") from None
    try:
        data = gzip.decompress(raw) if name.endswith(".gz") else raw
    except (OSError, EOFError, zlib.error) as error:
        raise TokenizerFileError(
            f"tokenizer file {path} is not valid gzip ({error}); restore it from the repository"
        ) from None
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected:
        raise TokenizerFileError(
            f"tokenizer file {path} fails its checksum: sha256 {actual}, expected {expected}; "
            "the file is damaged or replaced, restore it from the repository"
        )
    return data


def parse_tiktoken_ranks(data: bytes, source: str) -> dict[bytes, int]:
    """A .tiktoken file (one `base64-token rank` per line) as token bytes -> rank.

    First in one pass without a Python loop (o200k_base: 115-129 ms where the loop took 150-177):
    strict base64 accepts only what `b64decode(validate=True)` accepts, and decodes it the
    same. Any line that pass refuses (blank, badly padded, not two fields) sends the whole
    file through the loop, which keeps the loop's answer and names the line at fault."""
    try:
        return {
            binascii.a2b_base64(token, strict_mode=True): int(rank)
            for token, rank in map(bytes.split, data.splitlines())
        }
    except ValueError:  # binascii.Error is one
        pass
    ranks = {}
    for number, line in enumerate(data.splitlines(), start=1):
        if not line:
            continue
        try:
            token, rank = line.split()
            ranks[base64.b64decode(token, validate=True)] = int(rank)
        except ValueError as error:
            raise TokenizerFileError(f"{source} line {number} is not 'base64 rank': {error}") from None
    return ranks


def load_tiktoken_ranks(name: str, tokenizer_dir: Path | None = None) -> dict[bytes, int]:
    return parse_tiktoken_ranks(read_verified(name, tokenizer_dir), name)


def open_regular(path: Path) -> BinaryIO:
    """`path` opened for reading if it is a regular file (or a symlink to one). A FIFO,
    socket, device or directory raises OSError without ever blocking: the type is checked
    before opening, the open is non-blocking, and the open file is checked again."""
    not_regular = OSError(errno.EINVAL, "not a regular file; remove it or put a model file in its place", str(path))
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise not_regular
    handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            raise not_regular
        return os.fdopen(handle, "rb")
    except BaseException:
        os.close(handle)
        raise


def write_atomically(path: Path, data: bytes, *, overwrite: bool = True) -> None:
    """Write to a temp file in the same folder, fsync it, then rename it to `path`. With
    `overwrite=False` an existing `path` is never replaced: FileExistsError, even when
    another process creates it meanwhile (the temp file is hard-linked, not renamed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(handle, 0o644)  # mkstemp's 0600 would hide it from other server processes
        with os.fdopen(handle, "wb") as temp:
            temp.write(data)
            temp.flush()
            os.fsync(temp.fileno())
        if overwrite:
            os.replace(temp_name, path)
        else:
            os.link(temp_name, path)
            os.unlink(temp_name)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
