/* tokenprism's BPE in C: the training merge loop and the encoder's merge.
 * Built as app.bpe._core by setup.py (`pip install -e .`).
 *
 * Training -- merge_loop(chunks: list[bytes], weights: list[int], num_merges: int, progress)
 *     -> list[tuple[int, int, int]]   (left, right, count)
 *
 * `chunks` are the distinct pre-token chunks (UTF-8) in order of first appearance and
 * `weights` how often each occurs. Returns the pairs the lecture's naive algorithm merges
 * (merge i makes id 256 + i): the most frequent pair, ties to the pair whose first
 * occurrence (lowest chunk number, then leftmost position) comes first, each with its
 * count when it was chosen (the weighted occurrences the naive `get_stats` gives it). See
 * train.py for the definition; tests/bpe/test_bpe_vs_naive.py checks it.
 *
 * How: pair counts (weighted) in a hash table; for each pair a list of the chunks it was
 * added to (entries go stale when a pair leaves a chunk; they are checked when used);
 * a max-heap of (count, pair) whose entries are skipped when the count moved on. A
 * merge rewrites only the chunks listed for the merged pair, in place, and adjusts the
 * counts of the pairs around each merge site. The GIL is released except to call
 * `progress(merges_done, num_merges, left, right, count)` after each merge.
 *
 * Encoding -- Merger(byte_ids: bytes, pairs: list[tuple[int, int]]), an immutable merge
 * table (pair i makes id 256 + i; byte_ids[b] is the id of byte b), with
 *     .merge(data: bytes) -> list[int]          the ids of one chunk
 *     .encode_chunks(chunks: list[str], cache: dict[str, bytes], limit: int) -> list[int]
 * and recover_merges(byte_ids, tokens) -> the pairs behind tiktoken ranks, below the
 * training code; the merge table and loops themselves are in merge.h.
 *
 * Left out: pre-tokenization (the caller splits text) and special tokens.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h" /* the merge table and loops (shared with _engine.c) */

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

static PyObject *merge_loop(PyObject *self, PyObject *args) {
    PyObject *chunks, *weights, *progress;
    Py_ssize_t num_merges;
    if (!PyArg_ParseTuple(args, "O!O!nO", &PyList_Type, &chunks, &PyList_Type, &weights, &num_merges, &progress))
        return NULL;
    if (PyList_GET_SIZE(chunks) != PyList_GET_SIZE(weights)) {
        PyErr_SetString(PyExc_ValueError, "chunks and weights differ in length");
        return NULL;
    }
    if (PyList_GET_SIZE(chunks) >= INT32_MAX || num_merges >= INT32_MAX - 256) {
        PyErr_SetString(PyExc_ValueError, "too many chunks or merges");
        return NULL;
    }
    State s;
    memset(&s, 0, sizeof s);
    IntVec tied = {0}, listed = {0};
    PyObject *result = NULL;
    int failed = 0; /* 1: out of memory; 2: a Python error is set */
    s.bits = 9;
    s.slots = malloc(sizeof(int32_t) << s.bits);
    if (!s.slots) {
        PyErr_NoMemory();
        goto done;
    }
    memset(s.slots, 0xff, sizeof(int32_t) << s.bits);
    if (load_chunks(&s, chunks, weights) < 0) goto done;
    result = PyList_New(0);
    if (!result) goto done;

    int32_t n_chunks = (int32_t)PyList_GET_SIZE(chunks);
    int32_t *pairs_made = malloc(sizeof(int32_t) * 2 * (size_t)(num_merges > 0 ? num_merges : 1));
    int64_t *counts_made = malloc(sizeof(int64_t) * (size_t)(num_merges > 0 ? num_merges : 1));
    if (!pairs_made || !counts_made) {
        free(pairs_made);
        free(counts_made);
        PyErr_NoMemory();
        Py_CLEAR(result);
        goto done;
    }
    int32_t merges_done = 0;

    Py_BEGIN_ALLOW_THREADS
    s.step = -1;
    for (int32_t c = 0; c < n_chunks && !failed; c++) {
        const int32_t *w = s.words + s.starts[c];
        for (int32_t i = 0; i + 1 < s.lens[c]; i++)
            if (bump(&s, w[i], w[i + 1], s.weights[c], c) < 0) {
                failed = 1;
                break;
            }
    }
    for (int32_t p = 0; p < s.n_pairs && !failed; p++)
        if (heap_push(&s, s.pairs[p].count, p) < 0) failed = 1;
    s.touched.n = 0;

    for (int32_t step = 0; step < num_merges && !failed; step++) {
        int32_t best = pop_best(&s, &tied, step);
        if (best == -2) failed = 1;
        if (best < 0) break;
        s.step = step;
        s.touched.n = 0;
        int32_t a = s.pairs[best].a, b = s.pairs[best].b, z = 256 + step;
        pairs_made[2 * step] = a;
        pairs_made[2 * step + 1] = b;
        counts_made[step] = s.pairs[best].count;
        listed = s.pairs[best].chunks; /* taken out: merging may move the pairs array */
        memset(&s.pairs[best].chunks, 0, sizeof(IntVec));
        for (int32_t k = 0; k < listed.n && !failed; k++)
            if (merge_chunk(&s, listed.v[k], a, b, z) < 0) failed = 1;
        free(listed.v);
        listed.v = NULL;
        for (int32_t k = 0; k < s.touched.n && !failed; k++) {
            Pair *p = &s.pairs[s.touched.v[k]];
            if (p->count > 0 && heap_push(&s, p->count, s.touched.v[k]) < 0) failed = 1;
        }
        merges_done = step + 1;
        if (progress != Py_None && !failed) {
            Py_BLOCK_THREADS
            PyObject *r = PyObject_CallFunction(progress, "iniiL", (int)merges_done, num_merges, (int)a, (int)b,
                                                 (long long)counts_made[step]);
            if (r == NULL) failed = 2;
            Py_XDECREF(r);
            Py_UNBLOCK_THREADS
        }
    }
    Py_END_ALLOW_THREADS

    if (failed == 1) PyErr_NoMemory();
    for (int32_t k = 0; k < merges_done && !failed; k++) {
        PyObject *merge = Py_BuildValue("(iiL)", pairs_made[2 * k], pairs_made[2 * k + 1], (long long)counts_made[k]);
        if (!merge || PyList_Append(result, merge) < 0) failed = 2;
        Py_XDECREF(merge);
    }
    free(pairs_made);
    free(counts_made);
    if (failed) Py_CLEAR(result);
done:
    free(tied.v);
    free_state(&s);
    return result;
}

