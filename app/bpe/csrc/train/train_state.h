/* The training merge loop's state: weighted pair counts in a hash table, for each pair the
 * chunks it was added to (entries go stale when a pair leaves a chunk; checked when used), a
 * max-heap of (count, pair) whose entries are skipped when the count moved on, and the
 * chunks themselves as id arrays rewritten in place by merge_chunk. Pure C, called without
 * the GIL except load_chunks (which reads the Python lists). Included by _core.c only.
 *
 * Left out: the loop itself and its tie rule (merge_loop and pop_best's caller in _core.c).
 */
#ifndef TOKENPRISM_TRAIN_STATE_H
#define TOKENPRISM_TRAIN_STATE_H

#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int32_t *v;
    int32_t n, cap;
} IntVec;

typedef struct {
    int64_t count;
    int32_t a, b;
    int32_t touched;  /* last merge step that changed the count */
    int32_t tied;     /* last tie round that collected it */
    IntVec chunks;    /* chunk numbers it was added to, maybe stale */
} Pair;

typedef struct {
    int64_t count;
    int32_t pair;
} HeapEntry;

typedef struct {
    Pair *pairs;
    int32_t n_pairs, cap_pairs;
    int32_t *slots; /* hash slot -> pair index, -1 when empty */
    int bits;
    HeapEntry *heap;
    int64_t heap_n, heap_cap;
    int32_t *words;  /* all chunks' ids, chunk c at words[starts[c]] with lens[c] ids */
    int64_t *starts;
    int32_t *lens;
    int64_t *weights;
    IntVec touched;
    int32_t step;
} State;

static int vec_push(IntVec *vec, int32_t x) {
    if (vec->n == vec->cap) {
        int32_t cap = vec->cap ? vec->cap * 2 : 4;
        int32_t *v = realloc(vec->v, (size_t)cap * sizeof *v);
        if (!v) return -1;
        vec->v = v;
        vec->cap = cap;
    }
    vec->v[vec->n++] = x;
    return 0;
}

static inline uint64_t slot_of(const State *s, int32_t a, int32_t b) {
    uint64_t key = ((uint64_t)(uint32_t)a << 32) | (uint32_t)b;
    return (key * 0x9E3779B97F4A7C15ull) >> (64 - s->bits);
}

static int grow_slots(State *s) {
    int bits = s->bits + 1;
    int32_t *slots = malloc(sizeof(int32_t) << bits);
    if (!slots) return -1;
    memset(slots, 0xff, sizeof(int32_t) << bits);
    free(s->slots);
    s->slots = slots;
    s->bits = bits;
    uint64_t mask = ((uint64_t)1 << bits) - 1;
    for (int32_t p = 0; p < s->n_pairs; p++) {
        uint64_t h = slot_of(s, s->pairs[p].a, s->pairs[p].b);
        while (slots[h] >= 0) h = (h + 1) & mask;
        slots[h] = p;
    }
    return 0;
}

/* The index of pair (a, b), added with count 0 if new; -1 when out of memory. */
static int32_t find_pair(State *s, int32_t a, int32_t b) {
    uint64_t mask = ((uint64_t)1 << s->bits) - 1;
    uint64_t h = slot_of(s, a, b);
    while (s->slots[h] >= 0) {
        Pair *p = &s->pairs[s->slots[h]];
        if (p->a == a && p->b == b) return s->slots[h];
        h = (h + 1) & mask;
    }
    if (s->n_pairs == s->cap_pairs) {
        int32_t cap = s->cap_pairs ? s->cap_pairs * 2 : 1024;
        Pair *pairs = realloc(s->pairs, (size_t)cap * sizeof *pairs);
        if (!pairs) return -1;
        s->pairs = pairs;
        s->cap_pairs = cap;
    }
    int32_t index = s->n_pairs++;
    Pair *p = &s->pairs[index];
    memset(p, 0, sizeof *p);
    p->a = a;
    p->b = b;
    p->touched = p->tied = -1;
    s->slots[h] = index;
    if ((uint64_t)s->n_pairs * 2 > ((uint64_t)1 << s->bits) && grow_slots(s) < 0) return -1;
    return index;
}

