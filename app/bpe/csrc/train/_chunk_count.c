/* The chunk counting of BPE training in C, on threads: app.bpe._chunk_count, built by setup.py
 * with pretokenize.c on the `regex` module's Unicode classes (pretokenize_regex.c).
 *
 * count_chunks(family: int, documents: list[str], threads: int) -> tuple[list[str], list[int]] | None
 *     The distinct chunks pretok_next_regex cuts the documents into (each document on its own),
 *     in order of first appearance, and how often each occurs: exactly the Counter of the
 *     `regex` module's findall with the family's pattern over the documents in order (tested
 *     for gpt2 and cl100k). None when a document is not UTF-8 (a lone surrogate) or holds a
 *     chunk of 4 GB: the caller counts in Python then. The UTF-8 of each str is taken with
 *     the GIL (an ASCII str's own characters, else a copy dropped at the end), then the GIL is
 *     released: the text is cut into `threads` contiguous groups of about equal bytes, each
 *     counted by its own thread into its own hash map, and the maps are added in group order
 *     (a chunk new to the total is appended in its group's order), which gives the order of
 *     one pass. A group ends at a document's end or inside one, just before an ASCII letter
 *     that follows a '\n': no chunk of any family holds both (a newline is only ever in a
 *     chunk of white space, or at the end of punctuation's trailing newlines), so the chunks
 *     from there are the chunks of one pass.
 *
 * Left out: patterns that are not a family (train.py keeps the `regex` module for those) and
 * the merges (_core.c).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <pthread.h>

#include "chunk_map.h"
#include "pretokenize.h"

#define MAX_THREADS 64

typedef struct {
    const unsigned char *s;
    size_t n;
} document;

typedef struct { /* a position in the text: byte `at` of document `doc` */
    size_t doc, at;
} place;

typedef struct {
    pretok_family family;
    const document *docs;
    place from, to;
    counts table;
} group;

static void *count_group(void *arg) {
    group *g = arg;
    for (size_t d = g->from.doc; d <= g->to.doc; d++) {
        const unsigned char *s = g->docs[d].s;
        size_t n = g->docs[d].n, i = d == g->from.doc ? g->from.at : 0, end = d == g->to.doc ? g->to.at : n;
        while (i < end) {
            size_t j = pretok_next_regex(g->family, s, i, n);
            if (j - i >= UINT32_MAX) {
                g->table.failed = TOO_LONG;
                return NULL;
            }
            add(&g->table, s + i, j - i, hash_bytes(s + i, j - i), 1);
            i = j;
        }
    }
    return NULL;
}

/* The first place at or after byte `at` of document `d` where a group may start (see the top). */
static place cut_at(const document *docs, size_t count, size_t d, size_t at) {
    for (; d < count; d++, at = 0) {
        const unsigned char *s = docs[d].s, *end = s + docs[d].n;
        if (at == 0) return (place){d, 0};
        for (const unsigned char *p = s + at - 1; p < end && (p = memchr(p, '\n', (size_t)(end - p))); p++)
            if (p + 1 < end && (unsigned)((p[1] | 0x20) - 'a') < 26) return (place){d, (size_t)(p + 1 - s)};
    }
    return (place){count, 0};
}

static int before(place a, place b) { return a.doc < b.doc || (a.doc == b.doc && a.at < b.at); }

