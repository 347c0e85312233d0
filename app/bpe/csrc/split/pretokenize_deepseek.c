/* DeepSeek's pre-tokenizer in C (family PRETOK_DEEPSEEK of pretokenize.h): the pieces the
 * Hugging Face library cuts with deepseek_v4's tokenizer.json, a Sequence of three Splits
 * (behavior Isolated: both the matches and the text between them are pieces):
 *
 *   1. \p{N}{1,3}                                    digits, three at most a piece
 *   2. [\x{4e00}-\x{9fa5}\x{3040}-\x{309f}\x{30a0}-\x{30ff}]+   a run of CJK and kana
 *   3. on each piece of 2, as a text of its own (so its end is the end of the text):
 *      A1 [ASCII punctuation][A-Za-z]+   A2 [^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+
 *      A3  ?[\p{P}\p{S}]+[\r\n]*         A4 \s*[\r\n]+   A5 \s+(?!\S)   A6 \s+
 *
 * then ByteLevel without a regex (no more cuts). The classes are the library's own: its
 * Oniguruma is asked about every code point at build time (app/bpe/unicode_classes.py,
 * source "tokenizers", which also adds PUNCT for \p{P} and \p{S}); Python's `regex` module
 * is on another Unicode version and disagrees on thousands of letters.
 *
 * A chunk starts where the previous one ended, so the piece of split 1 or 2 a position is in
 * is known from that position on: a digit starts a piece of up to three digits; any other
 * character's piece of split 2 runs until a digit or the other side of the CJK ranges. Such a
 * boundary reads as the end of the text for the alternatives of split 3 (which never look
 * past one character beyond a run), so each byte is read a bounded number of times.
 *
 * A chunk of ASCII is cut byte by byte from a table of the bytes' kinds (ascii_chunk), by
 * the same rules, wherever the chunk and the byte after it are ASCII; elsewhere the rules
 * read characters (next_by_characters).
 *
 * Left out: DeepSeek's added tokens (the caller cuts them out first) and invalid UTF-8 (the
 * caller gives the UTF-8 of a str without lone surrogates).
 */
#include <stdint.h>

#include "pretokenize.h"
#include "spans.h"
#include "pretokenize_classes_onig.h"

enum { K_OTHER, K_LETTER, K_MARK, K_PUNCT, K_SPACE, K_NEWLINE, K_END };

/* The code point at s[i] (i < n) and where the next one starts. */
static unsigned long decode(const unsigned char *s, size_t i, size_t n, size_t *next) {
    unsigned b = s[i];
    size_t width = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
    if (width == 1 || i + width > n) {
        *next = i + 1;
        return b;
    }
    unsigned long cp = b & (0x7Fu >> width);
    for (size_t k = 1; k < width; k++) cp = (cp << 6) | (s[i + k] & 0x3Fu);
    *next = i + width;
    return cp;
}

static unsigned raw_class(unsigned long cp) {
    if (cp > 0x10FFFF) return PT_OTHER;
    return pt_stage2[((size_t)pt_stage1[cp >> PT_BLOCK_BITS] << PT_BLOCK_BITS) | (cp & ((1u << PT_BLOCK_BITS) - 1))];
}

static int in_cjk(unsigned long cp) {
    return (cp >= 0x4E00 && cp <= 0x9FA5) || (cp >= 0x3040 && cp <= 0x309F) || (cp >= 0x30A0 && cp <= 0x30FF);
}

/* A class's kind outside the CJK ranges (a digit ends the piece). */
static const unsigned char KIND_OF[PT_NEWLINE + 1] = {
    [PT_OTHER] = K_OTHER, [PT_LU] = K_LETTER, [PT_LL] = K_LETTER, [PT_LT] = K_LETTER,  [PT_LM] = K_LETTER,
    [PT_LO] = K_LETTER,   [PT_MARK] = K_MARK, [PT_NUMBER] = K_END, [PT_PUNCT] = K_PUNCT, [PT_SPACE] = K_SPACE,
    [PT_NEWLINE] = K_NEWLINE};

enum { K_WIDE = K_END + 1 }; /* a byte >= 0x80: a character the table does not tell */

static unsigned char byte_kinds[256]; /* an ASCII byte's kind (K_END: a digit), K_WIDE above */

/* [cjk][cp >> 6] bit cp & 63: code point cp (< 0x10000) continues a run of letters and marks
 * in a piece that is (1) or is not (0) a CJK run, as kind_at says; run_of_kinds' fast path. */
static uint64_t letters_bmp[2][1024];

__attribute__((constructor)) static void byte_kinds_init(void) {
    for (unsigned b = 0; b < 256; b++) byte_kinds[b] = b < 0x80 ? KIND_OF[raw_class(b)] : K_WIDE;
    for (unsigned long cp = 0; cp < 0x10000; cp++) {
        unsigned kind = KIND_OF[raw_class(cp)];
        if (kind == K_LETTER || kind == K_MARK) letters_bmp[in_cjk(cp)][cp >> 6] |= (uint64_t)1 << (cp & 63);
    }
}

