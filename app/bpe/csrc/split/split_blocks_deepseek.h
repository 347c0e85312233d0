/* DeepSeek's split (pretokenize_deepseek.c's rules) on ASCII text and its two-byte letters and
 * marks (split_blocks_letters.h's `wide`), in split_blocks.h's windows: where its chunks start,
 * from the window's masks at once. A byte loop that asks each chunk's kind mispredicts about
 * two branches a chunk of code or prose (cachegrind's model); here most chunks end at the next
 * start, found by counting bits.
 *
 * On ASCII and those letters (a window ends at any other byte >= 0x80 or a control byte),
 * with `x << 1` read as "the byte before is in x"; "letters" are ASCII's and the wide ones:
 *   - digits (split 1): a run's first digit, then every third;
 *   - A1: a punctuation byte alone (none before or after it, no space before it) before
 *     ASCII letters starts a chunk that takes them (those only: a wide letter after them
 *     starts a chunk of its own, "(caf" "és");
 *   - A2: white space other than a line break before letters starts a chunk that takes them
 *     (it always starts a chunk: a white-space chunk before it leaves it, see spaces_end);
 *     other letter runs start their own;
 *   - A3: a punctuation run starts a chunk, or the space before it does; the line breaks
 *     right after the run go with it;
 *   - white space: its run starts a chunk, and so do its first byte after its last line break
 *     and, when two or more spaces end it, its last (which goes with the letters or the
 *     punctuation that follow, or stands alone: a tab before punctuation); spaces before
 *     digits stay one chunk (the digits' Split cut the text there first). These chunks are
 *     quick only where the window has no space before a line break (a run's chunk then ends
 *     at a later line break: pretokenize_deepseek.c cuts it) and the run ends inside the window.
 * Every other chunk is quick: it ends at the next start, when that start is before the
 * window's limit (else the characters past it may go on with the chunk).
 *
 * Left out: the character rules (pretokenize_deepseek.c). Included by split_blocks.h only.
 */
#ifndef TOKENPRISM_SPLIT_BLOCKS_DEEPSEEK_H
#define TOKENPRISM_SPLIT_BLOCKS_DEEPSEEK_H

#include <stdint.h>

/* b->starts and b->quick of the window just classified. */
static inline void deepseek_starts(SplitBlocks *b) {
    uint64_t ascii = b->letters, letters = ascii | b->wide, punct = b->other, newline = b->newline, space = b->space;
    uint64_t blank = b->blank, alone = punct & ~(punct << 1) & ~(punct >> 1) & ~(blank << 1);
    uint64_t a1 = alone & ascii >> 1, a2 = space & letters >> 1;
    uint64_t a1_letters = ((ascii + (a1 << 1)) ^ ascii) & ascii; /* the ASCII letters A1 takes */
    uint64_t words = (letters & ~(letters << 1) & ~((a1 | a2) << 1)) | (b->wide & a1_letters << 1);
    uint64_t punct_runs = punct & ~(punct << 1) & ~a1;
    uint64_t a3 = (punct_runs & ~(blank << 1)) | (blank & punct_runs >> 1);
    uint64_t taken = newline & punct << 1;           /* line breaks right after a punctuation run */
    taken = ((newline + taken) ^ newline) & newline; /* and the rest of their run */
    uint64_t ws = (space | newline) & ~taken;
    uint64_t ws_starts = (ws & ~(ws << 1)) | (space & newline << 1) | (space & space << 1 & (letters | punct) >> 1);
    b->quick = words | a1 | a2 | a3 | digit_starts(b->digit, 3);
    b->starts = b->quick | ws_starts;
    if (!(space & newline >> 1)) b->quick |= ws_starts & ended_runs(space | newline, window_bytes(b));
}

#endif
