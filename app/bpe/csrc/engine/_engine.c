/* The exact encoder of the tiktoken-style tokenizers, in C, with the GIL released.
 * Built as app.bpe._engine by setup.py (with pretokenize.c).
 *
 * Engine(family, tokens, id_offset=0, merges=None, stops=None): an immutable encoder for one
 * vocabulary. `family` is a pretokenize.h family (the split pattern); `tokens[r]` the bytes
 * of rank r (0..n-1; the 256 single bytes among them, anywhere). Every id given out is a rank plus
 * `id_offset` (Tekken's regular ids follow its special ones). `merges`, a list of (left, right)
 * ids, switches to Hugging Face's merge rule (merge_tables.h); `stops` are byte strings
 * `stopped` looks for (stop_strings.h).
 *     .encode(text: str) -> list[int]            .count(text: str) -> int
 *     .encode_batch(texts: list[str]) -> list[list[int]]
 *     .count_batch(texts: list[str]) -> list[int]    .stopped(texts: list[str]) -> list[int]
 *     .encode_cut(text, cuts: list[int]) -> list[int] .count_cut(text, cuts) -> int (text's pieces)
 * and split(family, text) -> list[str], the chunks pretok_next cuts (for tests), and
 * FULL_UNICODE: whether the linked pretokenizer knows non-ASCII text (see full_unicode).
 *
 * How: each str's UTF-8 (engine_batch.h; a lone surrogate raises UnicodeEncodeError, and the
 * Python side replaces it as tiktoken does), then without the GIL engine_encode.h's encode_bytes
 * into an int32 buffer (a count just counts), then the lists from the shared ints (id_ints.h:
 * made with the GIL, filled without it when they hold NOGIL_IDS ids or more). The Engine
 * never changes once built, so any number of threads can use it at once.
 *
 * Left out: special tokens (the caller cuts the text around them) and decoding.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>

#include "engine_batch.h" /* and engine_encode.h, utf8_write.h */
#include "id_ints.h"
#include "merge_tables.h"
#include "stop_strings.h"
#include "run_cuts.h"

/* Whether `family` is one of pretokenize.h's; a ValueError set when not. */
static int known_family(int family) {
    if (family >= 0 && family < PRETOK_FAMILIES) return 1;
    PyErr_Format(PyExc_ValueError, "family %d is not one of pretokenize.h's 0..%d", family, PRETOK_FAMILIES - 1);
    return 0;
}

/* ---- the Engine type ---- */

typedef struct {
    PyObject_HEAD
    Core core;            /* never changed after Engine() returns */
    StopStrings stops;    /* for `stopped`; empty when none were given */
    uintptr_t int_base;   /* id_ints.h's ints_cover: where its ids' ints are found from, or 0 */
} Engine;

static void Engine_dealloc(Engine *self) {
    free(self->core.table.slots);
    table_free(self->core.short_tokens.slots);
    table_free(self->core.short_tokens.pairs);
    table_free(self->core.long_filter.words);
    atoms_free(&self->core.atoms);
    lookup_free(&self->core.lookup);
    table_free((void *)self->core.whole_ok);
    table_free((void *)self->core.splits);
    table_free((void *)self->core.far_splits);
    stops_free(&self->stops);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Engine_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"family", "tokens", "id_offset", "merges", "stops", NULL};
    int family, id_offset = 0;
    PyObject *tokens, *merges = Py_None, *stops = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "iO!|iOO:Engine", keywords, &family, &PyList_Type, &tokens,
                                     &id_offset, &merges, &stops))
        return NULL;
    if (!known_family(family)) return NULL;
    Py_ssize_t n_tokens = PyList_GET_SIZE(tokens);
    if (id_offset < 0 || n_tokens + (Py_ssize_t)id_offset >= INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "id_offset must be >= 0 and every id fit int32");
        return NULL;
    }
    Engine *self = (Engine *)type->tp_alloc(type, 0);
    if (!self) return NULL;
    static uint64_t engines_made = 0; /* under the GIL */
    self->core.split = pretok_function((pretok_family)family);
    self->core.blocks = block_rules((pretok_family)family);
    self->core.id_offset = id_offset;
    self->core.serial = ++engines_made;
    if (lookup_init(&self->core.lookup, tokens) < 0) goto fail;
    if (stops != Py_None && stops_init(&self->stops, stops) < 0) goto fail;
    if (merges_init(&self->core.table, &self->core.lookup, n_tokens, merges == Py_None ? NULL : merges) < 0)
        goto fail;
    if (merges != Py_None && (!(self->core.whole_ok = whole_tokens(&self->core.table, &self->core.lookup, n_tokens)) ||
                              merge_splits(&self->core.table, &self->core.lookup, n_tokens, (uint8_t **)&self->core.splits,
                                           (uint32_t **)&self->core.far_splits) < 0)) {
        PyErr_NoMemory();
        goto fail;
    }
    if (short_init(&self->core.short_tokens, &self->core.lookup, (size_t)n_tokens, self->core.splits) < 0 ||
        filter_init(&self->core.long_filter, &self->core.lookup, (size_t)n_tokens) < 0 ||
        atoms_init(&self->core.atoms, &self->core.lookup, (size_t)n_tokens) < 0) {
        PyErr_NoMemory();
        goto fail;
    }
    if (merges != Py_None) atoms_listed(&self->core.atoms, &self->core.table);
    if (ints_cover(id_offset, n_tokens + id_offset, &self->int_base) < 0) goto fail;
    return (PyObject *)self;
