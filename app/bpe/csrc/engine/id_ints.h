/* The Python ints of the engine's ids, for the lists it hands out. Each id's int is made once
 * and kept for the life of the process, shared by every engine (an int is the same whichever
 * vocabulary gave it): a tokenizer built again, or another one, finds the ints of the earlier
 * ones made. Python API, under the GIL but where id_lists lets it go; included by _engine.c only.
 *
 * On Python 3.11 each int is made with a stock of REF_STOCK references that no process uses
 * up, and a list takes its reference from the stock without writing to the int: the
 * increments of a result's ints (one store to a scattered cache line per id) were ~8% of an
 * encode of 1 KB documents. There the ints are also made in blocks of BLOCK_IDS, all of a
 * block's at once when an engine first needs one of its ids (copies of the ints
 * PyLong_FromSsize_t makes, each INT_BYTES apart), so an id's int is found by arithmetic: the
 * load from a table of pointers, scattered over megabytes, was ~11% of encoding 1 KB
 * documents of prose (perf). A block of 65,536 ints is 2 MB; an engine of 200,000 ids uses 4,
 * made as one region when none of them was made before, so that its lists are filled from one
 * base (id * INT_BYTES), several ids an instruction.
 * From 3.12 an increment only adds to the low 32 bits of a reference count (PEP 683), so there
 * the ints are counted as usual, each made the first time a result holds it and found through
 * a table of pointers (at most two pointers per id of the largest vocabulary built).
 *
 * Left out: ids at or past SHARED_IDS (an engine that would give them is refused), and the
 * blocks in a build that traces references (Py_TRACE_REFS: an object's header links it to the
 * others, so it cannot be copied).
 */
#ifndef TOKENPRISM_ID_INTS_H
#define TOKENPRISM_ID_INTS_H

#include <Python.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define SHARED_IDS ((Py_ssize_t)1 << 23) /* 64 MB of pointers at most; the largest vocabularies have ~1M ids */

#if PY_VERSION_HEX < 0x030C0000
/* 2**62: a billion releases a second would take 146 years to bring it to zero */
#define REF_STOCK ((Py_ssize_t)1 << 62)
#endif

#if defined(REF_STOCK) && !defined(Py_TRACE_REFS)
#define INT_BLOCKS
#define BLOCK_BITS 16
#define BLOCK_IDS ((Py_ssize_t)1 << BLOCK_BITS)
#define INT_SHIFT 5
#define INT_BYTES (1 << INT_SHIFT) /* an int below 2**30 is 28 bytes on 3.11 */
#define BLOCK_BYTES ((size_t)BLOCK_IDS * INT_BYTES)

static char *int_blocks[SHARED_IDS >> BLOCK_BITS]; /* never freed: lists hold their ints */

/* The int of `id` (borrowed); its block must be made (ints_cover). */
static inline PyObject *made_int(int32_t id) {
    return (PyObject *)(int_blocks[id >> BLOCK_BITS] + (size_t)(id & (BLOCK_IDS - 1)) * INT_BYTES);
}

/* Blocks b0..b1 (none made yet) made as one region, so that an engine's ids are found from
 * one base (ints_cover); published only when all are whole. */
static int make_blocks(Py_ssize_t b0, Py_ssize_t b1) {
    char *region = PyMem_RawMalloc((size_t)(b1 - b0 + 1) * BLOCK_BYTES);
    if (!region) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t k = 0; k < (b1 - b0 + 1) * BLOCK_IDS; k++) {
        PyObject *made = PyLong_FromSsize_t(b0 * BLOCK_IDS + k);
        size_t size = made ? (size_t)(Py_TYPE(made)->tp_basicsize + Py_TYPE(made)->tp_itemsize) : 0; /* one digit */
        if (size > INT_BYTES) PyErr_SetString(PyExc_SystemError, "an int is larger than the engine's blocks of ints expect");
        if (!made || size > INT_BYTES) {
            Py_XDECREF(made);
            PyMem_RawFree(region);
            return -1;
        }
        memcpy(region + k * INT_BYTES, made, size);
        Py_SET_REFCNT((PyObject *)(region + k * INT_BYTES), REF_STOCK);
        Py_DECREF(made);
    }
    for (Py_ssize_t b = b0; b <= b1; b++) /* each whole before a thread without the GIL reads it */
        __atomic_store_n(&int_blocks[b], region + (b - b0) * BLOCK_BYTES, __ATOMIC_RELEASE);
    return 0;
}

/* The ints of ids first..end-1 made, each run of blocks not made yet as one region; *base set
 * so that the int of an id in that range is at *base + id * INT_BYTES when their blocks lie
 * one after another (an engine whose ids had no int yet, or the first of its size), else 0.
 * -1 with ValueError or MemoryError set. */
