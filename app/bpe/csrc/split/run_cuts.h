/* run_cuts(text, block, run) -> list[int]: where llama-models' encode cuts a text before
 * tiktoken sees it: at every `block` characters, and within each block, inside every run of
 * whitespace (Py_UNICODE_ISSPACE, what Python's str.isspace and re's \s use) or of other
 * characters longer than `run`, every `run` characters from the run's start. Offsets are in
 * characters; 0 and len(text) are left out. A block is first asked whether it has any run
 * that long by measuring only the runs through every `run`-th character (a few characters
 * each in a text of words: 1 MB of Cyrillic took 1.3 ms when every character was read, ~7% of
 * a llama4 encode of it); only one that has is walked run by run (~260 MB/s: a branch the CPU
 * mispredicts at every word). Python's re.finditer over the runs: ~10-40 MB/s. The cuts are
 * found without the GIL for a long text, then made a list. Included by _engine.c only;
 * app/backends/llama_backend.py's cut_points calls it.
 */
#ifndef TOKENPRISM_RUN_CUTS_H
#define TOKENPRISM_RUN_CUTS_H

#include <Python.h>

/* Py_UNICODE_ISSPACE, asking Python only for the few code points that can be whitespace
 * beyond ASCII (U+0085, U+00A0, U+1680, U+2000..U+3000; tests/backends/test_llama_long_runs.py
 * checks that no other is). */
static inline int is_space(Py_UCS4 ch) {
    if (ch < 128) return Py_UNICODE_ISSPACE(ch);
    return (ch == 0x85 || ch == 0xA0 || ch == 0x1680 || ch - 0x2000u <= 0x1000u) && Py_UNICODE_ISSPACE(ch);
}

/* Whether text[start, end) (of `kind`) holds a run of whitespace or of other characters
 * longer than `run`. Such a run holds one of start, start + run, start + 2 * run, ... (any
 * run + 1 characters in a row hold one), so only the runs through those are measured; a run
 * measured is at most `run` long (else the answer is found), so it holds no other of them and
 * no character is read twice: a text of words costs a few reads every `run` characters, and
 * none costs more than one read a character. */
#define LONG_RUN_IN(TYPE)                                                                  \
    do {                                                                                   \
        const TYPE *d = (const TYPE *)data;                                                \
        for (Py_ssize_t at = start; at < end; at += run) {                                 \
            int space = is_space(d[at]);                                                   \
            Py_ssize_t lo = at, hi = at + 1;                                               \
            while (lo > start && is_space(d[lo - 1]) == space) lo--;                       \
            while (hi < end && is_space(d[hi]) == space) hi++;                             \
            if (hi - lo > run) return 1;                                                   \
        }                                                                                  \
        return 0;                                                                          \
    } while (0)

static int has_long_run(int kind, const void *data, Py_ssize_t start, Py_ssize_t end, Py_ssize_t run) {
    if (kind == PyUnicode_1BYTE_KIND) LONG_RUN_IN(Py_UCS1);
    if (kind == PyUnicode_2BYTE_KIND) LONG_RUN_IN(Py_UCS2);
    LONG_RUN_IN(Py_UCS4);
}

/* The cuts of the text's n characters into `out` (room for n / run + n / block + 1: a block's
 * runs give at most its length over `run`); how many. No Python call: runs without the GIL. */
static Py_ssize_t cuts_into(int kind, const void *data, Py_ssize_t n, Py_ssize_t block, Py_ssize_t run,
                            Py_ssize_t *out) {
    Py_ssize_t k = 0;
    for (Py_ssize_t base = 0; base < n; base += block) {
        Py_ssize_t end = base + block < n ? base + block : n;
        if (base) out[k++] = base;
        if (end - base <= run || !has_long_run(kind, data, base, end, run)) continue;
        Py_ssize_t start = base;
        int space = Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, base));
        for (Py_ssize_t i = base + 1; i <= end; i++) {
            int here = i < end ? Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i)) : !space;
            if (here == space) continue;
            for (Py_ssize_t at = start + run; at < i; at += run) out[k++] = at;
            start = i;
            space = here;
        }
    }
    return k;
}

/* The GIL is let go for a text of RUN_CUTS_NOGIL characters or more (at worst ~2 ms a MB). */
#define RUN_CUTS_NOGIL 65536

static PyObject *run_cuts(PyObject *module, PyObject *args) {
    PyObject *text;
    Py_ssize_t block, run;
    if (!PyArg_ParseTuple(args, "Unn:run_cuts", &text, &block, &run)) return NULL;
    if (block < 1 || run < 1) {
        PyErr_SetString(PyExc_ValueError, "block and run must be >= 1");
        return NULL;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(text), found;
    Py_ssize_t *at = PyMem_RawMalloc(sizeof *at * (size_t)(n / run + n / block + 1));
    if (!at) return PyErr_NoMemory();
    PyThreadState *saved = n >= RUN_CUTS_NOGIL ? PyEval_SaveThread() : NULL;
    found = cuts_into(PyUnicode_KIND(text), PyUnicode_DATA(text), n, block, run, at);
    if (saved) PyEval_RestoreThread(saved);
    PyObject *cuts = PyList_New(found);
    for (Py_ssize_t k = 0; cuts && k < found; k++) {
        PyObject *offset = PyLong_FromSsize_t(at[k]);
        if (!offset) Py_CLEAR(cuts);
        else PyList_SET_ITEM(cuts, k, offset);
    }
    PyMem_RawFree(at);
    return cuts;
}

#endif
