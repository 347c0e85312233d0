/* STAND-IN, correct for ASCII text only: the split patterns of pretokenize.h (families
 * gpt2, cl100k, o200k, qwen, tekken) on ASCII, ported from the former _ascii_split.c so
 * the C engine (_engine.c) is complete and tested while the full-Unicode pretokenize.c is
 * written; that one replaces this file whole.
 *
 * On ASCII the patterns' classes reduce to: \p{L} [A-Za-z] (\p{Lu} [A-Z], \p{Ll} [a-z]),
 * \p{N} [0-9], \p{M} nothing, \s the White_Space characters \t \n \v \f \r and space, and
 * everything else "other". Each function returns where the match starting at `i` ends,
 * taking the pattern's alternatives in order (leftmost alternative that matches).
 *
 * Left out: every byte >= 0x80 is taken as "other", which is wrong for most non-ASCII
 * text; the engine reports FULL_UNICODE = False for this file and its Python side sends
 * non-ASCII text to tiktoken.
 */
#include "pretokenize.h"

enum { OTHER = 0, LETTER_UPPER, LETTER_LOWER, DIGIT, SPACE };

static unsigned char class_of[256];

void pretok_init(void) {
    for (int c = 0; c < 256; c++) {
        if (c >= 'A' && c <= 'Z') class_of[c] = LETTER_UPPER;
        else if (c >= 'a' && c <= 'z') class_of[c] = LETTER_LOWER;
        else if (c >= '0' && c <= '9') class_of[c] = DIGIT;
        else if ((c >= '\t' && c <= '\r') || c == ' ') class_of[c] = SPACE;
        else class_of[c] = OTHER;
    }
}

#define IS_LETTER(c) (class_of[c] == LETTER_UPPER || class_of[c] == LETTER_LOWER)
#define IS(c, k) (class_of[c] == (k))
#define IS_NEWLINE(c) ((c) == '\r' || (c) == '\n')

static size_t run_of(const unsigned char *s, size_t i, size_t n, int k) {
    while (i < n && IS(s[i], k)) i++;
    return i;
}

static size_t letters_from(const unsigned char *s, size_t i, size_t n) {
    while (i < n && IS_LETTER(s[i])) i++;
    return i;
}

/* \p{N}{1,`most`} at i (s[i] is a digit). */
static size_t digits(const unsigned char *s, size_t i, size_t n, size_t most) {
    size_t end = i + 1;
    while (end < n && end - i < most && IS(s[end], DIGIT)) end++;
    return end;
}

static unsigned char lower(unsigned char c) { return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c; }

/* A contraction at i: 's 'd 'm 't 'll 've 're (ASCII case folded when `fold`); its end, or i. */
static size_t contraction(const unsigned char *s, size_t i, size_t n, int fold) {
    if (i + 1 >= n || s[i] != '\'') return i;
    unsigned char a = s[i + 1], b = i + 2 < n ? s[i + 2] : 0;
    if (fold) {
        a = lower(a);
        b = lower(b);
    }
    if (a == 's' || a == 'd' || a == 'm' || a == 't') return i + 2;
    if ((a == 'l' && b == 'l') || (a == 'v' && b == 'e') || (a == 'r' && b == 'e')) return i + 3;
    return i;
}

/* Whitespace from i (s[i] is whitespace): the patterns' shared tail. `end_first`: \s++$
 * comes first (gpt2, cl100k); `newline_first`: \s*[\r\n] or \s*[\r\n]+ comes before
 * \s+(?!\S), both ending just after the run's last \r or \n. */
static size_t spaces(const unsigned char *s, size_t i, size_t n, int newline_first, int end_first) {
    size_t k = run_of(s, i, n, SPACE);
    if (end_first && k == n) return n; /* \s++$ */
    if (newline_first)
        for (size_t m = k; m-- > i;)
            if (IS_NEWLINE(s[m])) return m + 1; /* \s*[\r\n] */
    if (k == n) return n;                       /* \s+(?!\S) at the end */
    if (k - i >= 2) return k - 1;               /* \s+(?!\S) */
    return i + 1;                               /* \s, or \s+ of one */
}

