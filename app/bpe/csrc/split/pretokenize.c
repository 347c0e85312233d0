/* The split patterns of the OpenAI-style tokenizers, in C, without backtracking: the
 * families of pretokenize.h, each giving the chunks tiktoken's regex (fancy-regex) finds.
 *
 * Each family's function takes its pattern's alternatives in order, as the regex engine
 * does (leftmost alternative that matches), and within an alternative works out in one
 * forward scan where backtracking would end. A failed alternative's scan covers a run that
 * the next chunks then take whole, so each byte is read a bounded number of times and a
 * text is split in linear time (the tests time 16 MB hostile runs). ASCII bytes
 * are classified by one table load; only bytes >= 0x80 are decoded (UTF-8) and looked up
 * in the generated two-stage table of Unicode classes (app/bpe/unicode_classes.py writes
 * pretokenize_classes.h at build time from tiktoken's own classes). o200k's runs of letters that
 * are both of its cases (CJK, kana, Hangul, Arabic, Devanagari) are read from a bitmap instead.
 *
 * Left out: special tokens and invalid UTF-8 (pretokenize.h: the caller's part). Bytes that
 * are not valid UTF-8 are read as "other" characters and never past n, but their chunks
 * are not promised to be anyone's.
 */
#include "pretokenize.h"
#include "spans.h"

#ifdef PRETOK_REGEX_CLASSES /* pretokenize_regex.c: this file again, on the `regex` module's classes */
#include "pretokenize_classes_regex.h"
#define pretok_next pretok_next_regex
#define pretok_class pretok_class_regex
#define pretok_case pretok_case_regex
#define pretok_init pretok_init_regex
#define pretok_function pretok_function_regex
#else
#include "pretokenize_classes.h"
#endif

#include <stdint.h>
#include <string.h>

#define BIT(c) (1u << (c))
#define M_LETTER (BIT(PT_LU) | BIT(PT_LL) | BIT(PT_LT) | BIT(PT_LM) | BIT(PT_LO)) /* \p{L} */
#define M_NUMBER BIT(PT_NUMBER)                                                   /* \p{N} */
#define M_NOT_SLN (BIT(PT_OTHER) | BIT(PT_MARK))                                  /* [^\s\p{L}\p{N}] */
#define M_NOT_NLN (M_NOT_SLN | BIT(PT_SPACE))                                     /* [^\r\n\p{L}\p{N}] */
#define M_UPPER (BIT(PT_LU) | BIT(PT_LT) | BIT(PT_LM) | BIT(PT_LO) | BIT(PT_MARK)) /* [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] */
#define M_LOWER (BIT(PT_LL) | BIT(PT_LM) | BIT(PT_LO) | BIT(PT_MARK))              /* [\p{Ll}\p{Lm}\p{Lo}\p{M}] */
#define M_LETTER_MARK (M_LETTER | BIT(PT_MARK))                                    /* [\p{L}\p{M}] */
#define M_NOT_SLMN BIT(PT_OTHER)                                                   /* [^\s\p{L}\p{M}\p{N}] */
#define IN(mask, cls) (((mask) >> (cls)) & 1u)
#define IS_NEWLINE(b) ((b) == '\r' || (b) == '\n')

void pretok_init(void) {} /* the tables are constant data; kept so callers need not know */

/* The class of code point cp (<= 0x10FFFF) in the two-stage table. */
static inline unsigned class_of(unsigned long cp) {
    return pt_stage2[((size_t)pt_stage1[cp >> PT_BLOCK_BITS] << PT_BLOCK_BITS) | (cp & ((1u << PT_BLOCK_BITS) - 1))];
}

/* A four-byte character's class, or PT_OTHER for a byte that starts none (not UTF-8). */
static unsigned class_rare(const unsigned char *s, size_t i, size_t n, size_t *next) {
    unsigned b = s[i];
    *next = i + 1;
    if (b < 0xF0 || i + 4 > n) return PT_OTHER;
    unsigned long cp = (b & 7ul) << 18 | (s[i + 1] & 0x3Ful) << 12 | (s[i + 2] & 0x3Fu) << 6 | (s[i + 3] & 0x3Fu);
    *next = i + 4;
    return cp > 0x10FFFF ? PT_OTHER : class_of(cp);
}

