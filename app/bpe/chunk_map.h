/* The hash map of chunk counts that _chunk_count.c gives each thread: distinct byte strings in
 * order of first appearance, each with its count, and an open-addressed index of them (linear
 * probing, at most half full). Each distinct chunk's bytes are copied once into the map, so a
 * lookup compares with bytes close together, not with the documents (a cache miss each, far apart).
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

typedef struct {
    size_t at; /* where its bytes are in the map's `bytes` */
    uint32_t len, hash;
    uint64_t count;
} entry;

typedef struct { /* distinct chunks in order of first appearance, and an open-addressed index of them */
    entry *items;
    size_t n, cap;
    uint32_t *slots; /* item number + 1; 0 is empty */
    size_t mask;
    unsigned char *bytes; /* the distinct chunks' bytes, one after the other */
    size_t used, room;
    int failed;           /* OUT_OF_MEMORY or TOO_LONG */
} counts;

/* The last n < 8 bytes at p, as the low bytes of a word (no call to a memcpy of unknown size). */
static inline uint64_t tail(const unsigned char *p, size_t n) {
    uint64_t x = 0;
    for (size_t k = 0; k < n; k++) x |= (uint64_t)p[k] << (8 * k);
    return x;
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

static inline int same(const unsigned char *a, const unsigned char *b, size_t n) {
    if (n > 8) return memcmp(a, b, n) == 0;
    return tail(a, n) == tail(b, n);
}

static int grow(counts *t) {
    size_t size = t->slots ? (t->mask + 1) * 2 : 1024;
    uint32_t *slots = calloc(size, sizeof *slots);
    if (!slots) return 0;
    for (size_t k = 0; k < t->n; k++) {
        size_t i = t->items[k].hash & (size - 1);
        while (slots[i]) i = (i + 1) & (size - 1);
        slots[i] = (uint32_t)(k + 1);
    }
    free(t->slots);
    t->slots = slots;
    t->mask = size - 1;
    return 1;
}

/* Adds `count` to the chunk p[0..len) (hash h), appending it when new. */
static inline void add(counts *t, const unsigned char *p, size_t len, uint32_t h, uint64_t count) {
    if (t->failed) return;
    if ((t->n + 1) * 2 > (t->slots ? t->mask + 1 : 0) && (t->n >= UINT32_MAX - 1 || !grow(t))) {
        t->failed = 1;
        return;
    }
    size_t i = h & t->mask;
    for (uint32_t k; (k = t->slots[i]); i = (i + 1) & t->mask) {
        entry *e = &t->items[k - 1];
        if (e->hash == h && e->len == len && same(t->bytes + e->at, p, len)) {
            e->count += count;
            return;
        }
    }
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 1024;
        entry *items = realloc(t->items, cap * sizeof *items);
        if (!items) {
            t->failed = 1;
            return;
        }
        t->items = items, t->cap = cap;
    }
    if (t->used + len > t->room) {
        size_t room = t->room ? t->room * 2 : 1 << 16;
        while (room < t->used + len) room *= 2;
        unsigned char *bytes = realloc(t->bytes, room);
        if (!bytes) {
            t->failed = 1;
            return;
        }
        t->bytes = bytes, t->room = room;
    }
    memcpy(t->bytes + t->used, p, len);
    t->items[t->n] = (entry){t->used, (uint32_t)len, h, count};
    t->used += len;
    t->slots[i] = (uint32_t)++t->n;
}

static void release(counts *t) {
    free(t->items);
    free(t->slots);
    free(t->bytes);
}

#endif
