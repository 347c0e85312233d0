/* The exact encoder of the tiktoken-style tokenizers, in C, with the GIL released.
 * Built as app.bpe._engine by setup.py (with pretokenize.c).
 *
 * Engine(family, tokens, id_offset=0): an immutable encoder for one vocabulary. `family`
 * is a pretokenize.h family (the split pattern); `tokens[r]` the bytes of rank r (0..n-1;
 * the 256 single bytes among them, anywhere). Every id given out is a rank plus
 * `id_offset` (Tekken's regular ids follow its special ones).
 *     .encode(text: str) -> list[int]            .count(text: str) -> int
 *     .encode_batch(texts: list[str]) -> list[list[int]]
 *     .count_batch(texts: list[str]) -> list[int]
 * and split(family, text) -> list[str], the chunks pretok_next cuts (for tests), and
 * FULL_UNICODE: whether the linked pretokenizer knows non-ASCII text (see full_unicode).
 *
 * How: the UTF-8 of each str (PyUnicode_AsUTF8AndSize, which raises UnicodeEncodeError on
 * a lone surrogate: the Python side replaces those as tiktoken does and calls again); then,
 * without the GIL, pretok_next cuts the bytes into the pattern's chunks, and each chunk is
 * looked up whole among the tokens (most chunks are one token) or else merged: a chunk of
 * up to BYTES_MERGE_MAX bytes by merge_by_bytes (each pair's rank is the rank of its bytes, in
 * token_lookup.h's small tables of the short tokens and filter of the long ones, which
 * stay in cache), a longer one by merge.h's BPE over a table of every split of every token
 * into two tokens. Both are
 * tiktoken's rule (merge the adjacent pair whose concatenation has the lowest rank,
 * leftmost first), so the ids are tiktoken's even for tokens no merge of two lower-ranked
 * tokens makes (qwen3_6 has such). The ids go into a growing int32 buffer (a
 * count just counts), and the GIL is taken back to build the list from cached ints.
 * A chunk that is not one token is looked up in the thread's chunk cache for this engine
 * (chunk_cache.h) before it is merged. The Engine itself is never changed after it is built, so any number
 * of threads can use it at once.
 *
 * Left out: special tokens (the caller cuts the text around them) and decoding.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "chunk_cache.h"
#include "merge.h"
#include "pretokenize.h"
#include "token_lookup.h"

/* ---- encoding without the GIL ---- */

typedef struct {
    int32_t *v;
    size_t n, cap;
} Ids;

static int ids_reserve(Ids *ids, size_t more) {
    if (ids->n + more <= ids->cap) return 0;
    size_t cap = ids->cap * 2 > ids->n + more ? ids->cap * 2 : ids->n + more + 256;
    int32_t *v = realloc(ids->v, sizeof *v * cap);
    if (!v) return -1;
    ids->v = v;
    ids->cap = cap;
    return 0;
}

typedef struct {
    pretok_family family;
    Table table;
    Lookup lookup;
    ShortLookup short_tokens; /* the tokens of up to SHORT_TOKEN bytes again, for merging */
    LongFilter long_filter;   /* and a filter of the longer ones */
    int32_t id_offset;
    uint64_t serial; /* this engine's number, for the thread caches */
} Core;

enum { ENC_OK = 0, ENC_NO_MEMORY = -1, ENC_TOO_LONG = -2 };

/* Appends ids[0..m) (ranks) to out, or adds m to *count when out is NULL. */
static inline int emit(const Core *c, Ids *out, size_t *count, const int32_t *ids, size_t m) {
    if (!out) {
        *count += m;
        return ENC_OK;
    }
    if (ids_reserve(out, m) < 0) return ENC_NO_MEMORY;
    for (size_t k = 0; k < m; k++) out->v[out->n++] = ids[k] + c->id_offset;
    return ENC_OK;
}

/* The rank of the token p[start..end), NO_MERGE when no token has those bytes; `avail`
 * bytes may be read from p. */
