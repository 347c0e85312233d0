/* The two-byte letters split_blocks.h's windows read as they read A-Z and a-z: a character of
 * U+0080-U+07FF that is upper-case only (\p{Lu}: À, Ü, Ł, Ω, Д) or lower-case only (\p{Ll}: é, ß,
 * ł, ω, д) in tiktoken's classes, both of its bytes set in the window's upper or lower mask. For
 * the o200k-shaped patterns such a letter is in exactly the classes an ASCII letter of its case
 * is in (the upper and lower sets of [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+,
 * \p{L}), and a chunk never ends inside it (its two bytes are in the same masks), so the
 * window's chunks are the pattern's. Before 2026-12-02 a window ended at the first byte of any
 * such letter, and the words of Latin, Cyrillic and Greek text that hold one went to the
 * one-character-at-a-time split (149 instructions a chunk; 22% of an o200k_base encode of 1 MB
 * of Latin-script text).
 *
 * DeepSeek's windows read every two-byte letter and mark of its split ([\p{L}\p{M}]+, in the
 * Hugging Face library's classes) as one mask, `wide`, whatever its case: split_blocks_deepseek.h
 * takes them as letters but where its first alternative reads ASCII letters only (since
 * 2026-12-03; before, a DeepSeek window ended at them: 1 MB of Latin text 1.11x, Greek 1.09x,
 * Arabic 1.05x, Cyrillic 1.04x faster to count fresh).
 *
 * Left out (a window still ends at them), for the o200k-shaped patterns: the letters of both
 * sets (\p{Lm}, \p{Lo}: ª, ʰ, Arabic, Hebrew: "aب" and "بAb" are each one chunk, which neither
 * case's mask gives; read as lower-case where no letter of a case touches them they cost more
 * to classify than to split, performance.md), \p{Lt} (ǅ), marks (the punctuation alternative's
 * [^\s\p{L}\p{N}]+ takes them too), and characters of three bytes or more. Included by
 * split_blocks.h only.
 */
#ifndef TOKENPRISM_SPLIT_BLOCKS_LETTERS_H
#define TOKENPRISM_SPLIT_BLOCKS_LETTERS_H

#include <stdint.h>
#include <string.h>

#include "pretokenize.h"
#include "spans.h" /* in_range16 */

static uint8_t two_byte_cases[0x800];    /* code point -> pretok_case: 1 upper only, 2 lower only, 0 */
static uint8_t two_byte_deepseek[0x800]; /* code point -> 1: a letter or mark of DeepSeek's split */

/* pretok_init, then these tables: call once, at module init. */
static void blocks_init_tables(void) {
    pretok_init();
    for (unsigned long cp = 0x80; cp < 0x800; cp++) {
        two_byte_cases[cp] = (uint8_t)pretok_case(cp);
        two_byte_deepseek[cp] = (uint8_t)pretok_deepseek_letter(cp);
    }
}

static inline unsigned two_byte_cp(const unsigned char *p, unsigned k) { return (p[k] & 31u) << 6 | (p[k + 1] & 63u); }

/* Where in p[0..64) a two-byte character starts: each lead byte (0xC2-0xDF) before a
 * continuation byte (all of the window's: those past its first unread byte are past its
 * limit, never read). */
static inline uint64_t two_byte_leads(const unsigned char *p) {
    uint64_t leads = 0, continuations = 0;
#if defined(__SSE2__)
    for (int q = 0; q < 4; q++) {
        __m128i v;
        memcpy(&v, p + 16 * q, 16);
        leads |= (uint64_t)in_range16(v, 0xC2, 30) << 16 * q;
        continuations |= (uint64_t)in_range16(v, 0x80, 64) << 16 * q;
    }
#else
    for (int k = 0; k < 64; k++) {
        leads |= (uint64_t)(p[k] - 0xC2u < 30u) << k;
        continuations |= (uint64_t)(p[k] - 0x80u < 64u) << k;
    }
#endif
    return leads & continuations >> 1;
}

/* The window's bytes >= 0x80 (`high`) less the two-byte letters, which go to *upper and *lower. */
static inline uint64_t two_byte_letters(const unsigned char *p, uint64_t high, uint64_t *upper, uint64_t *lower) {
    uint64_t up = 0, low = 0;
    for (uint64_t chars = two_byte_leads(p); chars; chars &= chars - 1) {
        unsigned k = (unsigned)__builtin_ctzll(chars), kind = two_byte_cases[two_byte_cp(p, k)];
        up |= (uint64_t)(kind & 1) << k;
        low |= (uint64_t)(kind >> 1) << k;
    }
    up |= up << 1, low |= low << 1; /* the continuation bytes too */
    *upper |= up;
    *lower |= low;
    return high & ~(up | low);
}

/* The window's bytes >= 0x80 (`high`) less DeepSeek's two-byte letters and marks, which go to *wide. */
static inline uint64_t two_byte_deepseek_letters(const unsigned char *p, uint64_t high, uint64_t *wide) {
    uint64_t found = 0;
    for (uint64_t chars = two_byte_leads(p); chars; chars &= chars - 1) {
        unsigned k = (unsigned)__builtin_ctzll(chars);
        found |= (uint64_t)two_byte_deepseek[two_byte_cp(p, k)] << k;
    }
    *wide = found | found << 1; /* the continuation bytes too */
    return high & ~*wide;
}

/* Whether a byte of `word` (8 bytes) is 0xE0 or more: one of a character of three or four bytes. */
static inline int any_wide_lead(uint64_t word) {
    return (word & word << 1 & word << 2 & 0x8080808080808080ull) != 0;
}

#endif
