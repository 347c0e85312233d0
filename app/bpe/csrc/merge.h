/* The encoder's BPE merge, shared by app.bpe._core (Merger, recover_merges) and
 * app.bpe._engine (Engine): the merge table and the merge loops, one copy included by both.
 * Everything here is static and needs no Python object except table_init (which sets a
 * Python error); the loops run without the GIL.
 *
 * Left out: turning text into chunks (pretokenize.c, or the caller) and Python types.
 */
#ifndef TOKENPRISM_MERGE_H
#define TOKENPRISM_MERGE_H

#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ==== Encoding ===========================================================================
 *
 * A chunk's bytes become ids through byte_ids; then, as long as some adjacent pair has a
 * merge, the pair whose merge has the lowest rank (= the lowest new id) is merged, the
 * leftmost one on ties. This is tiktoken's rule, so models recovered from its ranks give
 * its ids. Short chunks rescan an array of pair ranks (quadratic, but tiny and cache
 * friendly); long ones use a min-heap of (rank, position) over a linked list of positions,
 * O(n log n), skipping heap entries whose pair has changed since they were pushed.
 */

#define NO_MERGE INT32_MAX     /* the rank of a pair that has no merge */
#define SHORT_CHUNK 64         /* ids; longer chunks are merged on the heap */
#define NOGIL_MIN 4096         /* ids; merging at least this many releases the GIL */
#define EMPTY_KEY UINT64_MAX   /* a free hash slot (no pair of ids < 2**31 has this key) */

typedef struct {
    uint64_t key; /* left << 32 | right */
    int32_t id;   /* the id the merge makes, which is also its rank */
} Slot;

/* Open-addressing hash table (linear probing, at most half full) of the merges. */
typedef struct {
    int32_t byte_ids[256];
    Slot *slots;
    int bits;
    int32_t n_merges; /* entries; with table_add, merge i makes id 256 + i */
} Table;

static inline uint64_t merge_key(int32_t left, int32_t right) {
    return ((uint64_t)(uint32_t)left << 32) | (uint32_t)right;
}

static inline uint64_t key_slot(uint64_t key, int bits) {
    return (key * 0x9E3779B97F4A7C15ull) >> (64 - bits);
}

/* The id (= rank) that merging (left, right) makes, or NO_MERGE. */
static inline int32_t table_get(const Table *t, int32_t left, int32_t right) {
    uint64_t key = merge_key(left, right), mask = ((uint64_t)1 << t->bits) - 1;
    for (uint64_t h = key_slot(key, t->bits);; h = (h + 1) & mask) {
        if (t->slots[h].key == key) return t->slots[h].id;
        if (t->slots[h].key == EMPTY_KEY) return NO_MERGE;
    }
}

static int table_resize(Table *t, int bits) {
    Slot *slots = malloc(sizeof(Slot) << bits);
    if (!slots) return -1;
    memset(slots, 0xff, sizeof(Slot) << bits); /* every key EMPTY_KEY */
    uint64_t mask = ((uint64_t)1 << bits) - 1;
    for (uint64_t old = 0; t->slots && old < ((uint64_t)1 << t->bits); old++) {
        if (t->slots[old].key == EMPTY_KEY) continue;
        uint64_t h = key_slot(t->slots[old].key, bits);
        while (slots[h].key != EMPTY_KEY) h = (h + 1) & mask;
        slots[h] = t->slots[old];
    }
    free(t->slots);
    t->slots = slots;
    t->bits = bits;
    return 0;
}

/* An empty table; `byte_ids` must be 256 bytes, a permutation of 0..255. Sets a Python
 * error and returns -1 on failure (nothing to free then). */
