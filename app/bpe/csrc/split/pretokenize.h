/* The split patterns of the OpenAI-style tokenizers, in C: the contract between the
 * pretokenizer (pretokenize.c) and the encoder that merges its chunks (_engine.c).
 *
 * Each family is one of the split patterns tokenprism's tiktoken-style tokenizers use
 * (app/tokenizers/openai_encodings.py, app/backends/llama_backend.py, qwen_backend.py,
 * tekken_backend.py). The chunks are exactly the matches the regex engine tiktoken runs
 * (Rust's fancy-regex, Unicode classes) finds, in order; text no alternative matches
 * cannot occur (every pattern ends in a catch-all).
 *
 * Left out: special tokens (the caller cuts the text around them first) and invalid
 * UTF-8 (the caller gives the UTF-8 of a Python str without lone surrogates).
 */
#ifndef TOKENPRISM_PRETOKENIZE_H
#define TOKENPRISM_PRETOKENIZE_H

#include <stddef.h>

typedef enum {
    PRETOK_GPT2 = 0,   /* r50k_base (gpt2) */
    PRETOK_CL100K = 1, /* cl100k_base */
    PRETOK_O200K = 2,  /* o200k_base, o200k_harmony, llama4 */
    PRETOK_QWEN = 3,   /* qwen3_6: cl100k's shape, letters with marks, one digit a chunk */
    PRETOK_TEKKEN = 4, /* Mistral's Tekken files: o200k's shape, no contractions, one digit a chunk */
    PRETOK_LLAMA3 = 5, /* llama3: cl100k's older, non-possessive form, which differs at the end
                        * ("a\n  " is "a" "\n" "  ", not "a" "\n  ") */
    PRETOK_DEEPSEEK = 6, /* deepseek_v4's tokenizer.json: three Splits in a row, the Hugging Face
                          * library's classes (pretokenize_deepseek.c; not in pretok_next_regex) */
    PRETOK_FAMILIES
} pretok_family;

/* Prepares the Unicode class tables; call once (at module init) before pretok_next. (Today the
 * tables are generated constant data and this does nothing; calling it keeps callers future-proof.) */
void pretok_init(void);

/* Where the chunk that starts at byte `i` of the UTF-8 text s[0..n) ends (i < n; the
 * result is > i and <= n). Pure: reads only s; safe without the GIL and from any thread.
 * app/bpe/families.py maps each pattern string to its family number (FAMILIES). */
size_t pretok_next(pretok_family family, const unsigned char *s, size_t i, size_t n);

/* The function pretok_next calls for `family` (taking s, i and n as it does): the encoder's
 * loop calls it directly, without choosing the family again for every chunk. */
typedef size_t (*pretok_fn)(const unsigned char *s, size_t i, size_t n);
pretok_fn pretok_function(pretok_family family);

/* pretok_next for PRETOK_DEEPSEEK (pretokenize_deepseek.c, linked where pretokenize.c is), and the
 * version of the `tokenizers` library whose classes it was built with (only right for that one). */
size_t pretok_next_deepseek(const unsigned char *s, size_t i, size_t n);
const char *pretok_onig_version(void);

/* Whether the table sorts ASCII as split_blocks_deepseek.h's windows read it (letters A-Z a-z,
 * digits, line breaks \r \n, white space \t \v \f and ' ', control bytes as other, the rest
 * punctuation); when not, DeepSeek's split gets no windows, so a table that differed could not
 * change a chunk. */
int pretok_deepseek_ascii_as_windows_read(void);

/* Whether code point cp (< 0x800) is a letter or a mark in DeepSeek's split (its [\p{L}\p{M}]+,
 * the Hugging Face library's classes): split_blocks.h's windows read such characters as letters. */
int pretok_deepseek_letter(unsigned long cp);

/* pretok_next on the Unicode classes of Python's `regex` module (the version pinned for the build)
 * in place of tiktoken's: the chunks `regex` finds with the family's pattern (tested for gpt2 and
 * cl100k). tokenprism's own BPE splits with `regex`, so its training counts these (_chunk_count.c). */
void pretok_init_regex(void);
size_t pretok_next_regex(pretok_family family, const unsigned char *s, size_t i, size_t n);

/* The class (PT_OTHER ... PT_NEWLINE, app/bpe/unicode_classes.py) code point cp has in each table
 * (the third is the Hugging Face library's, which PRETOK_DEEPSEEK reads). */
unsigned pretok_class(unsigned long cp);
unsigned pretok_class_regex(unsigned long cp);
unsigned pretok_class_onig(unsigned long cp);

/* 1 when code point cp is upper-case only (\p{Lu}) in tiktoken's classes, 2 when lower-case only
 * (\p{Ll}), else 0: split_blocks.h's windows read such letters as they read A-Z and a-z. */
int pretok_case(unsigned long cp);

#endif
