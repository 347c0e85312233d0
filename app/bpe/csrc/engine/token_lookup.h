/* The engine's whole-token lookup: a token's bytes -> its rank, in an open-addressing hash
 * table (linear probing, at most half full) whose 16-byte slots hold the token's first 12
 * bytes, its length and its rank, so a token of up to 12 bytes is found in one memory access
 * (before 2026-12-01 the slot held 8 bytes, and a token of 9-12 bytes waited on a second load,
 * its tail: 1-5% of an o200k_base encode); the bytes of all tokens are in one flat array.
 * Most chunks of real text are one token, so this answers most of an encode. Included by
 * _engine.c only.
 *
 * Left out: anything but exact lookups (no prefixes).
 */
#ifndef TOKENPRISM_TOKEN_LOOKUP_H
#define TOKENPRISM_TOKEN_LOOKUP_H

#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "table_memory.h"

/* A chunk's key: its first (up to) 8 bytes as a little-endian word padded with zeros, the
 * next 8 likewise (its tail; 0 for a chunk of up to 8), and the hash of all its bytes. */
typedef struct {
    uint64_t head, tail, hash;
} Key;

static inline uint64_t mix(uint64_t h) {
    h *= 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 31);
}

/* LOW_BYTES[k]: the low k bytes of a word (k <= 8), to cut a word read whole to a chunk's bytes
 * without a branch or a shift by a variable (a chunk's length varies at random). */
static const uint64_t LOW_BYTES[9] = {0, 0xff, 0xffff, 0xffffff, 0xffffffff, 0xffffffffffull, 0xffffffffffffull,
                                      0xffffffffffffffull, ~0ull};

/* A word of p[i..len), at most 8 bytes, little-endian, zero-padded; `avail` >= len bytes may be read. */
static inline uint64_t word_at(const unsigned char *p, size_t i, size_t len, size_t avail) {
    uint64_t w = 0;
    size_t k = len - i < 8 ? len - i : 8;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (avail - i >= 8) {
        memcpy(&w, p + i, 8);
        return w & LOW_BYTES[k];
    }
#endif
    (void)avail;
    for (size_t j = 0; j < k; j++) w |= (uint64_t)p[i + j] << (8 * j);
    return w;
}

/* The key of p[0..len) whose head word (word_at(p, 0, ...)) is `head`; `avail` >= len bytes
 * may be read from p. */
static inline Key key_with_head(uint64_t head, const unsigned char *p, size_t len, size_t avail) {
    Key k = {head, 0, 0};
    uint64_t h = mix(k.head ^ (len * 0x9E3779B97F4A7C15ull)), w;
    for (size_t i = 8; i < len; i += 8) {
        w = word_at(p, i, len, avail);
        if (i == 8) k.tail = w;
        h = mix(h ^ w);
    }
    k.hash = h ^ (h >> 29);
    return k;
}

static inline Key key_of(const unsigned char *p, size_t len, size_t avail) {
    return key_with_head(word_at(p, 0, len, avail), p, len, avail);
}

typedef struct {
    uint64_t head;     /* Key.head of the token */
    uint32_t middle;   /* its bytes 8..11 (Key.tail's low half) */
    uint32_t len_rank; /* its length (LONG_TOKEN for that or more) << 24 | its rank; 0: an empty slot */
} Slot16;
#define LONG_TOKEN 255
#define MAX_LOOKUP_TOKENS ((Py_ssize_t)1 << 24)

typedef struct {
    unsigned char *flat; /* all tokens' bytes; rank r is flat[starts[r] .. starts[r + 1]) */
    uint32_t *starts;
    uint64_t *tails;     /* rank -> Key.tail of the token: a token of up to 16 bytes is matched
                          * without reading flat, one of up to 12 in its slot alone */
    Slot16 *slots;
    int bits;
    size_t longest;
} Lookup;

static inline uint32_t slot_length(size_t len) { return (uint32_t)(len < LONG_TOKEN ? len : LONG_TOKEN) << 24; }

/* The rank of the token p[0..len) of key k, or -1. A token of up to 12 bytes is matched in
 * its slot alone, one of up to 16 also by its tail; a longer one also compares the rest. */
static inline int32_t lookup_rank_keyed(const Lookup *l, const unsigned char *p, size_t len, Key k) {
    if (len > l->longest) return -1;
    uint64_t mask = ((uint64_t)1 << l->bits) - 1;
    uint32_t length = slot_length(len);
    for (uint64_t i = k.hash >> (64 - l->bits);; i = (i + 1) & mask) {
        const Slot16 *slot = &l->slots[i];
        if (!slot->len_rank) return -1;
        if (slot->head != k.head || (slot->len_rank & 0xFF000000u) != length || slot->middle != (uint32_t)k.tail)
            continue;
        int32_t rank = (int32_t)(slot->len_rank & 0xFFFFFFu);
        if (len <= 12 || (l->tails[rank] == k.tail &&
                          (len <= 16 || (l->starts[rank + 1] - l->starts[rank] == len &&
                                         !memcmp(l->flat + l->starts[rank] + 16, p + 16, len - 16)))))
            return rank;
    }
}

