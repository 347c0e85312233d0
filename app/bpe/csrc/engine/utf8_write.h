/* The UTF-8 of a str's characters, as CPython stores them (1, 2 or 4 bytes a character), for
 * the engine to read a text that has not made its UTF-8 (engine_batch.h), without the GIL.
 *
 * Eight characters at a time where the CPU has SSSE3 (checked once, at run time): a block of
 * ASCII is packed to bytes, a block below U+0800 (Latin, Greek, Cyrillic, Arabic with ASCII
 * between) is written as 16-bit lanes of one or two bytes and packed by a byte shuffle chosen
 * by which lanes are ASCII, and any other block (CJK, Devanagari, mixes) as two halves of four
 * 32-bit lanes of one to three bytes, packed the same way. The shuffles are tables made once
 * from the lanes' lengths. A 4-byte str (one emoji makes a str one) is read as 2-byte lanes
 * where a block holds no astral character. A character at a time elsewhere: an astral block,
 * the text's tail, other CPUs. Measured on 1 MB of each text class's UTF-8 (C alone,
 * best of 50): 0.94-1.10 ms a character at a time, 0.20 (Cyrillic) - 0.69 ms (Latin) in blocks.
 * No Python call. Included by engine_batch.h only.
 *
 * Left out: AVX2 (16 characters a block; the text's split costs ten times the writing).
 */
#ifndef TOKENPRISM_UTF8_WRITE_H
#define TOKENPRISM_UTF8_WRITE_H

#include <Python.h>
#include <stdint.h>
#include <string.h>

/* Bytes a writer may store past the end of what it writes: the caller's buffer has them. */
#define UTF8_SLACK 16