static inline int32_t piece_rank(const Core *c, const unsigned char *p, size_t start, size_t end, size_t avail) {
    size_t len = end - start;
    int32_t rank;
    if (len <= SHORT_TOKEN && c->short_tokens.bits) {
        rank = short_rank(&c->short_tokens, p + start, len);
    } else {
        Key k = key_of(p + start, len, avail - start);
        if (len > SHORT_TOKEN && !filter_may_hold(&c->long_filter, k.hash)) return NO_MERGE;
        rank = lookup_rank_keyed(&c->lookup, p + start, len, k);
    }
    return rank < 0 ? NO_MERGE : rank;
}

/* merge.h's merge_short, with each pair's rank found as the rank of its bytes in the token
 * lookup (the table the whole chunks were just looked up in, so mostly in cache) instead
 * of in the far larger pair table: the same rule (the pair whose concatenation has the
 * lowest rank, leftmost first), so the same ids. ids[0..n) are the byte ids of p[0..n)
 * (n <= BYTES_MERGE_MAX, `avail` >= n bytes readable); returns the new length. */
#define BYTES_MERGE_MAX 128 /* bytes; a longer chunk is merged on merge.h's heap (starts are uint8_t) */

static Py_ssize_t merge_by_bytes(const Core *c, const unsigned char *p, size_t n, size_t avail, int32_t *ids) {
    uint8_t starts[BYTES_MERGE_MAX + 1]; /* piece i is p[starts[i] .. starts[i + 1]) */
    int32_t ranks[BYTES_MERGE_MAX];  /* i -> rank of pieces i and i + 1 together */
    size_t m = n;
    for (size_t i = 0; i <= n; i++) starts[i] = (uint8_t)i;
    for (size_t i = 0; i + 1 < m; i++) ranks[i] = piece_rank(c, p, i, i + 2, avail);
    while (m > 1) {
        int32_t lowest = ranks[0]; /* the lowest rank, then its leftmost pair: two simple loops */
        for (size_t k = 1; k + 1 < m; k++) lowest = ranks[k] < lowest ? ranks[k] : lowest;
        if (lowest == NO_MERGE) break;
        size_t i = 0;
        while (ranks[i] != lowest) i++;
        ids[i] = lowest;
        for (size_t k = i + 1; k + 1 < m; k++) { /* piece i + 1 goes; short moves, no memmove calls */
            ids[k] = ids[k + 1];
            ranks[k - 1] = ranks[k];
            starts[k] = starts[k + 1];
        }
        starts[m - 1] = starts[m];
        m--;
        if (i > 0) ranks[i - 1] = piece_rank(c, p, starts[i - 1], starts[i + 1], avail);
        if (i + 1 < m) ranks[i] = piece_rank(c, p, starts[i], starts[i + 2], avail);
    }
    return (Py_ssize_t)m;
}

/* The ids of s[0..n) appended to `out` (or, when `out` is NULL, their number added to
 * *count). `scratch` is the caller's buffer for merging a chunk, `cache` its chunk cache. */