static inline int32_t lookup_rank(const Lookup *l, const unsigned char *p, size_t len) {
    return lookup_rank_keyed(l, p, len, key_of(p, len, len));
}

static void lookup_free(Lookup *l) {
    table_free(l->flat);
    table_free(l->starts);
    table_free(l->tails);
    table_free(l->slots);
}

/* Fills the lookup from tokens (a list of bytes, rank order); -1 with a Python error set. */
static int lookup_init(Lookup *l, PyObject *tokens) {
    Py_ssize_t n = PyList_GET_SIZE(tokens), total = 0;
    for (Py_ssize_t r = 0; r < n; r++) {
        PyObject *token = PyList_GET_ITEM(tokens, r);
        if (!PyBytes_Check(token) || PyBytes_GET_SIZE(token) == 0) {
            PyErr_Format(PyExc_TypeError, "token %zd is not non-empty bytes", r);
            return -1;
        }
        total += PyBytes_GET_SIZE(token);
    }
    if (n >= MAX_LOOKUP_TOKENS || total >= UINT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "too many or too long tokens (at most 2**24 tokens, 4 GB in all)");
        return -1;
    }
    l->bits = 10;
    while (((Py_ssize_t)1 << l->bits) < 2 * n) l->bits++;
    l->flat = table_calloc((size_t)total + 1, 1);
    l->starts = table_calloc((size_t)(n + 1), sizeof *l->starts);
    l->tails = table_calloc((size_t)(n ? n : 1), sizeof *l->tails);
    l->slots = table_calloc((size_t)1 << l->bits, sizeof *l->slots);
    if (!l->flat || !l->starts || !l->tails || !l->slots) {
        PyErr_NoMemory();
        return -1;
    }
    uint64_t mask = ((uint64_t)1 << l->bits) - 1;
    l->starts[0] = 0;
    for (Py_ssize_t r = 0; r < n; r++) {
        PyObject *token = PyList_GET_ITEM(tokens, r);
        size_t len = (size_t)PyBytes_GET_SIZE(token);
        const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(token);
        if (lookup_rank(l, p, len) >= 0) {
            PyErr_Format(PyExc_ValueError, "token %zd repeats an earlier token", r);
            return -1;
        }
        memcpy(l->flat + l->starts[r], p, len);
        l->starts[r + 1] = l->starts[r] + (uint32_t)len;
        if (len > l->longest) l->longest = len;
        Key k = key_of(p, len, len);
        l->tails[r] = k.tail;
        uint64_t i = k.hash >> (64 - l->bits);
        while (l->slots[i].len_rank) i = (i + 1) & mask;
        l->slots[i] = (Slot16){k.head, (uint32_t)k.tail, slot_length(len) | (uint32_t)r};
    }
    return 0;
}

/* ---- the short tokens alone ----
 * Tokens of up to SHORT_TOKEN bytes in a table of 8-byte slots (rank << 40 | split << 35 |
 * len << 32 | bytes), ~0.5-1 MB, small enough to stay in cache while a chunk is merged: most
 * pairs the merge looks up are this short. Under the listed-merge rule a slot also holds where
 * the listed merge making its token splits it (merge_tables.h's splits; 0: no listed merge
 * does), and the 2-byte tokens' table only those one byte and one byte make, so a short pair
 * is answered by one load (before 2026-12-02 a second one, splits[rank], 512 KB read at random:
 * ~17% of deepseek_v4's merging waited on it). Empty when there are too many ranks to pack
 * (>= 2**24). */
#define SHORT_TOKEN 4

typedef struct {
    uint64_t *slots; /* 0: empty */
    int bits;        /* 0: no table */
    int listed;      /* the slots' splits are checked */
    int32_t *pairs;  /* the rank of each 2-byte token (that a listed merge makes), by its bytes as a little-endian uint16; -1: none */
} ShortLookup;

#define SHORT_KEY_BITS 35 /* bytes and length */
#define SPLIT_FAR 255     /* a split of 255 bytes or more, in merge_tables.h's splits */

static inline uint64_t short_key(const unsigned char *p, size_t len) {
    uint32_t w = 0;
    for (size_t i = 0; i < len; i++) w |= (uint32_t)p[i] << (8 * i);
    return (uint64_t)len << 32 | w;
}

