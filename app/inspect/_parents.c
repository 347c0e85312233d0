/* Merge parents of tiktoken-style tokens, worked out from the ranks alone.
 *
 * work_out(tokens, first, longest) -> (left, right, how). tokens[r] is the token of rank r
 * (bytes). For every rank r >= first, the token's bytes are merged by BPE with only the
 * ranks below r, as tiktoken merges: start from single bytes; while more than two parts
 * remain, join the adjacent pair whose joined bytes are a token of the lowest rank below r
 * (the leftmost on ties). If two parts remain and both are tokens of rank below r, they are
 * its parents (how 0, "merge"). Otherwise the split into two tokens of rank below r whose
 * higher rank is the lowest (then the leftmost cut) is taken (how 1, "split"); with no such
 * split, how 2 (no parents). A token longer than `longest` bytes is not merged (how 3).
 *
 * This is app/inspect/lineage.py's rule for the ranks after the point where app.bpe._core's
 * recover_merges stops (the first token that is not the merge of two), run for all of them
 * at once: a hash table of bytes -> rank, then each token merged in a small array of parts
 * (rescanned, so a token of n bytes costs O(n^2) comparisons; `longest` bounds that). The
 * tokens are copied first and the GIL is released for the loop.
 *
 * left and right are native int32 arrays (ranks, -1 where none), how is one byte a rank,
 * each with an entry for every rank from `first`. Duplicate bytes: the higher rank wins,
 * as in a dict built in rank order. Not done here: anything about ids or special tokens
 * (the caller maps ranks to ids), and merges stored in a file (those are read, not worked out).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NONE INT32_MAX

typedef struct {
    const unsigned char *flat; /* every token's bytes, joined */
    const Py_ssize_t *starts;  /* token r is flat[starts[r] .. starts[r + 1]) */
    int32_t *slots;            /* open addressing, linear probing: a rank, or -1 */
    uint32_t *tags;            /* the top bits of each slot's hash, to skip most memcmp */
    uint64_t mask;
} Ranks;

