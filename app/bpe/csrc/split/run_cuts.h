/* run_cuts(text, block, run) -> list[int]: where llama-models' encode cuts a text before
 * tiktoken sees it: at every `block` characters, and within each block, inside every run of
 * whitespace (Py_UNICODE_ISSPACE, what Python's str.isspace and re's \s use) or of other
 * characters longer than `run`, every `run` characters from the run's start. Offsets are in
 * characters; 0 and len(text) are left out. A block is first read for whether it has any run
 * that long (where a run last ended, kept without a branch on each character: ~1.5 GB/s of
 * ASCII); only one that has is walked run by run (~260 MB/s: a branch the CPU mispredicts at
 * every word). Python's re.finditer over the runs: ~10-40 MB/s. Included by _engine.c only;
 * app/backends/llama_backend.py's cut_points calls it.
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

/* Py_UNICODE_ISSPACE, asking Python only for the few code points that can be whitespace
 * beyond ASCII (U+0085, U+00A0, U+1680, U+2000..U+3000; tests/backends/test_llama_long_runs.py
 * checks that no other is). */
static inline int is_space(Py_UCS4 ch) {
    if (ch < 128) return Py_UNICODE_ISSPACE(ch);
    return (ch == 0x85 || ch == 0xA0 || ch == 0x1680 || ch - 0x2000u <= 0x1000u) && Py_UNICODE_ISSPACE(ch);
}

/* Whether text[start, end) (of `kind`) holds a run of whitespace or of other characters
 * longer than `run`. */
#define LONG_RUN_IN(TYPE)                                                                  \
    do {                                                                                   \
        const TYPE *d = (const TYPE *)data;                                                \
        Py_ssize_t last_space = start - 1, last_other = start - 1;                         \
        for (Py_ssize_t i = start; i < end; i++) {                                         \
            int space = is_space(d[i]);                                                    \
            last_space = space ? i : last_space;                                           \
            last_other = space ? last_other : i;                                           \
            if (i - last_space > run || i - last_other > run) return 1;                    \
        }                                                                                  \
        return 0;                                                                          \
    } while (0)

static int has_long_run(int kind, const void *data, Py_ssize_t start, Py_ssize_t end, Py_ssize_t run) {
    if (kind == PyUnicode_1BYTE_KIND) LONG_RUN_IN(Py_UCS1);
    if (kind == PyUnicode_2BYTE_KIND) LONG_RUN_IN(Py_UCS2);
    LONG_RUN_IN(Py_UCS4);
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
        if (end - base <= run || !has_long_run(kind, data, base, end, run)) continue;
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
