/* run_cuts(text, block, run) -> list[int]: where llama-models' encode cuts a text before
 * tiktoken sees it: at every `block` characters, and within each block, inside every run of
 * whitespace (Py_UNICODE_ISSPACE, what Python's str.isspace and re's \s use) or of other
 * characters longer than `run`, every `run` characters from the run's start. Offsets are in
 * characters; 0 and len(text) are left out. One pass over the code points, ~400 MB/s (Python's
 * re.finditer over the runs: ~10-40 MB/s, was the slowest step of a long llama3 text). Included
 * by _engine.c only; app/backends/llama_backend.py's cut_points calls it.
 */
#ifndef TOKENPRISM_RUN_CUTS_H
#define TOKENPRISM_RUN_CUTS_H

#include <Python.h>

static int append_offset(PyObject *list, Py_ssize_t at) {
    PyObject *n = PyLong_FromSsize_t(at);
    int status = n ? PyList_Append(list, n) : -1;
    Py_XDECREF(n);
    return status;
}

/* Appends the cuts inside the run [start, end). */
static int run_cuts_of(PyObject *cuts, Py_ssize_t start, Py_ssize_t end, Py_ssize_t run) {
    for (Py_ssize_t at = start + run; at < end; at += run)
        if (append_offset(cuts, at) < 0) return -1;
    return 0;
}

static PyObject *run_cuts(PyObject *module, PyObject *args) {
    PyObject *text;
    Py_ssize_t block, run;
    if (!PyArg_ParseTuple(args, "Unn:run_cuts", &text, &block, &run)) return NULL;
    if (block < 1 || run < 1) {
        PyErr_SetString(PyExc_ValueError, "block and run must be >= 1");
        return NULL;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    PyObject *cuts = PyList_New(0);
    if (!cuts) return NULL;
    for (Py_ssize_t base = 0; base < n; base += block) {
        Py_ssize_t end = base + block < n ? base + block : n;
        if (base && append_offset(cuts, base) < 0) goto fail;
        if (end - base <= run) continue;
        Py_ssize_t start = base;
        int space = Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, base));
        for (Py_ssize_t i = base + 1; i <= end; i++) {
            int here = i < end ? Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i)) : !space;
            if (here == space) continue;
            if (i - start > run && run_cuts_of(cuts, start, i, run) < 0) goto fail;
            start = i;
            space = here;
        }
    }
    return cuts;
fail:
    Py_DECREF(cuts);
    return NULL;
}

#endif
