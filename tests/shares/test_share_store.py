"""The share store (app/shares/store.py) on its own: content addressing, the two caps,
concurrent writers (threads, each with its own store object, as processes would have),
a store reopened after a restart, and files that are missing, damaged or locked."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import zlib

import pytest

from app.errors import InvalidInput
from app.shares.errors import ShareDamaged, ShareTooLarge, StoreBusy, StoreFull, StoreUnavailable
from app.shares.store import FILE_NAME, ZLIB_LEVEL, ShareStore, canonical

MB = 1_000_000


def doc(text: str, page: str = "playground") -> dict:
    return {"v": 1, "page": page, "query": [["tokenizer", "gpt2"], ["text", text]]}


@pytest.fixture
def path(tmp_path):
    return tmp_path / "data" / FILE_NAME  # the data directory does not exist yet


def store_at(path, share=MB, total=10 * MB, **options) -> ShareStore:
    return ShareStore(path, max_share_bytes=share, max_store_bytes=total, **options)


def rows(path) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT count(*) FROM shares").fetchone()[0]


def test_the_same_document_gets_the_same_id_and_is_stored_once(path):
    store = store_at(path)
    first = store.put(doc("hello 👋 world"))
    assert first == hashlib.sha256(canonical(doc("hello 👋 world"))).hexdigest()[:32]
    reordered = dict(reversed(list(doc("hello 👋 world").items())))  # key order does not matter
    assert store.put(reordered) == first
    assert store.put(doc("hello 👋 world!")) != first
    assert rows(path) == 2 and store.usage()[0] == 2
    share = store.get(first)
    assert share.document == doc("hello 👋 world") and share.id == first
    assert share.raw_size == len(canonical(doc("hello 👋 world")))
    assert share.created.endswith("Z")


def test_the_canonical_form_is_sorted_compact_utf8():
    assert canonical({"b": "é", "a": [1, "x"]}) == '{"a":[1,"x"],"b":"é"}'.encode()
    with pytest.raises(InvalidInput):
        canonical({"text": "\ud800"})  # a lone surrogate has no UTF-8
    with pytest.raises(InvalidInput):
        canonical({"x": float("nan")})


@pytest.mark.parametrize("bad", ["", "xyz", "../../etc/passwd", "0" * 31, "0" * 33, "A" * 32, "g" * 32, None, 5])
def test_unknown_and_malformed_ids_are_none(path, bad):
    store = store_at(path)
    store.put(doc("x"))
    assert store.get(bad) is None
    assert store.get("0" * 32) is None


def test_reading_never_creates_the_file(path):
    store = store_at(path)
    assert store.get("0" * 32) is None and store.usage() == (0, 0)
    assert not path.exists() and not path.parent.exists()


def test_a_share_over_its_cap_is_refused_and_nothing_is_kept(path):
    text = "x" * 2000
    size = len(canonical(doc(text)))
    store = store_at(path, share=size)
    assert store.get(store.put(doc(text))) is not None  # exactly at the cap
    with pytest.raises(ShareTooLarge) as caught:
        store.put(doc(text + "y"))
    assert caught.value.status == 413 and caught.value.code == "share_too_large"
    assert "TOKENPRISM_MAX_SHARE_BYTES" in caught.value.message and f"{size + 1:,}" in caught.value.message
    assert rows(path) == 1


def test_a_full_store_refuses_new_shares_but_answers_stored_ones(path):
    texts = [
        "".join(hashlib.sha256(f"{i}-{j}".encode()).hexdigest() for j in range(40)) for i in range(50)
    ]  # ~1.3 KB zipped
    store = store_at(path, total=20_000)
    kept = []
    with pytest.raises(StoreFull) as caught:
        for text in texts:
            kept.append(store.put(doc(text)))
    assert caught.value.status == 409 and caught.value.code == "store_full"
    assert "TOKENPRISM_MAX_SHARE_STORE_BYTES" in caught.value.message
    assert 3 <= len(kept) < 50
    shares, stored = store.usage()
    assert shares == len(kept) and stored <= 20_000
    assert store.put(doc(texts[0])) == kept[0]  # already stored: no new bytes, still answered
    assert all(store.get(key).document == doc(text) for key, text in zip(kept, texts[: len(kept)], strict=True))


def test_twenty_threads_share_at_once(path):
    """The same view from 20 writers is stored once; 20 different views are all stored."""
    barrier = threading.Barrier(20)
    results, errors = {}, []

    def writer(i):
        store = store_at(path)  # one object per writer, as separate processes have
        try:
            barrier.wait()
            same = store.put(doc("the same long text " * 500))
            mine = store.put(doc(f"text number {i} " * 300))
            results[i] = (same, mine)
        except Exception as error:
            errors.append(repr(error))

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len({same for same, _ in results.values()}) == 1
    assert len({mine for _, mine in results.values()}) == 20
    assert rows(path) == 21
    store = store_at(path)
    assert store.usage()[0] == 21
    for i, (_, mine) in results.items():
        assert store.get(mine).document == doc(f"text number {i} " * 300)


def test_concurrent_writers_never_pass_the_store_cap(path):
    """Many writers racing for the last bytes: the cap holds, and every refusal is store_full."""
    texts = [hashlib.sha512(str(i).encode()).hexdigest() * 20 for i in range(20)]
    sizes = [len(zlib.compress(canonical(doc(text)), ZLIB_LEVEL)) for text in texts]
    assert 6 * min(sizes) > 5 * max(sizes)
    cap = 5 * max(sizes)  # room for any five of them, never six
    barrier = threading.Barrier(20)
    outcomes = []

    def writer(text):
        store = store_at(path, total=cap)
        barrier.wait()
        try:
            store.put(doc(text))
            outcomes.append("stored")
        except StoreFull:
            outcomes.append("full")

    threads = [threading.Thread(target=writer, args=(text,)) for text in texts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["full"] * 15 + ["stored"] * 5
    shares, stored = store_at(path).usage()
    assert shares == 5 and stored <= cap


def test_a_reopened_store_has_every_share(path):
    texts = ["first", "second 🦊", "third\n" * 1000]
    keys = [store_at(path).put(doc(text)) for text in texts]
    usage = store_at(path).usage()
    restarted = store_at(path)  # a new process: nothing is held in memory between them
    assert [restarted.get(key).document for key in keys] == [doc(text) for text in texts]
    assert restarted.put(doc(texts[1])) == keys[1]
    assert restarted.usage() == usage == (3, usage[1])


def test_the_file_is_sqlite_in_wal_mode(path):
    store_at(path).put(doc("x"))
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 1


def test_rows_deleted_by_hand_free_their_bytes(path):
    store = store_at(path)
    keep, drop = store.put(doc("keep")), store.put(doc("drop" * 100))
    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM shares WHERE id = ?", (drop,))
    assert store.usage() == (1, store.get(keep).size)
    assert store.get(drop) is None


def test_a_file_that_is_no_database_is_a_clean_503_and_is_left_alone(path):
    path.parent.mkdir(parents=True)
    garbage = b"this is not a database, just some bytes " * 100
    path.write_bytes(garbage)
    store = store_at(path)
    for call in (lambda: store.put(doc("x")), lambda: store.get("0" * 32), store.usage):
        with pytest.raises(StoreUnavailable) as caught:
            call()
        assert caught.value.status == 503 and caught.value.code == "share_store_unavailable"
        assert FILE_NAME in caught.value.message and str(path.parent) not in caught.value.message
    assert path.read_bytes() == garbage


def test_a_file_moved_aside_while_running_is_made_anew(path):
    store = store_at(path)
    key = store.put(doc("before"))
    for name in (FILE_NAME, FILE_NAME + "-wal", FILE_NAME + "-shm"):
        if (path.parent / name).exists():
            (path.parent / name).rename(path.parent / (name + ".old"))
    assert store.get(key) is None  # missing: unknown, not an error
    again = store.put(doc("after"))
    assert store.get(again).document == doc("after") and store.usage()[0] == 1


def test_a_data_dir_that_cannot_be_made_is_a_clean_503(tmp_path):
    (tmp_path / "file").write_text("x")
    store = store_at(tmp_path / "file" / FILE_NAME)
    with pytest.raises(StoreUnavailable):
        store.put(doc("x"))
    assert store.get("0" * 32) is None


def test_a_damaged_row_is_never_served(path):
    store = store_at(path)
    key = store.put(doc("intact"))
    other = store.put(doc("other"))
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE shares SET body = ? WHERE id = ?", (b"\x78\x9c garbage", key))
    with pytest.raises(ShareDamaged) as caught:
        store.get(key)
    assert caught.value.code == "share_damaged" and key in caught.value.message
    assert store.get(other).document == doc("other")


def test_a_write_lock_held_too_long_is_a_busy_503_and_reads_go_on(path):
    store = store_at(path, timeout_s=0.2)
    key = store.put(doc("stored"))
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(StoreBusy) as caught:
            store.put(doc("new"))
        assert caught.value.status == 503 and caught.value.headers.get("Retry-After")
        assert store.get(key).document == doc("stored")  # WAL: readers do not wait for the writer
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert store.get(store.put(doc("new"))).document == doc("new")


def test_documents_round_trip_exactly(path):
    store = store_at(path)
    tricky = doc('\x00\t\r\n \u202e\U0001f468\u200d\U0001f469 <b>&amp;</b> "quotes" \\ ' * 50)
    assert store.get(store.put(tricky)).document == tricky
    assert json.loads(canonical(tricky)) == tricky
