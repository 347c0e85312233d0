/* The engine's chunk cache: chunk bytes -> the ids merging it gave, for the chunks that
 * are not one token (those are found by the whole-token lookup). Texts repeat their rare
 * words, and a repeat then costs one hash probe instead of a merge.
 *
 * Per thread, no lock: each thread keeps THREAD_CACHES caches (pthread-specific data, freed
 * when the thread ends), one for each of the engines it used last (an engine is known by
 * its serial number, never reused); an engine that finds none of them its own takes the
 * least recently used and frees it (its generations start small again).
 *
 * Bounded: chunks of up to CACHE_CHUNK_BYTES only; a cache is two generations, each of up
 * to GEN_ENTRIES chunks (~0.7 MB) of its own and on to GEN_ENTRIES_MAX (~5.5 MB) while the
 * process's CACHE_BUDGET_BYTES last, shared by all threads' generations past GEN_ENTRIES,
 * with CACHE_ARENA_BYTES and CACHE_ARENA_IDS per entry on average. When the young one is
 * full the old one is emptied and the two change places; a chunk found in the old one moves
 * to the young one, so the chunks a text keeps using are never dropped. At most ~5.5 MB a
 * thread and CACHE_BUDGET_BYTES more a process. A generation starts small (a short text pays
 * for little) and doubles. Before 2026-12-02 GEN_ENTRIES was the end: a text of more distinct
 * chunks than that turned the generations over on every pass, so an engine's second pass
 * over 1 MB of Latin or translations merged a third of its chunks again (a long-lived
 * engine ran no faster than a fresh one; bench_engine.py --warm). Each cache also holds its
 * engine's memo of short whole tokens (token_memo.h, 128 KB), made with it and freed with it.
 * Pure C; callable without the GIL. Included by _engine.c only.
 *
 * Left out: sharing between threads.
 */
#ifndef TOKENPRISM_CHUNK_CACHE_H
#define TOKENPRISM_CHUNK_CACHE_H

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "token_memo.h"

#define CACHE_CHUNK_BYTES 256 /* box-drawing lines and emoji runs repeat, and cost ~70 merges each */
#define GEN_ENTRIES 8192      /* a generation's own; the slots are twice as many */
#define GEN_ENTRIES_MAX 65536 /* and with the budget's bytes */
#define CACHE_BUDGET_BYTES ((size_t)32 << 20)
#define CACHE_ARENA_BYTES 32
#define CACHE_ARENA_IDS 8
#define THREAD_CACHES 4

/* A chunk's record in its generation's arena, in words (int32_t): its length and number of
 * ids (len | n_ids << 16), its bytes (padded to a word), then the ids: all a found chunk needs
 * is in one place, what the probe compares first. A slot is the high 32 bits of the chunk's
 * hash (the probe's first check, and where it starts: the slot index is the hash's top bits)
 * and its record's word + 1; 0 when empty. A hit then reads two places, the slot and the
 * record (before 2026-12-02 four: the slot, an entry, the bytes and the ids, each its own array).
 * The arena is segments of SEG_WORDS, made as they are first needed and never moved (a record
 * does not cross one): a generation that grows rebuilds its slots only (its arena realloc'd
 * copied 1.6 MB for 1 MB of translations, 41,000 of its last-level write misses in cachegrind). */
#define BYTE_WORDS(len) (((len) + 3) / 4)
#define RECORD_WORDS(len, n_ids) (1 + BYTE_WORDS(len) + (n_ids))
#define ARENA_WORDS (1 + CACHE_ARENA_IDS + CACHE_ARENA_BYTES / 4) /* a chunk's share, on average */
#define SEG_BITS 14
#define SEG_WORDS ((uint32_t)1 << SEG_BITS) /* 64 KB; a record is at most 1 + 64 + 256 words */
#define MAX_SEGS ((GEN_ENTRIES_MAX * ARENA_WORDS + SEG_WORDS - 1) / SEG_WORDS + 2)

typedef struct {
    uint64_t *slots;
    int bits;
    uint32_t n;
    int32_t **segs;        /* MAX_SEGS, made with the first: word w is segs[w >> SEG_BITS][w % SEG_WORDS] */
    uint32_t arena_n, cap; /* at most cap * ARENA_WORDS words used */
} CacheGen;

/* A generation's bytes a chunk: two slots and its share of the arena. */
#define ENTRY_BYTES (2 * sizeof(uint64_t) + ARENA_WORDS * sizeof(int32_t))

static size_t budget_used; /* bytes of all threads' generations past GEN_ENTRIES (atomic) */

static size_t past_own(uint32_t cap) { return cap > GEN_ENTRIES ? (cap - GEN_ENTRIES) * ENTRY_BYTES : 0; }

