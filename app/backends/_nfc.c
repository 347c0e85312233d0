/* NFC where it can change: app.backends._nfc.nfc(text) -> str, equal to
 * unicodedata.normalize("NFC", text), built by setup.py with the table nfc_tables.py generates.
 *
 * Python's normalize checks the whole text quickly, but once one character fails the check it
 * rebuilds the whole text. Here the text is scanned for the characters that are not boundaries
 * (nfc_tables.py: NFC never works across the cut before a boundary), and only the pieces
 * around them go to unicodedata.normalize: from the boundary before a run of them to the next
 * boundary after it, runs fewer than JOIN_GAP characters apart in one piece. The normalizing
 * itself is Python's, so the result is its own. A text whose pieces all come back unchanged is
 * returned as it is.
 *
 * Left out: the other forms (NFD, NFKC, NFKD).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "nfc_boundaries.h"

#define JOIN_GAP 32 /* characters; runs this close are normalized in one call */

static PyObject *normalize_fn; /* unicodedata.normalize */
static PyObject *nfc_form;     /* "NFC" */

static inline int is_boundary(Py_UCS4 c) {
    size_t word = (size_t)nfc_stage1[c >> NFC_BLOCK_BITS] << (NFC_BLOCK_BITS - 6) | (c >> 6 & ((1u << (NFC_BLOCK_BITS - 6)) - 1));
    return (int)(nfc_stage2[word] >> (c & 63) & 1);
}

#define ALL_BOUNDARIES_BELOW 0x300 /* U+0000..U+02FF: checked at import (PyInit__nfc) */

/* The first character at or after i that is not a boundary, or n. */
static Py_ssize_t next_joiner(int kind, const void *data, Py_ssize_t i, Py_ssize_t n) {
    if (kind == PyUnicode_2BYTE_KIND) {
        const Py_UCS2 *s = data;
        for (; i < n; i++)
            if (s[i] >= ALL_BOUNDARIES_BELOW && !is_boundary(s[i])) return i;
        return n;
    }
    if (kind == PyUnicode_4BYTE_KIND) {
        const Py_UCS4 *s = data;
        for (; i < n; i++)
            if (s[i] >= ALL_BOUNDARIES_BELOW && !is_boundary(s[i])) return i;
        return n;
    }
    return n; /* Latin-1: every character a boundary */
}

/* Appends text[start:end) to parts; -1 with a Python error set on failure. */
static int append_slice(PyObject *parts, PyObject *text, Py_ssize_t start, Py_ssize_t end) {
    if (start == end) return 0;
    PyObject *slice = PyUnicode_Substring(text, start, end);
    int failed = !slice || PyList_Append(parts, slice) < 0;
    Py_XDECREF(slice);
    return failed ? -1 : 0;
}

static PyObject *nfc(PyObject *module, PyObject *text) {
    (void)module;
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "text must be str, not %.100s", Py_TYPE(text)->tp_name);
        return NULL;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0) return NULL;
#endif
    if (PyUnicode_IS_ASCII(text)) return Py_NewRef(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text), done = 0; /* text[0:done) is in parts */
    PyObject *parts = NULL;                             /* made at the first piece that changes */
    for (Py_ssize_t i = next_joiner(kind, data, 0, n); i < n; i = next_joiner(kind, data, i, n)) {
        Py_ssize_t start = i > done ? i - 1 : done, end = i + 1; /* the boundary before the run */
        for (;;) {
            while (end < n && !is_boundary(PyUnicode_READ(kind, data, end))) end++;
            Py_ssize_t next = end;
            while (next < n && next - end < JOIN_GAP && is_boundary(PyUnicode_READ(kind, data, next))) next++;
            if (next == n || next - end == JOIN_GAP) break;
            end = next + 1; /* another run close by: one piece */
        }
        PyObject *piece = PyUnicode_Substring(text, start, end), *normal = NULL;
        if (piece) normal = PyObject_CallFunctionObjArgs(normalize_fn, nfc_form, piece, NULL);
        int changed = normal && normal != piece && PyUnicode_Compare(normal, piece) != 0;
        if (normal && changed && !parts) parts = PyList_New(0);
        int failed = !normal || (changed && (!parts || append_slice(parts, text, done, start) < 0 ||
                                             PyList_Append(parts, normal) < 0));
        Py_XDECREF(piece);
        Py_XDECREF(normal);
        if (failed) {
            Py_XDECREF(parts);
            return NULL;
        }
        if (changed) done = end;
        i = end;
    }
    if (!parts) return Py_NewRef(text);
    PyObject *empty = PyUnicode_New(0, 0), *result = NULL;
    if (empty && append_slice(parts, text, done, n) == 0) result = PyUnicode_Join(empty, parts);
    Py_XDECREF(empty);
    Py_DECREF(parts);
    return result;
}

static PyMethodDef methods[] = {
    {"nfc", nfc, METH_O, "nfc(text: str) -> str: unicodedata.normalize('NFC', text), normalizing only where it can change"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    .m_base = PyModuleDef_HEAD_INIT, .m_name = "_nfc", .m_doc = "NFC where it can change.", .m_size = -1, .m_methods = methods};

PyMODINIT_FUNC PyInit__nfc(void) {
    PyObject *unicodedata = PyImport_ImportModule("unicodedata");
    if (!unicodedata) return NULL;
    normalize_fn = PyObject_GetAttrString(unicodedata, "normalize");
    Py_DECREF(unicodedata);
    if (!normalize_fn || !(nfc_form = PyUnicode_FromString("NFC"))) return NULL;
    for (Py_UCS4 c = 0; c < ALL_BOUNDARIES_BELOW; c++)
        if (!is_boundary(c)) {
            PyErr_Format(PyExc_ImportError, "U+%04X is no NFC boundary in this Unicode data: _nfc.c assumes it is", c);
            return NULL;
        }
    PyObject *m = PyModule_Create(&module);
    if (m && PyModule_AddStringConstant(m, "UNIDATA_VERSION", NFC_UNIDATA_VERSION) < 0) Py_CLEAR(m);
    return m;
}