static uint64_t hash_bytes(const unsigned char *p, Py_ssize_t n) {
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (Py_ssize_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h ^ (h >> 29);
}

/* The slot holding these bytes, or the empty slot where they would go. */
static uint64_t find_slot(const Ranks *t, const unsigned char *p, Py_ssize_t n, uint64_t h) {
    uint32_t tag = (uint32_t)(h >> 32);
    for (uint64_t at = h & t->mask;; at = (at + 1) & t->mask) {
        int32_t rank = t->slots[at];
        if (rank < 0) return at;
        if (t->tags[at] == tag && t->starts[rank + 1] - t->starts[rank] == n
            && memcmp(t->flat + t->starts[rank], p, (size_t)n) == 0)
            return at;
    }
}

/* The rank of these bytes if it is below `cap`, else NONE. */
static int32_t lookup(const Ranks *t, const unsigned char *p, Py_ssize_t n, int32_t cap) {
    int32_t rank = t->slots[find_slot(t, p, n, hash_bytes(p, n))];
    return rank >= 0 && rank < cap ? rank : NONE;
}

/* Token `rank`'s parents into left/right/how (see the top of the file); parts and pairs
 * have room for its length. */
static void work_out_one(const Ranks *t, int32_t rank, Py_ssize_t longest, Py_ssize_t *parts, int32_t *pairs,
                         int32_t *left, int32_t *right, unsigned char *how) {
    const unsigned char *data = t->flat + t->starts[rank];
    Py_ssize_t len = t->starts[rank + 1] - t->starts[rank];
    *left = *right = -1;
    *how = 2;
    if (len > longest) {
        *how = 3;
        return;
    }
    /* part i is data[parts[i] .. parts[i + 1]); pairs[i] the rank of parts i and i + 1 joined */
    Py_ssize_t n = len;
    for (Py_ssize_t i = 0; i <= len; i++) parts[i] = i;
    for (Py_ssize_t i = 0; i + 1 < n; i++) pairs[i] = lookup(t, data + i, 2, rank);
    while (n > 2) {
        Py_ssize_t at = 0;
        for (Py_ssize_t i = 1; i + 1 < n; i++)
            if (pairs[i] < pairs[at]) at = i; /* strict: the leftmost lowest */
        if (pairs[at] == NONE) break;
        memmove(parts + at + 1, parts + at + 2, sizeof *parts * (size_t)(n - at - 1));
        memmove(pairs + at, pairs + at + 1, sizeof *pairs * (size_t)(n - at - 2));
        n--;
        if (at > 0) pairs[at - 1] = lookup(t, data + parts[at - 1], parts[at + 1] - parts[at - 1], rank);
        if (at + 1 < n) pairs[at] = lookup(t, data + parts[at], parts[at + 2] - parts[at], rank);
    }
    if (n == 2) {
        int32_t a = lookup(t, data, parts[1], rank), b = lookup(t, data + parts[1], len - parts[1], rank);
        if (a != NONE && b != NONE) {
            *left = a, *right = b, *how = 0;
            return;
        }
    }
    int32_t best = NONE;
    for (Py_ssize_t cut = 1; cut < len; cut++) {
        int32_t a = lookup(t, data, cut, rank);
        if (a == NONE) continue;
        int32_t b = lookup(t, data + cut, len - cut, rank);
        if (b == NONE) continue;
        int32_t higher = a > b ? a : b;
        if (higher < best) { /* strict: the leftmost cut on ties */
            best = higher;
            *left = a, *right = b, *how = 1;
        }
    }
}

static PyObject *work_out(PyObject *module, PyObject *args) {
    PyObject *tokens;
    Py_ssize_t first, longest;
    if (!PyArg_ParseTuple(args, "O!nn:work_out", &PyList_Type, &tokens, &first, &longest)) return NULL;
    Py_ssize_t count = PyList_GET_SIZE(tokens), total = 0, widest = 2;
    if (first < 0 || first > count || count >= INT32_MAX || longest < 0) {
        PyErr_SetString(PyExc_ValueError, "need 0 <= first <= len(tokens) < 2**31 and longest >= 0");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *token = PyList_GET_ITEM(tokens, i);
        if (!PyBytes_Check(token)) return PyErr_Format(PyExc_TypeError, "token %zd is not bytes", i);
        total += PyBytes_GET_SIZE(token);
        if (i >= first && PyBytes_GET_SIZE(token) > widest && PyBytes_GET_SIZE(token) <= longest)
            widest = PyBytes_GET_SIZE(token);
    }
    Ranks t = {0};
    int bits = 4;
    while (((uint64_t)1 << bits) < 2 * (uint64_t)count + 2) bits++;
    t.mask = ((uint64_t)1 << bits) - 1;
    Py_ssize_t out = count - first;
    unsigned char *flat = malloc((size_t)total + 1);
    Py_ssize_t *starts = malloc(sizeof *starts * (size_t)(count + 1));
    t.slots = malloc(sizeof *t.slots << bits);
    t.tags = malloc(sizeof *t.tags << bits);
    Py_ssize_t *parts = malloc(sizeof *parts * (size_t)(widest + 1));
    int32_t *pairs = malloc(sizeof *pairs * (size_t)widest);
    PyObject *left = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)sizeof(int32_t) * out);
    PyObject *right = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)sizeof(int32_t) * out);
    PyObject *how = PyBytes_FromStringAndSize(NULL, out);
    PyObject *result = NULL;
    if (!flat || !starts || !t.slots || !t.tags || !parts || !pairs) {
        PyErr_NoMemory();
        goto end;
    }
    if (!left || !right || !how) goto end;
    starts[0] = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *token = PyList_GET_ITEM(tokens, i);
        memcpy(flat + starts[i], PyBytes_AS_STRING(token), (size_t)PyBytes_GET_SIZE(token));
        starts[i + 1] = starts[i] + PyBytes_GET_SIZE(token);
    }
    t.flat = flat;
    t.starts = starts;
    memset(t.slots, 0xff, sizeof *t.slots << bits); /* every slot -1 */
    int32_t *lefts = (int32_t *)PyBytes_AS_STRING(left), *rights = (int32_t *)PyBytes_AS_STRING(right);
    unsigned char *hows = (unsigned char *)PyBytes_AS_STRING(how);
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < count; r++) {
        Py_ssize_t n = starts[r + 1] - starts[r];
        uint64_t h = hash_bytes(flat + starts[r], n);
        uint64_t at = find_slot(&t, flat + starts[r], n, h);
        t.slots[at] = (int32_t)r; /* a repeat overwrites: the higher rank wins */
        t.tags[at] = (uint32_t)(h >> 32);
    }
    for (Py_ssize_t r = first; r < count; r++)
        work_out_one(&t, (int32_t)r, longest, parts, pairs, lefts + (r - first), rights + (r - first),
                     hows + (r - first));
    Py_END_ALLOW_THREADS
    result = PyTuple_Pack(3, left, right, how);
end:
    Py_XDECREF(left);
    Py_XDECREF(right);
    Py_XDECREF(how);
    free(flat);
    free(starts);
    free(t.slots);
    free(t.tags);
    free(parts);
    free(pairs);
    return result;
}

static PyMethodDef methods[] = {
    {"work_out", work_out, METH_VARARGS,
     "work_out(tokens: list[bytes], first: int, longest: int) -> (left, right, how): the merge parents of "
     "tokens[first:] by BPE with the lower ranks (left, right: int32 ranks, -1 none; how: 0 merge, 1 split, "
     "2 none, 3 longer than longest)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "app.inspect._parents",
                                    "Merge parents of tiktoken-style tokens, worked out from the ranks.", -1,
                                    methods};

PyMODINIT_FUNC PyInit__parents(void) { return PyModule_Create(&module); }
