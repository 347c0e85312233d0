/* The engine's encoding of UTF-8 bytes into ranks, without the GIL: cut into the pattern's
 * chunks (pretokenize.h; ASCII windows by split_blocks.h), each chunk found in the thread's
 * memo of short tokens (token_memo.h) or looked up whole among the tokens (token_lookup.h)
 * or else found in the thread's chunk cache (chunk_cache.h) or
 * merged by tiktoken's rule (the adjacent pair whose concatenation has the lowest rank,
 * leftmost first), a pair's rank being the rank of its bytes (in the small tables of the short
 * tokens and the filter of the long ones, which stay in cache, then the lookup): a chunk of up
 * to BYTES_MERGE_MAX bytes by merge_by_bytes (from its characters where char_atoms.h allows,
 * else its bytes), a longer one on merge.h's heap (merge_long_bytes). Hugging Face's rule
 * (`whole_ok`, `splits`) merges in the same loops: a pair's rank is found by its bytes, then
 * kept only where the listed merge making that token splits it as the pair does, from the
 * atoms that hold for that rule (merge_tables.h's atoms_listed).
 * No Python objects (Py_ssize_t aside); included by _engine.c only.
 *
 * Left out: anything Python (the caller holds the texts and builds the lists).
 */
#ifndef TOKENPRISM_ENGINE_ENCODE_H
#define TOKENPRISM_ENGINE_ENCODE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "char_atoms.h"
#include "chunk_cache.h"
#include "merge.h"
#include "pretokenize.h"
#include "split_blocks.h"
#include "token_lookup.h"

typedef struct {
    int32_t *v;
    size_t n, cap;
} Ids;

static int ids_reserve(Ids *ids, size_t more) {
    if (ids->n + more <= ids->cap) return 0;
    size_t cap = ids->cap * 2 > ids->n + more ? ids->cap * 2 : ids->n + more + 256;
    int32_t *v = realloc(ids->v, sizeof *v * cap);
    if (!v) return -1;
    ids->v = v;
    ids->cap = cap;
    return 0;
}

typedef struct {
    pretok_fn split; /* the split pattern's function (pretokenize.h's pretok_function) */
    const BlockRules *blocks; /* and its rules for ASCII windows (split_blocks.h), NULL if none */
    Table table;
    Lookup lookup;
    ShortLookup short_tokens; /* the tokens of up to SHORT_TOKEN bytes again, for merging */
    LongFilter long_filter;   /* and a filter of the longer ones */
    Atoms atoms;              /* the characters a chunk may start merging as (char_atoms.h) */
    int32_t id_offset;
    uint64_t serial;         /* this engine's number, for the thread caches */
    const uint8_t *whole_ok; /* NULL: tiktoken's rule; else Hugging Face's (merge_tables.h): which
                              * tokens a chunk may be taken as whole */
    const uint8_t *splits;   /* and where the listed merge making each token splits it (merge_tables.h) */
    const uint32_t *far_splits; /* each token's, when one is SPLIT_FAR; else NULL */
} Core;

enum { ENC_OK = 0, ENC_NO_MEMORY = -1, ENC_TOO_LONG = -2, ENC_SURROGATE = -3, ENC_STOPPED = -4 /* engine_batch.h's */ };

/* Appends ids[0..m) (ranks) to out, or adds m to *count when out is NULL. */
static inline int emit(const Core *c, Ids *out, size_t *count, const int32_t *ids, size_t m) {
    if (!out) {
        *count += m;
        return ENC_OK;
    }
    if (ids_reserve(out, m) < 0) return ENC_NO_MEMORY;
    for (size_t k = 0; k < m; k++) out->v[out->n++] = ids[k] + c->id_offset;
    return ENC_OK;
}

/* The rank of merging pieces p[start..mid) and p[mid..end), NO_MERGE when they do not: under
 * tiktoken's rule the rank of their bytes together, under Hugging Face's that token's when its
 * listed merge splits it at mid (a short pair's split is in the short table). `avail` bytes
 * may be read from p. */
static inline __attribute__((always_inline)) int32_t pair_rank(const Core *c, const unsigned char *p, size_t start,
                                                               size_t mid, size_t end, size_t avail) {
    size_t len = end - start;
    int32_t rank;
    if (len <= SHORT_TOKEN && c->short_tokens.bits) {
        rank = short_pair_rank(&c->short_tokens, p + start, len, mid - start, avail - start);
        return rank < 0 ? NO_MERGE : rank;
    }
    Key k = key_of(p + start, len, avail - start);
    if (len > SHORT_TOKEN && !filter_may_hold(&c->long_filter, k.hash)) return NO_MERGE;
    if ((rank = lookup_rank_keyed(&c->lookup, p + start, len, k)) < 0) return NO_MERGE;
    if (!c->splits) return rank;
    size_t split = c->splits[rank] == SPLIT_FAR ? c->far_splits[rank] : c->splits[rank];
    return split == mid - start ? rank : NO_MERGE;
}