/* The class of the character at s[i] (a byte >= 0x80 starts it), *next where the next begins. */
static inline unsigned class_wide(const unsigned char *s, size_t i, size_t n, size_t *next) {
    unsigned b = s[i];
    if (b >= 0xC0 && b < 0xE0 && i + 2 <= n) {
        *next = i + 2;
        return class_of((b & 0x1Fu) << 6 | (s[i + 1] & 0x3Fu));
    }
    if (b >= 0xE0 && b < 0xF0 && i + 3 <= n) {
        *next = i + 3;
        return class_of((b & 0x0Fu) << 12 | (s[i + 1] & 0x3Fu) << 6 | (s[i + 2] & 0x3Fu));
    }
    return class_rare(s, i, n, next);
}

/* The class of the character at s[i] (i < n). Block 0 of the table is the ASCII one. */
static inline unsigned class_at(const unsigned char *s, size_t i, size_t n, size_t *next) {
    if (s[i] < 0x80) {
        *next = i + 1;
        return pt_stage2[s[i]];
    }
    return class_wide(s, i, n, next);
}

/* The end of the run of characters in `mask` from i: ASCII bytes in a tight loop, others
 * decoded. Letter runs, the common case, start eight bytes at a time (spans.h; the step may
 * stop early: the byte loop goes on from there; `mask` is a constant at every call, so the
 * choice is made when compiling). */
static inline size_t run_of(const unsigned char *s, size_t i, size_t n, unsigned mask) {
    size_t next;
    while (i < n) {
        if (s[i] < 0x80) {
            if ((mask & M_LETTER) == M_LETTER) i = ASCII_SPAN(s, i, n, 'a', 'z', 1);
            else if (mask & BIT(PT_LL)) i = ASCII_SPAN(s, i, n, 'a', 'z', 0);
            else if (mask & BIT(PT_LU)) i = ASCII_SPAN(s, i, n, 'A', 'Z', 0);
            while (i < n && s[i] < 0x80 && IN(mask, pt_stage2[s[i]])) i++;
            if (i >= n || s[i] < 0x80) return i;
        }
        if (!IN(mask, class_wide(s, i, n, &next))) return i;
        i = next;
    }
    return i;
}

/* The end of the run of \p{N} from i, at most `most` of them (\p{N}{1,3} and \p{N} after the first). */
static size_t numbers(const unsigned char *s, size_t i, size_t n, size_t most) {
    size_t next;
    for (; most && i < n && class_at(s, i, n, &next) == PT_NUMBER; most--) i = next;
    return i;
}

/* The byte s[j] lower-cased, U+017F read as 's' (fancy-regex's (?i) folds it so); 0 at the end. */
static unsigned folded(const unsigned char *s, size_t j, size_t n, size_t *next) {
    if (j >= n) return 0;
    *next = j + 1;
    if (s[j] >= 'A' && s[j] <= 'Z') return s[j] + ('a' - 'A');
    if (s[j] == 0xC5 && j + 1 < n && s[j + 1] == 0xBF) {
        *next = j + 2;
        return 's';
    }
    return s[j];
}

/* '(?:[sdmt]|ll|ve|re) at i (any case when `fold`): its end, or 0. */
static size_t contraction(const unsigned char *s, size_t i, size_t n, int fold) {
    if (s[i] != '\'') return 0;
    size_t j, k;
    unsigned a = fold ? folded(s, i + 1, n, &j) : (i + 1 < n ? (j = i + 2, s[i + 1]) : 0);
    if (a == 's' || a == 'd' || a == 'm' || a == 't') return j;
    if (a != 'l' && a != 'v' && a != 'r') return 0;
    unsigned b = fold ? folded(s, j, n, &k) : (j < n ? (k = j + 1, s[j]) : 0);
    return (a == 'l' && b == 'l') || (a != 'l' && b == 'e') ? k : 0;
}

/* The whitespace alternatives at i (s[i] is \s), after all others failed:
 * \s++$ first when `end_first` (gpt2, cl100k), then \s*[\r\n] / \s*[\r\n]+ when `newlines`
 * (both end just after the run's last \r or \n), then \s+(?!\S), then \s / \s+. */
static size_t spaces(const unsigned char *s, size_t i, size_t n, int end_first, int newlines) {
    size_t k = i, last = i, newline = 0, next;
    while (k < n && IN(BIT(PT_SPACE) | BIT(PT_NEWLINE), class_at(s, k, n, &next))) {
        if (IS_NEWLINE(s[k])) newline = next;
        last = k;
        k = next;
        if (k < n && s[k] == ' ' && (next = ASCII_SPAN(s, k, n, ' ', ' ', 0)) > k) /* indentation */
            last = next - 1, k = next;
    }
    if (end_first && k == n) return n;
    if (newlines && newline) return newline;
    if (k == n) return n;         /* \s+(?!\S) at the end */
    return last > i ? last : k;   /* \s+(?!\S) leaves the last one; else one \s */
}