/* Translate `len` bytes into ids (through byte_ids) and merge them, releasing the GIL
 * for long ones (the table is immutable, `ids` is the caller's). Called with the GIL;
 * returns the new length, or -1 with a Python error set. */
static Py_ssize_t merge_bytes(const Table *t, const unsigned char *data, Py_ssize_t len, int32_t *ids) {
    if (len >= INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "a chunk is longer than 2**31 bytes");
        return -1;
    }
    for (Py_ssize_t i = 0; i < len; i++) ids[i] = t->byte_ids[data[i]];
    Py_ssize_t n;
    if (len < NOGIL_MIN) {
        n = merge_ids(t, ids, len);
    } else {
        Py_BEGIN_ALLOW_THREADS
        n = merge_ids(t, ids, len);
        Py_END_ALLOW_THREADS
    }
    if (n < 0) PyErr_NoMemory();
    return n;
}

/* A growable int32 buffer for one chunk's ids. */
typedef struct {
    int32_t *v;
    Py_ssize_t cap;
} Scratch;

/* Room for `len` ids (never NULL for len 0), or NULL with MemoryError set. */
static int32_t *scratch_for(Scratch *s, Py_ssize_t len) {
    if (len > s->cap || !s->v) {
        Py_ssize_t cap = len > 2 * s->cap ? len : 2 * s->cap;
        int32_t *v = realloc(s->v, sizeof *v * (size_t)(cap ? cap : 1));
        if (!v) {
            PyErr_NoMemory();
            return NULL;
        }
        s->v = v;
        s->cap = cap;
    }
    return s->v;
}

/* ---- the Merger type ---- */

typedef struct {
    PyObject_HEAD
    Table table;          /* never changed after Merger() returns */
    PyObject **id_ints;   /* id -> its Python int, shared by every result */
    Py_ssize_t n_ids;     /* 256 + the number of merges */
} Merger;