/* Whether `bytes` more fit the budget (then taken). */
static int budget_take(size_t bytes) {
    size_t used = __atomic_load_n(&budget_used, __ATOMIC_RELAXED);
    do {
        if (used + bytes > CACHE_BUDGET_BYTES) return 0;
    } while (!__atomic_compare_exchange_n(&budget_used, &used, used + bytes, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    return 1;
}

static void budget_give(size_t bytes) {
    if (bytes) __atomic_fetch_sub(&budget_used, bytes, __ATOMIC_RELAXED);
}

static void gen_free(CacheGen *c) {
    budget_give(past_own(c->cap));
    free(c->slots);
    for (size_t k = 0; c->segs && k < MAX_SEGS; k++) free(c->segs[k]);
    free(c->segs);
    memset(c, 0, sizeof *c);
}

static void gen_clear(CacheGen *c) {
    if (c->slots) memset(c->slots, 0, sizeof *c->slots << c->bits);
    c->n = c->arena_n = 0;
}

/* The ids cached for chunk p[0..len) of hash h (its number in *n_ids), or NULL. */
static inline const int32_t *gen_get(const CacheGen *c, const unsigned char *p, size_t len, uint64_t h,
                                       size_t *n_ids) {
    if (!c->slots) return NULL;
    uint64_t mask = ((uint64_t)1 << c->bits) - 1, tag = h >> 32;
    for (uint64_t i = h >> (64 - c->bits);; i = (i + 1) & mask) {
        uint64_t slot = c->slots[i];
        if (!slot) return NULL;
        if (slot >> 32 != tag) continue;
        uint32_t at = (uint32_t)slot - 1;
        const int32_t *record = c->segs[at >> SEG_BITS] + (at & (SEG_WORDS - 1));
        if (((uint32_t)record[0] & 0xffff) == len && !memcmp(record + 1, p, len)) {
            *n_ids = (uint32_t)record[0] >> 16;
            return record + 1 + BYTE_WORDS(len);
        }
    }
}

/* Slot `slot` (tag and record) placed in c's slots by its tag's top bits. */
static inline void slot_place(CacheGen *c, uint64_t slot) {
    uint64_t mask = ((uint64_t)1 << c->bits) - 1, i = slot >> (64 - c->bits);
    while (c->slots[i]) i = (i + 1) & mask;
    c->slots[i] = slot;
}

/* Room for `cap` chunks (slots rebuilt); -1 when out of memory (the generation is then empty). */
static int gen_grow(CacheGen *c, uint32_t cap) {
    int bits = 1;
    while (((uint32_t)1 << bits) < 2 * cap) bits++;
    uint64_t *slots = calloc((size_t)1 << bits, sizeof *slots), *old = c->slots;
    if (!slots) {
        gen_free(c);
        return -1;
    }
    size_t old_n = old ? (size_t)1 << c->bits : 0;
    c->slots = slots;
    c->bits = bits;
    c->cap = cap;
    for (size_t k = 0; k < old_n; k++)
        if (old[k]) slot_place(c, old[k]);
    free(old);
    return 0;
}

/* Keeps ids[0..n_ids) for chunk p[0..len) of hash h (not in c yet; len, n_ids < 65,536): 0,
 * or 1 when c is full (nothing kept), or -1 when out of memory. */
static int gen_put(CacheGen *c, const unsigned char *p, size_t len, uint64_t h, const int32_t *ids, size_t n_ids) {
    size_t words = RECORD_WORDS(len, n_ids);
    uint32_t at = c->arena_n;
    if ((at & (SEG_WORDS - 1)) + words > SEG_WORDS) at = (at | (SEG_WORDS - 1)) + 1; /* the next segment */
    int full = at + words > (size_t)c->cap * ARENA_WORDS;
    if (c->n == c->cap || full) {
        uint32_t cap = c->cap ? 2 * c->cap : 64;
        size_t more = past_own(cap) - past_own(c->cap);
        if (c->cap == GEN_ENTRIES_MAX || (full && c->n < c->cap) || (more && !budget_take(more))) return 1;
        if (gen_grow(c, cap) < 0) {
            budget_give(more); /* gen_grow's gen_free gave back the rest */
            return -1;
        }
    }
    if (!c->segs && !(c->segs = calloc(MAX_SEGS, sizeof *c->segs))) return -1;
    int32_t **seg = &c->segs[at >> SEG_BITS];
    if (!*seg && !(*seg = malloc(sizeof **seg * SEG_WORDS))) return -1;
    int32_t *record = *seg + (at & (SEG_WORDS - 1));
    record[0] = (int32_t)(len | n_ids << 16);
    memcpy(record + 1, p, len);
    memcpy(record + 1 + BYTE_WORDS(len), ids, sizeof *ids * n_ids);
    slot_place(c, (h >> 32) << 32 | (at + 1));
    c->arena_n = at + (uint32_t)words;
    c->n++;
    return 0;
}

/* ---- a cache: two generations ----
 * New chunks go to the young one; when it is full it becomes the old one and the old one,
 * emptied, the young. A chunk found in the old one is copied to the young one, so the chunks
 * a text keeps using outlive any number of turns, and a turn forgets only those not seen for
 * one or two generations. */
typedef struct {
    CacheGen gen[2];
    int young;      /* gen[young] takes new chunks */
    MemoSlot *memo; /* the engine's short whole tokens (token_memo.h); NULL until cache_expect, or out of memory */
} ChunkCache;

static void cache_free(ChunkCache *c) {
    gen_free(&c->gen[0]);
    gen_free(&c->gen[1]);
    free(c->memo);
    c->memo = NULL;
    c->young = 0;
}

/* Keeps ids[0..n_ids) for chunk p[0..len) of hash h (not in the cache yet); a chunk too long
 * is not kept. -1 when out of memory. */
static int cache_put(ChunkCache *c, const unsigned char *p, size_t len, uint64_t h, const int32_t *ids,
                     size_t n_ids) {
    if (len > CACHE_CHUNK_BYTES || n_ids > len) return 0;
    int kept = gen_put(&c->gen[c->young], p, len, h, ids, n_ids);
    if (kept != 1) return kept;
    c->young = !c->young;
    gen_clear(&c->gen[c->young]);
    return gen_put(&c->gen[c->young], p, len, h, ids, n_ids) < 0 ? -1 : 0;
}

/* A text of n bytes is about to be encoded: the memo is made if it is not yet, and the young
 * generation gets room at once for the distinct chunks such a text may merge (one per
 * EXPECT_BYTES, up to its own GEN_ENTRIES), not in doublings from 64, each writing new slots
 * and placing the old ones again (before the arena was segments each also copied it: a fresh
 * engine's MB of prose, 750 KB copied and 520 KB of slots written, a third of its last-level
 * misses in cachegrind). */
#define EXPECT_BYTES 128

static void cache_expect(ChunkCache *c, size_t n) {
    if (!c->memo) c->memo = calloc(MEMO_SLOTS, sizeof *c->memo); /* out of memory: no memo, no harm */
    CacheGen *g = &c->gen[c->young];
    uint32_t cap = g->cap ? g->cap : 64;
    while (cap < GEN_ENTRIES && cap < n / EXPECT_BYTES) cap *= 2;
    if (cap > g->cap && cap > 64) (void)gen_grow(g, cap); /* out of memory: the puts try again, smaller */
}

/* The ids cached for chunk p[0..len) of hash h (their number in *n_ids), or NULL. A chunk of
 * the old generation is copied to `promoted` (room for CACHE_CHUNK_BYTES ids), returned, and
 * kept in the young one. */
static inline const int32_t *cache_get(ChunkCache *c, const unsigned char *p, size_t len, uint64_t h,
                                       size_t *n_ids, int32_t *promoted) {
    const int32_t *ids = gen_get(&c->gen[c->young], p, len, h, n_ids);
    const CacheGen *old = &c->gen[!c->young];
    if (ids || !old->n || !(ids = gen_get(old, p, len, h, n_ids))) return ids;
    memcpy(promoted, ids, sizeof *ids * *n_ids);
    (void)cache_put(c, p, len, h, promoted, *n_ids); /* out of memory: it stays old, no harm */
    return promoted;
}

/* ---- one thread's caches ---- */

typedef struct {
    ChunkCache caches[THREAD_CACHES];
    uint64_t owners[THREAD_CACHES]; /* the serial of the engine each serves (0: none) */
    uint64_t used[THREAD_CACHES];   /* when each was last taken, by `clock` */
    uint64_t clock;
} ThreadCaches;

static pthread_key_t thread_caches_key;

static void thread_caches_free(void *p) {
    ThreadCaches *t = p;
    for (int k = 0; k < THREAD_CACHES; k++) cache_free(&t->caches[k]);
    free(t);
}

/* Call once, at module init; nonzero on failure. */
static int thread_caches_init(void) { return pthread_key_create(&thread_caches_key, thread_caches_free); }

/* This thread's cache for the engine of serial `owner`, or NULL when out of memory. */
static ChunkCache *thread_cache(uint64_t owner) {
    ThreadCaches *t = pthread_getspecific(thread_caches_key);
    if (!t) {
        if (!(t = calloc(1, sizeof *t))) return NULL;
        if (pthread_setspecific(thread_caches_key, t) != 0) {
            free(t);
            return NULL;
        }
    }
    int pick = 0;
    for (int k = 0; k < THREAD_CACHES; k++) {
        if (t->owners[k] == owner) {
            pick = k;
            break;
        }
        if (t->used[k] < t->used[pick]) pick = k;
    }
    if (t->owners[pick] != owner) { /* freed, not emptied: what it held past its own size goes back to the budget */
        cache_free(&t->caches[pick]);
        t->owners[pick] = owner;
    }
    t->used[pick] = ++t->clock;
    return &t->caches[pick];
}

#endif