fail:
    Py_DECREF(self); /* its dealloc frees what was built */
    return NULL;
}

/* The engine's methods: one text, a list of them (`batch`) or one text in pieces (`cuts`,
 * engine_batch.h), ids or counts; with `stops`, None for a text holding one of them. */
static PyObject *engine_run(Engine *self, PyObject *arg, PyObject *cuts, int batch, int count_only,
                            const StopStrings *stops) {
    Batch b;
    PyObject *result = NULL;
    Ids out = {NULL, 0, 0};
    size_t *ends = NULL, *counts = NULL, total = 0;
    if ((cuts ? batch_init_cut(&b, arg, cuts) : batch_init(&b, arg, batch, 1)) < 0) goto done;
    if (!batch && !cuts) {
        *(count_only ? &counts : &ends) = &b.one_slot;
    } else if (!(count_only ? (void *)(counts = PyMem_Calloc((size_t)b.n + 1, sizeof *counts))
                            : (void *)(ends = PyMem_Calloc((size_t)b.n + 1, sizeof *ends)))) {
        PyErr_NoMemory();
        goto done;
    }
    int status = run_batch(&self->core, &b, count_only ? NULL : &out, ends, counts, stops, NULL);
    if (status == ENC_STOPPED) result = Py_NewRef(Py_None);
    if (status != ENC_OK) goto done;
    if (!batch) { /* one list or count for the text, whatever pieces it was cut into */
        for (Py_ssize_t t = 0; count_only && t < b.n; t++) total += counts[t];
        if (count_only) result = PyLong_FromSize_t(total);
        else if (id_lists(out.v, &out.n, 1, out.n >= NOGIL_IDS, self->int_base, &result) < 0) result = NULL;
        goto done;
    }
    if (!(result = PyList_New(b.n))) goto done;
    if (!count_only) { /* the lists straight into the result's items, which start NULL */
        if (id_lists(out.v, ends, b.n, out.n >= NOGIL_IDS, self->int_base, ((PyListObject *)result)->ob_item) < 0)
            Py_CLEAR(result);
        goto done;
    }
    for (Py_ssize_t t = 0; t < b.n; t++) {
        PyObject *item = PyLong_FromSize_t(counts[t]);
        if (!item) {
            Py_CLEAR(result);
            goto done;
        }
        PyList_SET_ITEM(result, t, item);
    }
done:
    if (batch || cuts) {
        PyMem_Free(ends);
        PyMem_Free(counts);
    }
    batch_free(&b);
    free(out.v);
    return result;
}

/* stopped(texts) -> the indices of the texts that hold one of the engine's stop strings
 * (looked for where their UTF-8 is read or written, without the GIL for many of them). */
static PyObject *Engine_stopped(Engine *self, PyObject *texts) {
    Batch b;
    PyObject *result = NULL;
    unsigned char *hits = NULL;
    if (batch_init(&b, texts, 1, 1) < 0) goto done;
    if (!(hits = PyMem_Calloc((size_t)b.n + 1, 1))) {
        PyErr_NoMemory();
        goto done;
    }
    if (run_batch(&self->core, &b, NULL, NULL, NULL, &self->stops, hits) != ENC_OK) goto done;
    if (!(result = PyList_New(0))) goto done;
    for (Py_ssize_t t = 0; t < b.n; t++) {
        if (!hits[t]) continue;
        PyObject *index = PyLong_FromSsize_t(t);
        if (!index || PyList_Append(result, index) < 0) Py_CLEAR(result);
        Py_XDECREF(index);
        if (!result) break;
    }
done:
    PyMem_Free(hits);
    batch_free(&b);
    return result;
}

/* encode or count of a text holding none of the stop strings; None for one that holds one
 * (looked for in its UTF-8 where the encoding runs: without the GIL for a long text). */
