/* A thread's memo of the short chunks it last found to be whole tokens: chunk bytes (up to
 * MEMO_CHUNK) -> rank, direct-mapped, MEMO_SLOTS slots of 16 bytes (128 KB, mostly in the
 * core's second-level cache). A hit is one multiply, one load and two compares, where the
 * token lookup (token_lookup.h) hashes the chunk in two rounds and probes a table of megabytes
 * whose slots need three compares each: warm, the lookup and its key were ~66 of the ~180
 * instructions a chunk of 1 MB of code cost (callgrind), and a memo of 8,192 slots holds the
 * tokens of 79-82% of prose's and code's chunks on a second pass (47-60% of Latin's, Cyrillic's
 * and CJK's, whose chunks are longer). A chunk the memo misses is looked up as before and, when
 * it is a token of up to MEMO_CHUNK bytes, takes its slot.
 *
 * Exact: a slot holds the chunk's bytes whole (its head word, zero-padded, and its length) and
 * the rank the lookup gave them for this engine (after Hugging Face's whole-token rule, when
 * the engine has one); it belongs to one engine's thread cache (chunk_cache.h), freed with it.
 * Pure C; callable without the GIL. Included by chunk_cache.h only.
 *
 * Left out: chunks that are not one token (chunk_cache.h), longer ones, and any sharing.
 */
#ifndef TOKENPRISM_TOKEN_MEMO_H
#define TOKENPRISM_TOKEN_MEMO_H

#include <stdint.h>
#include <stdlib.h>

#define MEMO_BITS 13
#define MEMO_SLOTS ((size_t)1 << MEMO_BITS)
#define MEMO_CHUNK 8 /* bytes: one head word */

typedef struct {
    uint64_t head; /* the chunk's bytes as token_lookup.h's Key.head */
    uint32_t tag;  /* its length << 24 | its rank (< 2**24, MAX_LOOKUP_TOKENS); 0: empty */
    uint32_t unused;
} MemoSlot;

static inline size_t memo_at(uint64_t head, size_t len) {
    return ((head ^ len) * 0x9E3779B97F4A7C15ull) >> (64 - MEMO_BITS);
}

/* The rank of the chunk of `len` bytes (1..MEMO_CHUNK) whose head word is `head`, or -1. */
static inline int32_t memo_find(const MemoSlot *memo, uint64_t head, size_t len) {
    const MemoSlot *slot = &memo[memo_at(head, len)];
    return slot->head == head && slot->tag >> 24 == len ? (int32_t)(slot->tag & 0xFFFFFFu) : -1;
}

static inline void memo_keep(MemoSlot *memo, uint64_t head, size_t len, int32_t rank) {
    MemoSlot *slot = &memo[memo_at(head, len)];
    slot->head = head;
    slot->tag = (uint32_t)len << 24 | (uint32_t)rank;
}

#endif