static inline int heap_before(const HeapEntry *x, const HeapEntry *y) {
    return x->count > y->count || (x->count == y->count && x->pair < y->pair);
}

static int heap_push(State *s, int64_t count, int32_t pair) {
    if (s->heap_n == s->heap_cap) {
        int64_t cap = s->heap_cap ? s->heap_cap * 2 : 1024;
        HeapEntry *heap = realloc(s->heap, (size_t)cap * sizeof *heap);
        if (!heap) return -1;
        s->heap = heap;
        s->heap_cap = cap;
    }
    HeapEntry e = {count, pair};
    int64_t i = s->heap_n++;
    while (i > 0) {
        int64_t parent = (i - 1) / 2;
        if (!heap_before(&e, &s->heap[parent])) break;
        s->heap[i] = s->heap[parent];
        i = parent;
    }
    s->heap[i] = e;
    return 0;
}

static HeapEntry heap_pop(State *s) {
    HeapEntry top = s->heap[0];
    HeapEntry last = s->heap[--s->heap_n];
    int64_t i = 0, n = s->heap_n;
    for (;;) {
        int64_t child = 2 * i + 1;
        if (child >= n) break;
        if (child + 1 < n && heap_before(&s->heap[child + 1], &s->heap[child])) child++;
        if (!heap_before(&s->heap[child], &last)) break;
        s->heap[i] = s->heap[child];
        i = child;
    }
    if (n > 0) s->heap[i] = last;
    return top;
}

/* Add `delta` to the count of (a, b); a pair gaining occurrences in `chunk` lists it. */
static int bump(State *s, int32_t a, int32_t b, int64_t delta, int32_t chunk) {
    int32_t index = find_pair(s, a, b);
    if (index < 0) return -1;
    Pair *p = &s->pairs[index];
    p->count += delta;
    if (p->touched != s->step) {
        p->touched = s->step;
        if (vec_push(&s->touched, index) < 0) return -1;
    }
    if (delta > 0 && (p->chunks.n == 0 || p->chunks.v[p->chunks.n - 1] != chunk))
        return vec_push(&p->chunks, chunk);
    return 0;
}

/* Position of the first (a, b) in chunk c, or -1. */
static int32_t find_in_chunk(const State *s, int32_t c, int32_t a, int32_t b) {
    const int32_t *w = s->words + s->starts[c];
    for (int32_t i = 0; i + 1 < s->lens[c]; i++)
        if (w[i] == a && w[i + 1] == b) return i;
    return -1;
}

/* Merge every (a, b) in chunk c into z, left to right, adjusting neighbouring pairs. */
static int merge_chunk(State *s, int32_t c, int32_t a, int32_t b, int32_t z) {
    int32_t *w = s->words + s->starts[c];
    int32_t n = s->lens[c], i = 0, j = 0, old_left = -1;
    int64_t weight = s->weights[c];
    while (i < n) {
        if (i + 1 < n && w[i] == a && w[i + 1] == b) {
            if (bump(s, a, b, -weight, c) < 0) return -1;
            if (j > 0 && (bump(s, old_left, a, -weight, c) < 0 || bump(s, w[j - 1], z, weight, c) < 0)) return -1;
            int next_is_site = i + 3 < n && w[i + 2] == a && w[i + 3] == b;
            if (i + 2 < n && !next_is_site &&
                (bump(s, b, w[i + 2], -weight, c) < 0 || bump(s, z, w[i + 2], weight, c) < 0))
                return -1;
            w[j++] = z;
            old_left = b;
            i += 2;
        } else {
            old_left = w[i];
            w[j++] = w[i++];
        }
    }
    s->lens[c] = j;
    return 0;
}

/* (chunk, position) of the first occurrence of pair p; chunk is INT32_MAX if none. */
static void first_occurrence(const State *s, int32_t p, int32_t *chunk, int32_t *pos) {
    const Pair *pair = &s->pairs[p];
    *chunk = INT32_MAX;
    *pos = INT32_MAX;
    for (int32_t k = 0; k < pair->chunks.n; k++) {
        int32_t c = pair->chunks.v[k];
        if (c >= *chunk) continue;
        int32_t at = find_in_chunk(s, c, pair->a, pair->b);
        if (at >= 0) {
            *chunk = c;
            *pos = at;
        }
    }
}

