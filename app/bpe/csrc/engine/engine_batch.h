/* The texts of one call of the engine, as UTF-8 the encoder can read without the GIL, and
 * the run of engine_encode.h's encoder (or of the stop strings' scan) over them. A call has
 * one text, a list of texts, or one text in pieces (cut at character offsets, as llama-models
 * cuts a long text: the pieces are slices of the text, nothing is copied). An ASCII str is its
 * own UTF-8, and a str that has made its UTF-8 already gives that; any other str's UTF-8 (or a
 * piece's) is written by run_batch, a text at a time into one buffer, without the GIL (where
 * CPython's PyUnicode_AsUTF8AndSize would write it with the GIL held, ~1-2 ms a MB, and keep it
 * with the str for the str's life). Python API; included by _engine.c only.
 */
#ifndef TOKENPRISM_ENGINE_BATCH_H
#define TOKENPRISM_ENGINE_BATCH_H

#include <Python.h>

#include "engine_encode.h"
#include "stop_strings.h"
#include "utf8_write.h"

/* One text of a call: its UTF-8 (`data`, `len` bytes), or, where run_batch writes that
 * (`data` NULL), the characters [first, first + chars) of `str` (borrowed: the batch's `held`
 * or the caller holds it), `len` being until then their number times their width (about
 * their bytes: Cyrillic's exactly, CJK's 2/3). */
typedef struct {
    const char *data;
    PyObject *str;
    Py_ssize_t first, chars, len;
} Text;

/* The texts of a call and, for a batch, a tuple holding the strs (so they outlive the released
 * GIL whatever happens to the caller's list; a single text is the caller's argument, held for
 * the call). `one` and `one_slot` serve a single text. */
typedef struct {
    PyObject *held;
    Text *texts;
    Py_ssize_t n;
    size_t total;
    size_t wide; /* bytes of the texts that are not ASCII: each costs a merge more often */
    Text one;
    size_t one_slot; /* the one text's end or count */
} Batch;

static void batch_free(Batch *b) {
    Py_XDECREF(b->held);
    if (b->texts != &b->one) PyMem_Free(b->texts);
}

/* Whether run_batch writes the UTF-8 of `text` (a str): one of 1-4 byte characters, not all
 * ASCII, that has not made its UTF-8 yet. Other strs (and every str from 3.14, whose layout
 * this does not read) get CPython's. */
static int utf8_to_write(PyObject *text) {
#if PY_VERSION_HEX < 0x030E0000
    return PyUnicode_IS_COMPACT(text) && !PyUnicode_IS_ASCII(text) && !((PyCompactUnicodeObject *)text)->utf8;
#else
    (void)text;
    return 0;
#endif
}

/* Text i of the batch; `lazy`: run_batch may write its UTF-8 (0: CPython writes it now). */
static int batch_add(Batch *b, Py_ssize_t i, PyObject *text, int lazy) {
    if (!PyUnicode_Check(text)) {
        if (b->held) PyErr_Format(PyExc_TypeError, "text %zd is %.100s, not str", i, Py_TYPE(text)->tp_name);
        else PyErr_Format(PyExc_TypeError, "text must be str, not %.100s", Py_TYPE(text)->tp_name);
        return -1;
    }
    Text *x = &b->texts[i];
    x->str = text;
    x->chars = PyUnicode_GET_LENGTH(text);
    if (lazy && utf8_to_write(text)) x->len = x->chars * (Py_ssize_t)PyUnicode_KIND(text);
    else if (!(x->data = PyUnicode_AsUTF8AndSize(text, &x->len))) return -1;
    b->total += (size_t)x->len;
    if (!PyUnicode_IS_ASCII(text)) b->wide += (size_t)x->len;
    return 0;
}

/* Room for n texts (n >= 1), each empty; -1 with MemoryError set. */
static int batch_texts(Batch *b, Py_ssize_t n) {
    b->n = n;
    if ((b->texts = PyMem_Calloc((size_t)n, sizeof *b->texts))) return 0;
    PyErr_NoMemory();
    return -1;
}

