/* The texts of one call of the engine, as UTF-8 the encoder can read without the GIL. Python
 * API; included by _engine.c only.
 */
#ifndef TOKENPRISM_ENGINE_BATCH_H
#define TOKENPRISM_ENGINE_BATCH_H

#include <Python.h>

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

#endif