/* Counts the documents on `threads` threads into groups[0..threads): 0, OUT_OF_MEMORY or TOO_LONG. */
static int count_all(pretok_family family, const document *docs, size_t count, group *groups, int threads) {
    size_t total = 0, d = 0, seen = 0;
    for (size_t k = 0; k < count; k++) total += docs[k].n;
    place at = {0, 0};
    for (int g = 0; g < threads; g++) {
        groups[g] = (group){.family = family, .docs = docs, .from = at};
        size_t target = (size_t)((double)total * (g + 1) / threads);
        while (d < count && seen + docs[d].n <= target) seen += docs[d++].n;
        place cut = g == threads - 1 ? (place){count, 0} : cut_at(docs, count, d, target - seen);
        if (before(cut, at)) cut = at;
        groups[g].to = cut;
        at = cut;
    }
    for (int g = 0; g < threads; g++) /* the end (count, 0) is the last byte of the last document */
        if (groups[g].to.doc == count) groups[g].to = count ? (place){count - 1, docs[count - 1].n} : (place){0, 0};
    pthread_t ids[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    for (int g = 1; g < threads; g++) started[g] = pthread_create(&ids[g], NULL, count_group, &groups[g]) == 0;
    count_group(&groups[0]);
    for (int g = 1; g < threads; g++) {
        if (started[g]) pthread_join(ids[g], NULL);
        else count_group(&groups[g]);
    }
    counts *sum = &groups[0].table;
    for (int g = 1; g < threads; g++)
        for (size_t k = 0; k < groups[g].table.n; k++) {
            const entry *e = nth(&groups[g].table, k);
            add(sum, chunk_of(&groups[g].table, e), e->len, e->hash, e->count);
        }
    int failed = 0;
    for (int g = 0; g < threads; g++) failed = failed > groups[g].table.failed ? failed : groups[g].table.failed;
    return failed;
}

static PyObject *results(const counts *t) {
    PyObject *chunks = PyList_New((Py_ssize_t)t->n), *numbers = PyList_New((Py_ssize_t)t->n);
    int ok = chunks && numbers;
    for (size_t k = 0; ok && k < t->n; k++) {
        const entry *e = nth(t, k);
        PyObject *chunk = PyUnicode_DecodeUTF8((const char *)chunk_of(t, e), e->len, "strict");
        PyObject *number = PyLong_FromUnsignedLongLong(e->count);
        ok = chunk && number;
        if (chunk) PyList_SET_ITEM(chunks, (Py_ssize_t)k, chunk); /* a list's unset items are NULL: safe to drop */
        if (number) PyList_SET_ITEM(numbers, (Py_ssize_t)k, number);
    }
    if (!ok) {
        Py_XDECREF(chunks);
        Py_XDECREF(numbers);
        return NULL;
    }
    return Py_BuildValue("(NN)", chunks, numbers);
}

static PyObject *count_chunks(PyObject *module, PyObject *args) {
    int family, threads;
    PyObject *given;
    if (!PyArg_ParseTuple(args, "iOi:count_chunks", &family, &given, &threads)) return NULL;
    if (family < 0 || family >= PRETOK_FAMILIES)
        return PyErr_Format(PyExc_ValueError, "family %d is not one of 0..%d (app/bpe/families.py)", family,
                            PRETOK_FAMILIES - 1);
    if (threads < 1) return PyErr_Format(PyExc_ValueError, "threads is %d; give 1 or more", threads);
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    PyObject *held = PySequence_Tuple(given); /* keeps every str alive without the GIL */
    if (!held) return NULL;
    Py_ssize_t count = PyTuple_GET_SIZE(held);
    PyObject *encoded = PyList_New(0); /* the UTF-8 of the documents that are not ASCII, until the end */
    document *docs = PyMem_Calloc((size_t)count + 1, sizeof *docs);
    group *groups = PyMem_Calloc((size_t)threads, sizeof *groups);
    PyObject *out = NULL;
    if (!docs || !groups || !encoded) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *text = PyTuple_GET_ITEM(held, k);
        if (!PyUnicode_Check(text)) {
            PyErr_Format(PyExc_TypeError, "document %zd is a %.100s, not a str", k, Py_TYPE(text)->tp_name);
            goto done;
        }
        if (PyUnicode_IS_ASCII(text)) { /* its characters are its UTF-8 */
            docs[k].s = PyUnicode_DATA(text);
            docs[k].n = (size_t)PyUnicode_GET_LENGTH(text);
            continue;
        }
        /* A bytes copy, dropped at the end (PyUnicode_AsUTF8 would keep one in the str for its life). */
        PyObject *utf8 = PyUnicode_AsUTF8String(text);
        if (!utf8) {
            if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) goto done;
            PyErr_Clear(); /* a lone surrogate: the Python path counts this call */
            out = Py_NewRef(Py_None);
            goto done;
        }
        int appended = PyList_Append(encoded, utf8);
        Py_DECREF(utf8);
        if (appended < 0) goto done;
        docs[k].s = (const unsigned char *)PyBytes_AS_STRING(utf8);
        docs[k].n = (size_t)PyBytes_GET_SIZE(utf8);
    }
    int failed;
    Py_BEGIN_ALLOW_THREADS
    failed = count_all((pretok_family)family, docs, (size_t)count, groups, threads);
    Py_END_ALLOW_THREADS
    out = failed == TOO_LONG ? Py_NewRef(Py_None) : failed ? PyErr_NoMemory() : results(&groups[0].table);
done:
    if (groups)
        for (int g = 0; g < threads; g++) release(&groups[g].table);
    PyMem_Free(groups);
    PyMem_Free(docs);
    Py_XDECREF(encoded);
    Py_DECREF(held);
    return out;
}

static PyMethodDef methods[] = {
    {"count_chunks", count_chunks, METH_VARARGS,
     "count_chunks(family, documents, threads) -> (distinct chunks in first-appearance order, their counts), "
     "or None if a document is not UTF-8"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_chunk_count", NULL, -1, methods};

PyMODINIT_FUNC PyInit__chunk_count(void) {
    pretok_init_regex();
    return PyModule_Create(&module);
}