static void Merger_dealloc(Merger *self) {
    free(self->table.slots);
    for (Py_ssize_t i = 0; self->id_ints && i < self->n_ids; i++) Py_XDECREF(self->id_ints[i]);
    PyMem_Free(self->id_ints);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Merger_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"byte_ids", "pairs", NULL};
    Py_buffer byte_ids;
    PyObject *pairs;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "y*O!:Merger", keywords, &byte_ids, &PyList_Type, &pairs))
        return NULL;
    Merger *self = (Merger *)type->tp_alloc(type, 0);
    if (!self) goto fail;
    if (table_init(&self->table, &byte_ids) < 0) goto fail;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(pairs); i++) {
        PyObject *pair = PyList_GET_ITEM(pairs, i);
        int left, right, parsed;
        Py_INCREF(pair); /* parsing may run Python code (__index__) that changes the list */
        parsed = PyTuple_Check(pair) && PyArg_ParseTuple(pair, "ii", &left, &right);
        Py_DECREF(pair);
        if (!parsed) {
            PyErr_Format(PyExc_TypeError, "pair %zd is not a tuple of two ints", i);
            goto fail;
        }
        int64_t new_id = 256 + (int64_t)i;
        if (new_id >= INT32_MAX || left < 0 || right < 0 || left >= new_id || right >= new_id) {
            PyErr_Format(PyExc_ValueError, "pair %zd (%d, %d) does not build on earlier ids", i, left, right);
            goto fail;
        }
        int added = table_add(&self->table, left, right);
        if (added < 0) {
            PyErr_NoMemory();
            goto fail;
        }
        if (added == 1) {
            PyErr_Format(PyExc_ValueError, "pair %zd (%d, %d) is merged twice", i, left, right);
            goto fail;
        }
    }
    self->n_ids = 256 + (Py_ssize_t)self->table.n_merges;
    self->id_ints = PyMem_Calloc((size_t)self->n_ids, sizeof(PyObject *));
    if (!self->id_ints) {
        PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t i = 0; i < self->n_ids; i++)
        if (!(self->id_ints[i] = PyLong_FromSsize_t(i))) goto fail;
    PyBuffer_Release(&byte_ids);
    return (PyObject *)self;
fail:
    PyBuffer_Release(&byte_ids);
    Py_XDECREF(self); /* its dealloc frees the table */
    return NULL;
}

static PyObject *Merger_merge(Merger *self, PyObject *arg) {
    Py_buffer data;
    if (PyObject_GetBuffer(arg, &data, PyBUF_SIMPLE) < 0) return NULL;
    PyObject *result = NULL;
    int32_t *ids = malloc(sizeof *ids * (size_t)(data.len ? data.len : 1));
    if (!ids) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t n = merge_bytes(&self->table, data.buf, data.len, ids);
    if (n < 0) goto done;
    result = PyList_New(n);
    for (Py_ssize_t i = 0; result && i < n; i++) {
        Py_INCREF(self->id_ints[ids[i]]);
        PyList_SET_ITEM(result, i, self->id_ints[ids[i]]);
    }
done:
    free(ids);
    PyBuffer_Release(&data);
    return result;
}

/* The ids of one chunk (a str, UTF-8 encoded with surrogatepass) as its cache value: a
 * bytes object of native int32s. Not a tuple of ints: a bytes object is not tracked by
 * the cyclic GC, and allocating tracked objects sets off a collection every 700 of them,
 * which walks the caller's list of a million chunks (a third of a cold pass's time). */
static PyObject *chunk_ids(const Table *t, PyObject *chunk, Scratch *scratch) {
    if (!PyUnicode_Check(chunk)) {
        PyErr_Format(PyExc_TypeError, "chunks must be str, not %.100s", Py_TYPE(chunk)->tp_name);
        return NULL;
    }
    PyObject *encoded = NULL;
    const unsigned char *data;
    Py_ssize_t len;
    if (PyUnicode_IS_ASCII(chunk)) { /* its characters are its UTF-8 bytes */
        data = PyUnicode_1BYTE_DATA(chunk);
        len = PyUnicode_GET_LENGTH(chunk);
    } else {
        encoded = PyUnicode_AsEncodedString(chunk, "utf-8", "surrogatepass");
        if (!encoded) return NULL;
        data = (const unsigned char *)PyBytes_AS_STRING(encoded);
        len = PyBytes_GET_SIZE(encoded);
    }
    int32_t *ids = scratch_for(scratch, len);
    Py_ssize_t n = ids ? merge_bytes(t, data, len, ids) : -1;
    Py_XDECREF(encoded);
    if (n < 0) return NULL;
    return PyBytes_FromStringAndSize((const char *)ids, n * (Py_ssize_t)sizeof *ids);
}

/* encode_chunks(chunks, cache, limit): the ids of every chunk, concatenated. `cache`
 * maps chunk -> its ids (bytes, native int32s); a chunk not in it is merged and added
 * while the cache holds fewer than `limit` chunks. All in one call, to spare the
 * per-chunk Python loop. */
