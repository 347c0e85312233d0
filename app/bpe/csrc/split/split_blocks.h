/* o200k's split (and Tekken's, and DeepSeek's by split_blocks_deepseek.h's rules) on ASCII text
 * and two-byte letters (split_blocks_letters.h: o200k's of one case, read as A-Z and a-z are;
 * DeepSeek's letters and marks), 64 bytes at a time: the bytes of a window are classified at
 * once into bit masks (lower, upper, digit, space, newline, other), and a chunk's end is then
 * found by counting bits, without a branch for every byte. The chunks are pretokenize.c's (the
 * pattern's matches); where the window cannot tell, the caller's function (pretok_fn) cuts it.
 *
 * The pattern on ASCII, chunk by chunk (first rule that applies):
 *   - a letter, or one space/other byte before a letter: that byte, the run of upper-case
 *     letters, then the run of lower-case ones ("HTMLParser" is one chunk, "camelCase" two);
 *   - a digit: up to `digits` digits;
 *   - an other byte, or a space (0x20 only) before one: the run of other bytes, then the run
 *     of newlines and slashes;
 *   - whitespace: its run up to the run's last newline if it holds one, else the run but its
 *     last byte (which goes with what follows) if it has two or more, else the one byte.
 * Most chunks are found faster still: the window's chunk starts are one mask (blocks_starts),
 * and a chunk ends at the next start (quick_chunk_end); whitespace only where the window
 * can tell its run's end.
 * Left to the caller's function: a chunk that reaches the window's end or a byte >= 0x80 it
 * does not read (which may be a letter, a mark or a space that continues it), a word followed
 * by an apostrophe (the contractions), whitespace at the end of the text, DeepSeek's white
 * space where a space precedes a line break in the window, and every other family.
 * Header only; included by _engine.c and _pretokenize_check.c.
 */
#ifndef TOKENPRISM_SPLIT_BLOCKS_H
#define TOKENPRISM_SPLIT_BLOCKS_H

#include <stdint.h>
#include <string.h>

#include "pretokenize.h"
#include "spans.h" /* in_range16, equal16 */
#include "split_blocks_letters.h"

typedef struct {
    unsigned char digits, contractions; /* digits 0: the family is not split here */
    unsigned char deepseek;             /* DeepSeek's rules (split_blocks_deepseek.h), not o200k's */
} BlockRules;

/* The rules of `family` when this file splits it, else NULL. */
static inline const BlockRules *block_rules(pretok_family family) {
    static const BlockRules o200k = {3, 1, 0}, tekken = {1, 0, 0}, deepseek = {3, 0, 1};
    if (family == PRETOK_DEEPSEEK) return pretok_deepseek_ascii_as_windows_read() ? &deepseek : NULL;
    return family == PRETOK_O200K ? &o200k : family == PRETOK_TEKKEN ? &tekken : NULL;
}

typedef struct {
    const unsigned char *s;
    size_t n, base;        /* the window starts at s[base] */
    size_t retry, gap;     /* no window is opened before s[retry]; gap: how far the next failure sets it */
    unsigned limit;        /* s[base .. base + limit) is ASCII and classified; 0: no window */
    const BlockRules *rules;
    uint64_t lower, upper, digit, space, newline, other, slash, apos; /* bit k: s[base + k] */
    uint64_t blank;                   /* a space (0x20) */
    uint64_t wide;                    /* DeepSeek's two-byte letters and marks (both bytes) */
    uint64_t letters, before_letters; /* a letter; a space or other byte before one */
    uint64_t word_ends;               /* a letter before it and none here, or a lower before an upper */
    uint64_t starts, quick;           /* where chunks start; which of them end at the next start, before the limit */
} SplitBlocks;

#define RETRY_AFTER 32 /* bytes; blocks_window */
#define RETRY_MOST 1024

static inline void blocks_init(SplitBlocks *b, const BlockRules *rules, const unsigned char *s, size_t n) {
    memset(b, 0, sizeof *b);
    b->s = s;
    b->n = n;
    b->rules = rules;
    b->retry = rules ? 0 : SIZE_MAX; /* no rules: every chunk goes to the family's function */
    b->gap = RETRY_AFTER;
}

