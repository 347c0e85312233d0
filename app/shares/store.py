"""The share store: JSON documents (page states) kept content-addressed in one SQLite file.

`ShareStore(path, max_share_bytes, max_store_bytes).put(document)` stores the document's
canonical form (JSON with sorted keys, no spaces, UTF-8) and returns its id: the first 32
hex digits (128 bits) of that form's sha256. The same document always gets the same id and
is stored once. `get(id)` gives the document back, or None for an id that is unknown or is
not an id at all. Reads check the sha256 again, so a damaged row is never served.

Storage: `<data dir>/shares.sqlite3`, the standard library's sqlite3 in WAL mode, with a
busy timeout and `synchronous=FULL` (a link handed out must survive a power cut). One
connection per call, so threads and processes (uvicorn workers, containers sharing the
data directory) may write at once: a write is one `BEGIN IMMEDIATE` transaction, and
triggers keep the total the store cap is checked against, whoever inserts or deletes. The
body is zlib-compressed; the compressed size is what the store cap counts, the canonical
form's size what the per-share cap counts.

Limits: a document over `max_share_bytes` is a 413 `share_too_large`; one that would take
the stored bytes past `max_store_bytes` a 409 `store_full` (a document already stored is
still answered: it costs nothing).
Pruning is the operator's: the app never deletes a share, so a link once given keeps working
until `tokenprism shares prune` (`prune` here) removes shares older than an age, then the
oldest until the store is under a size, in one transaction (safe while servers write). When
the store is full, new shares are refused until the operator prunes or raises the cap.
A file that is not a database, or cannot be opened or written, is a 503 naming it (logged
with its path); nothing is moved or deleted for the operator. Left out: expiry, listing or
searching shares, and when a share was last opened (pruning goes by creation time).
Per-client rates are the edge's (app/web/edge/rate_limit.py).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import sqlite3
import threading
import zlib
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from app.errors import InvalidInput, TokenprismError
from app.shares.errors import ShareDamaged, ShareTooLarge, StoreBusy, StoreFull, StoreUnavailable
from app.sqlite_wal import use_wal

log = logging.getLogger("tokenprism")

FILE_NAME = "shares.sqlite3"
ID_HEX = 32
ID_PATTERN = re.compile(r"[0-9a-f]{32}")
BUSY_TIMEOUT_S = 5.0
SCHEMA_VERSION = 1
ZLIB_LEVEL = 6
SQLITE_BUSY, SQLITE_LOCKED = 5, 6

_SCHEMA = """
BEGIN IMMEDIATE;
CREATE TABLE IF NOT EXISTS shares (
    id TEXT PRIMARY KEY,        -- the first 32 hex digits of sha256
    sha256 TEXT NOT NULL,       -- of the canonical form
    body BLOB NOT NULL,         -- the canonical form, zlib-compressed
    size INTEGER NOT NULL,      -- len(body): what max_store_bytes counts
    raw_size INTEGER NOT NULL,  -- bytes of the canonical form: what max_share_bytes counts
    created TEXT NOT NULL       -- UTC, ISO 8601
);
CREATE TABLE IF NOT EXISTS totals (
    one INTEGER PRIMARY KEY CHECK (one = 1), bytes INTEGER NOT NULL, shares INTEGER NOT NULL
);
INSERT OR IGNORE INTO totals VALUES (1, 0, 0);
CREATE TRIGGER IF NOT EXISTS shares_added AFTER INSERT ON shares
    BEGIN UPDATE totals SET bytes = bytes + NEW.size, shares = shares + 1; END;
CREATE TRIGGER IF NOT EXISTS shares_removed AFTER DELETE ON shares
    BEGIN UPDATE totals SET bytes = bytes - OLD.size, shares = shares - 1; END;