/* `arg` is one str (batch 0) or a list or tuple of them; `lazy` as in batch_add. */
static int batch_init(Batch *b, PyObject *arg, int batch, int lazy) {
    memset(b, 0, sizeof *b);
    if (!batch) {
        b->n = 1;
        b->texts = &b->one;
        return batch_add(b, 0, arg, lazy);
    }
    if (!PyList_Check(arg) && !PyTuple_Check(arg)) {
        PyErr_Format(PyExc_TypeError, "texts must be a list of str, not %.100s", Py_TYPE(arg)->tp_name);
        return -1;
    }
    if (!(b->held = PySequence_Tuple(arg))) return -1;
    Py_ssize_t n = PyTuple_GET_SIZE(b->held);
    if (batch_texts(b, n ? n : 1) < 0) return -1;
    b->n = n;
    for (Py_ssize_t i = 0; i < b->n; i++)
        if (batch_add(b, i, PyTuple_GET_ITEM(b->held, i), lazy) < 0) return -1;
    return 0;
}

/* `text` (a str) cut at `cuts` (a list of character offsets, increasing, each inside the
 * text): a batch of its pieces, slices of its UTF-8 or, where run_batch writes that, of its
 * characters. */
static int batch_init_cut(Batch *b, PyObject *text, PyObject *cuts) {
    memset(b, 0, sizeof *b);
    Py_ssize_t n_cuts = PyList_GET_SIZE(cuts), length = PyUnicode_GET_LENGTH(text), size = 0;
    int lazy = utf8_to_write(text), ascii = PyUnicode_IS_ASCII(text), kind = PyUnicode_KIND(text);
    const char *s = lazy ? NULL : PyUnicode_AsUTF8AndSize(text, &size);
    if (!lazy && !s) return -1;
    if (batch_texts(b, n_cuts + 1) < 0) return -1;
    Py_ssize_t byte = 0, from = 0;
    for (Py_ssize_t t = 0; t < b->n; t++) {
        Py_ssize_t cut = t < n_cuts ? PyLong_AsSsize_t(PyList_GET_ITEM(cuts, t)) : length;
        if (cut == -1 && PyErr_Occurred()) return -1;
        if (t < n_cuts && (cut <= from || cut >= length)) {
            PyErr_Format(PyExc_ValueError, "cut %zd is %zd: cuts must increase and fall inside the text (1..%zd)", t,
                         cut, length - 1);
            return -1;
        }
        Text *x = &b->texts[t];
        *x = (Text){NULL, text, from, cut - from, (cut - from) * kind};
        if (!lazy) {
            x->data = s + byte;
            if (ascii)
                byte = cut;
            else
                for (Py_ssize_t c = from; c < cut; c++) /* to the first byte of character `cut` */
                    for (byte++; byte < size && ((unsigned char)s[byte] & 0xC0) == 0x80; byte++) {}
            x->len = s + byte - x->data;
        }
        b->total += (size_t)x->len;
        from = cut;
    }
    b->wide = ascii ? 0 : b->total;
    return 0;
}

/* Text t's UTF-8 and its length in *len: its own, or written into *buf (grown as needed,
 * *cap bytes). NULL when out of memory (*status ENC_NO_MEMORY) or at a surrogate
 * (ENC_SURROGATE). Reads only the str's fields: callable without the GIL. */
static const char *batch_utf8(const Batch *b, Py_ssize_t t, unsigned char **buf, size_t *cap, size_t *len,
                              int *status) {
    const Text *x = &b->texts[t];
    if (x->data) {
        *len = (size_t)x->len;
        return x->data;
    }
    int kind = PyUnicode_KIND(x->str);
    Py_ssize_t n = x->chars;
    const void *data = (const char *)PyUnicode_DATA(x->str) + x->first * kind;
    size_t need = utf8_room(kind, data, n);
    if (need > *cap) { /* not realloc: what the buffer held is done with */
        free(*buf);
        if (!(*buf = malloc(need))) {
            *cap = 0;
            *status = ENC_NO_MEMORY;
            return NULL;
        }
        *cap = need;
    }
    Py_ssize_t written = utf8_write(kind, data, n, *buf);
    if (written < 0) {
        *status = ENC_SURROGATE;
        return NULL;
    }
    *len = (size_t)written;
    return (const char *)*buf;
}