/* The pair to merge next, or -1 when no pair is left (or -2 when out of memory). */
static int32_t pop_best(State *s, IntVec *tied, int32_t round) {
    while (s->heap_n > 0 && s->pairs[s->heap[0].pair].count != s->heap[0].count) heap_pop(s);
    if (s->heap_n == 0 || s->heap[0].count <= 0) return -1;
    int64_t top = s->heap[0].count;
    tied->n = 0;
    while (s->heap_n > 0 && s->heap[0].count == top) {
        HeapEntry e = heap_pop(s);
        Pair *p = &s->pairs[e.pair];
        if (p->count == top && p->tied != round) {
            p->tied = round;
            if (vec_push(tied, e.pair) < 0) return -2;
        }
    }
    int32_t best = tied->v[0];
    if (tied->n > 1) {
        int32_t best_chunk, best_pos, chunk, pos;
        first_occurrence(s, best, &best_chunk, &best_pos);
        for (int32_t k = 1; k < tied->n; k++) {
            first_occurrence(s, tied->v[k], &chunk, &pos);
            if (chunk < best_chunk || (chunk == best_chunk && pos < best_pos)) {
                best = tied->v[k];
                best_chunk = chunk;
                best_pos = pos;
            }
        }
    }
    for (int32_t k = 0; k < tied->n; k++)
        if (tied->v[k] != best && heap_push(s, top, tied->v[k]) < 0) return -2;
    return best;
}

static void free_state(State *s) {
    for (int32_t p = 0; p < s->n_pairs; p++) free(s->pairs[p].chunks.v);
    free(s->pairs);
    free(s->slots);
    free(s->heap);
    free(s->words);
    free(s->starts);
    free(s->lens);
    free(s->weights);
    free(s->touched.v);
}

static int load_chunks(State *s, PyObject *chunks, PyObject *weights) {
    Py_ssize_t n = PyList_GET_SIZE(chunks), total = 0;
    for (Py_ssize_t c = 0; c < n; c++) {
        PyObject *chunk = PyList_GET_ITEM(chunks, c);
        if (!PyBytes_Check(chunk)) {
            PyErr_Format(PyExc_TypeError, "chunk %zd is not bytes", c);
            return -1;
        }
        total += PyBytes_GET_SIZE(chunk);
    }
    s->words = malloc(sizeof(int32_t) * (size_t)(total + 1));
    s->starts = malloc(sizeof(int64_t) * (size_t)(n + 1));
    s->lens = malloc(sizeof(int32_t) * (size_t)(n + 1));
    s->weights = malloc(sizeof(int64_t) * (size_t)(n + 1));
    if (!s->words || !s->starts || !s->lens || !s->weights) {
        PyErr_NoMemory();
        return -1;
    }
    int64_t offset = 0;
    for (Py_ssize_t c = 0; c < n; c++) {
        PyObject *chunk = PyList_GET_ITEM(chunks, c);
        const unsigned char *data = (const unsigned char *)PyBytes_AS_STRING(chunk);
        Py_ssize_t len = PyBytes_GET_SIZE(chunk);
        if (len > INT32_MAX) {
            PyErr_SetString(PyExc_ValueError, "a chunk is longer than 2**31 bytes");
            return -1;
        }
        s->starts[c] = offset;
        s->lens[c] = (int32_t)len;
        for (Py_ssize_t i = 0; i < len; i++) s->words[offset + i] = data[i];
        offset += len;
        s->weights[c] = PyLong_AsLongLong(PyList_GET_ITEM(weights, c));
        if (s->weights[c] == -1 && PyErr_Occurred()) return -1;
        if (s->weights[c] <= 0) {
            PyErr_Format(PyExc_ValueError, "weight %zd is not positive", c);
            return -1;
        }
    }
    return 0;
}

#endif
