/* The Python ints of the engine's ids, for the lists it hands out. Each id's int is made the
 * first time a result holds it and kept for the life of the process, shared by every engine
 * (an int is the same whichever vocabulary gave it): a tokenizer built again, or another one,
 * finds the ints of the earlier ones made. At most one pointer per id of the largest
 * vocabulary built (the upload limit, 300,000 ids by default: 2.4 MB) and one int per id ever
 * given out. Python API, under the GIL only; included by _engine.c only.
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

/* Room for the ints of ids 0..n-1; -1 with ValueError or MemoryError set. */
static int ints_cover(Py_ssize_t n) {
    if (n <= id_ints_n) return 0;
    if (n > SHARED_IDS) {
        PyErr_Format(PyExc_ValueError, "ids must stay below %zd (tokens plus id_offset: %zd)", SHARED_IDS, n);
        return -1;
    }
    PyObject **bigger = PyMem_Realloc(id_ints, (size_t)n * sizeof *bigger);
    if (!bigger) {
        PyErr_NoMemory();
        return -1;
    }
    memset(bigger + id_ints_n, 0, (size_t)(n - id_ints_n) * sizeof *bigger);
    id_ints = bigger;
    id_ints_n = n;
    return 0;
}

/* A list of the ids v[0..n) (each rank + id_offset, all below the engine's ints_cover), from
 * the shared ints, each made when a result first holds it (a text's ints then sit together; a
 * build makes none of its 200,000). */
static PyObject *id_list(const int32_t *v, size_t n) {
    PyObject *list = PyList_New((Py_ssize_t)n);
    if (!list) return NULL;
    for (size_t i = 0; i < n; i++) {
        PyObject **slot = &id_ints[v[i]], *id = *slot;
        if (!id) {
            if (!(id = *slot = PyLong_FromSsize_t(v[i]))) {
                Py_DECREF(list); /* its unset items are NULL */
                return NULL;
            }
#ifdef REF_STOCK
            Py_SET_REFCNT(id, REF_STOCK); /* the reference the slot holds is in the stock too */
#endif
        }
#ifndef REF_STOCK
        Py_INCREF(id);
#endif
        PyList_SET_ITEM(list, (Py_ssize_t)i, id);
    }
    PyObject_GC_UnTrack(list); /* ints only: no cycle to find, and the collector would read every one */
    return list;
}

#endif
