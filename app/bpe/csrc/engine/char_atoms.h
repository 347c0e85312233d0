/* Characters merged before the merge loop: the engine's first step for a chunk under
 * tiktoken's rule. A Cyrillic, Greek or Arabic letter is two bytes and a CJK character three,
 * so a chunk of them spends most of its merge steps (each a scan for the lowest rank and two
 * lookups) putting its characters back together. Where that cannot change the result, a
 * character starts the loop as one piece (an "atom"): 1.6x faster merging on Cyrillic, 2.3x
 * on CJK. Two ASCII bytes are an atom by the same rule (a pair's one merge is itself, as a
 * two-byte character's is): in the ASCII words no cache holds, 44-51% of the merge steps
 * (o200k_base, prose and translations).
 *
 * When it cannot change the result. Let atom s (the bytes of a character, or the first two
 * bytes of a three-byte one) be a token that merging its own bytes makes, and I(s) the
 * highest rank among those merges. Take any token T that would hold part or all of s and a
 * byte outside it. Suppose every such T has a rank above I(s). Then merging s first gives
 * the same ids:
 * - until s is whole, one of its own pairs (rank <= I(s)) is always on offer, so no T is
 *   merged before; s's bytes merge among themselves as they would alone;
 * - the pairs that merging s first puts on offer early are T's, ranked above I(s). Every
 *   merge the loop makes before s is whole ranks at most I(s), so none of them loses to one.
 * Atoms never overlap, so taking them one at a time shows it for all of them. Only the bytes
 * just outside s can start or end a T: the byte x before s and the byte y after it (none at
 * the chunk's edges). So each T is either
 *   - a token of >= 2 bytes ending in x + s's first byte (end2) or starting in s's last byte
 *     + y (start2); or
 *   - a token longer than the part of s it holds, which ends in s's first two bytes or all
 *     of s, or starts in its last two or all of it. These do not depend on x or y and are
 *     folded into two flags per atom at build time.
 * Atoms are taken left to right, so when the piece before s is a whole character c, a T that
 * starts before s holds all of c: no token in which c ends one to three bytes before the
 * token does (`after`) ranking at or below I(s) is then enough for that side, whatever x is.
 * tests/bpe/test_char_atoms.py checks the ids against tiktoken's on every character pair.
 *
 * Left out: four-byte characters (rare in text; their bytes merge as before), pairs of an
 * ASCII byte and another (a character's atom is worth more). Hugging Face's rule takes the
 * atoms that merge_tables.h's atoms_listed keeps. Included by engine_encode.h only.
 */
#ifndef TOKENPRISM_CHAR_ATOMS_H
#define TOKENPRISM_CHAR_ATOMS_H

#include <stdint.h>
#include <stdlib.h>

#include "token_lookup.h"

#define ATOM_LEFT_OK (1u << 30)  /* no token starts before the atom and ends in its first two bytes or all of it, below I */
#define ATOM_RIGHT_OK (1u << 31) /* mirrored */
#define ATOM_RANK_BITS 0x3FFFFFFFu
#define ATOM_NONE INT32_MAX

typedef struct {
    int32_t rank;   /* the atom's token; -1: never an atom */
    uint32_t bound; /* I, the highest rank merging its bytes makes, | the flags */
} AtomInfo;

typedef struct {
    AtomInfo *chars;        /* by code point (0x80 .. 0xFFFF): two- and three-byte characters */
    AtomInfo *heads;        /* by (b1 & 15) << 6 | (b2 & 63): the first two bytes of a three-byte character */
    int32_t *end2, *start2; /* by b1 | b2 << 8: the lowest rank of a token of >= 2 bytes ending / starting with b1 b2 */
    int32_t *after;         /* by code point: the lowest rank of a token in which the character ends 1-3 bytes early */
    AtomInfo *ascii;        /* by b1 << 7 | b2: two ASCII bytes (a word's most frequent pairs merge first) */
} Atoms;

static void atoms_free(Atoms *a) {
    table_free(a->chars);
    table_free(a->heads);
    table_free(a->end2);
    table_free(a->start2);
    table_free(a->after);
    table_free(a->ascii);
}

static inline uint32_t atom_cp3(const unsigned char *b) {
    return (uint32_t)(b[0] & 15) << 12 | (uint32_t)(b[1] & 63) << 6 | (b[2] & 63);
}

static inline int is_char3(const unsigned char *b) {
    return b[0] >= 0xE0 && b[0] < 0xF0 && (b[1] & 0xC0) == 0x80 && (b[2] & 0xC0) == 0x80;
}