/* merge.h's merge_short, with each pair's rank found as the rank of its bytes in the token
 * lookup (the table the whole chunks were just looked up in, so mostly in cache) instead
 * of in the far larger pair table: the same rule (the pair whose concatenation has the
 * lowest rank, leftmost first), so the same ids. It starts from char_atoms.h's pieces (the
 * characters that may start whole, single bytes elsewhere). The ids go to ids[0..) (room for
 * n; n <= BYTES_MERGE_MAX, `avail` >= n bytes readable); returns their number. */
#define BYTES_MERGE_MAX 128 /* bytes; a longer chunk is merged on merge.h's heap (starts are uint8_t) */

static Py_ssize_t merge_by_bytes(const Core *c, const unsigned char *p, size_t n, size_t avail, int32_t *ids) {
    uint8_t starts[BYTES_MERGE_MAX + 1]; /* piece i is p[starts[i] .. starts[i + 1]) */
    int32_t ranks[BYTES_MERGE_MAX];  /* i -> rank of pieces i and i + 1 together */
    size_t m = atoms_split(&c->atoms, c->table.byte_ids, p, n, ids, starts);
    for (size_t i = 0; i + 1 < m; i++) ranks[i] = pair_rank(c, p, starts[i], starts[i + 1], starts[i + 2], avail);
    while (m > 1) {
        int32_t lowest = ranks[0]; /* the lowest rank, then its leftmost pair: two simple loops */
        for (size_t k = 1; k + 1 < m; k++) lowest = ranks[k] < lowest ? ranks[k] : lowest;
        if (lowest == NO_MERGE) break;
        size_t i = 0;
        while (ranks[i] != lowest) i++;
        ids[i] = lowest;
        for (size_t k = i + 1; k + 1 < m; k++) { /* piece i + 1 goes; short moves, no memmove calls */
            ids[k] = ids[k + 1];
            ranks[k - 1] = ranks[k];
            starts[k] = starts[k + 1];
        }
        starts[m - 1] = starts[m];
        m--;
        if (i > 0) ranks[i - 1] = pair_rank(c, p, starts[i - 1], starts[i], starts[i + 1], avail);
        if (i + 1 < m) ranks[i] = pair_rank(c, p, starts[i], starts[i + 1], starts[i + 2], avail);
    }
    return (Py_ssize_t)m;
}

/* A chunk too long for merge_by_bytes, merged by the same rule on merge.h's heap: the pieces
 * a linked list over byte positions (piece i is p[i .. next[i]), its rank ids[i]), each pair's
 * rank the rank of its bytes, as in merge_by_bytes (so no table of every split of a token into
 * two is needed). A heap entry (rank << 32 | i) is stale once pair[i], the rank of the pair
 * starting at i now, differs: equal ranks are the same bytes, so the same merge. The ids go to
 * ids[0..) (room for n; 2 <= n < INT32_MAX); returns their number, -1 when out of memory. */
static inline int32_t span_rank(const Core *c, const unsigned char *p, size_t start, size_t mid, size_t end,
                                size_t avail) {
    return end - start > c->lookup.longest ? NO_MERGE : pair_rank(c, p, start, mid, end, avail);
}

static Py_ssize_t merge_long_bytes(const Core *c, const unsigned char *p, size_t n, size_t avail, int32_t *ids) {
    int32_t *next = malloc(sizeof *next * n), *prev = malloc(sizeof *prev * n), *pair = malloc(sizeof *pair * n);
    uint64_t *heap = malloc(sizeof *heap * 3 * n); /* n - 1 pairs + 2 per merge */
    size_t heap_n = 0;
    Py_ssize_t out = -1;
    if (!next || !prev || !pair || !heap) goto done;
    for (size_t i = 0; i < n; i++) {
        next[i] = (int32_t)i + 1;
        prev[i] = (int32_t)i - 1;
        ids[i] = c->table.byte_ids[p[i]];
        pair[i] = i + 1 < n ? span_rank(c, p, i, i + 1, i + 2, avail) : NO_MERGE;
        if (pair[i] != NO_MERGE) heap[heap_n++] = (uint64_t)pair[i] << 32 | i;
    }
    heap_make(heap, heap_n);
    while (heap_n > 0) {
        uint64_t top = heap_take(heap, &heap_n);
        int32_t rank = (int32_t)(top >> 32), i = (int32_t)(uint32_t)top;
        if (ids[i] < 0 || pair[i] != rank) continue;
        int32_t k = next[next[i]]; /* the merged piece's right neighbour, or n */
        ids[next[i]] = -1;
        ids[i] = rank;
        next[i] = k;
        pair[i] = NO_MERGE;
        if (k != (int32_t)n) {
            prev[k] = i;
            if ((pair[i] = span_rank(c, p, (size_t)i, (size_t)k, (size_t)next[k], avail)) != NO_MERGE)
                heap_add(heap, &heap_n, (uint64_t)pair[i] << 32 | (uint32_t)i);
        }
        int32_t h = prev[i];
        if (h >= 0 && (pair[h] = span_rank(c, p, (size_t)h, (size_t)i, (size_t)k, avail)) != NO_MERGE)
            heap_add(heap, &heap_n, (uint64_t)pair[h] << 32 | (uint32_t)h);
    }
    out = 0;
    for (int32_t i = 0; i != (int32_t)n; i = next[i]) ids[out++] = ids[i];
done:
    free(next);
    free(prev);
    free(pair);
    free(heap);
    return out;
}

