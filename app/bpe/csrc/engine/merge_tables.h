/* The engine's merge tables, for its two rules. tiktoken's: the adjacent pair whose
 * concatenation has the lowest rank merges first, so a pair's rank is the rank of its bytes,
 * which engine_encode.h looks up among the tokens: no table (merges_init sets the single bytes'
 * ids alone). Hugging Face BPE's (listed_merges_init): only the listed merges, the one listed
 * first merged first (leftmost on ties). With the merge list of a file whose merges make ids in
 * the order they are listed (deepseek_v4's do), "listed first" is "makes the lowest id", so
 * merge.h's loops, which merge the pair of lowest table value, give the library's ids when the
 * table holds the listed pairs alone, each with the id it makes (the engine builds `whole_ok`
 * and the atoms with them). Two differences from tiktoken's rule the engine keeps: a pair
 * whose bytes make a token but which is not listed is not merged (`merge_splits`: encoding
 * finds a pair by its bytes and checks the split), and a chunk that spells a token is that
 * token only when merging its own bytes gives it (`whole_ok`). Included by _engine.c only.
 *
 * char_atoms.h's atoms serve this rule too, once atoms_listed has kept those whose own bytes
 * merge by the listed merges into their token, no merge on the way making a higher id than
 * the bound char_atoms.h proved them for.
 *
 * Left out: merge lists whose made ids are not increasing (refused; the library must encode).
 */
#ifndef TOKENPRISM_MERGE_TABLES_H
#define TOKENPRISM_MERGE_TABLES_H

#include <Python.h>
#include <stdint.h>
#include <stdlib.h>

#include "char_atoms.h"
#include "merge.h"
#include "token_lookup.h"

/* t (byte ids set, no merges yet) gets the listed merges: `merges` is a list of (left, right)
 * ids. -1 with a Python error set when a pair is not two tokens whose bytes make a token, or
 * when the ids made do not increase down the list. */
static int listed_merges_init(Table *t, const Lookup *l, Py_ssize_t n_tokens, PyObject *merges) {
    if (!PyList_Check(merges)) {
        PyErr_SetString(PyExc_TypeError, "merges must be a list of (left, right) ids");
        return -1;
    }
    unsigned char *both = NULL;
    size_t room = 0;
    int32_t last = -1;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(merges); i++) {
        int left, right;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(merges, i), "ii", &left, &right)) goto fail;
        if (left < 0 || right < 0 || left >= n_tokens || right >= n_tokens) {
            PyErr_Format(PyExc_ValueError, "merge %zd names an id that is not a token", i);
            goto fail;
        }
        size_t a = l->starts[left + 1] - l->starts[left], b = l->starts[right + 1] - l->starts[right];
        if (a + b > room) {
            unsigned char *bigger = realloc(both, room = 2 * (a + b));
            if (!bigger) {
                PyErr_NoMemory();
                goto fail;
            }
            both = bigger;
        }
        memcpy(both, l->flat + l->starts[left], a);
        memcpy(both + a, l->flat + l->starts[right], b);
        int32_t made = lookup_rank(l, both, a + b);
        if (made <= last) {
            PyErr_Format(PyExc_ValueError, made < 0 ? "merge %zd does not make a token"
                                                    : "merge %zd makes a lower id than the merge before it", i);
            goto fail;
        }
        if (table_set(t, left, right, made) < 0) {
            PyErr_NoMemory();
            goto fail;
        }
        last = made;
    }
    free(both);
    return 0;
fail:
    free(both);
    return -1;
}

/* The 256 single bytes' ids, and for Hugging Face's rule the table of the `listed` merges
 * (NULL: tiktoken's rule, no table). Sets a Python error and returns -1 on failure. */
