/* Stop strings: byte strings whose presence in a text means the engine must not encode it.
 * A Hugging Face file's added tokens are matched in the text before its model runs, so a
 * text holding one is left to the library (app/backends/huggingface_engine.py); finding that
 * here costs a pass over the UTF-8 bytes instead of a Python regex over the str.
 *
 * The strings sit in a token_lookup.h Lookup (by their bytes); a bit per pair of leading
 * bytes (8 KB) lets the scan skip almost every position with one load, and only where a
 * stop string could start are its lengths looked up. Included by _engine.c only.
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

typedef struct {
    Lookup strings;
    uint64_t heads[1024]; /* bit (a << 8 | b): a stop string starts with bytes a, b */
    uint64_t singles[4];  /* bit a: the one-byte stop string a */
    uint32_t *lengths;    /* the distinct lengths of 2 bytes or more, ascending */
    size_t n_lengths;
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

/* Whether t[0..n) holds one of the stop strings. */
static int stops_found(const StopStrings *s, const unsigned char *t, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (s->singles[t[i] >> 6] >> (t[i] & 63) & 1) return 1;
        if (i + 1 == n) break;
        unsigned head = (unsigned)t[i] << 8 | t[i + 1];
        if (!(s->heads[head >> 6] >> (head & 63) & 1)) continue;
        for (size_t k = 0; k < s->n_lengths && s->lengths[k] <= n - i; k++)
            if (lookup_rank(&s->strings, t + i, s->lengths[k]) >= 0) return 1;
    }
    return 0;
}

#endif