static int encode_bytes(const Core *c, const unsigned char *s, size_t n, Ids *out, size_t *count, Ids *scratch,
                        ChunkCache *cache) {
    for (size_t i = 0; i < n;) {
        size_t end = pretok_next(c->family, s, i, n), len = end - i;
        const unsigned char *chunk = s + i;
        Key key = key_of(chunk, len, n - (size_t)(chunk - s));
        uint64_t h = key.hash;
        int32_t rank = len > SHORT_TOKEN && !filter_may_hold(&c->long_filter, h)
                           ? -1 /* not a token, known without touching the lookup's slots */
                           : lookup_rank_keyed(&c->lookup, chunk, len, key);
        i = end;
        if (rank >= 0) {
            if (!out) {
                ++*count;
            } else {
                if (out->n == out->cap && ids_reserve(out, 1) < 0) return ENC_NO_MEMORY;
                out->v[out->n++] = rank + c->id_offset;
            }
            continue;
        }
        size_t m;
        const int32_t *cached = cache_get(cache, chunk, len, h, &m);
        if (cached) {
            if (emit(c, out, count, cached, m) < 0) return ENC_NO_MEMORY;
            continue;
        }
        if (len >= INT32_MAX) return ENC_TOO_LONG;
        scratch->n = 0;
        if (ids_reserve(scratch, len) < 0) return ENC_NO_MEMORY;
        for (size_t k = 0; k < len; k++) scratch->v[k] = c->table.byte_ids[chunk[k]];
        size_t avail = n - (size_t)(chunk - s);
        Py_ssize_t merged = len <= BYTES_MERGE_MAX ? merge_by_bytes(c, chunk, len, avail, scratch->v)
                                               : merge_ids(&c->table, scratch->v, (Py_ssize_t)len);
        if (merged < 0 || cache_put(cache, chunk, len, h, scratch->v, (size_t)merged) < 0 ||
            emit(c, out, count, scratch->v, (size_t)merged) < 0)
            return ENC_NO_MEMORY;
    }
    return ENC_OK;
}

static void set_error(int status) {
    if (status == ENC_NO_MEMORY) PyErr_NoMemory();
    else PyErr_SetString(PyExc_ValueError, "a chunk of the text is longer than 2**31 bytes");
}

/* ---- the Engine type ---- */

typedef struct {
    PyObject_HEAD
    Core core;            /* never changed after Engine() returns */
    PyObject **id_ints;   /* rank -> its id as a Python int, shared by every result */
    Py_ssize_t n_ids;
} Engine;

static void Engine_dealloc(Engine *self) {
    free(self->core.table.slots);
    free(self->core.short_tokens.slots);
    free(self->core.short_tokens.pairs);
    free(self->core.long_filter.bits);
    lookup_free(&self->core.lookup);
    for (Py_ssize_t i = 0; self->id_ints && i < self->n_ids; i++) Py_XDECREF(self->id_ints[i]);
    PyMem_Free(self->id_ints);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The merge table of tiktoken's BPE: every split of a token into two tokens, (left,
 * right) -> the token's rank, since tiktoken merges the adjacent pair whose concatenation
 * has the lowest rank. Sets a Python error and returns -1 on failure. */
static int merges_init(Table *t, const Lookup *l, Py_ssize_t n_tokens) {
    memset(t, 0, sizeof *t);
    for (int b = 0; b < 256; b++) {
        unsigned char byte = (unsigned char)b;
        if ((t->byte_ids[b] = lookup_rank(l, &byte, 1)) < 0) {
            PyErr_Format(PyExc_ValueError, "byte %d is not a token (tiktoken needs all 256)", b);
            return -1;
        }
    }
    if (table_resize(t, 16) < 0) goto no_memory;
    for (Py_ssize_t r = 0; r < n_tokens; r++) {
        const unsigned char *token = l->flat + l->starts[r];
        size_t len = l->starts[r + 1] - l->starts[r];
        for (size_t k = 1; k < len; k++) {
            int32_t left = lookup_rank(l, token, k), right = left < 0 ? -1 : lookup_rank(l, token + k, len - k);
            if (right >= 0 && table_set(t, left, right, (int32_t)r) < 0) goto no_memory;
        }
    }
    return 0;
no_memory:
    PyErr_NoMemory();
    return -1;
}