/* The window's chunk starts, its first byte being one, from the masks at once (x << 1: "the
 * byte before is in x"): word ends; a space, or an other byte alone (not after another nor
 * after ' '), before a letter run joins it; the other letter runs' starts; every
 * `digits`-th digit of a run; other runs not after ' '; whitespace runs, but for the newlines
 * an other run takes along; in a whitespace run, the space after a newline and the last of
 * two or more spaces before a byte known not to be whitespace. `quick`: the starts whose
 * chunk ends at the next start. A whitespace chunk is quick only where the window has no
 * space before a newline (the newlines' chunk would take that space along) and its run does
 * not reach the window's limit (what follows may continue it); block_chunk_end does the rest. */
/* Where the digits' chunks start: each digit, or every third of a run (`digits` 1 or 3). */
static inline uint64_t digit_starts(uint64_t digit, unsigned digits) {
    uint64_t starts = digits == 1 ? digit : digit & ~(digit << 1);
    for (uint64_t more = 1; digits == 3 && more; starts |= more)
        more = starts << 3 & digit & digit << 1 & digit << 2 & ~starts;
    return starts;
}

/* The bytes before within's last byte not in ws: the white-space runs that end inside the window. */
static inline uint64_t ended_runs(uint64_t ws, uint64_t within) {
    uint64_t solid = ~ws & within;
    unsigned top = solid ? 64 - (unsigned)__builtin_clzll(solid) : 0;
    return top >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << top) - 1;
}

/* The bytes before the window's limit. */
static inline uint64_t window_bytes(const SplitBlocks *b) {
    return b->limit >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << b->limit) - 1;
}

static inline void blocks_starts(SplitBlocks *b, uint64_t blank, uint64_t high) {
    uint64_t letters = b->letters, other = b->other, newline = b->newline;
    uint64_t letter_runs = letters & ~(letters << 1), other_runs = other & ~(other << 1);
    uint64_t joins = (b->space | (other_runs & ~(blank << 1))) & letter_runs >> 1;
    uint64_t digits = digit_starts(b->digit, b->rules->digits);
    uint64_t taken = newline & other << 1;                     /* newlines right after an other run */
    taken = ((newline + taken) ^ newline) & newline;           /* and the rest of their run */
    uint64_t ws = (b->space | newline) & ~taken, space = b->space;
    uint64_t last_space = space & space << 1 & ~((space | newline) >> 1); /* wrong only in a run ended_runs leaves out */
    b->starts = b->word_ends | joins | (letter_runs & ~(joins << 1)) | digits | (other_runs & ~(blank << 1)) |
                (ws & ~(ws << 1)) | (space & newline << 1) | last_space;
    uint64_t before_high = high ? (high & -high) - 1 : ~(uint64_t)0;
    uint64_t ws_quick = space & newline >> 1 ? 0 : ws & ended_runs(space | newline, before_high);
    b->quick = b->starts & ~(ws & ~joins & ~ws_quick);
}

