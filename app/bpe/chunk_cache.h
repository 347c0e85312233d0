/* The engine's chunk cache: chunk bytes -> the ids merging it gave, for the chunks that
 * are not one token (those are found by the whole-token lookup). One cache lives for one
 * call of the engine (one thread, no lock): a batch or a long text repeats its rare words,
 * and a repeat then costs one hash probe instead of a merge.
 *
 * Bounded: chunks of up to CACHE_CHUNK_BYTES only, at most CACHE_ENTRIES of them; when full
 * the cache is emptied and fills again. It starts small (a short text pays for little) and
 * doubles. Pure C; callable without the GIL. Included by _engine.c only.
 *
 * Left out: sharing between calls or threads.
 */
#ifndef TOKENPRISM_CHUNK_CACHE_H
#define TOKENPRISM_CHUNK_CACHE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CACHE_CHUNK_BYTES 64
#define CACHE_ENTRIES 16384 /* the slots are twice as many */

typedef struct {
    uint64_t hash;
    uint32_t start, len;         /* in bytes */
    uint32_t ids_start, ids_len; /* in ids */
} CacheEntry;

typedef struct {
    uint32_t *slots; /* entry index + 1; 0 when empty */
    int bits;
    CacheEntry *entries;
    uint32_t n;
    unsigned char *bytes; /* room for CACHE_ENTRIES * CACHE_CHUNK_BYTES once grown */
    int32_t *ids;         /* as many: a chunk merges into at most as many ids as it has bytes */
    uint32_t bytes_n, ids_n, cap;
} ChunkCache;

static void cache_free(ChunkCache *c) {
    free(c->slots);
    free(c->entries);
    free(c->bytes);
    free(c->ids);
    memset(c, 0, sizeof *c);
}

/* The ids cached for chunk p[0..len) of hash h (its number in *n_ids), or NULL. */
static inline const int32_t *cache_get(const ChunkCache *c, const unsigned char *p, size_t len, uint64_t h,
                                       size_t *n_ids) {
    if (!c->slots) return NULL;
    uint64_t mask = ((uint64_t)1 << c->bits) - 1;
    for (uint64_t i = h >> (64 - c->bits);; i = (i + 1) & mask) {
        uint32_t slot = c->slots[i];
        if (!slot) return NULL;
        const CacheEntry *e = &c->entries[slot - 1];
        if (e->hash == h && e->len == len && !memcmp(c->bytes + e->start, p, len)) {
            *n_ids = e->ids_len;
            return c->ids + e->ids_start;
        }
    }
}

/* Room for `cap` entries (slots rebuilt); -1 when out of memory (the cache is then empty). */
static int cache_grow(ChunkCache *c, uint32_t cap) {
    int bits = 1;
    while (((uint32_t)1 << bits) < 2 * cap) bits++;
    uint32_t *slots = calloc((size_t)1 << bits, sizeof *slots);
    CacheEntry *entries = realloc(c->entries, sizeof *entries * cap);
    if (entries) c->entries = entries;
    unsigned char *bytes = entries ? realloc(c->bytes, (size_t)cap * CACHE_CHUNK_BYTES) : NULL;
    if (bytes) c->bytes = bytes;
    int32_t *ids = bytes ? realloc(c->ids, sizeof *ids * cap * CACHE_CHUNK_BYTES) : NULL;
    if (!slots || !ids) {
        free(slots);
        cache_free(c);
        return -1;
    }
    c->ids = ids;
    free(c->slots);
    c->slots = slots;
    c->bits = bits;
    c->cap = cap;
    uint64_t mask = ((uint64_t)1 << bits) - 1;
    for (uint32_t k = 0; k < c->n; k++) {
        uint64_t i = c->entries[k].hash >> (64 - bits);
        while (slots[i]) i = (i + 1) & mask;
        slots[i] = k + 1;
    }
    return 0;
}

/* Keeps ids[0..n_ids) for chunk p[0..len) of hash h (not in the cache yet); a chunk too long
 * is not kept. -1 when out of memory. */
static int cache_put(ChunkCache *c, const unsigned char *p, size_t len, uint64_t h, const int32_t *ids,
                     size_t n_ids) {
    if (len > CACHE_CHUNK_BYTES || n_ids > len) return 0;
    if (c->n == CACHE_ENTRIES) { /* full: start again */
        memset(c->slots, 0, sizeof *c->slots << c->bits);
        c->n = c->bytes_n = c->ids_n = 0;
    }
    if (c->n == c->cap && cache_grow(c, c->cap ? 2 * c->cap : 64) < 0) return -1;
    CacheEntry *e = &c->entries[c->n];
    e->hash = h;
    e->start = c->bytes_n;
    e->len = (uint32_t)len;
    e->ids_start = c->ids_n;
    e->ids_len = (uint32_t)n_ids;
    memcpy(c->bytes + c->bytes_n, p, len);
    memcpy(c->ids + c->ids_n, ids, sizeof *ids * n_ids);
    c->bytes_n += (uint32_t)len;
    c->ids_n += (uint32_t)n_ids;
    uint64_t mask = ((uint64_t)1 << c->bits) - 1, i = h >> (64 - c->bits);
    while (c->slots[i]) i = (i + 1) & mask;
    c->slots[i] = ++c->n;
    return 0;
}

#endif