static PyObject *Engine_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"family", "tokens", "id_offset", NULL};
    int family, id_offset = 0;
    PyObject *tokens;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "iO!|i:Engine", keywords, &family, &PyList_Type, &tokens,
                                     &id_offset))
        return NULL;
    if (family < 0 || family >= PRETOK_FAMILIES) {
        PyErr_Format(PyExc_ValueError, "family %d is not one of pretokenize.h's 0..%d", family, PRETOK_FAMILIES - 1);
        return NULL;
    }
    Py_ssize_t n_tokens = PyList_GET_SIZE(tokens);
    if (id_offset < 0 || n_tokens + (Py_ssize_t)id_offset >= INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "id_offset must be >= 0 and every id fit int32");
        return NULL;
    }
    Engine *self = (Engine *)type->tp_alloc(type, 0);
    if (!self) return NULL;
    static uint64_t engines_made = 0; /* under the GIL */
    self->core.family = (pretok_family)family;
    self->core.id_offset = id_offset;
    self->core.serial = ++engines_made;
    if (lookup_init(&self->core.lookup, tokens) < 0) goto fail;
    if (merges_init(&self->core.table, &self->core.lookup, n_tokens) < 0) goto fail;
    if (short_init(&self->core.short_tokens, &self->core.lookup, (size_t)n_tokens) < 0 ||
        filter_init(&self->core.long_filter, &self->core.lookup, (size_t)n_tokens) < 0) {
        PyErr_NoMemory();
        goto fail;
    }
    self->n_ids = n_tokens;
    self->id_ints = PyMem_Calloc((size_t)(n_tokens ? n_tokens : 1), sizeof(PyObject *));
    if (!self->id_ints) {
        PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t i = 0; i < n_tokens; i++)
        if (!(self->id_ints[i] = PyLong_FromSsize_t(i + id_offset))) goto fail;
    return (PyObject *)self;
fail:
    Py_DECREF(self); /* its dealloc frees what was built */
    return NULL;
}

/* A list of the ids v[0..n) (each rank + id_offset), from the cached ints. */
static PyObject *id_list(const Engine *self, const int32_t *v, size_t n) {
    PyObject *list = PyList_New((Py_ssize_t)n);
    if (!list) return NULL;
    int32_t offset = self->core.id_offset;
    for (size_t i = 0; i < n; i++) {
        PyObject *id = self->id_ints[v[i] - offset];
        Py_INCREF(id);
        PyList_SET_ITEM(list, (Py_ssize_t)i, id);
    }
    return list;
}

/* The texts of a call as UTF-8: their bytes and lengths, and, for a batch, a tuple holding
 * the strs (so they outlive the released GIL whatever happens to the caller's list; a
 * single text is the caller's argument, held for the call). `one_*` serve a single text. */
typedef struct {
    PyObject *held;
    const char **data;
    Py_ssize_t *lens;
    Py_ssize_t n;
    size_t total;
    size_t wide; /* bytes of the texts that are not ASCII: each costs a merge more often */
    const char *one_data;
    Py_ssize_t one_len;
    size_t one_slot; /* the one text's end or count */
} Batch;

static void batch_free(Batch *b) {
    Py_XDECREF(b->held);
    if (b->data != &b->one_data) {
        PyMem_Free(b->data);
        PyMem_Free(b->lens);
    }
}

static int batch_add(Batch *b, Py_ssize_t i, PyObject *text) {
    if (!PyUnicode_Check(text)) {
        if (b->held) PyErr_Format(PyExc_TypeError, "text %zd is %.100s, not str", i, Py_TYPE(text)->tp_name);
        else PyErr_Format(PyExc_TypeError, "text must be str, not %.100s", Py_TYPE(text)->tp_name);
        return -1;
    }
    if (!(b->data[i] = PyUnicode_AsUTF8AndSize(text, &b->lens[i]))) return -1;
    b->total += (size_t)b->lens[i];
    if (!PyUnicode_IS_ASCII(text)) b->wide += (size_t)b->lens[i];
    return 0;
}