static PyObject *Merger_encode_chunks(Merger *self, PyObject *args) {
    PyObject *chunks, *cache;
    Py_ssize_t limit;
    if (!PyArg_ParseTuple(args, "O!O!n:encode_chunks", &PyList_Type, &chunks, &PyDict_Type, &cache, &limit))
        return NULL;
    Scratch scratch = {NULL, 0};
    PyObject **out = NULL; /* owned references to the ids so far */
    Py_ssize_t n_out = 0, cap_out = 0;
    PyObject *chunk = NULL, *packed = NULL, *result = NULL;
    /* the list's length is read each time: another thread may change it while a long
     * chunk is merged without the GIL */
    for (Py_ssize_t c = 0; c < PyList_GET_SIZE(chunks); c++) {
        chunk = PyList_GET_ITEM(chunks, c);
        Py_INCREF(chunk);
        packed = PyDict_GetItemWithError(cache, chunk);
        if (packed) {
            Py_INCREF(packed);
        } else {
            if (PyErr_Occurred()) goto fail;
            packed = chunk_ids(&self->table, chunk, &scratch);
            if (!packed) goto fail;
            if (PyDict_GET_SIZE(cache) < limit && PyDict_SetItem(cache, chunk, packed) < 0) goto fail;
        }
        if (!PyBytes_CheckExact(packed) || PyBytes_GET_SIZE(packed) % sizeof(int32_t)) {
            PyErr_SetString(PyExc_TypeError, "the cache holds something other than ids packed as int32 bytes");
            goto fail;
        }
        Py_ssize_t n = PyBytes_GET_SIZE(packed) / (Py_ssize_t)sizeof(int32_t);
        if (n_out + n > cap_out) {
            Py_ssize_t cap = 2 * cap_out > n_out + n ? 2 * cap_out : n_out + n + 1024;
            PyObject **grown = PyMem_Realloc(out, sizeof *out * (size_t)cap);
            if (!grown) {
                PyErr_NoMemory();
                goto fail;
            }
            out = grown;
            cap_out = cap;
        }
        const char *bytes = PyBytes_AS_STRING(packed);
        for (Py_ssize_t i = 0; i < n; i++) {
            int32_t id;
            memcpy(&id, bytes + i * (Py_ssize_t)sizeof id, sizeof id); /* bytes data need not be aligned */
            if (id < 0 || id >= self->n_ids) {
                PyErr_Format(PyExc_ValueError, "the cache holds id %d, which this model does not have", (int)id);
                goto fail;
            }
            Py_INCREF(self->id_ints[id]);
            out[n_out++] = self->id_ints[id];
        }
        Py_CLEAR(packed);
        Py_CLEAR(chunk);
    }
    result = PyList_New(n_out);
    if (!result) goto fail;
    for (Py_ssize_t i = 0; i < n_out; i++) PyList_SET_ITEM(result, i, out[i]); /* steals */
    n_out = 0;
fail:
    Py_XDECREF(chunk);
    Py_XDECREF(packed);
    for (Py_ssize_t i = 0; i < n_out; i++) Py_DECREF(out[i]);
    PyMem_Free(out);
    free(scratch.v);
    return result;
}