static inline void prefetch_lookup(const Core *c, size_t len, Key k) {
    __builtin_prefetch(&c->lookup.slots[k.hash >> (64 - c->lookup.bits)]);
    if (len > SHORT_TOKEN) __builtin_prefetch(&c->long_filter.words[k.hash >> c->long_filter.shift]);
}

/* The rank the memo holds for chunk p[0..len), or -1; when -1, the chunk's key in *key and its
 * lookup slot fetched, so that the memory wait overlaps the work on the chunk before it (the
 * slots are megabytes, mostly not in cache). */
static inline int32_t chunk_ahead(const Core *c, const MemoSlot *memo, const unsigned char *p, size_t len,
                                  size_t avail, Key *key) {
    uint64_t head = word_at(p, 0, len, avail);
    int32_t rank = memo && len <= MEMO_CHUNK ? memo_find(memo, head, len) : -1;
    if (rank < 0) {
        *key = key_with_head(head, p, len, avail);
        prefetch_lookup(c, len, *key);
    }
    return rank;
}

/* A chunk the memo did not hold (`key` its key, `avail` bytes readable from it): looked up
 * whole (a token of up to MEMO_CHUNK bytes then takes its memo slot), else found in the chunk
 * cache, else merged; its ids appended to `out` (or counted). Out of line: the loop that
 * finds the memo's chunks keeps its values in registers. */
static __attribute__((noinline)) int encode_chunk(const Core *c, const unsigned char *chunk, size_t len,
                                                  const Key *key, size_t avail, Ids *out, size_t *count,
                                                  Ids *scratch, ChunkCache *cache) {
    int32_t promoted[CACHE_CHUNK_BYTES];
    int32_t rank = len > SHORT_TOKEN && !filter_may_hold(&c->long_filter, key->hash)
                       ? -1 /* not a token, known without touching the lookup's slots */
                       : lookup_rank_keyed(&c->lookup, chunk, len, *key);
    if (rank >= 0 && c->whole_ok && !c->whole_ok[rank]) rank = -1;
    if (rank >= 0) {
        if (cache->memo && len <= MEMO_CHUNK) memo_keep(cache->memo, key->head, len, rank);
        return emit(c, out, count, &rank, 1);
    }
    size_t m;
    const int32_t *cached = cache_get(cache, chunk, len, key->hash, &m, promoted);
    if (cached) return emit(c, out, count, cached, m);
    if (len >= INT32_MAX) return ENC_TOO_LONG;
    scratch->n = 0;
    if (ids_reserve(scratch, len) < 0) return ENC_NO_MEMORY;
    Py_ssize_t merged = (len <= BYTES_MERGE_MAX ? merge_by_bytes : merge_long_bytes)(c, chunk, len, avail, scratch->v);
    if (merged < 0 || cache_put(cache, chunk, len, key->hash, scratch->v, (size_t)merged) < 0)
        return ENC_NO_MEMORY;
    return emit(c, out, count, scratch->v, (size_t)merged);
}

/* The ids of s[0..n) appended to `out` (or, when `out` is NULL, their number added to
 * *count). `scratch` is the caller's buffer for merging a chunk, `cache` its chunk cache (and
 * token memo). One chunk ahead: the next chunk is cut and found in the memo, or else keyed and
 * its lookup slot fetched, while this one is looked up. */
static int encode_bytes(const Core *c, const unsigned char *s, size_t n, Ids *out, size_t *count, Ids *scratch,
                        ChunkCache *cache) {
    SplitBlocks blocks;
    cache_expect(cache, n);
    const MemoSlot *memo = cache->memo;
    blocks_init(&blocks, c->blocks, s, n);
    size_t end = n ? blocks_next(&blocks, c->split, 0) : 0;
    Key next_key = {0, 0, 0};
    int32_t next_rank = n ? chunk_ahead(c, memo, s, end, n, &next_key) : -1;
    for (size_t i = 0; i < n;) {
        size_t len = end - i, next_end = end < n ? blocks_next(&blocks, c->split, end) : end;
        const unsigned char *chunk = s + i;
        Key key = next_key;
        int32_t rank = next_rank;
        if (next_end > end) next_rank = chunk_ahead(c, memo, s + end, next_end - end, n - end, &next_key);
        i = end;
        end = next_end;
        if (rank < 0) {
            int status = encode_chunk(c, chunk, len, &key, n - (size_t)(chunk - s), out, count, scratch, cache);
            if (status != ENC_OK) return status;
        } else if (!out) {
            ++*count;
        } else {
            if (out->n == out->cap && ids_reserve(out, 1) < 0) return ENC_NO_MEMORY;
            out->v[out->n++] = rank + c->id_offset;
        }
    }
    return ENC_OK;
}

#endif