/* `arg` is one str (batch 0) or a list or tuple of them. */
static int batch_init(Batch *b, PyObject *arg, int batch) {
    memset(b, 0, sizeof *b);
    if (!batch) {
        b->n = 1;
        b->data = &b->one_data;
        b->lens = &b->one_len;
        return batch_add(b, 0, arg);
    }
    if (!PyList_Check(arg) && !PyTuple_Check(arg)) {
        PyErr_Format(PyExc_TypeError, "texts must be a list of str, not %.100s", Py_TYPE(arg)->tp_name);
        return -1;
    }
    if (!(b->held = PySequence_Tuple(arg))) return -1;
    b->n = PyTuple_GET_SIZE(b->held);
    b->data = PyMem_Calloc((size_t)(b->n ? b->n : 1), sizeof *b->data);
    b->lens = PyMem_Calloc((size_t)(b->n ? b->n : 1), sizeof *b->lens);
    if (!b->data || !b->lens) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < b->n; i++)
        if (batch_add(b, i, PyTuple_GET_ITEM(b->held, i)) < 0) return -1;
    return 0;
}

/* Encodes (out != NULL) or counts (counts != NULL, one per text) every text of the batch;
 * ends[t] is where text t's ids end in out. The GIL is released for NOGIL_BYTES or more, or
 * NOGIL_WIDE_BYTES of non-ASCII text: less ASCII is done in a few microseconds, less than
 * handing the GIL to another thread and back costs (measured: releasing it for 1 KB of ASCII
 * prose made two threads slower, for 1 KB of translations 1.6-1.8x faster than one). */
#define NOGIL_BYTES 4096
#define NOGIL_WIDE_BYTES 256
static int run_batch(const Core *core, const Batch *b, Ids *out, size_t *ends, size_t *counts) {
    Ids scratch = {NULL, 0, 0};
    ChunkCache spare = {0}; /* when this thread's caches cannot be had */
    int status = ENC_OK;
    PyThreadState *saved = b->total >= NOGIL_BYTES || b->wide >= NOGIL_WIDE_BYTES ? PyEval_SaveThread() : NULL;
    ChunkCache *cache = thread_cache(core->serial);
    if (!cache) cache = &spare;
    if (out && ids_reserve(out, b->total / 4 + 16) < 0) status = ENC_NO_MEMORY;
    for (Py_ssize_t t = 0; t < b->n && status == ENC_OK; t++) {
        status = encode_bytes(core, (const unsigned char *)b->data[t], (size_t)b->lens[t], out,
                              counts ? &counts[t] : NULL, &scratch, cache);
        if (ends) ends[t] = out->n;
    }
    if (saved) PyEval_RestoreThread(saved);
    free(scratch.v);
    cache_free(&spare);
    if (status != ENC_OK) set_error(status);
    return status;
}

/* The engine's four methods: one text or a list of them (`batch`), ids or counts. */
static PyObject *engine_run(Engine *self, PyObject *arg, int batch, int count_only) {
    Batch b;
    PyObject *result = NULL;
    Ids out = {NULL, 0, 0};
    size_t *ends = NULL, *counts = NULL;
    if (batch_init(&b, arg, batch) < 0) goto done;
    if (!batch) {
        *(count_only ? &counts : &ends) = &b.one_slot;
    } else if (!(count_only ? (void *)(counts = PyMem_Calloc((size_t)b.n + 1, sizeof *counts))
                            : (void *)(ends = PyMem_Calloc((size_t)b.n + 1, sizeof *ends)))) {
        PyErr_NoMemory();
        goto done;
    }
    if (run_batch(&self->core, &b, count_only ? NULL : &out, ends, counts) != ENC_OK) goto done;
    if (!batch) {
        result = count_only ? PyLong_FromSize_t(counts[0]) : id_list(self, out.v, out.n);
        goto done;
    }
    if (!(result = PyList_New(b.n))) goto done;
    for (Py_ssize_t t = 0; t < b.n; t++) {
        size_t start = t && !count_only ? ends[t - 1] : 0;
        PyObject *item = count_only ? PyLong_FromSize_t(counts[t]) : id_list(self, out.v + start, ends[t] - start);
        if (!item) {
            Py_CLEAR(result);
            goto done;
        }
        PyList_SET_ITEM(result, t, item);
    }
done:
    if (batch) {
        PyMem_Free(ends);
        PyMem_Free(counts);
    }
    batch_free(&b);
    free(out.v);
    return result;
}

