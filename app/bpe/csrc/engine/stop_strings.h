/* Stop strings: byte strings whose presence in a text means the engine must not encode it.
 * A Hugging Face file's added tokens are matched in the text before its model runs, so a
 * text holding one is left to the library (app/backends/huggingface/engine.py); finding that
 * here costs a pass over the UTF-8 bytes instead of a Python regex over the str.
 *
 * The strings sit in a token_lookup.h Lookup (by their bytes); a bit per pair of leading
 * bytes (8 KB) lets the scan skip almost every position with one load, and only where a
 * stop string could start are its lengths looked up. When the strings start with at most
 * four distinct bytes (deepseek_v4's 1,283 added tokens: `<` and one other), 16 bytes at a
 * time are compared with those first (SSE2) and only their positions are looked at.
 * Included by _engine.c only.
 *
 * Left out: where the string is, and which (the caller only needs to know whether).
 */
#ifndef TOKENPRISM_STOP_STRINGS_H
#define TOKENPRISM_STOP_STRINGS_H

#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "token_lookup.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

typedef struct {
    Lookup strings;
    uint64_t heads[1024]; /* bit (a << 8 | b): a stop string starts with bytes a, b */
    uint64_t singles[4];  /* bit a: the one-byte stop string a */
    uint32_t *lengths;    /* the distinct lengths of 2 bytes or more, ascending */
    size_t n_lengths;
    unsigned char firsts[4]; /* the bytes the strings start with, when there are at most four */
    int n_firsts;            /* their number; 5: more */
} StopStrings;

static void stops_free(StopStrings *s) {
    lookup_free(&s->strings);
    free(s->lengths);
    memset(s, 0, sizeof *s);
}

/* Fills s from `strings`, a list of distinct non-empty bytes; -1 with a Python error set. */
static int stops_init(StopStrings *s, PyObject *strings) {
    memset(s, 0, sizeof *s);
    if (!PyList_Check(strings)) {
        PyErr_SetString(PyExc_TypeError, "stops must be a list of bytes");
        return -1;
    }
    if (lookup_init(&s->strings, strings) < 0) return -1;
    Py_ssize_t n = PyList_GET_SIZE(strings);
    if (!(s->lengths = malloc(sizeof *s->lengths * (size_t)(n ? n : 1)))) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t r = 0; r < n; r++) {
        const unsigned char *p = s->strings.flat + s->strings.starts[r];
        uint32_t len = s->strings.starts[r + 1] - s->strings.starts[r];
        int k_first = 0;
        while (k_first < s->n_firsts && k_first < 4 && s->firsts[k_first] != p[0]) k_first++;
        if (k_first == s->n_firsts && s->n_firsts < 5) {
            if (k_first < 4) s->firsts[k_first] = p[0];
            s->n_firsts++;
        }
        if (len == 1) {
            s->singles[p[0] >> 6] |= (uint64_t)1 << (p[0] & 63);
            continue;
        }
        unsigned head = (unsigned)p[0] << 8 | p[1];
        s->heads[head >> 6] |= (uint64_t)1 << (head & 63);
        size_t k = 0;
        while (k < s->n_lengths && s->lengths[k] < len) k++;
        if (k < s->n_lengths && s->lengths[k] == len) continue;
        memmove(s->lengths + k + 1, s->lengths + k, sizeof *s->lengths * (s->n_lengths - k));
        s->lengths[k] = len;
        s->n_lengths++;
    }
    return 0;
}

/* Whether one of the stop strings starts at t[i] (i < n). */
static inline int stop_at(const StopStrings *s, const unsigned char *t, size_t i, size_t n) {
    if (s->singles[t[i] >> 6] >> (t[i] & 63) & 1) return 1;
    if (i + 1 == n) return 0;
    unsigned head = (unsigned)t[i] << 8 | t[i + 1];
    if (!(s->heads[head >> 6] >> (head & 63) & 1)) return 0;
    for (size_t k = 0; k < s->n_lengths && s->lengths[k] <= n - i; k++)
        if (lookup_rank(&s->strings, t + i, s->lengths[k]) >= 0) return 1;
    return 0;
}

/* Whether t[0..n) holds one of the stop strings. */
static int stops_found(const StopStrings *s, const unsigned char *t, size_t n) {
    size_t i = 0;
    if (!s->n_firsts) return 0; /* no stop strings: none given, or an empty list */
#if defined(__SSE2__)
    if (s->n_firsts >= 1 && s->n_firsts <= 4) {
        __m128i first[4];
        for (int k = 0; k < 4; k++) first[k] = _mm_set1_epi8((char)s->firsts[k < s->n_firsts ? k : 0]);
        for (; i + 16 <= n; i += 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(t + i));
            __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, first[0]), _mm_cmpeq_epi8(v, first[1])),
                                       _mm_or_si128(_mm_cmpeq_epi8(v, first[2]), _mm_cmpeq_epi8(v, first[3])));
            for (unsigned m = (unsigned)_mm_movemask_epi8(hit); m; m &= m - 1)
                if (stop_at(s, t, i + (size_t)__builtin_ctz(m), n)) return 1;
        }
    }
#endif
    for (; i < n; i++)
        if (stop_at(s, t, i, n)) return 1;
    return 0;
}

#endif