PRAGMA user_version = 1;
COMMIT;
"""


@dataclass(frozen=True)
class Share:
    id: str
    document: dict
    created: str
    raw_size: int  # bytes of the canonical form
    size: int  # bytes stored


@dataclass(frozen=True)
class Pruned:
    removed: list[tuple[str, str, int]]  # (id, created, bytes stored), oldest first
    shares: int  # what is left
    bytes: int


def canonical(document: dict) -> bytes:
    """The one byte form of `document` that its id is the hash of."""
    try:
        text = json.dumps(document, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False)
        return text.encode("utf-8")
    except (TypeError, ValueError) as error:  # UnicodeEncodeError (a lone surrogate) is a ValueError
        raise InvalidInput(f"this view cannot be stored ({error}); send plain text") from None


def share_id(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()[:ID_HEX]


class ShareStore:
    def __init__(self, path: Path, max_share_bytes: int, max_store_bytes: int, timeout_s: float = BUSY_TIMEOUT_S):
        self.path = Path(path)
        self.max_share_bytes = max_share_bytes
        self.max_store_bytes = max_store_bytes
        self.timeout_s = timeout_s
        self._schema_lock = threading.Lock()

    # ---- the two operations ----

    def put(self, document: dict) -> str:
        """Store `document` (once) and return its id."""
        raw = canonical(document)
        if len(raw) > self.max_share_bytes:
            raise ShareTooLarge(
                f"this view is {len(raw):,} bytes to store; a share holds at most {self.max_share_bytes:,} "
                "(TOKENPRISM_MAX_SHARE_BYTES). Share a shorter text"
            )
        digest = hashlib.sha256(raw).hexdigest()
        key = digest[:ID_HEX]
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise self._unavailable(error) from None
        with self._connect() as conn:
            if self._known(conn, key, digest):
                return key
            body = zlib.compress(raw, ZLIB_LEVEL)
            conn.execute("BEGIN IMMEDIATE")
            try:
                if not self._known(conn, key, digest):
                    stored = conn.execute("SELECT bytes FROM totals").fetchone()[0]
                    if stored + len(body) > self.max_store_bytes:
                        raise StoreFull(
                            f"the share store is full: it holds {stored:,} of {self.max_store_bytes:,} bytes "
                            f"(TOKENPRISM_MAX_SHARE_STORE_BYTES) and this view needs {len(body):,} more. Copy the "
                            "text itself, or ask the server's operator to raise the limit or remove old shares"
                        )
                    conn.execute(
                        "INSERT INTO shares VALUES (?, ?, ?, ?, ?, ?)", (key, digest, body, len(body), len(raw), _now())
                    )
                conn.execute("COMMIT")
            finally:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
        return key

    def get(self, key: str) -> Share | None:
        """The share of id `key`; None when there is none or `key` is not an id."""
        if not isinstance(key, str) or not ID_PATTERN.fullmatch(key):
            return None
        if not self.path.exists():  # nothing was ever shared: a read does not create the file
            return None
        with self._connect() as conn:
            row = conn.execute("SELECT sha256, body, raw_size, created FROM shares WHERE id = ?", (key,)).fetchone()
        if row is None:
            return None
        digest, body, raw_size, created = row
        document = None
        try:
            raw = zlib.decompressobj().decompress(body, max(0, raw_size) + 1)
            if len(raw) == raw_size and hashlib.sha256(raw).hexdigest() == digest and digest.startswith(key):
                document = json.loads(raw)
        except (zlib.error, TypeError, ValueError):
            pass
        if not isinstance(document, dict):
            log.error("share %s in %s is damaged (its body does not match its sha256)", key, self.path)
            raise ShareDamaged(
                f"the shared view {key} is damaged on this server; ask whoever shared it to share it again"
            )
        return Share(key, document, created, raw_size, len(body))

    def usage(self) -> tuple[int, int]:
        """(shares, bytes stored)."""
        if not self.path.exists():
            return 0, 0
        with self._connect() as conn:
            shares, stored = conn.execute("SELECT shares, bytes FROM totals").fetchone()
        return shares, stored

    def prune(self, older_than: timedelta | None = None, max_bytes: int | None = None, dry_run: bool = False) -> Pruned:
        """Remove the shares created over `older_than` ago, then the oldest until at most `max_bytes`
        are stored; with `dry_run`, only say which. One transaction: writers wait, readers read on."""
        if not self.path.exists():
            return Pruned([], 0, 0)
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                rows = conn.execute("SELECT id, created, size FROM shares ORDER BY created, id").fetchall()
                shares, stored = conn.execute("SELECT shares, bytes FROM totals").fetchone()
                cutoff = _stamp(datetime.now(UTC) - older_than) if older_than is not None else ""
                removed = []
                for row in rows:
                    if row[1] >= cutoff and (max_bytes is None or stored <= max_bytes):
                        break
                    removed.append(row)
                    stored -= row[2]
                conn.executemany("DELETE FROM shares WHERE id = ?", [(row[0],) for row in removed])
                conn.execute("ROLLBACK" if dry_run else "COMMIT")
            finally:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
        return Pruned(removed, shares - len(removed), stored)

    # ---- the file ----

    def _known(self, conn: sqlite3.Connection, key: str, digest: str) -> bool:
        row = conn.execute("SELECT sha256 FROM shares WHERE id = ?", (key,)).fetchone()
        if row is not None and row[0] != digest:  # 128 bits collide: never overwrite the other share
            raise TokenprismError(
                f"another view is stored under id {key}; change the text slightly and share again",
                code="share_collision",
                status=409,
            )
        return row is not None

    @contextmanager
    def _connect(self):
        conn = None
        try:
            conn = sqlite3.connect(self.path, timeout=self.timeout_s, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA synchronous = FULL")
            self._prepare(conn)
            yield conn
        except sqlite3.OperationalError as error:
            if getattr(error, "sqlite_errorcode", None) in (SQLITE_BUSY, SQLITE_LOCKED) or "locked" in str(error):
                raise StoreBusy(
                    f"the share store is busy (a write held it for over {self.timeout_s:g} s); "
                    "try again in a few seconds"
                ) from None
            raise self._unavailable(error) from None
        except sqlite3.Error as error:  # DatabaseError: not a database, malformed
            raise self._unavailable(error) from None
        finally:
            if conn is not None:
                conn.close()

    def _prepare(self, conn: sqlite3.Connection) -> None:
        """The schema, made when the file is new. Checked on every connection (it reads one
        page), because the operator may move a damaged file aside while the server runs."""
        version = conn.execute("PRAGMA user_version").fetchone()[0]  # a file that is no database fails here
        if version > SCHEMA_VERSION:
            raise sqlite3.DatabaseError(
                f"its schema version {version} is newer than this tokenprism's {SCHEMA_VERSION}"
            )
        if version < SCHEMA_VERSION:
            with self._schema_lock:  # other processes: every step of the schema is idempotent
                use_wal(conn, self.timeout_s)
                conn.executescript(_SCHEMA)

    def _unavailable(self, error: Exception) -> StoreUnavailable:
        log.error("the share store %s cannot be used: %s", self.path, error)
        return StoreUnavailable(
            f"the share store ({FILE_NAME} in the data directory) cannot be used ({error}); the server's "
            "operator can move it aside with its -wal and -shm files (the next share makes a new one) or fix its "
            "permissions"
        )


def _now() -> str:
    return _stamp(datetime.now(UTC))


def _stamp(moment: datetime) -> str:
    """UTC to the second, ISO 8601 with Z: these sort as the moments do."""
    return moment.astimezone(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
