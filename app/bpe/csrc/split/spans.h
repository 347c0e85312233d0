/* Bytes tested several at a time: pretokenize.c's runs of ASCII bytes in a range, eight at a
 * time in a 64-bit word (a run's end is then found by counting bits, not by a loop exit the CPU
 * mispredicts; it may stop early, at the text's last bytes: the caller's loop goes on from
 * there), and the SSE2 tests of sixteen bytes that split_blocks.h classifies its windows with;
 * and runs of two- and three-byte characters in a bitmap of the BMP (bmp_run: each character
 * decoded and tested by one load, without its class).
 *
 * Left out: characters past ASCII several at a time (letters of other scripts, two bytes each
 * for Cyrillic, were tried sixteen bytes at a time: fewer instructions, no faster;
 * docs/performance.md).
 */
#ifndef TOKENPRISM_SPANS_H
#define TOKENPRISM_SPANS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* The end of the run of ASCII bytes in [lo, hi] (case-folded when `fold`) from i. */
static inline size_t ascii_span(const unsigned char *s, size_t i, size_t n, uint64_t lo, uint64_t hi, int fold) {
    const uint64_t ones = 0x0101010101010101ull, highs = ones << 7;
    while (i + 8 <= n) {
        uint64_t x;
        memcpy(&x, s + i, 8);
        uint64_t y = (fold ? x | (ones << 5) : x) & ~highs;                     /* seven bits a byte: no carries */
        uint64_t in = (y + ones * (0x80 - lo)) & ~(y + ones * (0x7F - hi)) & ~x; /* high bit: lo <= y <= hi, ASCII */
        uint64_t out = ~in & highs;
        if (out) return i + ((size_t)__builtin_ctzll(out) >> 3);
        i += 8;
    }
    return i;
}
#define ASCII_SPAN(s, i, n, lo, hi, fold) ascii_span(s, i, n, lo, hi, fold)
#else
#define ASCII_SPAN(s, i, n, lo, hi, fold) (i)
#endif

/* The end of the run from i of two- and three-byte characters whose bit is set in `bmp`
 * ([cp >> 6] bit cp & 63), decoded from their lead byte as pretokenize.c's class_wide decodes
 * them (a four-byte character, a truncated one or ASCII ends the run). */
static inline size_t bmp_run(const unsigned char *s, size_t i, size_t n, const uint64_t *bmp) {
    for (;;) {
        unsigned b = i < n ? s[i] : 0, cp, width = b >= 0xE0 && b < 0xF0 ? 3 : b >= 0xC0 && b < 0xE0 ? 2 : 0;
        if (!width || i + width > n) return i;
        cp = width == 3 ? (b & 0x0Fu) << 12 | (s[i + 1] & 0x3Fu) << 6 | (s[i + 2] & 0x3Fu)
                        : (b & 0x1Fu) << 6 | (s[i + 1] & 0x3Fu);
        if (!(bmp[cp >> 6] >> (cp & 63) & 1)) return i;
        i += width;
    }
}

#if defined(__SSE2__)
/* Bit k set where byte k of v is in [lo, lo + count) (any byte: the addition is a bijection). */
static inline unsigned in_range16(__m128i v, int lo, int count) {
    __m128i shifted = _mm_add_epi8(v, _mm_set1_epi8((char)(0x80 - lo)));
    return (unsigned)_mm_movemask_epi8(_mm_cmplt_epi8(shifted, _mm_set1_epi8((char)(count - 0x80))));
}
static inline unsigned equal16(__m128i v, int byte) {
    return (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8((char)byte)));
}
#endif

#endif