/* A character at a time: its length, or -1 at a surrogate (strict UTF-8 refuses them). */
static inline Py_ssize_t utf8_write_each(int kind, const void *data, Py_ssize_t from, Py_ssize_t n,
                                         unsigned char *out) {
    unsigned char *o = out;
    for (Py_ssize_t i = from; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c < 0x80) {
            *o++ = (unsigned char)c;
        } else if (c < 0x800) {
            *o++ = (unsigned char)(0xC0 | c >> 6);
            *o++ = (unsigned char)(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            if (c >= 0xD800 && c < 0xE000) return -1;
            *o++ = (unsigned char)(0xE0 | c >> 12);
            *o++ = (unsigned char)(0x80 | (c >> 6 & 0x3F));
            *o++ = (unsigned char)(0x80 | (c & 0x3F));
        } else {
            *o++ = (unsigned char)(0xF0 | c >> 18);
            *o++ = (unsigned char)(0x80 | (c >> 12 & 0x3F));
            *o++ = (unsigned char)(0x80 | (c >> 6 & 0x3F));
            *o++ = (unsigned char)(0x80 | (c & 0x3F));
        }
    }
    return o - out;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define UTF8_BLOCKS
#include <tmmintrin.h>

/* Shuffles: two_bytes[m] packs eight 16-bit lanes (lane k ASCII where bit k of m is set: its
 * low byte only; else both) into two_len[m] bytes; three_bytes[m] four 32-bit lanes (bits 0-3:
 * ASCII, one byte; bits 4-7: below U+0800, two; else three) into three_len[m]. */
static unsigned char two_bytes[256][16], two_len[256], three_bytes[256][16], three_len[256];
static int utf8_blocks_ok; /* the tables made and the CPU has SSSE3 */

static void utf8_write_init(void) {
    for (int m = 0; m < 256; m++) {
        int o = 0, p = 0;
        memset(two_bytes[m], 0x80, 16); /* 0x80: the shuffle writes a zero (never kept) */
        memset(three_bytes[m], 0x80, 16);
        for (int k = 0; k < 8; k++) {
            two_bytes[m][o++] = (unsigned char)(2 * k);
            if (!(m >> k & 1)) two_bytes[m][o++] = (unsigned char)(2 * k + 1);
        }
        for (int k = 0; k < 4; k++)
            for (int j = 0, width = m >> k & 1 ? 1 : m >> (k + 4) & 1 ? 2 : 3; j < width; j++)
                three_bytes[m][p++] = (unsigned char)(4 * k + j);
        two_len[m] = (unsigned char)o;
        three_len[m] = (unsigned char)p;
    }
    __builtin_cpu_init();
    utf8_blocks_ok = __builtin_cpu_supports("ssse3");
}

/* One block of eight characters (16-bit lanes) at o; the bytes written, or -1 at a surrogate. */
__attribute__((target("ssse3"))) static inline int utf8_block(__m128i v, unsigned char *o) {
    const __m128i zero = _mm_setzero_si128(), low6 = _mm_set1_epi16(0x3F), tail = _mm_set1_epi16(0x80);
    __m128i ascii = _mm_cmpeq_epi16(_mm_and_si128(v, _mm_set1_epi16((short)0xFF80)), zero);
    int ascii_bits = _mm_movemask_epi8(_mm_packs_epi16(ascii, ascii)) & 0xFF;
    if (ascii_bits == 0xFF) {
        _mm_storel_epi64((__m128i *)o, _mm_packus_epi16(v, v));
        return 8;
    }
    __m128i short_ = _mm_cmpeq_epi16(_mm_and_si128(v, _mm_set1_epi16((short)0xF800)), zero); /* below U+0800 */
    int short_bits = _mm_movemask_epi8(_mm_packs_epi16(short_, short_)) & 0xFF;
    if (short_bits == 0xFF) { /* lead 0xC0 | c >> 6, then 0x80 | c & 0x3F, or the ASCII byte */
        __m128i two = _mm_or_si128(_mm_or_si128(_mm_set1_epi16(0xC0), _mm_srli_epi16(v, 6)),
                                   _mm_slli_epi16(_mm_or_si128(tail, _mm_and_si128(v, low6)), 8));
        __m128i lanes = _mm_or_si128(_mm_and_si128(ascii, v), _mm_andnot_si128(ascii, two));
        _mm_storeu_si128((__m128i *)o, _mm_shuffle_epi8(lanes, _mm_loadu_si128((const __m128i *)two_bytes[ascii_bits])));
        return two_len[ascii_bits];
    }
    __m128i surrogate = _mm_cmpeq_epi16(_mm_and_si128(v, _mm_set1_epi16((short)0xF800)), _mm_set1_epi16((short)0xD800));
    if (_mm_movemask_epi8(surrogate)) return -1;
    const __m128i low6w = _mm_set1_epi32(0x3F), tailw = _mm_set1_epi32(0x80);
    int written = 0;
    for (int half = 0; half < 2; half++) {
        __m128i c = half ? _mm_unpackhi_epi16(v, zero) : _mm_unpacklo_epi16(v, zero);
        __m128i is_ascii = half ? _mm_unpackhi_epi16(ascii, ascii) : _mm_unpacklo_epi16(ascii, ascii);
        __m128i is_short = half ? _mm_unpackhi_epi16(short_, short_) : _mm_unpacklo_epi16(short_, short_);
        __m128i last = _mm_or_si128(tailw, _mm_and_si128(c, low6w));
        __m128i middle = _mm_or_si128(tailw, _mm_and_si128(_mm_srli_epi32(c, 6), low6w));
        __m128i three = _mm_or_si128(_mm_or_si128(_mm_set1_epi32(0xE0), _mm_srli_epi32(c, 12)),
                                     _mm_or_si128(_mm_slli_epi32(middle, 8), _mm_slli_epi32(last, 16)));
        __m128i two = _mm_or_si128(_mm_or_si128(_mm_set1_epi32(0xC0), _mm_srli_epi32(c, 6)), _mm_slli_epi32(last, 8));
        __m128i wide = _mm_or_si128(_mm_and_si128(is_short, two), _mm_andnot_si128(is_short, three));
        __m128i lanes = _mm_or_si128(_mm_and_si128(is_ascii, c), _mm_andnot_si128(is_ascii, wide));
        int m = (ascii_bits >> (4 * half) & 15) | (short_bits >> (4 * half) & 15) << 4;
        _mm_storeu_si128((__m128i *)(o + written),
                         _mm_shuffle_epi8(lanes, _mm_loadu_si128((const __m128i *)three_bytes[m])));
        written += three_len[m];
    }
    return written;
}

/* Eight characters of a 4-byte str as 16-bit lanes in *v, or 0 when one of them is astral. */
__attribute__((target("ssse3"))) static inline int bmp_block(const Py_UCS4 *d, __m128i *v) {
    const __m128i low_halves = _mm_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1);
    __m128i a = _mm_loadu_si128((const __m128i *)d), b = _mm_loadu_si128((const __m128i *)(d + 4));
    __m128i astral = _mm_and_si128(_mm_or_si128(a, b), _mm_set1_epi32((int)0xFFFF0000u));
    if (_mm_movemask_epi8(_mm_cmpeq_epi32(astral, _mm_setzero_si128())) != 0xFFFF) return 0;
    *v = _mm_unpacklo_epi64(_mm_shuffle_epi8(a, low_halves), _mm_shuffle_epi8(b, low_halves));
    return 1;
}