/* ' ?' then a run of `mask` (a class without space), then [\r\n]* (and '/' when `slash`); 0 if no run. */
static size_t punctuation(const unsigned char *s, size_t i, size_t n, unsigned cls, size_t next, unsigned mask,
                          int slash) {
    size_t j = next, after;
    if (s[i] == ' ' && next < n && IN(mask, class_at(s, next, n, &after))) j = after;
    else if (!IN(mask, cls)) return 0;
    j = run_of(s, j, n, mask);
    while (j < n && (IS_NEWLINE(s[j]) || (slash && s[j] == '/'))) j++;
    return j;
}

/* '(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s */
static size_t next_gpt2(const unsigned char *s, size_t i, size_t n) {
    size_t next, after, end = s[i] == '\'' ? contraction(s, i, n, 0) : 0;
    if (end) return end;
    unsigned c = class_at(s, i, n, &next);
    if (s[i] == ' ' && next < n) {
        unsigned d = class_at(s, next, n, &after);
        if (!IN(BIT(PT_SPACE) | BIT(PT_NEWLINE), d)) c = d, next = after;
    }
    if (IN(M_LETTER, c)) return run_of(s, next, n, M_LETTER);
    if (c == PT_NUMBER) return run_of(s, next, n, M_NUMBER);
    if (IN(M_NOT_SLN, c)) return run_of(s, next, n, M_NOT_SLN);
    return spaces(s, i, n, 1, 0);
}

/* The shape cl100k, llama3 and qwen3_6 share: a contraction (any case), [^\r\n\p{L}\p{N}]?
 * then a run of `letters`, `digits` numbers at most, ' ?' a run of `punct` then [\r\n]*,
 * then the whitespace alternatives (\s++$ first when `end_first`). */
static size_t next_cl100k_like(const unsigned char *s, size_t i, size_t n, unsigned letters, size_t digits,
                               unsigned punct, int end_first) {
    size_t next, after, end = s[i] == '\'' ? contraction(s, i, n, 1) : 0;
    if (end) return end;
    unsigned c = class_at(s, i, n, &next);
    if (IN(letters, c)) return run_of(s, next, n, letters);
    if (IN(M_NOT_NLN, c) && next < n && IN(letters, class_at(s, next, n, &after)))
        return run_of(s, after, n, letters);
    if (c == PT_NUMBER) return numbers(s, next, n, digits - 1);
    end = punctuation(s, i, n, c, next, punct, 0);
    return end ? end : spaces(s, i, n, end_first, 1);
}

/* [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+ at j: its end, or 0. Backtracking
 * gives the upper run back down to its last character that is also lower, unless an \p{Ll}
 * follows the run; one forward scan finds both. */
static inline size_t upper_then_lower(const unsigned char *s, size_t j, size_t n) {
    size_t next, last_lower = 0;
    if (j < n && (unsigned)(s[j] - 'a') < 26) return run_of(s, j + 1, n, M_LOWER); /* the common cases */
    if (j < n && (unsigned)(s[j] - 'A') < 26) {
        j = ASCII_SPAN(s, j + 1, n, 'A', 'Z', 0);
        while (j < n && (unsigned)(s[j] - 'A') < 26) j++;
        if (j < n && (unsigned)(s[j] - 'a') < 26) return run_of(s, j + 1, n, M_LOWER);
    }
    while (j < n) {
        unsigned c = class_at(s, j, n, &next);
        if (!IN(M_UPPER, c)) return c == PT_LL ? run_of(s, next, n, M_LOWER) : last_lower;
        if (IN(M_LOWER, c)) last_lower = next;
        j = next;
    }
    return last_lower;
}

/* [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]* at j: its end, or 0. */
static size_t upper_then_any_lower(const unsigned char *s, size_t j, size_t n) {
    size_t k = run_of(s, j, n, M_UPPER);
    return k > j ? run_of(s, k, n, M_LOWER) : 0;
}

/* [cp >> 6] bit cp & 63: a character of the BMP past ASCII that is in both of o200k's classes
 * [upper] and [lower] (Lm, Lo, M: CJK, kana, Hangul, Arabic, Devanagari, Thai letters and marks). */
static uint64_t caseless_bmp[1024];

__attribute__((constructor)) static void caseless_init(void) {
    for (unsigned long cp = 0x80; cp < 0x10000; cp++)
        if (IN(M_UPPER & M_LOWER, class_of(cp))) caseless_bmp[cp >> 6] |= (uint64_t)1 << (cp & 63);
}

