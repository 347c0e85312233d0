/* The split patterns of gpt2 (r50k_base), cl100k_base and o200k_base, for ASCII text, in C.
 * Built as app.bpe._ascii_split by setup.py.
 *
 * split(kind: int, text: str) -> list[str]
 *     kind 0: gpt2, 1: cl100k_base, 2: o200k_base -- the patterns tiktoken is given in
 *     app/tokenizers/openai_encodings.py. `text` must be ASCII (ValueError otherwise).
 *
 * tiktoken runs these patterns with Rust's fancy-regex (Unicode classes); on ASCII text
 * \p{L} is [A-Za-z], \p{Lu} [A-Z], \p{Ll} [a-z], \p{N} [0-9], \s the White_Space
 * characters \t \n \v \f \r and space, and every other character is "other". Each
 * function below returns where the match starting at `i` ends, taking the pattern's
 * alternatives in order, as the regex engine does (leftmost alternative that matches).
 * tests/tokenizers/test_ascii_split.py checks the chunks against the regex on random and
 * real ASCII text.
 *
 * Left out: non-ASCII text (callers use tiktoken for it) and special tokens.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

enum { OTHER = 0, LETTER_UPPER, LETTER_LOWER, DIGIT, SPACE };

static unsigned char class_of[128];

static void init_classes(void) {
    for (int c = 0; c < 128; c++) {
        if (c >= 'A' && c <= 'Z') class_of[c] = LETTER_UPPER;
        else if (c >= 'a' && c <= 'z') class_of[c] = LETTER_LOWER;
        else if (c >= '0' && c <= '9') class_of[c] = DIGIT;
        else if ((c >= '\t' && c <= '\r') || c == ' ') class_of[c] = SPACE;
        else class_of[c] = OTHER;
    }
}

#define IS_LETTER(c) (class_of[c] == LETTER_UPPER || class_of[c] == LETTER_LOWER)
#define IS(c, k) (class_of[c] == (k))
#define IS_NEWLINE(c) ((c) == '\r' || (c) == '\n')

static Py_ssize_t run_of(const unsigned char *s, Py_ssize_t i, Py_ssize_t n, int k) {
    while (i < n && IS(s[i], k)) i++;
    return i;
}

static Py_ssize_t letters_from(const unsigned char *s, Py_ssize_t i, Py_ssize_t n) {
    while (i < n && IS_LETTER(s[i])) i++;
    return i;
}

/* \p{N}{1,3} at i (s[i] is a digit). Not run_of: that would rescan a long run for every 3 digits. */
static Py_ssize_t up_to_3_digits(const unsigned char *s, Py_ssize_t i, Py_ssize_t n) {
    Py_ssize_t end = i + 1;
    while (end < n && end - i < 3 && IS(s[end], DIGIT)) end++;
    return end;
}

/* A contraction at i: 's 'd 'm 't 'll 've 're (ASCII case folded when `fold`); its end, or i. */
static Py_ssize_t contraction(const unsigned char *s, Py_ssize_t i, Py_ssize_t n, int fold) {
    if (i + 1 >= n || s[i] != '\'') return i;
    unsigned char a = s[i + 1], b = i + 2 < n ? s[i + 2] : 0;
    if (fold) {
        a = (unsigned char)Py_TOLOWER(a);
        b = (unsigned char)Py_TOLOWER(b);
    }
    if (a == 's' || a == 'd' || a == 'm' || a == 't') return i + 2;
    if ((a == 'l' && b == 'l') || (a == 'v' && b == 'e') || (a == 'r' && b == 'e')) return i + 3;
    return i;
}

/* Whitespace from i (s[i] is whitespace) to k: the shared tail of all three patterns.
 * `newline_first`: \s*[\r\n] (cl100k after \s++$) or \s*[\r\n]+ (o200k) comes before \s+(?!\S),
 * both ending just after the run's last \r or \n. */
static Py_ssize_t spaces(const unsigned char *s, Py_ssize_t i, Py_ssize_t n, int newline_first, int end_first) {
    Py_ssize_t k = run_of(s, i, n, SPACE);
    if (end_first && k == n) return n;                           /* \s++$ */
    if (newline_first)
        for (Py_ssize_t m = k - 1; m >= i; m--)
            if (IS_NEWLINE(s[m])) return m + 1;                  /* \s*[\r\n] */
    if (k == n) return n;                                        /* \s+(?!\S) at the end */
    if (k - i >= 2) return k - 1;                                /* \s+(?!\S) */
    return i + 1;                                                /* \s, or \s+ of one */
}