/* Blocks of eight characters (a block of a 4-byte str holding an astral one a character at a
 * time), then the rest one at a time. */
__attribute__((target("ssse3"))) static Py_ssize_t utf8_write_blocks(int kind, const void *data, Py_ssize_t n,
                                                                     unsigned char *out) {
    unsigned char *o = out;
    Py_ssize_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i v;
        int written;
        if (kind == PyUnicode_2BYTE_KIND)
            v = _mm_loadu_si128((const __m128i *)((const Py_UCS2 *)data + i));
        else if (kind == PyUnicode_1BYTE_KIND)
            v = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)((const Py_UCS1 *)data + i)), _mm_setzero_si128());
        else if (!bmp_block((const Py_UCS4 *)data + i, &v)) {
            if ((written = (int)utf8_write_each(kind, data, i, i + 8, o)) < 0) return -1;
            o += written;
            continue;
        }
        if ((written = utf8_block(v, o)) < 0) return -1;
        o += written;
    }
    Py_ssize_t rest = utf8_write_each(kind, data, i, n, o);
    return rest < 0 ? -1 : o - out + rest;
}
#else
static void utf8_write_init(void) {}
#endif

/* The UTF-8 length of the n characters of `data` (`kind` bytes each), surrogates taken as
 * three bytes (~0.1-0.3 ms a MB: loops the compiler vectorizes). */
#define UTF8_LENGTH_OF(type, wider)                                                                 \
    static size_t utf8_length_##type(const type *d, Py_ssize_t n) {                               \
        size_t len = (size_t)n;                                                                    \
        for (Py_ssize_t i = 0; i < n; i++) len += (d[i] >= 0x80) + (d[i] >= 0x800) + (d[i] >= wider); \
        return len;                                                                                \
    }
UTF8_LENGTH_OF(Py_UCS1, 0x100)
UTF8_LENGTH_OF(Py_UCS2, 0x10000)
UTF8_LENGTH_OF(Py_UCS4, 0x10000)

static size_t utf8_length(int kind, const void *data, Py_ssize_t n) {
    return kind == PyUnicode_1BYTE_KIND   ? utf8_length_Py_UCS1(data, n)
           : kind == PyUnicode_2BYTE_KIND ? utf8_length_Py_UCS2(data, n)
                                          : utf8_length_Py_UCS4(data, n);
}

/* Room enough for the UTF-8 of the n characters of `data` (`kind` bytes each), UTF8_SLACK
 * included: their most (two bytes a character of a 1-byte str, three of a 2-byte one, four),
 * or their utf8_length where the most passes UTF8_EXACT_FROM, glibc's mmap threshold as
 * app/bpe/heap.py sets it: a buffer past it is mapped afresh each call and its pages faulted in
 * as they are written (a MB of prose with one emoji, a 4-byte str, counted at five bytes a
 * character before 2026-12-03: 245 faults, 0.8 ms a call), one under it comes from the heap. */
#define UTF8_EXACT_FROM ((size_t)4 << 20)

static size_t utf8_room(int kind, const void *data, Py_ssize_t n) {
    size_t most = (size_t)n * (size_t)(kind < 4 ? kind + 1 : 4); /* a str's n * kind bytes fit: no overflow */
    return (most < UTF8_EXACT_FROM ? most : utf8_length(kind, data, n)) + UTF8_SLACK;
}

/* The UTF-8 of the n characters of `data` (`kind` bytes each) in out (utf8_room bytes); its length, or -1 at a surrogate (the
 * caller has CPython's encoder raise its own UnicodeEncodeError). utf8_write_init first. */
static Py_ssize_t utf8_write(int kind, const void *data, Py_ssize_t n, unsigned char *out) {
#ifdef UTF8_BLOCKS
    if (utf8_blocks_ok) return utf8_write_blocks(kind, data, n, out);
#endif
    return kind == PyUnicode_1BYTE_KIND   ? utf8_write_each(PyUnicode_1BYTE_KIND, data, 0, n, out)
           : kind == PyUnicode_2BYTE_KIND ? utf8_write_each(PyUnicode_2BYTE_KIND, data, 0, n, out)
                                          : utf8_write_each(PyUnicode_4BYTE_KIND, data, 0, n, out);
}

#endif
