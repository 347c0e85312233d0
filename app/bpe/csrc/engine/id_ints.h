/* The Python ints of the engine's ids, for the lists it hands out. Each id's int is made the
 * first time a result holds it and kept for the life of the process, shared by every engine
 * (an int is the same whichever vocabulary gave it): a tokenizer built again, or another one,
 * finds the ints of the earlier ones made. At most two pointers per id of the largest
 * vocabulary built (the upload limit, 300,000 ids by default: 4.8 MB, with the tables it
 * outgrew) and one int per id ever given out. Python API, under the GIL but where id_lists
 * lets it go; included by _engine.c only.
 *
 * On Python 3.11 each int is made with a stock of REF_STOCK references that no process uses
 * up, and a list takes its reference from the stock without writing to the int: the
 * increments of a result's ints (one store to a scattered cache line per id) were ~8% of an
 * encode of 1 KB documents. From 3.12 an increment only adds to the low 32 bits of a
 * reference count (PEP 683), so there the ints are counted as usual.
 *
 * Left out: ids at or past SHARED_IDS (an engine that would give them is refused).
 */
#ifndef TOKENPRISM_ID_INTS_H
#define TOKENPRISM_ID_INTS_H

#include <Python.h>
#include <stdint.h>
#include <string.h>

#define SHARED_IDS ((Py_ssize_t)1 << 23) /* 64 MB of pointers at most; the largest vocabularies have ~1M ids */

#if PY_VERSION_HEX < 0x030C0000
/* 2**62: a billion releases a second would take 146 years to bring it to zero */
#define REF_STOCK ((Py_ssize_t)1 << 62)
#endif

static PyObject **id_ints;
static Py_ssize_t id_ints_n;

/* Room for the ints of ids 0..n-1; -1 with ValueError or MemoryError set. An outgrown table
 * is kept, not freed: a thread filling lists without the GIL (id_lists) may still read it. At
 * most as much again as the table in use, since each is at least twice the one before. */
static int ints_cover(Py_ssize_t n) {
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

/* A list of the ids v[0..n) (each rank + id_offset, all below the engine's ints_cover), from
 * the shared ints, each made when a result first holds it (a text's ints then sit together; a
 * build makes none of its 200,000). Handed over untracked by the collector: ints only, no
 * cycle to find, and the collector would read every one. */
static PyObject *id_list(const int32_t *v, size_t n) {
    PyObject *list = PyList_New((Py_ssize_t)n);
    if (!list) return NULL;
    PyObject_GC_UnTrack(list);
    for (size_t i = 0; i < n; i++) {
        PyObject *id = int_of(v[i]);
        if (!id) {
            Py_DECREF(list); /* its unset items are NULL */
            return NULL;
        }
#ifndef REF_STOCK
        Py_INCREF(id);
#endif
        PyList_SET_ITEM(list, (Py_ssize_t)i, id);
    }
    return list;
}

/* lists[t] = id_list of v[ends[t - 1] .. ends[t]) (ends[-1] being 0) for each t < n; 0, or -1
 * with an error set (every lists[t] NULL). With `release`, on 3.11: the lists are made with
 * the GIL, filled without it from the ints already made (a list takes its references from
 * their stock, no Python call), and the ints not made yet are made with it again. Filling is
 * most of a list's cost (a cache miss per id into the table of ints), so two threads' lists
 * mostly fill at once instead of one after the other. */
static int id_lists(const int32_t *v, const size_t *ends, Py_ssize_t n, int release, PyObject **lists) {
#ifndef REF_STOCK
    release = 0;
#endif
    for (Py_ssize_t t = 0; t < n; t++) {
        size_t start = t ? ends[t - 1] : 0, size = ends[t] - start;
        if (!(lists[t] = release ? PyList_New((Py_ssize_t)size) : id_list(v + start, size))) goto fail;
        if (release) PyObject_GC_UnTrack(lists[t]);
    }
    if (!release) return 0;
    PyObject *const *ints = id_ints; /* never freed, even if another thread outgrows it meanwhile */
    size_t unmade = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t t = 0; t < n; t++) {
        PyObject **items = ((PyListObject *)lists[t])->ob_item;
        for (size_t i = t ? ends[t - 1] : 0, k = 0; i < ends[t]; i++, k++)
            unmade += !(items[k] = __atomic_load_n(&ints[v[i]], __ATOMIC_ACQUIRE));
    }
    Py_END_ALLOW_THREADS
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