static inline AtomInfo atom_info(int32_t rank, int32_t highest, int32_t left_limit, int32_t right_limit) {
    AtomInfo info = {rank, (uint32_t)highest};
    if (highest < left_limit) info.bound |= ATOM_LEFT_OK;
    if (highest < right_limit) info.bound |= ATOM_RIGHT_OK;
    return info;
}

#define LOWER(a, b) ((a) = (b) < (a) ? (b) : (a))

/* Fills a from l's n tokens; -1 when out of memory (no Python error set). */
static int atoms_init(Atoms *a, const Lookup *l, size_t n) {
    int32_t *long_end = table_calloc(65536, sizeof(int32_t)), *long_start = table_calloc(65536, sizeof(int32_t));
    int32_t *char_end = table_calloc(65536, sizeof(int32_t)), *char_start = table_calloc(65536, sizeof(int32_t));
    a->end2 = table_calloc((size_t)1 << 16, sizeof(int32_t));
    a->start2 = table_calloc((size_t)1 << 16, sizeof(int32_t));
    a->chars = table_calloc((size_t)1 << 16, sizeof(AtomInfo));
    a->heads = table_calloc((size_t)1 << 10, sizeof(AtomInfo));
    a->after = table_calloc((size_t)1 << 16, sizeof(int32_t));
    a->ascii = table_calloc((size_t)1 << 14, sizeof(AtomInfo));
    int status = -1;
    if (!long_end || !long_start || !char_end || !char_start || !a->end2 || !a->start2 || !a->chars || !a->heads ||
        !a->after || !a->ascii)
        goto done;
    for (size_t k = 0; k < 65536; k++)
        long_end[k] = long_start[k] = char_end[k] = char_start[k] = a->end2[k] = a->start2[k] = a->after[k] = ATOM_NONE;
    for (size_t r = 0; r < n; r++) {
        const unsigned char *t = l->flat + l->starts[r];
        size_t len = l->starts[r + 1] - l->starts[r];
        for (size_t k = 1; k <= 3; k++) { /* a character ending k bytes before the token's end */
            if (len >= k + 3 && is_char3(t + len - k - 3)) LOWER(a->after[atom_cp3(t + len - k - 3)], (int32_t)r);
            if (len < k + 2) continue;
            const unsigned char *c2 = t + len - k - 2;
            if (c2[0] >= 0xC2 && c2[0] < 0xE0 && (c2[1] & 0xC0) == 0x80) LOWER(a->after[(c2[0] & 31) << 6 | (c2[1] & 63)], (int32_t)r);
        }
        if (len < 2) continue;
        unsigned last2 = t[len - 2] | t[len - 1] << 8, first2 = t[0] | t[1] << 8;
        LOWER(a->end2[last2], (int32_t)r);
        LOWER(a->start2[first2], (int32_t)r);
        if (len < 3) continue;
        LOWER(long_end[last2], (int32_t)r); /* tokens longer than the two bytes they end in */
        LOWER(long_start[first2], (int32_t)r);
        if (len < 4) continue;
        if (is_char3(t + len - 3)) LOWER(char_end[atom_cp3(t + len - 3)], (int32_t)r);
        if (is_char3(t)) LOWER(char_start[atom_cp3(t)], (int32_t)r);
    }
    for (uint32_t cp = 0; cp < 65536; cp++) {
        unsigned char b[3];
        a->chars[cp] = (AtomInfo){-1, 0};
        if (cp < 0x80 || (cp >= 0xD800 && cp < 0xE000)) continue;
        if (cp < 0x800) {
            b[0] = (unsigned char)(0xC0 | cp >> 6), b[1] = (unsigned char)(0x80 | (cp & 63));
            int32_t rank = lookup_rank(l, b, 2);
            unsigned both = b[0] | b[1] << 8;
            if (rank >= 0) a->chars[cp] = atom_info(rank, rank, long_end[both], long_start[both]);
            continue;
        }
        b[0] = (unsigned char)(0xE0 | cp >> 12), b[1] = (unsigned char)(0x80 | ((cp >> 6) & 63));
        b[2] = (unsigned char)(0x80 | (cp & 63));
        int32_t rank = lookup_rank(l, b, 3), head = lookup_rank(l, b, 2), tail = lookup_rank(l, b + 1, 2);
        if (head < 0) head = ATOM_NONE;
        if (tail < 0) tail = ATOM_NONE;
        int32_t first = head < tail ? head : tail; /* merging the three bytes: the lower pair first */
        if (rank < 0 || first == ATOM_NONE) continue;
        int32_t left = long_end[b[0] | b[1] << 8], right = long_start[b[1] | b[2] << 8];
        LOWER(left, char_end[cp]);
        LOWER(right, char_start[cp]);
        a->chars[cp] = atom_info(rank, first > rank ? first : rank, left, right);
    }
    for (uint32_t k = 0; k < 16384; k++) { /* a pair's only merge is itself: I is its rank, as for a 2-byte character */
        unsigned char b[2] = {(unsigned char)(k >> 7), (unsigned char)(k & 127)};
        int32_t rank = lookup_rank(l, b, 2);
        unsigned both = b[0] | b[1] << 8;
        a->ascii[k] = rank < 0 ? (AtomInfo){-1, 0} : atom_info(rank, rank, long_end[both], long_start[both]);
    }
    for (uint32_t k = 0; k < 1024; k++) {
        unsigned char b[2] = {(unsigned char)(0xE0 | k >> 6), (unsigned char)(0x80 | (k & 63))};
        int32_t rank = lookup_rank(l, b, 2);
        unsigned both = b[0] | b[1] << 8;
        a->heads[k] = rank < 0 ? (AtomInfo){-1, 0} : atom_info(rank, rank, long_end[both], long_start[both]);
    }
    status = 0;
done:
    table_free(long_end);
    table_free(long_start);
    table_free(char_end);
    table_free(char_start);
    return status;
}