/* The chunk o200k's letter alternatives give from i when it is [^\r\n\p{L}\p{N}]? (ASCII here)
 * then a run of caseless characters followed by no letter, mark or apostrophe: that run is
 * both [upper]* and [lower]+, and nothing after it extends either (0 when it is not so). */
static inline size_t caseless_chunk(const unsigned char *s, size_t i, size_t n) {
    size_t from = s[i] < 0x80 && IN(M_NOT_NLN, pt_stage2[s[i]]) ? i + 1 : i, end, next;
    if (from >= n || s[from] < 0xC0 || (end = bmp_run(s, from, n, caseless_bmp)) == from) return 0;
    return end == n || (s[end] != '\'' && !IN(M_LETTER | BIT(PT_MARK), class_at(s, end, n, &next))) ? end : 0;
}

/* o200k's shape (and Tekken's: no contractions, one digit a chunk):
 * [^\r\n\p{L}\p{N}]?[upper]*[lower]+(?i:'s|...)?|[^\r\n\p{L}\p{N}]?[upper]+[lower]*(?i:'s|...)?
 * |\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+ */
static size_t next_o200k_like(const unsigned char *s, size_t i, size_t n, int contractions, size_t digits) {
    size_t next, after, end = caseless_chunk(s, i, n);
    if (end) return end;
    unsigned c = class_at(s, i, n, &next);
    int bare = IN(M_UPPER | M_LOWER, c); /* a letter or a mark */
    int prefix = IN(M_NOT_NLN, c) && next < n && IN(M_UPPER | M_LOWER, class_at(s, next, n, &after));
    /* The optional first character is taken first, and left only when the rest then fails. */
    end = prefix ? upper_then_lower(s, next, n) : 0;
    if (!end && bare) end = upper_then_lower(s, i, n);
    if (!end && prefix) end = upper_then_any_lower(s, next, n);
    if (!end && bare) end = upper_then_any_lower(s, i, n);
    if (end) {
        size_t k = contractions && end < n && s[end] == '\'' ? contraction(s, end, n, 1) : 0;
        return k ? k : end;
    }
    if (c == PT_NUMBER) return numbers(s, next, n, digits - 1);
    end = punctuation(s, i, n, c, next, M_NOT_SLN, 1);
    return end ? end : spaces(s, i, n, 0, 1);
}

unsigned pretok_class(unsigned long cp) { return cp > 0x10FFFF ? PT_OTHER : class_of(cp); }
int pretok_case(unsigned long cp) { return cp > 0x10FFFF ? 0 : class_of(cp) == PT_LU ? 1 : class_of(cp) == PT_LL ? 2 : 0; }

static size_t next_cl100k(const unsigned char *s, size_t i, size_t n) {
    return next_cl100k_like(s, i, n, M_LETTER, 3, M_NOT_SLN, 1);
}
static size_t next_llama3(const unsigned char *s, size_t i, size_t n) {
    return next_cl100k_like(s, i, n, M_LETTER, 3, M_NOT_SLN, 0);
}
static size_t next_qwen(const unsigned char *s, size_t i, size_t n) {
    return next_cl100k_like(s, i, n, M_LETTER_MARK, 1, M_NOT_SLMN, 0);
}
static size_t next_o200k(const unsigned char *s, size_t i, size_t n) { return next_o200k_like(s, i, n, 1, 3); }
static size_t next_tekken(const unsigned char *s, size_t i, size_t n) { return next_o200k_like(s, i, n, 0, 1); }
static size_t next_byte(const unsigned char *s, size_t i, size_t n) { return (void)s, (void)n, i + 1; }

pretok_fn pretok_function(pretok_family family) {
    switch (family) {
    case PRETOK_GPT2: return next_gpt2;
    case PRETOK_CL100K: return next_cl100k;
    case PRETOK_LLAMA3: return next_llama3;
    case PRETOK_QWEN: return next_qwen;
    case PRETOK_O200K: return next_o200k;
    case PRETOK_TEKKEN: return next_tekken;
#ifndef PRETOK_REGEX_CLASSES
    case PRETOK_DEEPSEEK: return pretok_next_deepseek;
#endif
    default: /* not a family: one byte, so that a caller's loop still ends */
        return next_byte;
    }
}

size_t pretok_next(pretok_family family, const unsigned char *s, size_t i, size_t n) {
    return pretok_function(family)(s, i, n);
}
