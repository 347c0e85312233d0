/* tokenprism's BPE in C: the training merge loop and the encoder's merge.
 * Built as app.bpe._core by setup.py (`pip install -e .`).
 *
 * Training -- merge_loop(chunks: list[bytes], weights: list[int], num_merges: int, progress)
 *     -> list[tuple[int, int, int]]   (left, right, count)
 *
 * `chunks` are the distinct pre-token chunks (UTF-8) in order of first appearance and
 * `weights` how often each occurs. Returns the pairs the lecture's naive algorithm merges
 * (merge i makes id 256 + i): the most frequent pair, ties to the pair whose first
 * occurrence (lowest chunk number, then leftmost position) comes first, each with its
 * count when it was chosen (the weighted occurrences the naive `get_stats` gives it). See
 * train.py for the definition; tests/bpe/test_bpe_vs_naive.py checks it.
 *
 * How: pair counts (weighted) in a hash table; for each pair a list of the chunks it was
 * added to (entries go stale when a pair leaves a chunk; they are checked when used);
 * a max-heap of (count, pair) whose entries are skipped when the count moved on. A
 * merge rewrites only the chunks listed for the merged pair, in place, and adjusts the
 * counts of the pairs around each merge site. The GIL is released except to call
 * `progress(merges_done, num_merges, left, right, count)` after each merge.
 *
 * Encoding -- Merger(byte_ids: bytes, pairs: list[tuple[int, int]]), an immutable merge
 * table (pair i makes id 256 + i; byte_ids[b] is the id of byte b), with
 *     .merge(data: bytes) -> list[int]          the ids of one chunk
 *     .encode_chunks(chunks: list[str], cache: dict[str, bytes], limit: int) -> list[int]
 * (merger.h) and recover_merges(byte_ids, tokens) -> the pairs behind tiktoken ranks, below
 * the training code; the merge table and loops themselves are in merge.h, the training
 * state (pair counts, heap, chunks) in train_state.h.
 *
 * Left out: pre-tokenization (the caller splits text) and special tokens.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"       /* the merge table and loops (shared with _engine.c) */
#include "merger.h"      /* the Merger type */
#include "train_state.h" /* the training loop's state */

static PyObject *merge_loop(PyObject *self, PyObject *args) {
    PyObject *chunks, *weights, *progress;
    Py_ssize_t num_merges;
    if (!PyArg_ParseTuple(args, "O!O!nO", &PyList_Type, &chunks, &PyList_Type, &weights, &num_merges, &progress))
        return NULL;
    if (PyList_GET_SIZE(chunks) != PyList_GET_SIZE(weights)) {
        PyErr_SetString(PyExc_ValueError, "chunks and weights differ in length");
        return NULL;
    }
    if (PyList_GET_SIZE(chunks) >= INT32_MAX || num_merges >= INT32_MAX - 256) {
        PyErr_SetString(PyExc_ValueError, "too many chunks or merges");
        return NULL;
    }
    State s;
    memset(&s, 0, sizeof s);
    IntVec tied = {0}, listed = {0};
    PyObject *result = NULL;
    int failed = 0; /* 1: out of memory; 2: a Python error is set */
    s.bits = 9;
    s.slots = malloc(sizeof(int32_t) << s.bits);
    if (!s.slots) {
        PyErr_NoMemory();
        goto done;
    }
    memset(s.slots, 0xff, sizeof(int32_t) << s.bits);
    if (load_chunks(&s, chunks, weights) < 0) goto done;
    result = PyList_New(0);
    if (!result) goto done;

    int32_t n_chunks = (int32_t)PyList_GET_SIZE(chunks);
    int32_t *pairs_made = malloc(sizeof(int32_t) * 2 * (size_t)(num_merges > 0 ? num_merges : 1));
    int64_t *counts_made = malloc(sizeof(int64_t) * (size_t)(num_merges > 0 ? num_merges : 1));
    if (!pairs_made || !counts_made) {
        free(pairs_made);
        free(counts_made);
        PyErr_NoMemory();
        Py_CLEAR(result);
        goto done;
    }
    int32_t merges_done = 0;

    Py_BEGIN_ALLOW_THREADS
    s.step = -1;
    for (int32_t c = 0; c < n_chunks && !failed; c++) {
        const int32_t *w = s.words + s.starts[c];
        for (int32_t i = 0; i + 1 < s.lens[c]; i++)
            if (bump(&s, w[i], w[i + 1], s.weights[c], c) < 0) {
                failed = 1;
                break;
            }
    }
    for (int32_t p = 0; p < s.n_pairs && !failed; p++)
        if (heap_push(&s, s.pairs[p].count, p) < 0) failed = 1;
    s.touched.n = 0;

    for (int32_t step = 0; step < num_merges && !failed; step++) {
        int32_t best = pop_best(&s, &tied, step);
        if (best == -2) failed = 1;
        if (best < 0) break;
        s.step = step;
        s.touched.n = 0;
        int32_t a = s.pairs[best].a, b = s.pairs[best].b, z = 256 + step;
        pairs_made[2 * step] = a;
        pairs_made[2 * step + 1] = b;
        counts_made[step] = s.pairs[best].count;
        listed = s.pairs[best].chunks; /* taken out: merging may move the pairs array */
        memset(&s.pairs[best].chunks, 0, sizeof(IntVec));
        for (int32_t k = 0; k < listed.n && !failed; k++)
            if (merge_chunk(&s, listed.v[k], a, b, z) < 0) failed = 1;
        free(listed.v);
        listed.v = NULL;
        for (int32_t k = 0; k < s.touched.n && !failed; k++) {
            Pair *p = &s.pairs[s.touched.v[k]];
            if (p->count > 0 && heap_push(&s, p->count, s.touched.v[k]) < 0) failed = 1;
        }
        merges_done = step + 1;
        if (progress != Py_None && !failed) {
            Py_BLOCK_THREADS
            PyObject *r = PyObject_CallFunction(progress, "iniiL", (int)merges_done, num_merges, (int)a, (int)b,
                                                 (long long)counts_made[step]);
            if (r == NULL) failed = 2;
            Py_XDECREF(r);
            Py_UNBLOCK_THREADS
        }
    }
    Py_END_ALLOW_THREADS

    if (failed == 1) PyErr_NoMemory();
    for (int32_t k = 0; k < merges_done && !failed; k++) {
        PyObject *merge = Py_BuildValue("(iiL)", pairs_made[2 * k], pairs_made[2 * k + 1], (long long)counts_made[k]);
        if (!merge || PyList_Append(result, merge) < 0) failed = 2;
        Py_XDECREF(merge);
    }
    free(pairs_made);
    free(counts_made);
    if (failed) Py_CLEAR(result);
done:
    free(tied.v);
    free_state(&s);
    return result;
}