static PyMethodDef Merger_methods[] = {
    {"merge", (PyCFunction)Merger_merge, METH_O, "merge(data: bytes) -> list[int]: the ids of one chunk"},
    {"encode_chunks", (PyCFunction)Merger_encode_chunks, METH_VARARGS,
     "encode_chunks(chunks: list[str], cache: dict, limit: int) -> list[int]: the ids of all chunks, "
     "taken from the cache (chunk -> ids as native int32 bytes) or merged and added to it while it holds "
     "fewer than limit"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject MergerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "app.bpe._core.Merger",
    .tp_basicsize = sizeof(Merger),
    .tp_dealloc = (destructor)Merger_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Merger(byte_ids: bytes, pairs: list[tuple[int, int]]): BPE merges (pair i makes id 256 + i), "
              "byte_ids[b] the id of byte b",
    .tp_methods = Merger_methods,
    .tp_new = Merger_new,
};

/* recover_merges(byte_ids, tokens): the merges behind tiktoken ranks. tokens[i] is the
 * token of rank 256 + i; its pair is what merging its bytes with the pairs found so far
 * (all of lower rank) leaves, which must be two ids. Stops at the first token that does
 * not merge into two, so a shorter result names the bad token. The GIL is released for
 * the loop (the tokens are copied first). */
static PyObject *recover_merges(PyObject *module, PyObject *args) {
    Py_buffer byte_ids;
    PyObject *tokens;
    if (!PyArg_ParseTuple(args, "y*O!:recover_merges", &byte_ids, &PyList_Type, &tokens)) return NULL;
    Table t;
    int table_ready = 0;
    unsigned char *flat = NULL;
    Py_ssize_t *starts = NULL; /* token i is flat[starts[i] .. starts[i + 1]) */
    int32_t *ids = NULL, *pairs = NULL;
    PyObject *result = NULL;
    Py_ssize_t n_tokens = PyList_GET_SIZE(tokens), total = 0, longest = 2, done = 0;
    if (table_init(&t, &byte_ids) < 0) goto end;
    table_ready = 1;
    for (Py_ssize_t i = 0; i < n_tokens; i++) {
        PyObject *token = PyList_GET_ITEM(tokens, i);
        if (!PyBytes_Check(token)) {
            PyErr_Format(PyExc_TypeError, "token %zd is not bytes", i);
            goto end;
        }
        total += PyBytes_GET_SIZE(token);
        if (PyBytes_GET_SIZE(token) > longest) longest = PyBytes_GET_SIZE(token);
    }
    if (n_tokens >= INT32_MAX - 256 || longest >= INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "too many or too long tokens");
        goto end;
    }
    flat = malloc((size_t)total + 1);
    starts = malloc(sizeof *starts * (size_t)(n_tokens + 1));
    ids = malloc(sizeof *ids * (size_t)longest);
    pairs = malloc(sizeof *pairs * 2 * (size_t)(n_tokens + 1));
    if (!flat || !starts || !ids || !pairs) {
        PyErr_NoMemory();
        goto end;
    }
    starts[0] = 0;
    for (Py_ssize_t i = 0; i < n_tokens; i++) {
        PyObject *token = PyList_GET_ITEM(tokens, i);
        memcpy(flat + starts[i], PyBytes_AS_STRING(token), (size_t)PyBytes_GET_SIZE(token));
        starts[i + 1] = starts[i] + PyBytes_GET_SIZE(token);
    }
    int out_of_memory = 0;
    Py_BEGIN_ALLOW_THREADS
    for (; done < n_tokens; done++) {
        Py_ssize_t len = starts[done + 1] - starts[done];
        for (Py_ssize_t k = 0; k < len; k++) ids[k] = t.byte_ids[flat[starts[done] + k]];
        Py_ssize_t n = merge_ids(&t, ids, len);
        if (n < 0) out_of_memory = 1;
        if (n != 2) break;
        /* never 1 (already there): a pair made earlier would have merged these bytes into one id */
        if (table_add(&t, ids[0], ids[1]) < 0) {
            out_of_memory = 1;
            break;
        }
        pairs[2 * done] = ids[0];
        pairs[2 * done + 1] = ids[1];
    }
    Py_END_ALLOW_THREADS
    if (out_of_memory) {
        PyErr_NoMemory();
        goto end;
    }
    result = PyList_New(done);
    for (Py_ssize_t i = 0; result && i < done; i++) {
        PyObject *pair = Py_BuildValue("(ii)", pairs[2 * i], pairs[2 * i + 1]);
        if (!pair) Py_CLEAR(result);
        else PyList_SET_ITEM(result, i, pair);
    }
end:
    if (table_ready) free(t.slots);
    free(flat);
    free(starts);
    free(ids);
    free(pairs);
    PyBuffer_Release(&byte_ids);
    return result;
}

static PyMethodDef methods[] = {
    {"merge_loop", merge_loop, METH_VARARGS,
     "merge_loop(chunks, weights, num_merges, progress) -> the merges in order, as (left, right, count)"},
    {"recover_merges", recover_merges, METH_VARARGS,
     "recover_merges(byte_ids: bytes, tokens: list[bytes]) -> the pairs behind tokens of rank 256, 257, ...; "
     "shorter than tokens if one is not the merge of two lower-ranked tokens"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_core", "tokenprism's BPE in C: training merge loop and encoder merge.", -1, methods};

PyMODINIT_FUNC PyInit__core(void) {
    if (PyType_Ready(&MergerType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&MergerType);
    if (PyModule_AddObject(m, "Merger", (PyObject *)&MergerType) < 0) {
        Py_DECREF(&MergerType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
