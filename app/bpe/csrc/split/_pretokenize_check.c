/* A test and bench binding of the C pretokenizer (pretokenize.c); the app does not use it.
 * Built as app.bpe._pretokenize_check by setup.py.
 *
 * chunks(family: int, text: str, regex: bool = False, blocks: bool = False) -> list[tuple[int, int]]
 *     The (start, end) character offsets of the chunks pretok_next (pretok_next_regex when
 *     `regex`; split_blocks.h's ASCII windows, as the engine cuts, when `blocks`) cuts `text` into.
 * count(family: int, data: bytes) -> int
 *     How many chunks `data` has, without the GIL: the split alone, for timing. RuntimeError
 *     if a chunk does not end after its start and at most at the end (any bytes, even not UTF-8).
 * table(regex: bool = False, onig: bool = False) -> bytes  (positional)
 *     The class byte (PT_OTHER ... PT_NEWLINE) of every code point 0..U+10FFFF, in tiktoken's
 *     table (the `regex` module's when `regex`, the Hugging Face library's when `onig`).
 *
 * Left out: ids (the engine's part) and special tokens.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "pretokenize.h"
#include "split_blocks.h"

static int family_of(int family) {
    if (family >= 0 && family < PRETOK_FAMILIES) return 1;
    PyErr_Format(PyExc_ValueError, "family %d is not one of 0..%d (app/bpe/families.py)", family, PRETOK_FAMILIES - 1);
    return 0;
}

static PyObject *chunks(PyObject *module, PyObject *args) {
    int family, regex = 0, in_blocks = 0;
    PyObject *text;
    if (!PyArg_ParseTuple(args, "iU|pp:chunks", &family, &text, &regex, &in_blocks) || !family_of(family))
        return NULL;
    size_t (*next)(pretok_family, const unsigned char *, size_t, size_t) = regex ? pretok_next_regex : pretok_next;
    Py_ssize_t n;
    const unsigned char *s = (const unsigned char *)PyUnicode_AsUTF8AndSize(text, &n);
    if (!s) return NULL;
    SplitBlocks blocks;
    blocks_init(&blocks, in_blocks ? block_rules((pretok_family)family) : NULL, s, (size_t)n);
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    Py_ssize_t chars = 0; /* the character offset of byte i */
    for (size_t i = 0; i < (size_t)n;) {
        size_t end = in_blocks ? blocks_next(&blocks, pretok_function((pretok_family)family), i)
                               : next((pretok_family)family, s, i, (size_t)n);
        Py_ssize_t start = chars;
        for (; i < end; i++) chars += (s[i] & 0xC0) != 0x80;
        PyObject *pair = Py_BuildValue("(nn)", start, chars);
        if (!pair || PyList_Append(out, pair) < 0) {
            Py_XDECREF(pair);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(pair);
    }
    return out;
}

static PyObject *count(PyObject *module, PyObject *args) {
    int family;
    Py_buffer data;
    if (!PyArg_ParseTuple(args, "iy*:count", &family, &data)) return NULL;
    if (!family_of(family)) {
        PyBuffer_Release(&data);
        return NULL;
    }
    size_t chunks = 0, n = (size_t)data.len, i = 0, end = 0;
    const unsigned char *s = data.buf;
    Py_BEGIN_ALLOW_THREADS
    for (; i < n; chunks++, i = end)
        if ((end = pretok_next((pretok_family)family, s, i, n)) <= i || end > n) break;
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&data);
    if (i < n)
        return PyErr_Format(PyExc_RuntimeError, "pretok_next gave %zu for the chunk at byte %zu of %zu", end, i, n);
    return PyLong_FromSize_t(chunks);
}

static PyObject *table(PyObject *module, PyObject *args) {
    int regex = 0, onig = 0;
    if (!PyArg_ParseTuple(args, "|pp:table", &regex, &onig)) return NULL;
    PyObject *out = PyBytes_FromStringAndSize(NULL, 0x110000);
    if (!out) return NULL;
    char *bytes = PyBytes_AS_STRING(out);
    for (unsigned long cp = 0; cp < 0x110000; cp++)
        bytes[cp] = (char)(onig ? pretok_class_onig(cp) : regex ? pretok_class_regex(cp) : pretok_class(cp));
    return out;
}

static PyObject *windows(PyObject *module, PyObject *args) {
    int family;
    if (!PyArg_ParseTuple(args, "i:windows", &family) || !family_of(family)) return NULL;
    return PyBool_FromLong(block_rules((pretok_family)family) != NULL);
}

static PyMethodDef methods[] = {
    {"windows", windows, METH_VARARGS, "windows(family) -> whether split_blocks.h cuts its ASCII 64 bytes at a time"},
    {"chunks", chunks, METH_VARARGS,
     "chunks(family, text, regex=False, blocks=False) -> the (start, end) character offsets of its chunks"},
    {"count", count, METH_VARARGS, "count(family, utf8_bytes) -> the number of chunks (without the GIL)"},
    {"table", table, METH_VARARGS, "table(regex=False, onig=False) -> the class byte of every code point"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_pretokenize_check", NULL, -1, methods};

PyMODINIT_FUNC PyInit__pretokenize_check(void) {
    blocks_init_tables(); /* and pretok_init */
    return PyModule_Create(&module);
}