/* recover_merges(byte_ids, tokens): the merges behind tiktoken ranks. tokens[i] is the
 * token of rank 256 + i; its pair is what merging its bytes with the pairs found so far
 * (all of lower rank) leaves, which must be two ids. Stops at the first token that does
 * not merge into two, so a shorter result names the bad token. The GIL is released for
 * the loop (the tokens are copied first). */
static PyObject *recover_merges(PyObject *module, PyObject *args) {
    Py_buffer byte_ids;
    PyObject *tokens;
    if (!PyArg_ParseTuple(args, "y*O!:recover_merges", &byte_ids, &PyList_Type, &tokens)) return NULL;
    Table t;
    int table_ready = 0;
    unsigned char *flat = NULL;
    Py_ssize_t *starts = NULL; /* token i is flat[starts[i] .. starts[i + 1]) */
    int32_t *ids = NULL, *pairs = NULL;
    PyObject *result = NULL;
    Py_ssize_t n_tokens = PyList_GET_SIZE(tokens), total = 0, longest = 2, done = 0;
    if (table_init(&t, &byte_ids) < 0) goto end;
    table_ready = 1;
    for (Py_ssize_t i = 0; i < n_tokens; i++) {
        PyObject *token = PyList_GET_ITEM(tokens, i);
        if (!PyBytes_Check(token)) {
            PyErr_Format(PyExc_TypeError, "token %zd is not bytes", i);
            goto end;
        }
        total += PyBytes_GET_SIZE(token);
        if (PyBytes_GET_SIZE(token) > longest) longest = PyBytes_GET_SIZE(token);
    }
    if (n_tokens >= INT32_MAX - 256 || longest >= INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "too many or too long tokens");
        goto end;
    }
    flat = malloc((size_t)total + 1);
    starts = malloc(sizeof *starts * (size_t)(n_tokens + 1));
    ids = malloc(sizeof *ids * (size_t)longest);
    pairs = malloc(sizeof *pairs * 2 * (size_t)(n_tokens + 1));
    if (!flat || !starts || !ids || !pairs) {
        PyErr_NoMemory();
        goto end;
    }
    starts[0] = 0;
    for (Py_ssize_t i = 0; i < n_tokens; i++) {
        PyObject *token = PyList_GET_ITEM(tokens, i);
        memcpy(flat + starts[i], PyBytes_AS_STRING(token), (size_t)PyBytes_GET_SIZE(token));
        starts[i + 1] = starts[i] + PyBytes_GET_SIZE(token);
    }
    int out_of_memory = 0;
    Py_BEGIN_ALLOW_THREADS
    for (; done < n_tokens; done++) {
        Py_ssize_t len = starts[done + 1] - starts[done];
        for (Py_ssize_t k = 0; k < len; k++) ids[k] = t.byte_ids[flat[starts[done] + k]];
        Py_ssize_t n = merge_ids(&t, ids, len);
        if (n < 0) out_of_memory = 1;
        if (n != 2) break;
        /* never 1 (already there): a pair made earlier would have merged these bytes into one id */
        if (table_add(&t, ids[0], ids[1]) < 0) {
            out_of_memory = 1;
            break;
        }
        pairs[2 * done] = ids[0];
        pairs[2 * done + 1] = ids[1];
    }
    Py_END_ALLOW_THREADS
    if (out_of_memory) {
        PyErr_NoMemory();
        goto end;
    }
    result = PyList_New(done);
    for (Py_ssize_t i = 0; result && i < done; i++) {
        PyObject *pair = Py_BuildValue("(ii)", pairs[2 * i], pairs[2 * i + 1]);
        if (!pair) Py_CLEAR(result);
        else PyList_SET_ITEM(result, i, pair);
    }
end:
    if (table_ready) free(t.slots);
    free(flat);
    free(starts);
    free(ids);
    free(pairs);
    PyBuffer_Release(&byte_ids);
    return result;
}

static PyMethodDef methods[] = {
    {"merge_loop", merge_loop, METH_VARARGS,
     "merge_loop(chunks, weights, num_merges, progress) -> the merges in order, as (left, right, count)"},
    {"recover_merges", recover_merges, METH_VARARGS,
     "recover_merges(byte_ids: bytes, tokens: list[bytes]) -> the pairs behind tokens of rank 256, 257, ...; "
     "shorter than tokens if one is not the merge of two lower-ranked tokens"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_core",
                                    "tokenprism's BPE in C: training merge loop and encoder merge.", -1, methods};

PyMODINIT_FUNC PyInit__core(void) {
    if (PyType_Ready(&MergerType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&MergerType);
    if (PyModule_AddObject(m, "Merger", (PyObject *)&MergerType) < 0) {
        Py_DECREF(&MergerType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