/* Classifies p[0..64) into b's masks; returns the mask of bytes >= 0x80. */
static inline uint64_t blocks_classify(SplitBlocks *b, const unsigned char *p) {
    uint64_t high = 0, ws = 0, blank = 0, control = 0;
    int deepseek = b->rules->deepseek;
    b->lower = b->upper = b->digit = b->newline = b->slash = b->apos = b->wide = 0;
#if defined(__SSE2__)
    for (int q = 0; q < 4; q++) {
        __m128i v;
        memcpy(&v, p + 16 * q, 16);
        int shift = 16 * q;
        high |= (uint64_t)(unsigned)_mm_movemask_epi8(v) << shift;
        b->lower |= (uint64_t)in_range16(v, 'a', 26) << shift;
        b->upper |= (uint64_t)in_range16(v, 'A', 26) << shift;
        b->digit |= (uint64_t)in_range16(v, '0', 10) << shift;
        ws |= (uint64_t)(in_range16(v, '\t', 5) | equal16(v, ' ')) << shift;
        blank |= (uint64_t)equal16(v, ' ') << shift;
        b->newline |= (uint64_t)(equal16(v, '\n') | equal16(v, '\r')) << shift;
        if (deepseek) { /* DeepSeek's rules never read slash and apos */
            control |= (uint64_t)(in_range16(v, 0, 32) | equal16(v, 0x7F)) << shift;
        } else {
            b->slash |= (uint64_t)equal16(v, '/') << shift;
            b->apos |= (uint64_t)equal16(v, '\'') << shift;
        }
    }
#else
    for (int k = 0; k < 64; k++) {
        unsigned c = p[k];
        uint64_t bit = (uint64_t)1 << k;
        high |= c >= 0x80 ? bit : 0;
        b->lower |= c - 'a' < 26u ? bit : 0;
        b->upper |= c - 'A' < 26u ? bit : 0;
        b->digit |= c - '0' < 10u ? bit : 0;
        ws |= c - '\t' < 5u || c == ' ' ? bit : 0;
        blank |= c == ' ' ? bit : 0;
        b->newline |= c == '\n' || c == '\r' ? bit : 0;
        b->slash |= c == '/' ? bit : 0;
        b->apos |= c == '\'' ? bit : 0;
        control |= c < 32u || c == 0x7F ? bit : 0;
    }
#endif
    if (high) high = deepseek ? two_byte_deepseek_letters(p, high, &b->wide)
                              : two_byte_letters(p, high, &b->upper, &b->lower);
    b->space = ws & ~b->newline; /* \t, \v, \f and ' ' */
    b->other = ~(high | b->lower | b->upper | b->digit | ws | b->wide);
    b->letters = b->lower | b->upper;
    b->blank = blank;
    if (deepseek) { /* the window ends at a control byte too; the other bytes are punctuation */
        control &= ~ws;
        b->other &= ~control;
        return high | control;
    }
    b->before_letters = (b->other | b->space) & b->letters >> 1;
    b->word_ends = (b->letters << 1 & ~b->letters) | (b->lower << 1 & b->upper);
    blocks_starts(b, blank, high);
    return high;
}

#include "split_blocks_deepseek.h"

/* Keeps in b->quick the chunks whose end is the next start: one before the limit, and not a
 * contraction's apostrophe nor a '/' that the newlines before it take along (those chunks go
 * to block_chunk_end, or to the caller's function). Per window, so not per chunk. */
static inline void blocks_quick(SplitBlocks *b) {
    uint64_t within = window_bytes(b), starts = b->starts & within, quick = b->quick & within;
    uint64_t slashes = b->rules->deepseek ? 0 : b->slash & b->newline << 1;
    uint64_t stops = starts & ((b->rules->contractions ? b->apos : 0) | slashes);
    if (starts) quick &= ~((uint64_t)1 << (63 - __builtin_clzll(starts))); /* it ends at the limit or past it */
    for (; stops; stops &= stops - 1) {
        uint64_t before = starts & ((stops & -stops) - 1); /* the chunk before the stop ends there */
        if (before) quick &= ~((uint64_t)1 << (63 - __builtin_clzll(before)));
    }
    b->quick = quick;
}

/* A window that could not open at s[i]: it is empty, and none is tried again for RETRY_AFTER
 * bytes, twice as many after each failure in a row up to RETRY_MOST (in text the windows
 * mostly cannot read, trying at every chunk cost more than the windows saved). */
static inline int blocks_fail(SplitBlocks *b, size_t i) {
    b->limit = 0;
    b->retry = i + b->gap;
    b->gap = b->gap < RETRY_MOST ? 2 * b->gap : RETRY_MOST;
    return 0;
}

/* Opens a window at s[i]; 0 when it cannot read its first 8 bytes (ASCII and
 * split_blocks_letters.h's two-byte letters; a byte of a wider character is refused before
 * the window is classified). */
static inline int blocks_window(SplitBlocks *b, size_t i) {
    const unsigned char *p = b->s + i;
    size_t avail = b->n - i;
    unsigned char padded[64];
    b->base = i;
    b->limit = 0;
    if (avail >= 64) {
        uint64_t head;
        memcpy(&head, p, 8);
        if (head & 0x8080808080808080ull && any_wide_lead(head)) return blocks_fail(b, i);
    } else {
        if (avail < 2) return 0;
        memcpy(padded, p, avail);
        memset(padded + avail, 0xFF, 64 - avail); /* no UTF-8 byte: the text's end is the window's */
        p = padded;
    }
    uint64_t high = blocks_classify(b, p);
    b->limit = high ? (unsigned)__builtin_ctzll(high) : 64;
    if (b->limit < 8 && avail >= 64 && !b->rules->deepseek) /* a letter or three, then a byte it cannot read */
        return blocks_fail(b, i);
    if (avail >= 64) b->gap = RETRY_AFTER;
    if (b->rules->deepseek) deepseek_starts(b);
    blocks_quick(b);
    return 1;
}