/* '(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s */
static Py_ssize_t next_gpt2(const unsigned char *s, Py_ssize_t i, Py_ssize_t n) {
    Py_ssize_t end = contraction(s, i, n, 0);
    if (end > i) return end;
    Py_ssize_t j = i + (s[i] == ' ' && i + 1 < n);
    if (IS_LETTER(s[j])) return letters_from(s, j, n);
    if (IS(s[j], DIGIT)) return run_of(s, j, n, DIGIT);
    if (IS(s[j], OTHER)) return run_of(s, j, n, OTHER);
    return spaces(s, i, n, 0, 1);
}

/* '(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+
 * |\s++$|\s*[\r\n]|\s+(?!\S)|\s */
static Py_ssize_t next_cl100k(const unsigned char *s, Py_ssize_t i, Py_ssize_t n) {
    Py_ssize_t end = contraction(s, i, n, 1);
    if (end > i) return end;
    unsigned char c = s[i];
    if (IS_LETTER(c)) return letters_from(s, i, n);
    if (!IS_NEWLINE(c) && !IS(c, DIGIT) && i + 1 < n && IS_LETTER(s[i + 1])) return letters_from(s, i + 1, n);
    if (IS(c, DIGIT)) return up_to_3_digits(s, i, n);
    Py_ssize_t j = i + (c == ' ' && i + 1 < n);
    if (IS(s[j], OTHER)) {
        end = run_of(s, j, n, OTHER);
        while (end < n && IS_NEWLINE(s[end])) end++;
        return end;
    }
    return spaces(s, i, n, 1, 1);
}

/* [^\r\n\p{L}\p{N}]?[\p{Lu}..]*[\p{Ll}..]+(?i:'s|..)?|[^\r\n\p{L}\p{N}]?[\p{Lu}..]+[\p{Ll}..]*(?i:'s|..)?
 * |\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+ */
static Py_ssize_t next_o200k(const unsigned char *s, Py_ssize_t i, Py_ssize_t n) {
    unsigned char c = s[i];
    /* The optional first character is taken when the rest can follow it; a letter never is one. */
    Py_ssize_t j = i + (!IS_NEWLINE(c) && !IS_LETTER(c) && !IS(c, DIGIT) && i + 1 < n);
    Py_ssize_t upper = run_of(s, j, n, LETTER_UPPER);
    Py_ssize_t lower = run_of(s, upper, n, LETTER_LOWER);
    if (lower > upper || upper > j) return contraction(s, lower, n, 1);
    if (IS(c, DIGIT)) return up_to_3_digits(s, i, n);
    j = i + (c == ' ' && i + 1 < n);
    if (IS(s[j], OTHER)) {
        Py_ssize_t end = run_of(s, j, n, OTHER);
        while (end < n && (IS_NEWLINE(s[end]) || s[end] == '/')) end++;
        return end;
    }
    return spaces(s, i, n, 1, 0);
}

static PyObject *split(PyObject *module, PyObject *args) {
    int kind;
    PyObject *text;
    if (!PyArg_ParseTuple(args, "iU:split", &kind, &text)) return NULL;
    if (!PyUnicode_IS_ASCII(text)) {
        PyErr_SetString(PyExc_ValueError, "split takes ASCII text only");
        return NULL;
    }
    Py_ssize_t (*next)(const unsigned char *, Py_ssize_t, Py_ssize_t) =
        kind == 0 ? next_gpt2 : kind == 1 ? next_cl100k : kind == 2 ? next_o200k : NULL;
    if (!next) {
        PyErr_Format(PyExc_ValueError, "kind %d is not 0 (gpt2), 1 (cl100k_base) or 2 (o200k_base)", kind);
        return NULL;
    }
    const unsigned char *s = PyUnicode_1BYTE_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    PyObject *chunks = PyList_New(0);
    if (!chunks) return NULL;
    for (Py_ssize_t i = 0; i < n;) {
        Py_ssize_t end = next(s, i, n);
        PyObject *chunk = PyUnicode_New(end - i, 127);
        if (!chunk) goto fail;
        memcpy(PyUnicode_1BYTE_DATA(chunk), s + i, (size_t)(end - i));
        int appended = PyList_Append(chunks, chunk);
        Py_DECREF(chunk);
        if (appended < 0) goto fail;
        i = end;
    }
    return chunks;
fail:
    Py_DECREF(chunks);
    return NULL;
}

static PyMethodDef methods[] = {
    {"split", split, METH_VARARGS,
     "split(kind: int, text: str) -> list[str]: the chunks of ASCII `text` by the split pattern of "
     "gpt2 (kind 0), cl100k_base (1) or o200k_base (2)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_ascii_split", NULL, -1, methods};

PyMODINIT_FUNC PyInit__ascii_split(void) {
    init_classes();
    return PyModule_Create(&module);
}
