/* The memory of an engine's tables: each of TABLE_MAPPED bytes or more a mapping of its own,
 * given back to the system whole when the engine goes, whatever the C allocator does with
 * large blocks. app/bpe/heap.py raises glibc's mmap threshold so that a call's results (a list
 * of a MB of text's ids, 2 MB) come from the heap again instead of fresh pages each call; without
 * this, a removed tokenizer's tables under that threshold stayed in the heap too (a 200,000-token
 * one's ~9 MB more: tests/tokenizers/test_memory_server.py). TABLE_MAPPED is glibc's own default
 * threshold, so a table is mapped exactly where it was before heap.py. A mapping reads as zeros.
 * Pure C; callable without the GIL (the engine builds with it). Included by token_lookup.h.
 *
 * Left out: systems without mmap (there the tables are calloc's, as before), and the table of
 * Hugging Face's listed merges (merge.h's, shared with training: malloc's; deepseek_v4's is 4 MB,
 * mapped by glibc at the threshold, a smaller upload's stays a heap block).
 */
#ifndef TOKENPRISM_TABLE_MEMORY_H
#define TOKENPRISM_TABLE_MEMORY_H

#include <stdint.h>
#include <stdlib.h>
#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#endif

#define TABLE_MAPPED ((size_t)128 << 10)
#define TABLE_HEAD 16 /* bytes before a table: its mapping's size (0: calloc's), keeping 16-byte alignment */

/* n items of `size` bytes, zeroed; NULL when out of memory. */
static void *table_calloc(size_t n, size_t size) {
    if (size && n > (SIZE_MAX - TABLE_HEAD) / size) return NULL;
    size_t bytes = n * size + TABLE_HEAD;
    unsigned char *block = NULL;
#if defined(MAP_ANONYMOUS)
    if (bytes >= TABLE_MAPPED) {
        void *mapped = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (mapped == MAP_FAILED) return NULL;
        block = mapped;
        *(size_t *)block = bytes;
        return block + TABLE_HEAD;
    }
#endif
    if (!(block = calloc(1, bytes))) return NULL;
    return block + TABLE_HEAD; /* its head is 0: calloc's */
}

static void table_free(void *table) {
    if (!table) return;
    unsigned char *block = (unsigned char *)table - TABLE_HEAD;
    size_t bytes = *(size_t *)block;
#if defined(MAP_ANONYMOUS)
    if (bytes) {
        munmap(block, bytes);
        return;
    }
#endif
    (void)bytes;
    free(block);
}

#endif
