/* The hash map of chunk counts that _chunk_count.c gives each thread: distinct byte strings in
 * order of first appearance, each with its count. Open addressing (linear probing, at most half
 * full) with the entries in the slots themselves, a chunk of up to 16 bytes (most are) kept in
 * its entry: a lookup reads one slot, not an index, then an entry, then the chunk's bytes (each
 * a cache miss once the map outgrows the cache). Longer chunks are copied once into `bytes`.
 *
 * Left out: removal (never needed) and any Python object (the caller makes those).
 */
#ifndef TOKENPRISM_CHUNK_MAP_H
#define TOKENPRISM_CHUNK_MAP_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define OUT_OF_MEMORY 1
#define TOO_LONG 2 /* a chunk of 4 GB or more: the caller counts in Python */
#define INLINE 16  /* chunks of at most this many bytes are kept in their entry */

typedef struct {
    uint64_t key[2];    /* the chunk, zero-padded (len <= INLINE); else key[0] is where it is in `bytes` */
    uint32_t hash, len; /* len 0: an empty slot (no chunk is empty) */
    uint64_t count;
} entry;

typedef struct {
    entry *slots;
    size_t mask;
    uint32_t *order; /* the slot of each distinct chunk, in order of first appearance */
    size_t n, cap;
    unsigned char *bytes; /* the chunks longer than INLINE, one after the other */
    size_t used, room;
    int failed; /* OUT_OF_MEMORY or TOO_LONG */
} counts;

/* The n < 8 bytes at p, as the low bytes of a word (no call to a memcpy of unknown size). */
static inline uint64_t tail(const unsigned char *p, size_t n) {
    uint64_t x = 0;
    for (size_t k = 0; k < n; k++) x |= (uint64_t)p[k] << (8 * k);
    return x;
}

/* The n <= INLINE bytes at p as two zero-padded words. */
static inline void load_key(const unsigned char *p, size_t n, uint64_t key[2]) {
    if (n >= 8) {
        memcpy(&key[0], p, 8);
        key[1] = tail(p + 8, n - 8 > 8 ? 8 : n - 8);
    } else {
        key[0] = tail(p, n);
        key[1] = 0;
    }
}

static inline uint32_t hash_bytes(const unsigned char *p, size_t n) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ n, x;
    for (; n >= 8; p += 8, n -= 8) {
        memcpy(&x, p, 8);
        h = (h ^ x) * 0xBF58476D1CE4E5B9ull;
        h ^= h >> 31;
    }
    h = (h ^ tail(p, n)) * 0x94D049BB133111EBull;
    return (uint32_t)(h ^ (h >> 32));
}

/* The bytes of the k-th distinct chunk. */
static inline const entry *nth(const counts *t, size_t k) { return &t->slots[t->order[k]]; }
static inline const unsigned char *chunk_of(const counts *t, const entry *e) {
    return e->len <= INLINE ? (const unsigned char *)e->key : t->bytes + e->key[0];
}

/* Doubles the slots (or makes the first ones); the order is kept. */
static int grow(counts *t) {
    size_t size = t->slots ? (t->mask + 1) * 2 : 1024;
    entry *slots = calloc(size, sizeof *slots);
    if (!slots) return 0;
    for (size_t k = 0; k < t->n; k++) {
        const entry *e = &t->slots[t->order[k]];
        size_t i = e->hash & (size - 1);
        while (slots[i].len) i = (i + 1) & (size - 1);
        slots[i] = *e;
        t->order[k] = (uint32_t)i;
    }
    free(t->slots);
    t->slots = slots;
    t->mask = size - 1;
    return 1;
}

static int room_for(counts *t, size_t len) {
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 1024;
        uint32_t *order = realloc(t->order, cap * sizeof *order);
        if (!order) return 0;
        t->order = order, t->cap = cap;
    }
    if (len > INLINE && t->used + len > t->room) {
        size_t room = t->room ? t->room * 2 : 1 << 16;
        while (room < t->used + len) room *= 2;
        unsigned char *bytes = realloc(t->bytes, room);
        if (!bytes) return 0;
        t->bytes = bytes, t->room = room;
    }
    return 1;
}

/* Adds `count` to the chunk p[0..len) (0 < len < 4 GB, hash h), appending it when new. */
static inline void add(counts *t, const unsigned char *p, size_t len, uint32_t h, uint64_t count) {
    if (t->failed) return;
    if ((t->n + 1) * 2 > (t->slots ? t->mask + 1 : 0) && (t->n >= UINT32_MAX / 2 || !grow(t))) {
        t->failed = OUT_OF_MEMORY;
        return;
    }
    uint64_t key[2] = {0, 0};
    if (len <= INLINE) load_key(p, len, key);
    size_t i = h & t->mask;
    for (entry *e; (e = &t->slots[i])->len; i = (i + 1) & t->mask)
        if (e->hash == h && e->len == len &&
            (len <= INLINE ? e->key[0] == key[0] && e->key[1] == key[1] : memcmp(t->bytes + e->key[0], p, len) == 0)) {
            e->count += count;
            return;
        }
    if (!room_for(t, len)) {
        t->failed = OUT_OF_MEMORY;
        return;
    }
    if (len > INLINE) {
        memcpy(t->bytes + t->used, p, len);
        key[0] = t->used;
        t->used += len;
    }
    t->slots[i] = (entry){{key[0], key[1]}, h, (uint32_t)len, count};
    t->order[t->n++] = (uint32_t)i;
}

static void release(counts *t) {
    free(t->slots);
    free(t->order);
    free(t->bytes);
}

#endif