/* '(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s */
static size_t next_gpt2(const unsigned char *s, size_t i, size_t n) {
    size_t end = contraction(s, i, n, 0);
    if (end > i) return end;
    size_t j = i + (s[i] == ' ' && i + 1 < n);
    if (IS_LETTER(s[j])) return letters_from(s, j, n);
    if (IS(s[j], DIGIT)) return run_of(s, j, n, DIGIT);
    if (IS(s[j], OTHER)) return run_of(s, j, n, OTHER);
    return spaces(s, i, n, 0, 1);
}

/* cl100k: '(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+
 * |\s++$|\s*[\r\n]|\s+(?!\S)|\s -- and qwen, the same on ASCII but for \p{N} (one digit) and
 * its whitespace tail \s*[\r\n]+|\s+(?!\S)|\s+ (o200k's). */
static size_t next_cl100k_like(const unsigned char *s, size_t i, size_t n, size_t most_digits, int end_first) {
    size_t end = contraction(s, i, n, 1);
    if (end > i) return end;
    unsigned char c = s[i];
    if (IS_LETTER(c)) return letters_from(s, i, n);
    if (!IS_NEWLINE(c) && !IS(c, DIGIT) && i + 1 < n && IS_LETTER(s[i + 1])) return letters_from(s, i + 1, n);
    if (IS(c, DIGIT)) return digits(s, i, n, most_digits);
    size_t j = i + (c == ' ' && i + 1 < n);
    if (IS(s[j], OTHER)) {
        end = run_of(s, j, n, OTHER);
        while (end < n && IS_NEWLINE(s[end])) end++;
        return end;
    }
    return spaces(s, i, n, 1, end_first);
}

/* o200k: [^\r\n\p{L}\p{N}]?[\p{Lu}..]*[\p{Ll}..]+(?i:'s|..)?|[^\r\n\p{L}\p{N}]?[\p{Lu}..]+[\p{Ll}..]*(?i:'s|..)?
 * |\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+ -- and tekken, the same
 * without the contractions and with \p{N} (one digit). */
static size_t next_o200k_like(const unsigned char *s, size_t i, size_t n, size_t most_digits, int contractions) {
    unsigned char c = s[i];
    /* The optional first character is taken when the rest can follow it; a letter never is one. */
    size_t j = i + (!IS_NEWLINE(c) && !IS_LETTER(c) && !IS(c, DIGIT) && i + 1 < n);
    size_t upper = run_of(s, j, n, LETTER_UPPER);
    size_t low = run_of(s, upper, n, LETTER_LOWER);
    if (low > upper || upper > j) return contractions ? contraction(s, low, n, 1) : low;
    if (IS(c, DIGIT)) return digits(s, i, n, most_digits);
    j = i + (c == ' ' && i + 1 < n);
    if (IS(s[j], OTHER)) {
        size_t end = run_of(s, j, n, OTHER);
        while (end < n && (IS_NEWLINE(s[end]) || s[end] == '/')) end++;
        return end;
    }
    return spaces(s, i, n, 1, 0);
}

size_t pretok_next(pretok_family family, const unsigned char *s, size_t i, size_t n) {
    switch (family) {
    case PRETOK_GPT2: return next_gpt2(s, i, n);
    case PRETOK_CL100K: return next_cl100k_like(s, i, n, 3, 1);
    case PRETOK_O200K: return next_o200k_like(s, i, n, 3, 1);
    case PRETOK_QWEN: return next_cl100k_like(s, i, n, 1, 0);
    case PRETOK_TEKKEN: return next_o200k_like(s, i, n, 1, 0);
    default: return n;
    }
}