/* Where white space from i ends (A4-A6), j being the end of its run, `last` where its last
 * character starts, after_newline past its last line break (0: none), and at_end whether the
 * piece ends at j. */
static inline size_t spaces_end(size_t i, size_t j, size_t last, size_t after_newline, int at_end) {
    if (after_newline) return after_newline; /* A4: up to the last line break */
    if (at_end || last == i) return j;       /* A5 at the piece's end, or A6 for one character */
    return last;                             /* A5: all but the last, which (?!\S) needs */
}

/* What split 3 sees at s[i] in a piece that is (cjk) or is not a CJK run: K_END past the
 * piece (a digit, the other side of the CJK ranges, or the text's end). */
static inline unsigned kind_at(const unsigned char *s, size_t i, size_t n, int cjk, size_t *next) {
    if (i >= n) {
        *next = n;
        return K_END;
    }
    if (s[i] < 0x80) { /* ASCII: never in the CJK ranges */
        *next = i + 1;
        return cjk ? K_END : byte_kinds[s[i]];
    }
    unsigned long cp = decode(s, i, n, next);
    unsigned cls = raw_class(cp);
    return in_cjk(cp) != cjk ? K_END : KIND_OF[cls];
}

static int ascii_letter(unsigned char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }

#define LETTER_OR_MARK(k) ((k) == K_LETTER || (k) == K_MARK)

/* The end of the run from i of characters whose kind is `a` or `b`. */
static size_t run_of_kinds(const unsigned char *s, size_t i, size_t n, int cjk, unsigned a, unsigned b) {
    size_t next;
    for (size_t from = SIZE_MAX; a == K_LETTER && i != from;) { /* letters and marks first, without their classes */
        from = i;
        if (!cjk)
            while (i < n && ascii_letter(s[i])) i++;
        i = bmp_run(s, i, n, letters_bmp[cjk]);
    }
    for (unsigned k = kind_at(s, i, n, cjk, &next); k == a || k == b; k = kind_at(s, i, n, cjk, &next)) i = next;
    return i;
}

/* Split 3 at i, in a piece that is (cjk) or is not a CJK run; i is in the piece, the kind of
 * its character k0 and the next one's start at1. Each character is decoded once. */
static size_t split3(const unsigned char *s, size_t i, size_t n, int cjk, unsigned k0, size_t at1) {
    size_t at2;
    unsigned k1 = kind_at(s, at1, n, cjk, &at2);
    if (s[i] < 0x80 && k0 == K_PUNCT && k1 == K_LETTER && ascii_letter(s[at1])) { /* A1: ASCII only */
        size_t j = at1;
        while (j < n && ascii_letter(s[j])) j++;
        return j;
    }
    if (k0 != K_NEWLINE && k0 != K_LETTER && k0 != K_PUNCT && LETTER_OR_MARK(k1)) /* A2, with its first character */
        return run_of_kinds(s, at2, n, cjk, K_LETTER, K_MARK);
    if (LETTER_OR_MARK(k0)) /* A2 */
        return LETTER_OR_MARK(k1) ? run_of_kinds(s, at2, n, cjk, K_LETTER, K_MARK) : at1;
    if (k0 == K_PUNCT || (s[i] == ' ' && k1 == K_PUNCT)) { /* A3 */
        size_t j = k1 == K_PUNCT ? run_of_kinds(s, at2, n, cjk, K_PUNCT, K_PUNCT) : at1;
        return run_of_kinds(s, j, n, cjk, K_NEWLINE, K_NEWLINE);
    }
    if (k0 == K_SPACE || k0 == K_NEWLINE) {
        size_t j = i, last = i, after_newline = 0, next;
        unsigned k;
        while ((k = kind_at(s, j, n, cjk, &next)) == K_SPACE || k == K_NEWLINE) {
            if (k == K_NEWLINE) after_newline = next;
            last = j;
            j = next;
        }
        return spaces_end(i, j, last, after_newline, k == K_END);
    }
    /* no alternative matches here: the text up to where one does is a piece of its own */
    size_t j = at1;
    for (unsigned k = k1; k == K_OTHER;) {
        size_t after;
        if (LETTER_OR_MARK(kind_at(s, at2, n, cjk, &after))) break; /* A2 starts at j */
        j = at2;
        k = kind_at(s, j, n, cjk, &at2);
    }
    return j;
}

/* ---- ASCII, byte by byte ----
 * The same rules where the chunk and the byte after it are ASCII (most of prose and code):
 * a byte's kind from its class alone (ASCII is never in the CJK ranges), no decoding. A chunk
 * whose end depends on a wider character is left to the rules above (0). */
static inline unsigned ascii_kind(const unsigned char *s, size_t j, size_t n) { return j < n ? byte_kinds[s[j]] : K_END; }