static PyObject *unless_stopped(Engine *self, PyObject *text, int count_only) {
    return engine_run(self, text, NULL, 0, count_only, &self->stops);
}
static PyObject *Engine_encode_unstopped(Engine *self, PyObject *text) { return unless_stopped(self, text, 0); }
static PyObject *Engine_count_unstopped(Engine *self, PyObject *text) { return unless_stopped(self, text, 1); }

static PyObject *Engine_encode(Engine *self, PyObject *text) { return engine_run(self, text, NULL, 0, 0, NULL); }
static PyObject *Engine_count(Engine *self, PyObject *text) { return engine_run(self, text, NULL, 0, 1, NULL); }
static PyObject *Engine_encode_batch(Engine *self, PyObject *texts) { return engine_run(self, texts, NULL, 1, 0, NULL); }
static PyObject *Engine_count_batch(Engine *self, PyObject *texts) { return engine_run(self, texts, NULL, 1, 1, NULL); }
static PyObject *engine_cut(Engine *self, PyObject *args, int count_only) {
    PyObject *text, *cuts;
    if (!PyArg_ParseTuple(args, "UO!", &text, &PyList_Type, &cuts)) return NULL;
    return engine_run(self, text, cuts, 0, count_only, NULL);
}
static PyObject *Engine_encode_cut(Engine *self, PyObject *args) { return engine_cut(self, args, 0); }
static PyObject *Engine_count_cut(Engine *self, PyObject *args) { return engine_cut(self, args, 1); }

static PyMethodDef Engine_methods[] = {
    {"encode", (PyCFunction)Engine_encode, METH_O, "encode(text: str) -> list[int]: the ids of text"},
    {"count", (PyCFunction)Engine_count, METH_O, "count(text: str) -> int: how many ids encode gives"},
    {"encode_batch", (PyCFunction)Engine_encode_batch, METH_O,
     "encode_batch(texts: list[str]) -> list[list[int]]: encode of each text, in one call without the GIL"},
    {"count_batch", (PyCFunction)Engine_count_batch, METH_O,
     "count_batch(texts: list[str]) -> list[int]: count of each text, in one call without the GIL"},
    {"encode_cut", (PyCFunction)Engine_encode_cut, METH_VARARGS,
     "encode_cut(text: str, cuts: list[int]) -> list[int]: the ids of the pieces text is cut into, in order"},
    {"count_cut", (PyCFunction)Engine_count_cut, METH_VARARGS, "count_cut(text: str, cuts: list[int]) -> int"},
    {"encode_unstopped", (PyCFunction)Engine_encode_unstopped, METH_O,
     "encode_unstopped(text: str) -> list[int] | None: encode, or None when text holds a stop string"},
    {"count_unstopped", (PyCFunction)Engine_count_unstopped, METH_O,
     "count_unstopped(text: str) -> int | None: count, or None when text holds a stop string"},
    {"stopped", (PyCFunction)Engine_stopped, METH_O,
     "stopped(texts: list[str]) -> list[int]: the indices of the texts holding one of the stop strings"},
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
    if (!known_family(family)) return NULL;
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

/* cache_budget() -> (used, budget): the bytes of the chunk caches' generations past their own
 * size, all threads', and the most they may hold (chunk_cache.h). */
static PyObject *cache_budget(PyObject *module, PyObject *unused) {
    (void)module, (void)unused;
    return Py_BuildValue("nn", (Py_ssize_t)__atomic_load_n(&budget_used, __ATOMIC_RELAXED),
                         (Py_ssize_t)CACHE_BUDGET_BYTES);
}

static PyMethodDef methods[] = {
    {"split", split, METH_VARARGS, "split(family: int, text: str) -> list[str]: the chunks of text (for tests)"},
    {"cache_budget", cache_budget, METH_NOARGS,
     "cache_budget() -> (used, budget): bytes of the chunk caches past their own size, all threads', and the most"},
    {"run_cuts", run_cuts, METH_VARARGS,
     "run_cuts(text: str, block: int, run: int) -> list[int]: llama-models' cuts of text (see run_cuts.h)"},
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
    blocks_init_tables(); /* and pretok_init */
    utf8_write_init();
    if (thread_caches_init() != 0) {
        PyErr_SetString(PyExc_RuntimeError, "no thread-specific key for the chunk caches");
        return NULL;
    }
    if (PyType_Ready(&EngineType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&EngineType);
    if (PyModule_AddObject(m, "Engine", (PyObject *)&EngineType) < 0 ||
        PyModule_AddObject(m, "FULL_UNICODE", PyBool_FromLong(full_unicode())) < 0 ||
        PyModule_AddStringConstant(m, "DEEPSEEK_CLASSES_OF", pretok_onig_version()) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
