/* The Merger type of app.bpe._core: an immutable merge table (merge.h) built from byte ids
 * and pairs, with .merge(data) and .encode_chunks(chunks, cache, limit). Python API; included
 * by _core.c only.
 *
 * Left out: pre-tokenization (the caller splits text) and special tokens.
 */
#ifndef TOKENPRISM_MERGER_H
#define TOKENPRISM_MERGER_H

#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"

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

#endif