/* The end of the run from j of bytes of kind `a`; *stop: the kind of what ends it. */
static inline size_t ascii_run(const unsigned char *s, size_t j, size_t n, unsigned a, unsigned *stop) {
    unsigned k;
    while ((k = ascii_kind(s, j, n)) == a) j++;
    *stop = k;
    return j;
}

static size_t ascii_chunk(const unsigned char *s, size_t i, size_t n) {
    unsigned c = s[i], k0 = byte_kinds[c], k1 = ascii_kind(s, i + 1, n), stop;
    size_t j;
    if (k0 == K_END) { /* a digit, split 1: up to three */
        for (j = i + 1; j < i + 3 && j < n && byte_kinds[s[j]] == K_END; j++) {}
        return j < i + 3 && j < n && s[j] >= 0x80 ? 0 : j; /* a wider digit may go on */
    }
    if (k0 == K_PUNCT && k1 == K_LETTER) { /* A1 (ASCII's punctuation and letters are these kinds) */
        for (j = i + 1; j < n && ascii_letter(s[j]); j++) {}
        return j;
    }
    if (k1 == K_WIDE) return 0;
    if (k0 == K_LETTER || (k0 != K_NEWLINE && k0 != K_PUNCT && k1 == K_LETTER)) { /* A2 */
        j = ascii_run(s, i + 1, n, K_LETTER, &stop);
        return stop == K_WIDE ? 0 : j; /* a wider letter or mark goes on */
    }
    if (k0 == K_PUNCT || (c == ' ' && k1 == K_PUNCT)) { /* A3 */
        j = ascii_run(s, k0 == K_PUNCT ? i + 1 : i + 2, n, K_PUNCT, &stop);
        if (stop == K_NEWLINE) j = ascii_run(s, j, n, K_NEWLINE, &stop);
        return stop == K_WIDE ? 0 : j;
    }
    if (k0 == K_SPACE || k0 == K_NEWLINE) { /* A4-A6, as split3 */
        size_t last = i, after_newline = 0;
        unsigned k;
        for (j = i; (k = ascii_kind(s, j, n)) == K_SPACE || k == K_NEWLINE; j++) {
            if (k == K_NEWLINE) after_newline = j + 1;
            last = j;
        }
        return k == K_WIDE ? 0 : spaces_end(i, j, last, after_newline, k == K_END);
    }
    return 0; /* an other byte: the rules above */
}

/* The chunk at s[i] by the rules, character by character (noinline: the ASCII path stays a
 * small function). */
static __attribute__((noinline)) size_t next_by_characters(const unsigned char *s, size_t i, size_t n) {
    size_t next;
    unsigned long cp = s[i] < 0x80 ? (next = i + 1, s[i]) : decode(s, i, n, &next);
    if (raw_class(cp) == PT_NUMBER) { /* split 1: up to three digits */
        size_t j = next;
        for (int more = 2; more > 0 && j < n; more--) {
            size_t after;
            unsigned long d = s[j] < 0x80 ? (after = j + 1, s[j]) : decode(s, j, n, &after);
            if (raw_class(d) != PT_NUMBER) break;
            j = after;
        }
        return j;
    }
    return split3(s, i, n, in_cjk(cp), KIND_OF[raw_class(cp)], next);
}

/* The chunk at s[i]. One that starts at a letter or mark of the CJK ranges is the run of them
 * from there (A2 in split 2's CJK piece, as split3 finds it: the letters and marks of those
 * ranges are exactly letters_bmp[1]'s, and anything else ends the run), read without classes
 * (1 MB of CJK translations: 2% faster fresh, 6% warm). The rest: ascii_chunk, else the rules
 * character by character. */
size_t pretok_next_deepseek(const unsigned char *s, size_t i, size_t n) {
    size_t end;
    if (s[i] >= 0xE3 && s[i] <= 0xE9 && (end = bmp_run(s, i, n, letters_bmp[1])) > i) return end;
    end = s[i] < 0x80 ? ascii_chunk(s, i, n) : 0;
    return end ? end : next_by_characters(s, i, n);
}

unsigned pretok_class_onig(unsigned long cp) { return raw_class(cp); }

int pretok_deepseek_letter(unsigned long cp) { return cp < 0x800 && (letters_bmp[0][cp >> 6] >> (cp & 63) & 1); }

int pretok_deepseek_ascii_as_windows_read(void) {
    for (unsigned c = 0; c < 0x80; c++) {
        unsigned want = (c | 0x20) - 'a' < 26u            ? K_LETTER
                        : c - '0' < 10u                    ? K_END
                        : c == '\n' || c == '\r'           ? K_NEWLINE
                        : c - '\t' < 5u || c == ' '        ? K_SPACE
                        : c < 32u || c == 0x7F             ? K_OTHER
                                                           : K_PUNCT;
        if (byte_kinds[c] != want) return 0;
    }
    return 1;
}

const char *pretok_onig_version(void) { return PT_SOURCE_VERSION; }
