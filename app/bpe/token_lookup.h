/* The engine's whole-token lookup: a token's bytes -> its rank, in an open-addressing hash
 * table (linear probing, at most half full) whose slots hold a 32-bit tag of the hash and
 * the rank; the bytes themselves are in one flat array. Most chunks of real text are one
 * token, so this answers most of an encode. Included by _engine.c only.
 *
 * Left out: anything but exact lookups (no prefixes).
 */
#ifndef TOKENPRISM_TOKEN_LOOKUP_H
#define TOKENPRISM_TOKEN_LOOKUP_H

#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline uint64_t load_tail(const unsigned char *p, size_t len) { /* len < 8 */
    uint64_t w = 0;
    memcpy(&w, p, len);
    return w;
}

static inline uint64_t bytes_hash(const unsigned char *p, size_t len) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ len, w;
    for (; len >= 8; p += 8, len -= 8) {
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
        h ^= h >> 31;
    }
    if (len) h = (h ^ load_tail(p, len)) * 0x94D049BB133111EBull;
    return h ^ (h >> 29);
}

typedef struct {
    unsigned char *flat; /* all tokens' bytes; rank r is flat[starts[r] .. starts[r + 1]) */
    uint32_t *starts;
    uint64_t *slots; /* hash tag << 32 | (rank + 1); 0 when empty */
    int bits;
    size_t longest;
} Lookup;

/* The rank of the token p[0..len) whose bytes_hash is h, or -1. */
static inline int32_t lookup_rank_hashed(const Lookup *l, const unsigned char *p, size_t len, uint64_t h) {
    if (len > l->longest) return -1;
    uint64_t mask = ((uint64_t)1 << l->bits) - 1;
    uint32_t tag = (uint32_t)h;
    for (uint64_t i = h >> (64 - l->bits);; i = (i + 1) & mask) {
        uint64_t slot = l->slots[i];
        if (!slot) return -1;
        if ((uint32_t)(slot >> 32) != tag) continue;
        uint32_t rank = (uint32_t)slot - 1;
        if (l->starts[rank + 1] - l->starts[rank] == len && !memcmp(l->flat + l->starts[rank], p, len))
            return (int32_t)rank;
    }
}

static inline int32_t lookup_rank(const Lookup *l, const unsigned char *p, size_t len) {
    return lookup_rank_hashed(l, p, len, bytes_hash(p, len));
}

static void lookup_free(Lookup *l) {
    free(l->flat);
    free(l->starts);
    free(l->slots);
}

/* Fills the lookup from tokens (a list of bytes, rank order); -1 with a Python error set. */
static int lookup_init(Lookup *l, PyObject *tokens) {
    Py_ssize_t n = PyList_GET_SIZE(tokens), total = 0;
    for (Py_ssize_t r = 0; r < n; r++) {
        PyObject *token = PyList_GET_ITEM(tokens, r);
        if (!PyBytes_Check(token) || PyBytes_GET_SIZE(token) == 0) {
            PyErr_Format(PyExc_TypeError, "token %zd is not non-empty bytes", r);
            return -1;
        }
        total += PyBytes_GET_SIZE(token);
    }
    if (n >= INT32_MAX / 4 || total >= UINT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "too many or too long tokens");
        return -1;
    }
    l->bits = 10;
    while (((Py_ssize_t)1 << l->bits) < 2 * n) l->bits++;
    l->flat = malloc((size_t)total + 1);
    l->starts = malloc(sizeof *l->starts * (size_t)(n + 1));
    l->slots = calloc((size_t)1 << l->bits, sizeof *l->slots);
    if (!l->flat || !l->starts || !l->slots) {
        PyErr_NoMemory();
        return -1;
    }
    uint64_t mask = ((uint64_t)1 << l->bits) - 1;
    l->starts[0] = 0;
    for (Py_ssize_t r = 0; r < n; r++) {
        PyObject *token = PyList_GET_ITEM(tokens, r);
        size_t len = (size_t)PyBytes_GET_SIZE(token);
        const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(token);
        if (lookup_rank(l, p, len) >= 0) {
            PyErr_Format(PyExc_ValueError, "token %zd repeats an earlier token", r);
            return -1;
        }
        memcpy(l->flat + l->starts[r], p, len);
        l->starts[r + 1] = l->starts[r] + (uint32_t)len;
        if (len > l->longest) l->longest = len;
        uint64_t h = bytes_hash(p, len), i = h >> (64 - l->bits);
        while (l->slots[i]) i = (i + 1) & mask;
        l->slots[i] = (uint64_t)(uint32_t)h << 32 | (uint64_t)(r + 1);
    }
    return 0;
}

#endif