/* The first k' >= k whose bit is not in mask (64 when there is none). */
static inline unsigned run_end(uint64_t mask, unsigned k) {
    if (k >= 64) return 64;
    uint64_t x = ~mask >> k;
    return x ? k + (unsigned)__builtin_ctzll(x) : 64;
}

/* The end of the chunk at s[base + k], relative to base; 0 when the window cannot tell. */
static inline unsigned block_chunk_end(const SplitBlocks *b, unsigned k) {
    if (k + 1 >= b->limit) return 0;
    uint64_t bit = (uint64_t)1 << k, ends = b->word_ends & (~(uint64_t)1 << k);
    unsigned end;
    if ((b->letters | b->before_letters) & bit) {
        end = ends ? (unsigned)__builtin_ctzll(ends) : 64; /* k's own bit is a word end only if k follows one */
        if (end >= b->limit || (b->rules->contractions && b->s[b->base + end] == '\'')) return 0;
        return end;
    }
    if (b->digit & bit) {
        end = run_end(b->digit, k);
        if (end > k + b->rules->digits) end = k + b->rules->digits;
    } else if (b->other & bit || (b->s[b->base + k] == ' ' && b->other & bit << 1)) {
        end = run_end(b->newline | b->slash, run_end(b->other, b->other & bit ? k : k + 1));
    } else { /* whitespace */
        unsigned run = run_end(b->space | b->newline, k);
        if (run >= b->limit) return 0; /* it may go on, or end the text */
        uint64_t newlines = b->newline & (((uint64_t)1 << run) - 1) & ~(bit - 1);
        end = newlines ? 64 - (unsigned)__builtin_clzll(newlines) : run - k >= 2 ? run - 1 : run;
    }
    return end < b->limit ? end : 0;
}

/* The end of the chunk at s[base + k] (k < limit) when it is quick: the next start; else 0. */
static inline unsigned quick_chunk_end(const SplitBlocks *b, unsigned k) {
    return b->quick >> k & 1 ? (unsigned)__builtin_ctzll(b->starts & (~(uint64_t)1 << k)) : 0;
}

/* The end of the chunk at s[base + k] from the window (k < limit), relative to base: its quick
 * end, else block_chunk_end's; 0 when the window cannot tell. */
static inline unsigned window_chunk_end(const SplitBlocks *b, unsigned k) {
    unsigned end = quick_chunk_end(b, k);
    return end || b->rules->deepseek ? end : block_chunk_end(b, k);
}

/* Where the chunk at s[i] ends (i < n; the family has windows): from the window when it can
 * tell, else from a window opened at i, else split's. */
static __attribute__((noinline)) size_t blocks_next_rest(SplitBlocks *b, pretok_fn split, size_t i) {
    size_t k = i - b->base;
    unsigned end = k < b->limit ? window_chunk_end(b, (unsigned)k) : 0;
    if (end) return b->base + end;
    if (k < b->limit && b->rules->deepseek && (b->limit < 64 || b->starts & (~(uint64_t)1 << k)))
        return split(b->s, i, b->n); /* unless it runs to the window's end, a window opened here would not tell */
    if ((k || !b->limit) && blocks_window(b, i) && (end = window_chunk_end(b, 0))) return i + end;
    return split(b->s, i, b->n);
}

/* blocks_next_rest's answer; a quick chunk inside the window is found here, in the caller's
 * loop (the rest is out of line: inlined whole, it slowed the text that is not ASCII). A
 * family without windows goes straight to its function (its retry is past every byte). */
static inline size_t blocks_next(SplitBlocks *b, pretok_fn split, size_t i) {
    size_t k = i - b->base;
    if (k < b->limit) {
        unsigned end = quick_chunk_end(b, (unsigned)k);
        if (end) return b->base + end;
    } else if (i < b->retry || b->s[i] >= 0x80) { /* no window could open here */
        return split(b->s, i, b->n);
    }
    return blocks_next_rest(b, split, i);
}

#endif