/* The error for `status`; for ENC_SURROGATE, CPython's own, from text `t`'s encoder. */
static void set_error(const Batch *b, Py_ssize_t t, int status) {
    Py_ssize_t size;
    if (status == ENC_NO_MEMORY) PyErr_NoMemory();
    else if (status != ENC_SURROGATE) PyErr_SetString(PyExc_ValueError, "a chunk of a text is longer than 2**31 bytes");
    else if (PyUnicode_AsUTF8AndSize(b->texts[t].str, &size)) /* never: it holds a surrogate */
        PyErr_SetString(PyExc_UnicodeEncodeError, "a text holds a lone surrogate");
}

/* Encodes (out != NULL) or counts (counts != NULL, one per text) every text of the batch;
 * ends[t] is where text t's ids end in out. With `stops`, a text holding one of them ends the
 * run: ENC_STOPPED, no error set; or, given `hits`, only the stop strings are looked for, and
 * hits[t] set for each text holding one. The GIL is released for NOGIL_BYTES or more, or
 * NOGIL_WIDE_BYTES of non-ASCII text: less ASCII is done in a few microseconds, less than
 * handing the GIL to another thread and back costs (measured: releasing it for 1 KB of ASCII
 * prose made two threads slower, for 1 KB of translations 1.6-1.8x faster than one); for the
 * scan alone (a GB/s, ~1 ms a MB where it writes the UTF-8), NOGIL_SCAN_BYTES. */
#define NOGIL_BYTES 4096
#define NOGIL_WIDE_BYTES 256
#define NOGIL_SCAN_BYTES 65536
static int batch_releases(const Batch *b, int scan) {
    return scan ? b->total >= NOGIL_SCAN_BYTES : b->total >= NOGIL_BYTES || b->wide >= NOGIL_WIDE_BYTES;
}

static int run_batch(const Core *core, const Batch *b, Ids *out, size_t *ends, size_t *counts,
                     const StopStrings *stops, unsigned char *hits) {
    Ids scratch = {NULL, 0, 0};
    ChunkCache spare = {0}; /* when this thread's caches cannot be had */
    unsigned char *utf8 = NULL; /* the texts' UTF-8 this call writes, one at a time */
    size_t utf8_cap = 0, len;
    int status = ENC_OK;
    Py_ssize_t t = 0;
    PyThreadState *saved = batch_releases(b, hits != NULL) ? PyEval_SaveThread() : NULL;
    ChunkCache *cache = hits ? &spare : thread_cache(core->serial);
    if (!cache) cache = &spare;
    /* room for an id every two bytes: real text never outgrows it (prose has one every ~3.5), so
     * no realloc copies it (a MB of prose: 1 MB copied, ~15,000 line misses each way, at a
     * quarter); the room never written is never touched */
    if (out && ids_reserve(out, b->total / 2 + 16) < 0) status = ENC_NO_MEMORY;
    for (; t < b->n && status == ENC_OK; t++) {
        const char *s = batch_utf8(b, t, &utf8, &utf8_cap, &len, &status);
        if (!s) break;
        if (stops && stops_found(stops, (const unsigned char *)s, len)) {
            if (!hits) {
                status = ENC_STOPPED;
                break;
            }
            hits[t] = 1;
        }
        if (hits) continue;
        status = encode_bytes(core, (const unsigned char *)s, len, out, counts ? &counts[t] : NULL, &scratch, cache);
        if (ends) ends[t] = out->n;
    }
    if (saved) PyEval_RestoreThread(saved);
    free(scratch.v);
    free(utf8);
    cache_free(&spare);
    if (status != ENC_OK && status != ENC_STOPPED) set_error(b, t, status);
    return status;
}

#endif