static inline int table_init(Table *t, const Py_buffer *byte_ids) {
    memset(t, 0, sizeof *t);
    int seen[256] = {0};
    const unsigned char *b = byte_ids->buf;
    for (Py_ssize_t i = 0; i < byte_ids->len && i < 256; i++) seen[b[i]]++;
    for (int i = 0; i < 256; i++)
        if (byte_ids->len != 256 || seen[i] != 1) {
            PyErr_SetString(PyExc_ValueError, "byte_ids must be 256 bytes, each of 0..255 once");
            return -1;
        }
    for (int i = 0; i < 256; i++) t->byte_ids[i] = b[i];
    if (table_resize(t, 10) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* Add merge (left, right) -> id, a pair not in the table yet (n_merges counts the
 * entries). Returns 0, or -1 when out of memory (no Python error set: callable without
 * the GIL). */
static int table_set(Table *t, int32_t left, int32_t right, int32_t id) {
    if ((uint64_t)(t->n_merges + 1) * 2 > ((uint64_t)1 << t->bits) && table_resize(t, t->bits + 1) < 0)
        return -1;
    uint64_t key = merge_key(left, right), mask = ((uint64_t)1 << t->bits) - 1;
    uint64_t h = key_slot(key, t->bits);
    while (t->slots[h].key != EMPTY_KEY) h = (h + 1) & mask;
    t->slots[h].key = key;
    t->slots[h].id = id;
    t->n_merges++;
    return 0;
}

/* Add merge (left, right) -> 256 + n_merges. Returns 0; 1 if the pair already has a
 * merge (nothing added); -1 when out of memory (no Python error set: callable without
 * the GIL). The caller checks that left and right are below the new id. */
static inline int table_add(Table *t, int32_t left, int32_t right) {
    if (table_get(t, left, right) != NO_MERGE) return 1;
    return table_set(t, left, right, 256 + t->n_merges);
}

/* Merge ids[0..n) in place by rescanning (n <= SHORT_CHUNK); returns the new length. */
static Py_ssize_t merge_short(const Table *t, int32_t *ids, Py_ssize_t n) {
    int32_t ranks[SHORT_CHUNK]; /* i -> rank of (ids[i], ids[i + 1]); n - 1 of them */
    for (Py_ssize_t i = 0; i + 1 < n; i++) ranks[i] = table_get(t, ids[i], ids[i + 1]);
    while (n > 1) {
        Py_ssize_t i = 0;
        for (Py_ssize_t k = 1; k + 1 < n; k++)
            if (ranks[k] < ranks[i]) i = k; /* strict: the leftmost lowest */
        int32_t new_id = ranks[i];
        if (new_id == NO_MERGE) break;
        /* ids[i], ids[i + 1] -> new_id; pair i + 1 goes with the right id */
        ids[i] = new_id;
        memmove(ids + i + 1, ids + i + 2, sizeof *ids * (size_t)(n - i - 2));
        memmove(ranks + i, ranks + i + 1, sizeof *ranks * (size_t)(n - i - 2));
        n--;
        if (i > 0) ranks[i - 1] = table_get(t, ids[i - 1], new_id);
        if (i + 1 < n) ranks[i] = table_get(t, new_id, ids[i + 1]);
    }
    return n;
}

/* Min-heap of (rank << 32 | position): ordered by rank, then leftmost position. */
static void heap_sift_down(uint64_t *heap, size_t n, size_t i) {
    uint64_t e = heap[i];
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= n) break;
        if (child + 1 < n && heap[child + 1] < heap[child]) child++;
        if (heap[child] >= e) break;
        heap[i] = heap[child];
        i = child;
    }
    heap[i] = e;
}

static void heap_make(uint64_t *heap, size_t n) {
    for (size_t i = n / 2; i-- > 0;) heap_sift_down(heap, n, i);
}

static uint64_t heap_take(uint64_t *heap, size_t *n) {
    uint64_t top = heap[0];
    heap[0] = heap[--*n];
    heap_sift_down(heap, *n, 0);
    return top;
}

static void heap_add(uint64_t *heap, size_t *n, uint64_t e) {
    size_t i = (*n)++;
    while (i > 0 && heap[(i - 1) / 2] > e) {
        heap[i] = heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    heap[i] = e;
}

/* Merge ids[0..n) in place on the heap (2 <= n < INT32_MAX); returns the new length, or
 * -1 when out of memory. Needs no Python object, so it can run without the GIL. */
static Py_ssize_t merge_long(const Table *t, int32_t *ids, Py_ssize_t n) {
    int32_t *next = malloc(sizeof *next * (size_t)n); /* position -> next live one (n: none) */
    int32_t *prev = malloc(sizeof *prev * (size_t)n); /* position -> previous live one (-1: none) */
    uint64_t *heap = malloc(sizeof *heap * 3 * (size_t)n); /* n - 1 pairs + 2 per merge */
    size_t heap_n = 0;
    Py_ssize_t out = -1;
    if (!next || !prev || !heap) goto done;
    for (int32_t i = 0; i < n; i++) {
        next[i] = i + 1;
        prev[i] = i - 1;
        int32_t r = i + 1 < n ? table_get(t, ids[i], ids[i + 1]) : NO_MERGE;
        if (r != NO_MERGE) heap[heap_n++] = (uint64_t)r << 32 | (uint32_t)i;
    }
    heap_make(heap, heap_n);
    while (heap_n > 0) {
        uint64_t top = heap_take(heap, &heap_n);
        int32_t rank = (int32_t)(top >> 32), i = (int32_t)(uint32_t)top;
        /* stale unless position i is live and its pair still merges into `rank` */
        if (ids[i] < 0 || next[i] == n || table_get(t, ids[i], ids[next[i]]) != rank) continue;
        int32_t j = next[i], k = next[j];
        ids[i] = rank;
        ids[j] = -1; /* merged into its left neighbour */
        next[i] = k;
        if (k != n) {
            prev[k] = i;
            int32_t r = table_get(t, rank, ids[k]);
            if (r != NO_MERGE) heap_add(heap, &heap_n, (uint64_t)r << 32 | (uint32_t)i);
        }
        int32_t h = prev[i];
        if (h >= 0) {
            int32_t r = table_get(t, ids[h], rank);
            if (r != NO_MERGE) heap_add(heap, &heap_n, (uint64_t)r << 32 | (uint32_t)h);
        }
    }
    out = 0;
    for (int32_t p = 0; p != n; p = next[p]) ids[out++] = ids[p];
done:
    free(next);
    free(prev);
    free(heap);
    return out;
}

/* Merge ids[0..n) in place; the new length, or -1 when out of memory (no error set). */
static Py_ssize_t merge_ids(const Table *t, int32_t *ids, Py_ssize_t n) {
    if (n < 2) return n;
    return n <= SHORT_CHUNK ? merge_short(t, ids, n) : merge_long(t, ids, n);
}

#endif