static int ints_cover(Py_ssize_t first, Py_ssize_t end, uintptr_t *base) {
    *base = 0;
    if (end > SHARED_IDS) {
        PyErr_Format(PyExc_ValueError, "ids must stay below %zd (tokens plus id_offset: %zd)", SHARED_IDS, end);
        return -1;
    }
    if (end <= first) return 0;
    Py_ssize_t b0 = first >> BLOCK_BITS, b1 = (end - 1) >> BLOCK_BITS;
    for (Py_ssize_t b = b0; b <= b1; b++) {
        if (int_blocks[b]) continue;
        Py_ssize_t last = b;
        while (last < b1 && !int_blocks[last + 1]) last++;
        if (make_blocks(b, last) < 0) return -1;
        b = last;
    }
    uintptr_t at = (uintptr_t)int_blocks[b0] - (uintptr_t)b0 * BLOCK_BYTES;
    for (Py_ssize_t b = b0; b <= b1; b++)
        if ((uintptr_t)int_blocks[b] != at + (uintptr_t)b * BLOCK_BYTES) return 0;
    *base = at;
    return 0;
}

static PyObject *int_of(int32_t id) { return made_int(id); }
#else
static PyObject **id_ints;
static Py_ssize_t id_ints_n;

/* Room for the ints of ids 0..end-1 (*base 0: no base here); -1 with ValueError or
 * MemoryError set. An outgrown table is kept, not freed: a thread filling lists without the
 * GIL (id_lists) may still read it. At most as much again as the table in use, since each is
 * at least twice the one before. */
static int ints_cover(Py_ssize_t first, Py_ssize_t n, uintptr_t *base) {
    (void)first;
    *base = 0;
    if (n <= id_ints_n) return 0;
    if (n > SHARED_IDS) {
        PyErr_Format(PyExc_ValueError, "ids must stay below %zd (tokens plus id_offset: %zd)", SHARED_IDS, n);
        return -1;
    }
    if (n < 2 * id_ints_n) n = 2 * id_ints_n < SHARED_IDS ? 2 * id_ints_n : SHARED_IDS;
    PyObject **bigger = PyMem_Calloc((size_t)n, sizeof *bigger);
    if (!bigger) {
        PyErr_NoMemory();
        return -1;
    }
    if (id_ints_n) memcpy(bigger, id_ints, (size_t)id_ints_n * sizeof *bigger);
    id_ints = bigger;
    id_ints_n = n;
    return 0;
}

/* The shared int of `id` (borrowed), made if need be; NULL with an error set. */
static PyObject *int_of(int32_t id) {
    PyObject **slot = &id_ints[id], *made = *slot;
    if (made) return made;
    if (!(made = PyLong_FromSsize_t(id))) return NULL;
#ifdef REF_STOCK
    Py_SET_REFCNT(made, REF_STOCK); /* the reference the slot holds is in the stock too */
#endif
    __atomic_store_n(slot, made, __ATOMIC_RELEASE); /* whole before a thread without the GIL sees it */
    return made;
}
#endif

/* A list of the ids v[0..n) (each rank + id_offset, all below the engine's ints_cover), from
 * the shared ints (on 3.12, each made when a result first holds it), where id_lists does not
 * fill a list made unfilled (no blocks). Handed over untracked by the collector: ints only, no
 * cycle to find, and the collector would read every one. */
static PyObject *id_list(const int32_t *v, size_t n) {
    PyObject *list = PyList_New((Py_ssize_t)n);
    if (!list) return NULL;
    PyObject_GC_UnTrack(list);
    PyObject **items = ((PyListObject *)list)->ob_item;
    for (size_t i = 0; i < n; i++) {
        if (!(items[i] = int_of(v[i]))) {
            Py_DECREF(list); /* its unset items are NULL */
            return NULL;
        }
#ifndef REF_STOCK
        Py_INCREF(items[i]);
#endif
    }
    return list;
}

/* A list of n items, none of them set, for id_lists to fill (without the GIL when it lets it
 * go). On 3.11 the items are not zeroed first (PyList_New's calloc wrote every one of a text's,
 * only for the fill to write them again): then the caller must set all n, or the list's size
 * to 0, before anything else sees the list. */
static PyObject *list_to_fill(Py_ssize_t n) {
#ifdef INT_BLOCKS
    if (n > 0 && (size_t)n <= PY_SSIZE_T_MAX / sizeof(PyObject *)) {
        PyObject *list = PyList_New(0);
        PyObject **items = list ? PyMem_Malloc((size_t)n * sizeof *items) : NULL;
        if (!items) {
            Py_XDECREF(list);
            return list ? PyErr_NoMemory() : NULL;
        }
        ((PyListObject *)list)->ob_item = items;
        ((PyListObject *)list)->allocated = n;
        Py_SET_SIZE(list, n);
        return list;
    }
#endif
    return PyList_New(n);
}

#ifdef INT_BLOCKS
#define STREAM_ITEMS 65536 /* a list's items past what a core's cache holds: written around it */

/* items[k] = the int of v[k] for k < n: from `base` by arithmetic when it is not 0 (ints_cover),
 * else through the blocks (every one made: the engine's were, with it). A long list's items
 * are written with non-temporal stores: they cannot stay in cache anyway, and a plain store
 * first reads each line it writes (one text of 1-5 MB: encode 1.02-1.04x fresh, 1.04x warm). */