static int merges_init(Table *t, const Lookup *l, Py_ssize_t n_tokens, PyObject *listed) {
    memset(t, 0, sizeof *t);
    for (int b = 0; b < 256; b++) {
        unsigned char byte = (unsigned char)b;
        if ((t->byte_ids[b] = lookup_rank(l, &byte, 1)) < 0) {
            PyErr_Format(PyExc_ValueError, "byte %d is not a token (byte-level BPE needs all 256)", b);
            return -1;
        }
    }
    if (!listed) return 0;
    if (table_resize(t, 16) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return listed_merges_init(t, l, n_tokens, listed);
}

/* ok[r] = 1 when merging the bytes of token r gives r (single bytes always): the tokens a chunk
 * may be taken as whole. NULL when out of memory (no error set). */
static uint8_t *whole_tokens(const Table *t, const Lookup *l, Py_ssize_t n_tokens) {
    uint8_t *ok = table_calloc((size_t)(n_tokens ? n_tokens : 1), 1);
    int32_t *ids = malloc(sizeof *ids * (l->longest ? l->longest : 1));
    if (!ok || !ids) {
        table_free(ok);
        free(ids);
        return NULL;
    }
    for (Py_ssize_t r = 0; r < n_tokens; r++) {
        const unsigned char *token = l->flat + l->starts[r];
        size_t len = l->starts[r + 1] - l->starts[r];
        for (size_t k = 0; k < len; k++) ids[k] = t->byte_ids[token[k]];
        Py_ssize_t m = merge_ids(t, ids, (Py_ssize_t)len);
        if (m < 0) {
            table_free(ok);
            free(ids);
            return NULL;
        }
        ok[r] = m == 1 && ids[0] == r;
    }
    free(ids);
    return ok;
}

/* splits[r] = the length of the left part of the listed merge that makes token r, 0 when none
 * does, SPLIT_FAR when 255 or more (then *far, made only if one is, holds every token's as
 * uint32): a pair of pieces (left, right) has a listed merge exactly when their bytes together
 * spell a token r split where the merge splits it (tokens' bytes are distinct, and no two
 * merges make one id), so engine_encode.h finds a pair's rank as tiktoken's rule does, by its
 * bytes, and checks the split. A byte a token: deepseek_v4's 128 KB, read at random by the
 * merges, was 512 KB as uint32. -1 when out of memory (no error set). */
static int merge_splits(const Table *t, const Lookup *l, Py_ssize_t n_tokens, uint8_t **splits, uint32_t **far) {
    size_t n = (size_t)(n_tokens ? n_tokens : 1), slots = (size_t)1 << t->bits;
    int any_far = 0;
    if (!(*splits = table_calloc(n, sizeof **splits))) return -1;
    for (size_t h = 0; h < slots; h++) {
        if (t->slots[h].key == EMPTY_KEY) continue;
        int32_t left = (int32_t)(t->slots[h].key >> 32);
        uint32_t split = l->starts[left + 1] - l->starts[left];
        (*splits)[t->slots[h].id] = split < SPLIT_FAR ? (uint8_t)split : SPLIT_FAR;
        any_far |= split >= SPLIT_FAR;
    }
    if (!any_far) return 0;
    if (!(*far = table_calloc(n, sizeof **far))) return -1;
    for (size_t h = 0; h < slots; h++) {
        if (t->slots[h].key == EMPTY_KEY) continue;
        int32_t left = (int32_t)(t->slots[h].key >> 32);
        (*far)[t->slots[h].id] = l->starts[left + 1] - l->starts[left];
    }
    return 0;
}

/* The id that merging b[0..n) (n <= 3) by the listed merges gives, -1 when it stays more than
 * one piece; *highest is the highest id a merge on the way made. */
static int32_t listed_merge_small(const Table *t, const unsigned char *b, size_t n, int32_t *highest) {
    int32_t ids[3];
    for (size_t k = 0; k < n; k++) ids[k] = t->byte_ids[b[k]];
    *highest = -1;
    while (n > 1) {
        size_t at = 0;
        int32_t lowest = NO_MERGE;
        for (size_t k = 0; k + 1 < n; k++) {
            int32_t made = table_get(t, ids[k], ids[k + 1]);
            if (made < lowest) lowest = made, at = k;
        }
        if (lowest == NO_MERGE) return -1;
        *highest = lowest > *highest ? lowest : *highest;
        ids[at] = lowest;
        for (size_t k = at + 1; k + 1 < n; k++) ids[k] = ids[k + 1];
        n--;
    }
    return ids[0];
}

static void atom_listed(AtomInfo *info, const Table *t, const unsigned char *b, size_t n) {
    int32_t highest;
    if (info->rank >= 0 &&
        (listed_merge_small(t, b, n, &highest) != info->rank || (uint32_t)highest > (info->bound & ATOM_RANK_BITS)))
        info->rank = -1;
}

/* char_atoms.h's argument holds for Hugging Face's rule with the listed merges' made ids as
 * ranks: a merge across the atom's edge makes a token holding part of it and a byte outside,
 * whose id is its rank, and atoms_init bounded every such token's id from below. What differs
 * is how the atom's own bytes merge: here only by listed merges. So an atom stays one when
 * those merges make its token, none making an id above its bound I; the rest never start
 * whole. */
static void atoms_listed(Atoms *a, const Table *t) {
    for (uint32_t cp = 0x80; cp < 65536; cp++) {
        unsigned char b[3];
        if (cp < 0x800) {
            b[0] = (unsigned char)(0xC0 | cp >> 6), b[1] = (unsigned char)(0x80 | (cp & 63));
            atom_listed(&a->chars[cp], t, b, 2);
            continue;
        }
        b[0] = (unsigned char)(0xE0 | cp >> 12), b[1] = (unsigned char)(0x80 | ((cp >> 6) & 63));
        b[2] = (unsigned char)(0x80 | (cp & 63));
        atom_listed(&a->chars[cp], t, b, 3);
    }
    for (uint32_t k = 0; k < 1024; k++) {
        unsigned char b[2] = {(unsigned char)(0xE0 | k >> 6), (unsigned char)(0x80 | (k & 63))};
        atom_listed(&a->heads[k], t, b, 2);
    }
    for (uint32_t k = 0; k < 16384; k++) {
        unsigned char b[2] = {(unsigned char)(k >> 7), (unsigned char)(k & 127)};
        atom_listed(&a->ascii[k], t, b, 2);
    }
}

#endif