static PyObject *Engine_encode(Engine *self, PyObject *text) { return engine_run(self, text, 0, 0); }
static PyObject *Engine_count(Engine *self, PyObject *text) { return engine_run(self, text, 0, 1); }
static PyObject *Engine_encode_batch(Engine *self, PyObject *texts) { return engine_run(self, texts, 1, 0); }
static PyObject *Engine_count_batch(Engine *self, PyObject *texts) { return engine_run(self, texts, 1, 1); }

static PyMethodDef Engine_methods[] = {
    {"encode", (PyCFunction)Engine_encode, METH_O, "encode(text: str) -> list[int]: the ids of text"},
    {"count", (PyCFunction)Engine_count, METH_O, "count(text: str) -> int: how many ids encode gives"},
    {"encode_batch", (PyCFunction)Engine_encode_batch, METH_O,
     "encode_batch(texts: list[str]) -> list[list[int]]: encode of each text, in one call without the GIL"},
    {"count_batch", (PyCFunction)Engine_count_batch, METH_O,
     "count_batch(texts: list[str]) -> list[int]: count of each text, in one call without the GIL"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject EngineType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "app.bpe._engine.Engine",
    .tp_basicsize = sizeof(Engine),
    .tp_dealloc = (destructor)Engine_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Engine(family, tokens, id_offset=0): tiktoken's ids for one vocabulary",
    .tp_methods = Engine_methods,
    .tp_new = Engine_new,
};

/* split(family, text) -> list[str]: the chunks pretok_next cuts text into (for tests). */
static PyObject *split(PyObject *module, PyObject *args) {
    int family;
    PyObject *text;
    if (!PyArg_ParseTuple(args, "iU:split", &family, &text)) return NULL;
    if (family < 0 || family >= PRETOK_FAMILIES) {
        PyErr_Format(PyExc_ValueError, "family %d is not one of pretokenize.h's 0..%d", family, PRETOK_FAMILIES - 1);
        return NULL;
    }
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(text, &n);
    if (!s) return NULL;
    PyObject *chunks = PyList_New(0);
    for (size_t i = 0; chunks && i < (size_t)n;) {
        size_t end = pretok_next((pretok_family)family, (const unsigned char *)s, i, (size_t)n);
        PyObject *chunk = PyUnicode_DecodeUTF8(s + i, (Py_ssize_t)(end - i), "strict");
        if (!chunk || PyList_Append(chunks, chunk) < 0) Py_CLEAR(chunks);
        Py_XDECREF(chunk);
        i = end;
    }
    return chunks;
}

static PyMethodDef methods[] = {
    {"split", split, METH_VARARGS, "split(family: int, text: str) -> list[str]: the chunks of text (for tests)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_engine",
                                    "The exact encoder of the tiktoken-style tokenizers, GIL released.", -1, methods};

/* Whether the linked pretokenizer knows non-ASCII letters (the ASCII stand-in does not):
 * in cl100k's pattern "h\xc3\xa9llo" ("héllo") is one chunk of letters. */
static int full_unicode(void) {
    static const unsigned char probe[] = "h\xc3\xa9llo";
    return pretok_next(PRETOK_CL100K, probe, 0, sizeof probe - 1) == sizeof probe - 1;
}

PyMODINIT_FUNC PyInit__engine(void) {
    pretok_init();
    if (thread_caches_init() != 0) {
        PyErr_SetString(PyExc_RuntimeError, "no thread-specific key for the chunk caches");
        return NULL;
    }
    if (PyType_Ready(&EngineType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&EngineType);
    if (PyModule_AddObject(m, "Engine", (PyObject *)&EngineType) < 0 ||
        PyModule_AddObject(m, "FULL_UNICODE", PyBool_FromLong(full_unicode())) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