static void fill_items(PyObject **items, const int32_t *v, size_t n, uintptr_t base) {
    size_t k = 0;
#if defined(__SSE2__)
    if (n >= STREAM_ITEMS && ((uintptr_t)items & 15) == 0) {
        const __m128i at = _mm_set1_epi64x((long long)base), zero = _mm_setzero_si128();
        for (; base && k + 4 <= n; k += 4) {
            __m128i ids = _mm_loadu_si128((const __m128i *)(v + k));
            __m128i low = _mm_unpacklo_epi32(ids, zero), high = _mm_unpackhi_epi32(ids, zero); /* two ids each */
            _mm_stream_si128((__m128i *)(items + k), _mm_add_epi64(_mm_slli_epi64(low, INT_SHIFT), at));
            _mm_stream_si128((__m128i *)(items + k + 2), _mm_add_epi64(_mm_slli_epi64(high, INT_SHIFT), at));
        }
        for (; !base && k + 2 <= n; k += 2) {
            __m128i two = _mm_set_epi64x((long long)made_int(v[k + 1]), (long long)made_int(v[k]));
            _mm_stream_si128((__m128i *)(items + k), two);
        }
        _mm_sfence();
    }
#endif
    if (base)
        for (; k < n; k++) items[k] = (PyObject *)(base + (uintptr_t)(uint32_t)v[k] * INT_BYTES);
    else
        for (; k < n; k++) items[k] = made_int(v[k]);
}
#endif

/* Filling fewer ids than this holds the GIL for less time than letting it go and taking it
 * back costs (a 1 KB document a call: Cyrillic 1.07x, CJK 1.03x faster than letting it go). */
#define NOGIL_IDS 4096

/* lists[t] = id_list of v[ends[t - 1] .. ends[t]) (ends[-1] being 0) for each t < n; 0, or -1
 * with an error set (every lists[t] NULL). On 3.11 the lists are made unfilled, with the GIL,
 * and filled by no Python call (a list takes its references from the ints' stock; where the
 * ints are in a table, from the ints already made, and the ints not made yet are made with the
 * GIL again): with `release` without the GIL, so two threads' lists mostly fill at once instead
 * of one after the other; a short result, the GIL held (before 2026-12-02 it was PyList_New's,
 * whose calloc wrote a 1 KB document's 2 KB of items only for id_list to write them again).
 * `base` is the engine's from ints_cover: when not 0 an id's int is base + id * INT_BYTES, a
 * fill the compiler does four ids at a time (11 instructions an id through the blocks). */
static int id_lists(const int32_t *v, const size_t *ends, Py_ssize_t n, int release, uintptr_t base,
                    PyObject **lists) {
#if defined(INT_BLOCKS)
    const int fill = 1;
#elif defined(REF_STOCK)
    const int fill = release;
#else
    const int fill = 0;
    release = 0;
#endif
    for (Py_ssize_t t = 0; t < n; t++) {
        size_t start = t ? ends[t - 1] : 0, size = ends[t] - start;
        if (!(lists[t] = fill ? list_to_fill((Py_ssize_t)size) : id_list(v + start, size))) {
            for (Py_ssize_t made = 0; fill && made < t; made++) Py_SET_SIZE(lists[made], 0); /* not filled */
            goto fail;
        }
        if (fill) PyObject_GC_UnTrack(lists[t]);
    }
    if (!fill) return 0;
    size_t unmade = 0;
#ifndef INT_BLOCKS
    (void)base; /* 0: no blocks */
    PyObject *const *ints = id_ints; /* never freed, even if another thread outgrows it meanwhile */
#endif
    PyThreadState *saved = release ? PyEval_SaveThread() : NULL;
    for (Py_ssize_t t = 0; t < n; t++) {
        PyObject **items = ((PyListObject *)lists[t])->ob_item;
        size_t first = t ? ends[t - 1] : 0;
#ifdef INT_BLOCKS
        fill_items(items, v + first, ends[t] - first, base);
#else
        for (size_t i = first, k = 0; i < ends[t]; i++, k++)
            unmade += !(items[k] = __atomic_load_n(&ints[v[i]], __ATOMIC_ACQUIRE));
#endif
    }
    if (saved) PyEval_RestoreThread(saved);
    for (Py_ssize_t t = 0; unmade && t < n; t++) {
        PyObject **items = ((PyListObject *)lists[t])->ob_item;
        for (size_t i = t ? ends[t - 1] : 0, k = 0; i < ends[t]; i++, k++) {
            if (items[k]) continue;
            if (!(items[k] = int_of(v[i]))) goto fail;
            unmade--;
        }
    }
    return 0;
fail:
    for (Py_ssize_t t = 0; t < n; t++) Py_CLEAR(lists[t]); /* unset items are NULL */
    return -1;
}

#endif
