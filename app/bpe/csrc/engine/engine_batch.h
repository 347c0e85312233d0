/* The texts of one call of the engine, as UTF-8 the encoder can read without the GIL, and
 * the run of engine_encode.h's encoder over them. A call has one text, a list of texts, or
 * one text in pieces (cut at character offsets, as llama-models cuts a long text: the pieces
 * are slices of the text's UTF-8, nothing is copied). Python API; included by _engine.c only.
 */
#ifndef TOKENPRISM_ENGINE_BATCH_H
#define TOKENPRISM_ENGINE_BATCH_H

#include <Python.h>

#include "engine_encode.h"

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

/* `text` (a str) cut at `cuts` (a list of character offsets, increasing, each inside the
 * text): a batch of its pieces. */
static int batch_init_cut(Batch *b, PyObject *text, PyObject *cuts) {
    memset(b, 0, sizeof *b);
    Py_ssize_t n_cuts = PyList_GET_SIZE(cuts), length = PyUnicode_GET_LENGTH(text), size;
    const char *s = PyUnicode_AsUTF8AndSize(text, &size);
    if (!s) return -1;
    b->n = n_cuts + 1;
    b->data = PyMem_Calloc((size_t)b->n, sizeof *b->data);
    b->lens = PyMem_Calloc((size_t)b->n, sizeof *b->lens);
    if (!b->data || !b->lens) {
        PyErr_NoMemory();
        return -1;
    }
    int ascii = PyUnicode_IS_ASCII(text);
    Py_ssize_t byte = 0, chars = 0, start = 0;
    for (Py_ssize_t t = 0; t < b->n; t++) {
        Py_ssize_t cut = t < n_cuts ? PyLong_AsSsize_t(PyList_GET_ITEM(cuts, t)) : length;
        if (cut == -1 && PyErr_Occurred()) return -1;
        if (t < n_cuts && (cut <= chars || cut >= length)) {
            PyErr_Format(PyExc_ValueError, "cut %zd is %zd: cuts must increase and fall inside the text (1..%zd)", t,
                         cut, length - 1);
            return -1;
        }
        if (ascii)
            byte = cut;
        else
            for (; chars < cut; chars++) /* to the first byte of character `cut` */
                for (byte++; byte < size && ((unsigned char)s[byte] & 0xC0) == 0x80; byte++) {}
        chars = cut;
        b->data[t] = s + start;
        b->lens[t] = byte - start;
        start = byte;
    }
    b->total = (size_t)size;
    b->wide = ascii ? 0 : (size_t)size;
    return 0;
}

static void set_error(int status) {
    if (status == ENC_NO_MEMORY) PyErr_NoMemory();
    else PyErr_SetString(PyExc_ValueError, "a chunk of the text is longer than 2**31 bytes");
}

/* Encodes (out != NULL) or counts (counts != NULL, one per text) every text of the batch;
 * ends[t] is where text t's ids end in out. The GIL is released for NOGIL_BYTES or more, or
 * NOGIL_WIDE_BYTES of non-ASCII text: less ASCII is done in a few microseconds, less than
 * handing the GIL to another thread and back costs (measured: releasing it for 1 KB of ASCII
 * prose made two threads slower, for 1 KB of translations 1.6-1.8x faster than one). */
#define NOGIL_BYTES 4096
#define NOGIL_WIDE_BYTES 256
static int batch_releases(const Batch *b) { return b->total >= NOGIL_BYTES || b->wide >= NOGIL_WIDE_BYTES; }

static int run_batch(const Core *core, const Batch *b, Ids *out, size_t *ends, size_t *counts) {
    Ids scratch = {NULL, 0, 0};
    ChunkCache spare = {0}; /* when this thread's caches cannot be had */
    int status = ENC_OK;
    PyThreadState *saved = batch_releases(b) ? PyEval_SaveThread() : NULL;
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

#endif