/* Whether atom `info`, p[i .. i + k) of the chunk p[0..n), may start as one piece; `prev` is
 * the code point of the piece before it when that is a whole character, else -1. */
static inline int atom_fits(const Atoms *a, AtomInfo info, const unsigned char *p, size_t i, size_t k, size_t n,
                            int32_t prev) {
    uint32_t highest = info.bound & ATOM_RANK_BITS;
    if (info.rank < 0) return 0;
    if (i > 0 && (!(info.bound & ATOM_LEFT_OK) || (uint32_t)a->end2[p[i - 1] | p[i] << 8] <= highest) &&
        (prev < 0 || (uint32_t)a->after[prev] <= highest))
        return 0;
    return i + k == n ||
           ((info.bound & ATOM_RIGHT_OK) && (uint32_t)a->start2[p[i + k - 1] | p[i + k] << 8] > highest);
}

/* The chunk p[0..n)'s first pieces: its atoms that fit, single bytes elsewhere. Writes each
 * piece's rank to ids and its start to starts (starts[m] = n); returns m. */
static size_t atoms_split(const Atoms *a, const int32_t *byte_ids, const unsigned char *p, size_t n, int32_t *ids,
                          uint8_t *starts) {
    size_t m = 0;
    int32_t prev = -1; /* the code point of the piece before, when it is a whole character */
    for (size_t i = 0; i < n;) {
        unsigned b = p[i];
        starts[m] = (uint8_t)i;
        if (b >= 0xC2 && b < 0xF0 && i + 1 < n && (p[i + 1] & 0xC0) == 0x80) {
            if (b < 0xE0) {
                int32_t cp = (int32_t)((b & 31) << 6 | (p[i + 1] & 63));
                if (atom_fits(a, a->chars[cp], p, i, 2, n, prev)) {
                    ids[m++] = a->chars[cp].rank;
                    i += 2;
                    prev = cp;
                    continue;
                }
            } else if (i + 2 < n && (p[i + 2] & 0xC0) == 0x80) {
                int32_t cp = (int32_t)atom_cp3(p + i);
                if (atom_fits(a, a->chars[cp], p, i, 3, n, prev)) {
                    ids[m++] = a->chars[cp].rank;
                    i += 3;
                    prev = cp;
                    continue;
                }
                AtomInfo head = a->heads[(b & 15) << 6 | (p[i + 1] & 63)];
                if (atom_fits(a, head, p, i, 2, n, prev)) {
                    ids[m++] = head.rank;
                    i += 2;
                    prev = -1;
                    continue;
                }
            }
        } else if (b < 0x80 && i + 1 < n && p[i + 1] < 0x80) {
            AtomInfo pair = a->ascii[b << 7 | p[i + 1]];
            if (atom_fits(a, pair, p, i, 2, n, prev)) {
                ids[m++] = pair.rank;
                i += 2;
                prev = -1;
                continue;
            }
        }
        ids[m++] = byte_ids[b];
        i++;
        prev = -1;
    }
    starts[m] = (uint8_t)n;
    return m;
}

#endif