/* The rank of the token p[0..len) (2 <= len <= SHORT_TOKEN) as a pair split `split` bytes in,
 * or -1 (under the listed-merge rule also when no listed merge makes it there); the table must
 * exist. `avail` >= len bytes may be read from p (with 8, its bytes are one load, not a loop). */
static inline int32_t short_pair_rank(const ShortLookup *t, const unsigned char *p, size_t len, size_t split,
                                      size_t avail) {
    if (len == 2) return t->pairs[p[0] | p[1] << 8];
    uint64_t key = (uint64_t)len << 32 | word_at(p, 0, len, avail), mask = ((uint64_t)1 << t->bits) - 1;
    for (uint64_t i = (key * 0x9E3779B97F4A7C15ull) >> (64 - t->bits);; i = (i + 1) & mask) {
        uint64_t v = t->slots[i];
        if (!v) return -1;
        if ((v & (((uint64_t)1 << SHORT_KEY_BITS) - 1)) == key)
            return t->listed && (v >> SHORT_KEY_BITS & 31) != split ? -1 : (int32_t)(v >> 40);
    }
}

/* Fills t from l's tokens (n of them), with `splits` (NULL: tiktoken's rule); -1 when out of
 * memory (no Python error set). */
static int short_init(ShortLookup *t, const Lookup *l, size_t n, const uint8_t *splits) {
    memset(t, 0, sizeof *t);
    if (n >= ((size_t)1 << 24)) return 0;
    size_t count = 0;
    for (size_t r = 0; r < n; r++) count += l->starts[r + 1] - l->starts[r] <= SHORT_TOKEN;
    int bits = 8;
    while (((size_t)1 << bits) < 2 * count) bits++;
    if (!(t->slots = table_calloc((size_t)1 << bits, sizeof *t->slots))) return -1;
    if (!(t->pairs = table_calloc(65536, sizeof *t->pairs))) return -1;
    memset(t->pairs, 0xff, sizeof *t->pairs * 65536);
    t->bits = bits;
    t->listed = splits != NULL;
    uint64_t mask = ((uint64_t)1 << bits) - 1;
    for (size_t r = 0; r < n; r++) {
        size_t len = l->starts[r + 1] - l->starts[r];
        if (len > SHORT_TOKEN) continue;
        uint64_t split = splits ? splits[r] : 0; /* < len <= 4 */
        if (len == 2 && (!splits || split == 1)) t->pairs[l->flat[l->starts[r]] | l->flat[l->starts[r] + 1] << 8] = (int32_t)r;
        uint64_t key = short_key(l->flat + l->starts[r], len), i = (key * 0x9E3779B97F4A7C15ull) >> (64 - bits);
        while (t->slots[i]) i = (i + 1) & mask;
        t->slots[i] = (uint64_t)r << 40 | split << SHORT_KEY_BITS | key;
    }
    return 0;
}

/* ---- a filter of the longer tokens ----
 * Two bits in one 64-bit word per Key.hash of every token longer than SHORT_TOKEN bytes, 8x as
 * many bits as such tokens (~128-256 KB): a clear bit says "no token" without touching the
 * lookup's far larger slots, which is what most pair lookups of a merge find. */
typedef struct {
    uint64_t *words;
    int shift; /* hash >> shift is the word's index */
} LongFilter;

/* A token sets two bits, picked by the hash's low twelve bits, in one word picked by its top bits. */
static inline uint64_t filter_mask(uint64_t hash) { return (uint64_t)1 << (hash & 63) | (uint64_t)1 << (hash >> 6 & 63); }

static inline int filter_may_hold(const LongFilter *f, uint64_t hash) {
    uint64_t mask = filter_mask(hash);
    return (f->words[hash >> f->shift] & mask) == mask;
}

/* Fills f from l's tokens (n of them); -1 when out of memory (no Python error set). */
static int filter_init(LongFilter *f, const Lookup *l, size_t n) {
    size_t count = 0;
    for (size_t r = 0; r < n; r++) count += l->starts[r + 1] - l->starts[r] > SHORT_TOKEN;
    int bits = 12;
    while (((size_t)1 << bits) < 8 * count) bits++;
    if (!(f->words = table_calloc(((size_t)1 << bits) / 64, sizeof *f->words))) return -1;
    f->shift = 64 - (bits - 6);
    for (size_t r = 0; r < n; r++) {
        size_t len = l->starts[r + 1] - l->starts[r];
        if (len <= SHORT_TOKEN) continue;
        uint64_t hash = key_of(l->flat + l->starts[r], len, len).hash;
        f->words[hash >> f->shift] |= filter_mask(hash);
    }
    return 0;
}

#endif
