/* ce_filter/score/pagekind.py's page signals and the page-kind model, in C: the one
 * implementation in the package (a required part). The Python reference is the test oracle
 * tests/oracles/pagekind_signals.py (the names below are its): the values must be the same bit
 * for bit (the page-kind model was fitted on them), and tests compare the two on every corpus
 * page, on hostile pages and on random URLs.
 *
 * Why: in Python the signals cost ~0.7 ms a page (a third of an extraction): scans of the raw
 * HTML for the declared types, urlsplit and regexes over the URL, ~25 numpy reductions over the
 * block arrays, and a bag of the first words of the text. Here each is one pass, with no
 * temporary arrays or strings.
 *
 * The parts, each the exact equivalent of the reference's code:
 * - scan_html: the JSON-LD / microdata types (str.find of '"@type"' / 'itemtype=' then
 *   TYPE_AFTER_KEY / TYPE_AFTER_ATTR matched there), OG_RX.search and the canonical-link
 *   search, as hand-written matchers of those regexes (the same first match: lazy {0,80}?
 *   tried shortest first; re.I's case folding for the letters used: 'i' also matches U+0130
 *   and U+0131, 's' U+017F, 'k' U+212A; \s is Py_UNICODE_ISSPACE, \w Py_UNICODE_ISALNUM or '_').
 * - head_signals: scan_html's finds made into the signals before the blocks': the declared
 *   types, og_signals of the og:type value and url_signals of the URL given, else of the
 *   canonical link: urlsplit's path and query read as CPython 3.11 reads them (split_url),
 *   the path's segments and words looked up in the URL lexicon, YEAR and NUM_SEG by hand.
 *   str.lower() is not called: only ASCII letters and U+212A lower-case to ASCII (and U+0130
 *   to 'i' + U+0307), and none lower-cases to a separator or a digit (tests check every code
 *   point). The two counts' log1p is numpy's (page_signals takes it; kind_proba reads it from
 *   configure's table of numpy's values). Where urlsplit raises ValueError on a malformed
 *   netloc, the URL is read like any other (split_url).
 * - block_signals: the block-array reductions. The counts are whole numbers, so every sum is
 *   exact in any order (numpy's pairwise sums give the same doubles); log1p is left to numpy
 *   (its SIMD log1p is not libm's, bit for bit).
 * - kind_proba: head_signals', block_signals' and text_signals' loops, then the page-kind
 *   model itself (the signals' log1p, standardised, one weight row per kind, the softmax) in one
 *   call without the GIL: libm's log1p and exp, the products added in feature order, so to ~1e-15 of the numpy
 *   reference (PageKindModel.proba over page_signals) rather than bit for bit; tests check the
 *   probabilities to 1e-12 and the same most probable kind on every corpus page.
 * - text_signals: the first _TEXT_SCAN characters of the blocks' text joined by spaces, split
 *   as str.split() splits (Py_UNICODE_ISSPACE). Lower-casing is not done: no character's
 *   lower case is or contains a space, a digit or a currency sign unless the character is one,
 *   and the only non-ASCII character whose lower case is ASCII is U+212A (KELVIN SIGN -> 'k'),
 *   so the words of the (ASCII) lexicon are found without it (tests check these facts on every
 *   code point).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* ------------------------------------------------------------------ strings */

typedef struct {
    int kind;
    const void *d;
    Py_ssize_t n; /* characters readable (the scan bound) */
} str_t;

static inline Py_UCS4 rd(const str_t *s, Py_ssize_t i) { return PyUnicode_READ(s->kind, s->d, i); }

/* first i in [from, n - 1) with s[i] == c0 and (s[i + 1] | lc) == c1, or -1. lc is 0, or 0x20
 * to match the ASCII letter c1 in either case (only for letters re.I folds nothing else to):
 * SIMD over two shifted loads, as two characters together are rare in HTML */
static Py_ssize_t find_pair(const str_t *s, Py_ssize_t from, Py_UCS4 c0, Py_UCS4 c1, Py_UCS4 lc) {
    Py_ssize_t n = s->n, i = from < 0 ? 0 : from;
    if (s->kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *p = (const Py_UCS1 *)s->d;
#if defined(__SSE2__)
        __m128i v0 = _mm_set1_epi8((char)c0), v1 = _mm_set1_epi8((char)c1), vl = _mm_set1_epi8((char)lc);
        for (; i + 17 <= n; i += 16) {
            __m128i a = _mm_loadu_si128((const __m128i *)(p + i));
            __m128i b = _mm_or_si128(_mm_loadu_si128((const __m128i *)(p + i + 1)), vl);
            int m = _mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, v0), _mm_cmpeq_epi8(b, v1)));
            if (m) return i + __builtin_ctz((unsigned)m);
        }
#endif
        for (; i + 1 < n; i++)
            if (p[i] == c0 && (p[i + 1] | lc) == c1) return i;
        return -1;
    }
    if (s->kind == PyUnicode_2BYTE_KIND) {
        const Py_UCS2 *p = (const Py_UCS2 *)s->d;
#if defined(__SSE2__)
        __m128i v0 = _mm_set1_epi16((short)c0), v1 = _mm_set1_epi16((short)c1), vl = _mm_set1_epi16((short)lc);
        for (; i + 9 <= n; i += 8) {
            __m128i a = _mm_loadu_si128((const __m128i *)(p + i));
            __m128i b = _mm_or_si128(_mm_loadu_si128((const __m128i *)(p + i + 1)), vl);
            int m = _mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi16(a, v0), _mm_cmpeq_epi16(b, v1)));
            if (m) return i + (__builtin_ctz((unsigned)m) >> 1);
        }
#endif
        for (; i + 1 < n; i++)
            if (p[i] == c0 && (p[i + 1] | lc) == c1) return i;
        return -1;
    }
    const Py_UCS4 *p = (const Py_UCS4 *)s->d;
#if defined(__SSE2__)
    __m128i v0 = _mm_set1_epi32((int)c0), v1 = _mm_set1_epi32((int)c1), vl = _mm_set1_epi32((int)lc);
    for (; i + 5 <= n; i += 4) {
        __m128i a = _mm_loadu_si128((const __m128i *)(p + i));
        __m128i b = _mm_or_si128(_mm_loadu_si128((const __m128i *)(p + i + 1)), vl);
        int m = _mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi32(a, v0), _mm_cmpeq_epi32(b, v1)));
        if (m) return i + (__builtin_ctz((unsigned)m) >> 2);
    }
#endif
    for (; i + 1 < n; i++)
        if (p[i] == c0 && (p[i + 1] | lc) == c1) return i;
    return -1;
}

/* the ASCII string lit (length m) at i, case-sensitive */
static int at_cs(const str_t *s, Py_ssize_t i, const char *lit, Py_ssize_t m) {
    if (i < 0 || m > s->n - i) return 0;
    for (Py_ssize_t k = 0; k < m; k++)
        if (rd(s, i + k) != (Py_UCS4)(unsigned char)lit[k]) return 0;
    return 1;
}

/* first i >= from where lit (ASCII, length m >= 2) starts, case-sensitive (str.find), or -1;
 * SIMD hops to the pair lit[pivot], lit[pivot + 1] */
static Py_ssize_t find_lit(const str_t *s, Py_ssize_t from, const char *lit, Py_ssize_t m,
                           Py_ssize_t pivot) {
    Py_ssize_t i = from + pivot;
    for (;;) {
        i = find_pair(s, i, (unsigned char)lit[pivot], (unsigned char)lit[pivot + 1], 0);
        if (i < 0 || i - pivot > s->n - m) return -1;
        if (at_cs(s, i - pivot, lit, m)) return i - pivot;
        i++;
    }
}

/* re.IGNORECASE's view of a character, for the ASCII letters of the patterns: an ASCII
 * letter's lower case, and the four non-ASCII characters re.I matches to one */
static inline Py_UCS4 fold(Py_UCS4 c) {
    if (c >= 'A' && c <= 'Z') return c + 32;
    if (c < 0x80) return c;
    switch (c) {
    case 0x130: case 0x131: return 'i';
    case 0x17F: return 's';
    case 0x212A: return 'k';
    default: return c;
    }
}

/* the lower-case ASCII string lit (length m) at i, as re.I matches it */
static int at_ci(const str_t *s, Py_ssize_t i, const char *lit, Py_ssize_t m) {
    if (i < 0 || m > s->n - i) return 0;
    for (Py_ssize_t k = 0; k < m; k++)
        if (fold(rd(s, i + k)) != (Py_UCS4)(unsigned char)lit[k]) return 0;
    return 1;
}

static inline int is_ascii_letter(Py_UCS4 c) { return (c | 32) >= 'a' && (c | 32) <= 'z' && c < 0x80; }
/* [A-Za-z] under re.I */
static inline int is_ci_letter(Py_UCS4 c) { Py_UCS4 f = fold(c); return f >= 'a' && f <= 'z'; }
/* [\w.:-] (re.I changes nothing there) */
static inline int is_og_char(Py_UCS4 c) {
    return Py_UNICODE_ISALNUM(c) || c == '_' || c == '.' || c == ':' || c == '-';
}
/* [^"'\s>] */
static inline int is_href_char(Py_UCS4 c) {
    return !(c == '"' || c == '\'' || c == '>' || Py_UNICODE_ISSPACE(c));
}

static Py_ssize_t skip_space(const str_t *s, Py_ssize_t i) {
    while (i < s->n && Py_UNICODE_ISSPACE(rd(s, i))) i++;
    return i;
}

static inline int is_quote(const str_t *s, Py_ssize_t i) {
    if (i >= s->n) return 0;
    Py_UCS4 c = rd(s, i);
    return c == '"' || c == '\'';
}

/* ------------------------------------------------------------------ small ASCII tables */

/* lower-case ASCII word -> value, open addressing (configured once) */
#define WORD_MAX 31
#define TABLE_SLOTS 256
typedef struct {
    char w[WORD_MAX + 1];
    Py_ssize_t len; /* 0: empty slot */
    long long value;
} word_t;
typedef struct {
    word_t slot[TABLE_SLOTS];
    Py_ssize_t max_len;
} table_t;

static inline uint32_t hash_step(uint32_t h, unsigned char c) { return (h ^ c) * 16777619u; }
#define HASH0 2166136261u

static int table_put(table_t *t, const char *w, Py_ssize_t len, long long value) {
    uint32_t h = HASH0;
    for (Py_ssize_t k = 0; k < len; k++) h = hash_step(h, (unsigned char)w[k]);
    for (uint32_t p = 0; p < TABLE_SLOTS; p++) {
        word_t *e = &t->slot[(h + p) & (TABLE_SLOTS - 1)];
        if (e->len == 0) {
            memcpy(e->w, w, (size_t)len);
            e->len = len;
            e->value = value;
            if (len > t->max_len) t->max_len = len;
            return 0;
        }
        if (e->len == len && memcmp(e->w, w, (size_t)len) == 0) {
            e->value = value;
            return 0;
        }
    }
    return -1;
}

/* the value of w (hash h), or -1 */
static long long table_get(const table_t *t, const char *w, Py_ssize_t len, uint32_t h) {
    for (uint32_t p = 0; p < TABLE_SLOTS; p++) {
        const word_t *e = &t->slot[(h + p) & (TABLE_SLOTS - 1)];
        if (e->len == 0) return -1;
        if (e->len == len && memcmp(e->w, w, (size_t)len) == 0) return e->value;
    }
    return -1;
}

/* fill t from a dict {str: int}; every key non-empty lower-case ASCII of <= WORD_MAX chars */
static int table_from_dict(table_t *t, PyObject *d, const char *what) {
    memset(t, 0, sizeof *t);
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    while (PyDict_Next(d, &pos, &k, &v)) {
        Py_ssize_t len;
        const char *w = PyUnicode_Check(k) ? PyUnicode_AsUTF8AndSize(k, &len) : NULL;
        if (w == NULL || len < 1 || len > WORD_MAX || (Py_ssize_t)PyUnicode_GET_LENGTH(k) != len) {
            PyErr_Format(PyExc_ValueError, "%s: keys must be ASCII words of 1..%d characters", what,
                         WORD_MAX);
            return -1;
        }
        for (Py_ssize_t i = 0; i < len; i++)
            if (w[i] >= 'A' && w[i] <= 'Z') {
                PyErr_Format(PyExc_ValueError, "%s: keys must be lower case", what);
                return -1;
            }
        long long value = PyLong_AsLongLong(v);
        if (value == -1 && PyErr_Occurred()) return -1;
        if (value < 0 || table_put(t, w, len, value) < 0) {
            PyErr_Format(PyExc_ValueError, "%s: bad value or too many keys", what);
            return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ configuration */

static int configured = 0;
static table_t ld_table;   /* declared type -> group index */
static table_t word_table; /* lexicon word -> bit mask of its groups */
static int n_ld_groups, n_word_groups;
#define MAX_CURRENCY 16
static Py_UCS4 currency[MAX_CURRENCY];
static int n_currency;
#define MAX_RANGES 64
static Py_UCS4 digit_lo[MAX_RANGES], digit_hi[MAX_RANGES];
static int n_digit_ranges;
#define MAX_HEADINGS 16
static long long heading_tags[MAX_HEADINGS];
static int n_headings;
static long long tag_h1, tag_pre;
/* flag bits, in block_signals' order */
enum { B_LI, B_TABLE, B_FORM, B_LABEL, B_PRE, B_BLOCKQUOTE, B_DL, B_ARTICLE, B_MAIN, B_NAVISH, B_A, N_BITS };
static long long bits[N_BITS];
static Py_ssize_t path_len;
/* the URL's signals: its words' groups, the og:type values and file extensions looked for,
 * and numpy's log1p of the small counts (numpy's SIMD log1p is not libm's, bit for bit) */
static table_t url_table; /* URL path word -> bit mask of its groups */
static int n_url_groups;
#define MAX_PREFIXES 8
typedef struct {
    char s[WORD_MAX + 1];
    Py_ssize_t len;
} lit_t;
static lit_t og_kinds[MAX_PREFIXES], url_exts[MAX_PREFIXES];
static int n_og_kinds, n_url_exts;
#define MAX_LOG1P 4096
static double log1p_small[MAX_LOG1P];
static Py_ssize_t n_log1p;
/* Py_UNICODE_ISSPACE of the BMP as bits (filled by configure: a call per character cost a
 * third of the word count) */
static uint8_t space_bmp[0x10000 / 8];

static uint8_t space_latin1[256];
static uint8_t ascii_start[128]; /* see start_class */

static inline int is_space(Py_UCS4 c) {
    if (c < 256) return space_latin1[c];
    return c < 0x10000 ? (space_bmp[c >> 3] >> (c & 7)) & 1 : Py_UNICODE_ISSPACE(c);
}


/* DIGIT_START's class: \d (Py_UNICODE_ISDECIMAL) or one of its ranges */
static inline int is_digit_start(Py_UCS4 c) {
    if (c >= '0' && c <= '9') return 1;
    for (int r = 0; r < n_digit_ranges; r++)
        if (c >= digit_lo[r] && c <= digit_hi[r]) return 1;
    return c >= 0x80 && Py_UNICODE_ISDECIMAL(c);
}

static inline int is_currency(Py_UCS4 c) {
    for (int i = 0; i < n_currency; i++)
        if (c == currency[i]) return 1;
    return 0;
}

/* a list of lower-case ASCII strings of 1..WORD_MAX characters into out (at most MAX_PREFIXES) */
static int lits_from_list(PyObject *list, lit_t *out, int *n, const char *what) {
    Py_ssize_t m = PyList_GET_SIZE(list);
    if (m > MAX_PREFIXES) {
        PyErr_Format(PyExc_ValueError, "configure: too many %s", what);
        return -1;
    }
    for (Py_ssize_t i = 0; i < m; i++) {
        PyObject *k = PyList_GET_ITEM(list, i);
        Py_ssize_t len;
        const char *w = PyUnicode_Check(k) ? PyUnicode_AsUTF8AndSize(k, &len) : NULL;
        if (w == NULL || len < 1 || len > WORD_MAX || PyUnicode_GET_LENGTH(k) != len) {
            PyErr_Format(PyExc_ValueError, "configure: %s must be ASCII of 1..%d characters", what, WORD_MAX);
            return -1;
        }
        for (Py_ssize_t j = 0; j < len; j++)
            if (w[j] >= 'A' && w[j] <= 'Z') {
                PyErr_Format(PyExc_ValueError, "configure: %s must be lower case", what);
                return -1;
            }
        memcpy(out[i].s, w, (size_t)len);
        out[i].len = len;
    }
    *n = (int)m;
    return 0;
}

static PyObject *configure(PyObject *self, PyObject *args) {
    PyObject *ld, *words, *cur, *ranges, *heads, *bitlist, *uwords, *ogk, *exts, *logs;
    int nld, nwg, nug;
    long long h1, pre;
    Py_ssize_t plen;
    if (!PyArg_ParseTuple(args, "O!iO!iUO!O!LLO!nO!iO!O!O!", &PyDict_Type, &ld, &nld, &PyDict_Type, &words,
                          &nwg, &cur, &PyList_Type, &ranges, &PyList_Type, &heads, &h1, &pre, &PyList_Type,
                          &bitlist, &plen, &PyDict_Type, &uwords, &nug, &PyList_Type, &ogk, &PyList_Type,
                          &exts, &PyList_Type, &logs))
        return NULL;
    configured = 0;
    if (nld < 1 || nld > 62 || nwg < 1 || nwg > 62 || nug < 1 || nug > 62 || plen < 3) {
        PyErr_SetString(PyExc_ValueError, "configure: bad group counts or path length");
        return NULL;
    }
    if (table_from_dict(&ld_table, ld, "declared types") < 0) return NULL;
    if (table_from_dict(&word_table, words, "lexicon") < 0) return NULL;
    if (table_from_dict(&url_table, uwords, "URL words") < 0) return NULL;
    for (int i = 0; i < TABLE_SLOTS; i++) {
        if ((ld_table.slot[i].len && ld_table.slot[i].value >= nld) ||
            (word_table.slot[i].len && word_table.slot[i].value >= (1LL << nwg)) ||
            (url_table.slot[i].len && url_table.slot[i].value >= (1LL << nug))) {
            PyErr_SetString(PyExc_ValueError, "configure: value past the group count");
            return NULL;
        }
    }
    if (lits_from_list(ogk, og_kinds, &n_og_kinds, "og:type kinds") < 0 ||
        lits_from_list(exts, url_exts, &n_url_exts, "URL extensions") < 0)
        return NULL;
    Py_ssize_t nl = PyList_GET_SIZE(logs);
    if (nl < 1 || nl > MAX_LOG1P) {
        PyErr_SetString(PyExc_ValueError, "configure: 1..4096 log1p values");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < nl; i++) {
        log1p_small[i] = PyFloat_AsDouble(PyList_GET_ITEM(logs, i));
        if (log1p_small[i] == -1.0 && PyErr_Occurred()) return NULL;
    }
    n_log1p = nl;
    n_url_groups = nug;
    Py_ssize_t nc = PyUnicode_GET_LENGTH(cur);
    if (nc > MAX_CURRENCY) {
        PyErr_SetString(PyExc_ValueError, "configure: too many currency signs");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < nc; i++) currency[i] = PyUnicode_READ_CHAR(cur, i);
    Py_ssize_t nr = PyList_GET_SIZE(ranges), nh = PyList_GET_SIZE(heads);
    if (nr > MAX_RANGES || nh > MAX_HEADINGS || PyList_GET_SIZE(bitlist) != N_BITS) {
        PyErr_SetString(PyExc_ValueError, "configure: too many ranges or headings, or not 11 bits");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < nr; i++) {
        unsigned int lo, hi;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(ranges, i), "II", &lo, &hi)) return NULL;
        digit_lo[i] = lo;
        digit_hi[i] = hi;
    }
    for (Py_ssize_t i = 0; i < nh; i++) {
        heading_tags[i] = PyLong_AsLongLong(PyList_GET_ITEM(heads, i));
        if (heading_tags[i] == -1 && PyErr_Occurred()) return NULL;
    }
    for (int i = 0; i < N_BITS; i++) {
        bits[i] = PyLong_AsLongLong(PyList_GET_ITEM(bitlist, i));
        if (bits[i] == -1 && PyErr_Occurred()) return NULL;
    }
    n_ld_groups = nld;
    n_word_groups = nwg;
    n_currency = (int)nc;
    n_digit_ranges = (int)nr;
    n_headings = (int)nh;
    tag_h1 = h1;
    tag_pre = pre;
    path_len = plen;
    memset(space_bmp, 0, sizeof space_bmp);
    for (Py_UCS4 c = 0; c < 0x10000; c++)
        if (Py_UNICODE_ISSPACE(c)) space_bmp[c >> 3] |= (uint8_t)(1u << (c & 7));
    for (Py_UCS4 c = 0; c < 256; c++) space_latin1[c] = (uint8_t)(Py_UNICODE_ISSPACE(c) ? 1 : 0);
    for (Py_UCS4 c = 0; c < 128; c++)
        ascii_start[c] = (uint8_t)((is_currency(c) ? 1 : 0) | (is_digit_start(c) ? 2 : 0));
    configured = 1;
    Py_RETURN_NONE;
}

static int need_config(void) {
    if (!configured) PyErr_SetString(PyExc_RuntimeError, "ce_filter.score._pagekind: configure() first");
    return configured;
}

/* ------------------------------------------------------------------ the HTML scans */

/* the group index of the letters s[a:e] lower-cased (Python's str.lower, then _LD_INDEX), or
 * -1: only ASCII letters and U+212A lower-case to ASCII, and the table's keys are ASCII */
static long long ld_group(const str_t *s, Py_ssize_t a, Py_ssize_t e) {
    if (e - a > ld_table.max_len) return -1;
    char w[WORD_MAX + 1];
    uint32_t h = HASH0;
    for (Py_ssize_t i = a; i < e; i++) {
        Py_UCS4 c = rd(s, i);
        char lc;
        if (c < 0x80) lc = (char)((c >= 'A' && c <= 'Z') ? c + 32 : c);
        else if (c == 0x212A) lc = 'k';
        else return -1;
        w[i - a] = lc;
        h = hash_step(h, (unsigned char)lc);
    }
    return table_get(&ld_table, w, e - a, h);
}

/* TYPE_AFTER_KEY.match(s, j): \s*:\s*\[?\s*"(?:https?://schema\.org/)?([A-Za-z]+)"
 * -> the group's [a, e), or 0 */
static int type_after_key(const str_t *s, Py_ssize_t j, Py_ssize_t *a, Py_ssize_t *e) {
    j = skip_space(s, j);
    if (j >= s->n || rd(s, j) != ':') return 0;
    j = skip_space(s, j + 1);
    if (j < s->n && rd(s, j) == '[') j = skip_space(s, j + 1);
    if (j >= s->n || rd(s, j) != '"') return 0;
    j++;
    /* with the optional prefix first; without it (the regex's backtrack) */
    Py_ssize_t starts[2] = {-1, j};
    if (at_cs(s, j, "http", 4)) {
        Py_ssize_t k = j + 4;
        if (k < s->n && rd(s, k) == 's') k++;
        if (at_cs(s, k, "://schema.org/", 14)) starts[0] = k + 14;
    }
    for (int t = 0; t < 2; t++) {
        Py_ssize_t g = starts[t], k = g;
        if (g < 0) continue;
        while (k < s->n && is_ascii_letter(rd(s, k))) k++;
        if (k > g && k < s->n && rd(s, k) == '"') {
            *a = g;
            *e = k;
            return 1;
        }
    }
    return 0;
}

/* TYPE_AFTER_ATTR.match(s, j) (re.I): ["']?https?://schema\.org/([A-Za-z]+) */
static int type_after_attr(const str_t *s, Py_ssize_t j, Py_ssize_t *a, Py_ssize_t *e) {
    if (is_quote(s, j)) j++;
    if (!at_ci(s, j, "http", 4)) return 0;
    j += 4;
    if (j < s->n && fold(rd(s, j)) == 's') j++;
    if (!at_ci(s, j, "://schema.org/", 14)) return 0;
    j += 14;
    Py_ssize_t k = j;
    while (k < s->n && is_ci_letter(rd(s, k))) k++;
    if (k == j) return 0;
    *a = j;
    *e = k;
    return 1;
}

/* declared_types: bit g for each group declared, bit n_ld_groups if any key is there */
static unsigned long long declared(const str_t *s) {
    static const struct { const char *key; Py_ssize_t len, pivot; int attr; } keys[2] = {
        {"\"@type\"", 7, 0, 0}, {"itemtype=", 9, 3, 1}};
    unsigned long long mask = 0;
    for (int t = 0; t < 2; t++) {
        Py_ssize_t i = find_lit(s, 0, keys[t].key, keys[t].len, keys[t].pivot);
        while (i >= 0) {
            Py_ssize_t a, e;
            mask |= 1ull << n_ld_groups;
            int hit = keys[t].attr ? type_after_attr(s, i + keys[t].len, &a, &e)
                                   : type_after_key(s, i + keys[t].len, &a, &e);
            if (hit) {
                long long g = ld_group(s, a, e);
                if (g >= 0) mask |= 1ull << g;
            }
            i = find_lit(s, i + keys[t].len, keys[t].key, keys[t].len, keys[t].pivot);
        }
    }
    return mask;
}

/* re.search (re.I) of
 *   <TAG[^>]{0,80}?(?:ATTR1|ATTR2)=["']?VALUE["']?[^>]{0,80}?ATTR3=["']?(CLASS+)
 * (TAG etc. lower-case ASCII): the first match's group [a, e), or 0. Tried as re tries it:
 * start positions in order, each lazy {0,80}? shortest first. The optional quotes never need a
 * second try: where one is there and the rest fails after it, the rest fails without it too. */
typedef struct {
    const char *tag; /* its first letter one that re.I folds no other character to */
    const char *attrs[2];
    const char *value;
    const char *attr3;
    int (*cls)(Py_UCS4);
} tag_rx_t;

#define LAZY 80

static int tag_search(const str_t *s, const tag_rx_t *rx, Py_ssize_t *ga, Py_ssize_t *ge) {
    Py_ssize_t tl = (Py_ssize_t)strlen(rx->tag), vl = (Py_ssize_t)strlen(rx->value);
    Py_ssize_t a3l = (Py_ssize_t)strlen(rx->attr3);
    Py_UCS4 t0 = (unsigned char)rx->tag[0];
    for (Py_ssize_t st = find_pair(s, 0, '<', t0, 0x20); st >= 0; st = find_pair(s, st + 1, '<', t0, 0x20)) {
        if (!at_ci(s, st + 1, rx->tag, tl)) continue;
        Py_ssize_t b = st + 1 + tl;
        for (Py_ssize_t k1 = 0; k1 <= LAZY; k1++) {
            Py_ssize_t p = b + k1; /* chars b .. p-1 are not '>' */
            for (int t = 0; t < 2 && rx->attrs[t]; t++) {
                Py_ssize_t al = (Py_ssize_t)strlen(rx->attrs[t]);
                if (!at_ci(s, p, rx->attrs[t], al) || !at_cs(s, p + al, "=", 1)) continue;
                Py_ssize_t q = p + al + 1;
                if (is_quote(s, q)) q++;
                if (!at_ci(s, q, rx->value, vl)) continue;
                q += vl;
                if (is_quote(s, q)) q++;
                for (Py_ssize_t k2 = 0; k2 <= LAZY; k2++) {
                    Py_ssize_t c = q + k2;
                    if (at_ci(s, c, rx->attr3, a3l) && at_cs(s, c + a3l, "=", 1)) {
                        Py_ssize_t g = c + a3l + 1;
                        if (is_quote(s, g)) g++;
                        Py_ssize_t e = g;
                        while (e < s->n && rx->cls(rd(s, e))) e++;
                        if (e > g) {
                            *ga = g;
                            *ge = e;
                            return 1;
                        }
                    }
                    if (c >= s->n || rd(s, c) == '>') break;
                }
            }
            if (p >= s->n || rd(s, p) == '>') break;
        }
    }
    return 0;
}

static int og_class(Py_UCS4 c) { return is_og_char(c); }
static int href_class(Py_UCS4 c) { return is_href_char(c); }
static const tag_rx_t OG_RX = {"meta", {"property", "name"}, "og:type", "content", og_class};
static const tag_rx_t CANONICAL_RX = {"link", {"rel", NULL}, "canonical", "href", href_class};

static PyObject *group_or_none(PyObject *html, int hit, Py_ssize_t a, Py_ssize_t e) {
    if (!hit) Py_RETURN_NONE;
    return PyUnicode_Substring(html, a, e);
}

/* scan_html(html, limit, canonical) -> (declared-type bits, og:type value or None, canonical
 * href or None (None also when not asked)), all read in html[:limit] */
static PyObject *scan_html(PyObject *self, PyObject *args) {
    PyObject *html;
    Py_ssize_t limit;
    int want_canonical;
    if (!PyArg_ParseTuple(args, "Unp", &html, &limit, &want_canonical)) return NULL;
    if (!need_config()) return NULL;
    if (PyUnicode_READY(html) < 0) return NULL;
    str_t s = {PyUnicode_KIND(html), PyUnicode_DATA(html), PyUnicode_GET_LENGTH(html)};
    if (limit < 0) limit = 0;
    if (s.n > limit) s.n = limit;
    unsigned long long mask;
    Py_ssize_t a = 0, e = 0, ca = 0, ce = 0;
    int og, can;
    /* a str does not change and the arguments hold it: read without the GIL */
    Py_BEGIN_ALLOW_THREADS
    mask = declared(&s);
    og = find_lit(&s, 0, "og:type", 7, 2) >= 0 && tag_search(&s, &OG_RX, &a, &e);
    can = want_canonical && tag_search(&s, &CANONICAL_RX, &ca, &ce);
    Py_END_ALLOW_THREADS
    PyObject *og_v = group_or_none(html, og, a, e);
    if (og_v == NULL) return NULL;
    PyObject *can_v = group_or_none(html, can, ca, ce);
    if (can_v == NULL) {
        Py_DECREF(og_v);
        return NULL;
    }
    return Py_BuildValue("(KNN)", mask, og_v, can_v);
}

/* ------------------------------------------------------------------ the URL and og:type */

/* one character of str.lower()'s output as the ASCII comparisons see it: the ASCII character,
 * or 0 for any other (no other character lower-cases to ASCII but U+212A, and U+0130 to 'i'
 * then U+0307: tests check this on every code point); n: how many characters it becomes */
static inline int lower_ascii(Py_UCS4 c, Py_UCS4 out[2]) {
    if (c < 0x80) {
        out[0] = (c >= 'A' && c <= 'Z') ? c + 32 : c;
        return 1;
    }
    if (c == 0x212A) {
        out[0] = 'k';
        return 1;
    }
    if (c == 0x130) {
        out[0] = 'i';
        out[1] = 0;
        return 2;
    }
    out[0] = 0;
    return 1;
}

/* s[a:e].lower().startswith(lit) */
static int lower_startswith(const str_t *s, Py_ssize_t a, Py_ssize_t e, const lit_t *lit) {
    Py_ssize_t k = 0;
    for (Py_ssize_t i = a; i < e && k < lit->len; i++) {
        Py_UCS4 lc[2];
        int m = lower_ascii(rd(s, i), lc);
        for (int j = 0; j < m && k < lit->len; j++, k++)
            if (lc[j] != (Py_UCS4)(unsigned char)lit->s[k]) return 0;
    }
    return k == lit->len;
}

/* urlsplit(u)'s path and whether its query is not empty, read as CPython 3.11's urllib.parse
 * reads them: leading C0 controls and spaces stripped, then every tab, CR and LF removed (b:
 * the characters left, m of them); a scheme of scheme_chars before the first ':' dropped; a
 * netloc after '//' up to the first '/', '?' or '#' dropped; the fragment from the first '#';
 * the query after the first '?'. urlsplit's checks of the netloc (an unclosed '[', the host in
 * brackets not an IP address, characters NFKC turns into '/?#@:') raise ValueError there; here
 * such a URL is read like any other (a malformed canonical link must not fail the page). */
static inline int is_ascii_alpha(Py_UCS4 c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static inline int is_scheme_char(Py_UCS4 c) {
    return is_ascii_alpha(c) || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
}

static void split_url(const Py_UCS4 *b, Py_ssize_t m, Py_ssize_t *pa, Py_ssize_t *pe, int *query) {
    Py_ssize_t s = 0, i = 0;
    while (i < m && b[i] != ':') i++;
    if (i < m && i > 0 && is_ascii_alpha(b[0])) {
        Py_ssize_t j = 0;
        while (j < i && is_scheme_char(b[j])) j++;
        if (j == i) s = i + 1;
    }
    Py_ssize_t start = s;
    if (m - s >= 2 && b[s] == '/' && b[s + 1] == '/') {
        start = s + 2;
        while (start < m && b[start] != '/' && b[start] != '?' && b[start] != '#') start++;
    }
    Py_ssize_t hash = start, q = start;
    while (hash < m && b[hash] != '#') hash++;
    while (q < hash && b[q] != '?') q++;
    *pa = start;
    *pe = q;
    *query = q + 1 < hash;
}

static inline int is_url_sep(Py_UCS4 c) { return c == '/' || c == '-' || c == '_' || c == '.' || c == '+'; }

/* the URL word groups of b[a:e] lower-cased (a bit mask) */
static long long url_word(const Py_UCS4 *b, Py_ssize_t a, Py_ssize_t e) {
    if (e <= a || e - a > url_table.max_len) return 0;
    char w[WORD_MAX + 1];
    uint32_t h = HASH0;
    for (Py_ssize_t i = a; i < e; i++) {
        Py_UCS4 lc[2];
        if (lower_ascii(b[i], lc) != 1 || lc[0] == 0) return 0; /* not ASCII lower-cased */
        w[i - a] = (char)lc[0];
        h = hash_step(h, (unsigned char)lc[0]);
    }
    long long g = table_get(&url_table, w, e - a, h);
    return g > 0 ? g : 0;
}

#define N_URL_SHAPE 8 /* url_known .. url_html, then the word groups */

/* url_signals of u (u->n == 0: no URL) into x, the two counts (url_depth, url_slug_words)
 * without their log1p; -1 when out of memory (runs without the GIL) */
static int url_part(const str_t *u, double *x) {
    memset(x, 0, (size_t)(N_URL_SHAPE + n_url_groups) * sizeof *x);
    if (u->n == 0) return 0;
    Py_UCS4 *b = PyMem_RawMalloc((size_t)u->n * sizeof *b);
    if (b == NULL) return -1;
    Py_ssize_t m = 0, i = 0;
    while (i < u->n && rd(u, i) <= 0x20) i++; /* lstrip of the C0 controls and space */
    for (; i < u->n; i++) {
        Py_UCS4 c = rd(u, i);
        if (c != '\t' && c != '\r' && c != '\n') b[m++] = c;
    }
    Py_ssize_t a, e;
    int query;
    split_url(b, m, &a, &e, &query);
    /* the path: its '/' segments and the words between [/\-_.+]+ (both looked up: the
     * reference's set of split words | segments), the last segment, YEAR and NUM_SEG.
     * Lower-casing moves no '/', separator or decimal digit (tests check every code point). */
    Py_ssize_t segs = 0, last_a = 0, last_e = 0;
    long long groups = 0;
    int year = 0, num = 0;
    for (Py_ssize_t k = a; k < e;) {
        Py_ssize_t j = k;
        while (j < e && b[j] != '/') j++;
        if (j > k) {
            segs++;
            last_a = k;
            last_e = j;
            groups |= url_word(b, k, j);
        }
        k = j + 1;
    }
    for (Py_ssize_t k = a; k < e;) {
        Py_ssize_t j = k;
        while (j < e && !is_url_sep(b[j])) j++;
        groups |= url_word(b, k, j);
        k = j + 1;
    }
    for (Py_ssize_t k = a; k < e; k++) {
        if (b[k] != '/') continue;
        /* YEAR: /(?:19|20)\d\d/ */
        if (k + 5 < e && ((b[k + 1] == '1' && b[k + 2] == '9') || (b[k + 1] == '2' && b[k + 2] == '0')) &&
            Py_UNICODE_ISDECIMAL(b[k + 3]) && Py_UNICODE_ISDECIMAL(b[k + 4]) && b[k + 5] == '/')
            year = 1;
        /* NUM_SEG: /\d{3,}(?:/|$|[-_]): the longest run of digits, as a shorter one is
         * followed by a digit ($ is the end: the path has no newline) */
        Py_ssize_t j = k + 1;
        while (j < e && Py_UNICODE_ISDECIMAL(b[j])) j++;
        if (j - k - 1 >= 3 && (j == e || b[j] == '/' || b[j] == '-' || b[j] == '_')) num = 1;
    }
    Py_ssize_t dashes = 0;
    for (Py_ssize_t k = last_a; k < last_e; k++) dashes += b[k] == '-';
    int ext = 0;
    for (int t = 0; t < n_url_exts && !ext; t++) {
        /* last.lower().endswith(ext): only ASCII characters lower-case to the ASCII ones */
        Py_ssize_t len = url_exts[t].len;
        if (last_e - last_a < len) continue;
        ext = 1;
        for (Py_ssize_t k = 0; k < len && ext; k++) {
            Py_UCS4 lc[2], c = b[last_e - len + k];
            ext = lower_ascii(c, lc) == 1 && lc[0] == (Py_UCS4)(unsigned char)url_exts[t].s[k];
        }
    }
    PyMem_RawFree(b);
    x[0] = 1.0;
    x[1] = (double)segs;
    x[2] = segs == 0;
    x[3] = query;
    x[4] = year;
    x[5] = num;
    x[6] = (double)dashes;
    x[7] = ext;
    for (int g = 0; g < n_url_groups; g++) x[N_URL_SHAPE + g] = (groups >> g) & 1;
    return 0;
}

/* the head signals: declared types, og:type, URL */
static Py_ssize_t n_head(void) { return n_ld_groups + 1 + n_og_kinds + 1 + N_URL_SHAPE + n_url_groups; }
/* where in them the two counts are that take log1p */
static Py_ssize_t head_depth(void) { return n_ld_groups + 1 + n_og_kinds + 1 + 1; }
static Py_ssize_t head_dashes(void) { return n_ld_groups + 1 + n_og_kinds + 1 + 6; }

/* the head signals: the declared types, og:type and URL signals of html[:limit] (html->n is the
 * bound already) and url (url->n == 0: none, the canonical link instead) into x, the URL's two
 * counts without log1p; -1 when out of memory. No Python: runs without the GIL. */
static int head_part(const str_t *html, const str_t *url, double *x) {
    unsigned long long mask = declared(html);
    for (int g = 0; g <= n_ld_groups; g++) x[g] = (double)((mask >> g) & 1);
    double *o = x + n_ld_groups + 1;
    Py_ssize_t a = 0, e = 0;
    int og = find_lit(html, 0, "og:type", 7, 2) >= 0 && tag_search(html, &OG_RX, &a, &e);
    int any = 0;
    for (int k = 0; k < n_og_kinds; k++) {
        o[k] = og && lower_startswith(html, a, e, &og_kinds[k]);
        any |= o[k] != 0.0;
    }
    o[n_og_kinds] = og && e > a && !any;
    str_t u = *url;
    if (u.n == 0 && tag_search(html, &CANONICAL_RX, &a, &e)) {
        u = *html;
        u.d = (const char *)html->d + (size_t)a * (size_t)html->kind;
        u.n = e - a;
    }
    return url_part(&u, o + n_og_kinds + 1);
}

/* the str_t of html (its first ``limit`` characters) and of url (None or '': n = 0) */
static int head_args(PyObject *html, Py_ssize_t limit, PyObject *url, str_t *hs, str_t *us) {
    if (url != Py_None && !PyUnicode_Check(url)) {
        PyErr_SetString(PyExc_TypeError, "url must be str or None");
        return -1;
    }
    if (PyUnicode_READY(html) < 0 || (url != Py_None && PyUnicode_READY(url) < 0)) return -1;
    *hs = (str_t){PyUnicode_KIND(html), PyUnicode_DATA(html), PyUnicode_GET_LENGTH(html)};
    if (limit < 0) limit = 0;
    if (hs->n > limit) hs->n = limit;
    if (url == Py_None) *us = (str_t){PyUnicode_1BYTE_KIND, "", 0};
    else *us = (str_t){PyUnicode_KIND(url), PyUnicode_DATA(url), PyUnicode_GET_LENGTH(url)};
    return 0;
}

/* x[0..n) as a tuple of float (NULL: an error) */
static PyObject *float_tuple(const double *x, Py_ssize_t n) {
    PyObject *out = PyTuple_New(n);
    for (Py_ssize_t i = 0; out && i < n; i++) {
        PyObject *f = PyFloat_FromDouble(x[i]);
        if (!f) {
            Py_CLEAR(out);
            break;
        }
        PyTuple_SET_ITEM(out, i, f);
    }
    return out;
}

/* head_signals(html, url, limit) -> the declared types, og:type and URL signals (page_signals'
 * first values, "ld_article" .. the URL word groups), url_depth and url_slug_words still
 * without their log1p (page_signals takes numpy's) */
static PyObject *head_signals(PyObject *self, PyObject *args) {
    PyObject *html, *url;
    Py_ssize_t limit;
    if (!PyArg_ParseTuple(args, "UOn", &html, &url, &limit)) return NULL;
    if (!need_config()) return NULL;
    str_t hs, us;
    if (head_args(html, limit, url, &hs, &us) < 0) return NULL;
    Py_ssize_t nh = n_head();
    double x[256];
    int err;
    /* a str does not change and the arguments hold both: read without the GIL */
    Py_BEGIN_ALLOW_THREADS
    err = head_part(&hs, &us, x);
    Py_END_ALLOW_THREADS
    return err ? PyErr_NoMemory() : float_tuple(x, nh);
}

/* ------------------------------------------------------------------ the block arrays */

/* a C-contiguous buffer of n float64 (is_float) or int64 items, or -1 with ValueError */
static int get_buf(PyObject *o, Py_buffer *b, Py_ssize_t n, int is_float, const char *what) {
    if (PyObject_GetBuffer(o, b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return -1;
    const char *f = b->format ? b->format : "B";
    if (*f == '<' || *f == '=' || *f == '@') f++;
    int fmt_ok = is_float ? strcmp(f, "d") == 0 : (strcmp(f, "q") == 0 || strcmp(f, "l") == 0);
    if (!fmt_ok || b->itemsize != 8 || (n >= 0 && b->len != n * 8)) {
        PyBuffer_Release(b);
        PyErr_Format(PyExc_ValueError, "block_signals: %s is not a contiguous %s array of the "
                     "blocks' length", what, is_float ? "float64" : "int64");
        return -1;
    }
    return 0;
}

/* repeats: of blocks grouped by key = cont[:, level] * 65536 + tag (int64, wrapping as numpy
 * does), the largest group's size, the share of blocks in groups of >= 4, the share of the
 * words in them; an open-addressing count per key */
static int repeats(const int64_t *cont, const int64_t *tag, const double *cnt, Py_ssize_t n,
                   Py_ssize_t level, double *out) {
    if (n == 0) {
        out[0] = out[1] = out[2] = 0.0;
        return 0;
    }
    size_t cap = 16;
    while (cap < (size_t)n * 2) cap <<= 1;
    int64_t *keys = malloc(cap * sizeof *keys);
    Py_ssize_t *count = calloc(cap, sizeof *count);
    size_t *where = malloc((size_t)n * sizeof *where);
    if (!keys || !count || !where) {
        free(keys);
        free(count);
        free(where);
        return -1; /* out of memory: the caller raises (this runs without the GIL) */
    }
    Py_ssize_t maxc = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t k = (int64_t)((uint64_t)cont[i * path_len + level] * 65536u + (uint64_t)tag[i]);
        uint64_t h = (uint64_t)k * 0x9E3779B97F4A7C15ull;
        size_t p = (size_t)(h ^ (h >> 29)) & (cap - 1);
        while (count[p] && keys[p] != k) p = (p + 1) & (cap - 1);
        keys[p] = k;
        where[i] = p;
        if (++count[p] > maxc) maxc = count[p];
    }
    Py_ssize_t big = 0;
    double words = 0.0, big_words = 0.0;
    for (Py_ssize_t i = 0; i < n; i++) {
        double w = cnt[3 * i + 1];
        words += w;
        if (count[where[i]] >= 4) {
            big++;
            big_words += w;
        }
    }
    free(keys);
    free(count);
    free(where);
    out[0] = (double)maxc; /* log1p in numpy */
    out[1] = (double)big / (double)n;
    out[2] = big_words / ((1.0 > words) ? 1.0 : words);
    return 0;
}

#define N_BLOCK 28

/* the 28 block signals into v (log1p not taken): block_signals' and kind_proba's sums; no
 * Python (runs without the GIL); -1 when out of memory */
static int block_part(const double *cnt, const int64_t *flags, const int64_t *tag, const int64_t *cont,
                      Py_ssize_t n, double *v) {
    double tok = 0.0, links = 0.0, long_words = 0.0, pre_words = 0.0, top = 0.0;
    Py_ssize_t linky = 0, shorts = 0, heads = 0, h1s = 0, pres = 0, fl[N_BITS] = {0};
    for (Py_ssize_t i = 0; i < n; i++) {
        double w = cnt[3 * i + 1], a = cnt[3 * i + 2];
        tok += w;
        links += a;
        if (a / ((w < 1.0) ? 1.0 : w) > 0.5) linky++;
        if (w < 5) shorts++;
        if (w >= 40) long_words += w;
        if (i == 0 || w > top) top = w;
        int64_t t = tag[i], f = flags[i];
        for (int h = 0; h < n_headings; h++)
            if (t == heading_tags[h]) {
                heads++;
                break;
            }
        if (t == tag_h1) h1s++;
        for (int b = 0; b < N_BITS; b++)
            if (f & bits[b]) fl[b]++;
        if (f & bits[B_PRE]) pre_words += w;
        if ((f & bits[B_PRE]) || t == tag_pre) pres++;
    }
    double dn = (double)n, share_n = (double)(n > 1 ? n : 1);
    double tot = tok != 0.0 ? tok : 1.0;
    v[0] = dn;
    v[1] = tot;
    v[2] = links / tot;
    v[3] = n ? (double)linky / dn : 0.0;
    v[4] = n ? (double)shorts / dn : 0.0;
    v[5] = long_words / tot;
    v[6] = n ? top / tot : 0.0;
    v[7] = (double)heads;
    v[8] = n ? (double)heads / dn : 0.0;
    v[9] = (double)h1s;
    v[10] = (double)fl[B_LI] / share_n;
    v[11] = (double)fl[B_TABLE] / share_n;
    v[12] = (double)fl[B_FORM] / share_n;
    v[13] = (double)fl[B_LABEL] / share_n;
    v[14] = (double)pres;
    v[15] = pre_words / tot;
    v[16] = (double)fl[B_BLOCKQUOTE] / share_n;
    v[17] = (double)fl[B_DL] / share_n;
    v[18] = (double)fl[B_ARTICLE] / share_n;
    v[19] = (double)fl[B_MAIN] / share_n;
    v[20] = (double)fl[B_NAVISH] / share_n;
    v[21] = (double)fl[B_A] / share_n;
    return repeats(cont, tag, cnt, n, 1, v + 22) < 0 || repeats(cont, tag, cnt, n, 2, v + 25) < 0 ? -1 : 0;
}

/* block_signals(counts, flags, tag, cont) -> the 28 block signals of page_signals
 * ("blocks" .. "rep2_words"), those that page_signals takes log1p of still without it */
static PyObject *block_signals(PyObject *self, PyObject *args) {
    PyObject *co, *fo, *to, *po;
    if (!PyArg_ParseTuple(args, "OOOO", &co, &fo, &to, &po)) return NULL;
    if (!need_config()) return NULL;
    Py_buffer bc, bf, bt, bp;
    if (get_buf(fo, &bf, -1, 0, "flags") < 0) return NULL;
    Py_ssize_t n = bf.len / 8;
    if (get_buf(co, &bc, 3 * n, 1, "counts") < 0) {
        PyBuffer_Release(&bf);
        return NULL;
    }
    if (get_buf(to, &bt, n, 0, "tag") < 0) {
        PyBuffer_Release(&bf);
        PyBuffer_Release(&bc);
        return NULL;
    }
    if (get_buf(po, &bp, n * path_len, 0, "cont") < 0) {
        PyBuffer_Release(&bf);
        PyBuffer_Release(&bc);
        PyBuffer_Release(&bt);
        return NULL;
    }
    const double *cnt = bc.buf;
    const int64_t *flags = bf.buf, *tag = bt.buf, *cont = bp.buf;
    double v[N_BLOCK];
    int err;
    /* the buffers are held (get_buf): the sums run without the GIL */
    Py_BEGIN_ALLOW_THREADS
    err = block_part(cnt, flags, tag, cont, n, v) < 0;
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&bc);
    PyBuffer_Release(&bf);
    PyBuffer_Release(&bt);
    PyBuffer_Release(&bp);
    return err ? PyErr_NoMemory() : float_tuple(v, N_BLOCK);
}

/* ------------------------------------------------------------------ the text's words */

typedef struct {
    Py_ssize_t n_tok, n_cur, n_dig, groups[62];
} words_t;

/* a token's first character: 1 currency sign, 2 digit (ASCII from a table made by configure) */
static inline int start_class(Py_UCS4 c) {
    if (c < 128) return ascii_start[c];
    return (is_currency(c) ? 1 : 0) | (is_digit_start(c) ? 2 : 0);
}

/* the lexicon groups of one token: lower-cased (only ASCII letters and U+212A lower-case to
 * ASCII) and looked up */
static inline void count_word(words_t *t, const char *w, Py_ssize_t len, uint32_t h) {
    long long m = table_get(&word_table, w, len, h);
    if (m > 0)
        for (int g = 0; g < n_word_groups; g++)
            if (m & (1LL << g)) t->groups[g]++;
}

/* the tokens of p[0:len], split where str.split() splits */
#define DEFINE_TOKENS(NAME, T)                                                      \
    static void NAME(words_t *t, const T *p, Py_ssize_t len) {                      \
        Py_ssize_t k = 0, max_len = word_table.max_len;                             \
        for (;;) {                                                                  \
            while (k < len && is_space(p[k])) k++;                                  \
            if (k >= len) return;                                                   \
            Py_ssize_t a = k;                                                       \
            int cls = start_class(p[k]);                                            \
            t->n_tok++;                                                             \
            t->n_cur += cls & 1;                                                    \
            t->n_dig += cls >> 1;                                                   \
            char w[WORD_MAX + 1];                                                   \
            uint32_t h = HASH0;                                                     \
            int word = 1;                                                           \
            for (; k < len && !is_space(p[k]); k++) {                               \
                Py_UCS4 c = p[k];                                                   \
                if (!word) continue;                                                \
                char lc;                                                            \
                if (c < 0x80) lc = (char)((c >= 'A' && c <= 'Z') ? c + 32 : c);      \
                else if (c == 0x212A) lc = 'k';                                     \
                else {                                                              \
                    word = 0;                                                       \
                    continue;                                                       \
                }                                                                   \
                if (k - a >= max_len) {                                             \
                    word = 0;                                                       \
                    continue;                                                       \
                }                                                                   \
                w[k - a] = lc;                                                      \
                h = hash_step(h, (unsigned char)lc);                                \
            }                                                                       \
            if (word) count_word(t, w, k - a, h);                                   \
        }                                                                           \
    }

DEFINE_TOKENS(tokens1, Py_UCS1)
DEFINE_TOKENS(tokens2, Py_UCS2)
DEFINE_TOKENS(tokens4, Py_UCS4)

/* the tokens of the first ``limit`` characters of str o, into t (no Python: runs without the
 * GIL; str does not change) */
static void text_part(PyObject *o, Py_ssize_t limit, words_t *t) {
    Py_ssize_t len = PyUnicode_GET_LENGTH(o);
    if (len > limit) len = limit < 0 ? 0 : limit;
    int kind = PyUnicode_KIND(o);
    const void *d = PyUnicode_DATA(o);
    if (kind == PyUnicode_1BYTE_KIND) tokens1(t, d, len);
    else if (kind == PyUnicode_2BYTE_KIND) tokens2(t, d, len);
    else tokens4(t, d, len);
}

/* text_signals(joined, limit) -> (tokens, tokens starting with a currency sign, tokens starting
 * with a digit, (lexicon words per group)): of (joined[:limit]).lower().split(), joined the
 * blocks' texts joined by "\n" (texts.TextColumn.joined): the same tokens and characters as
 * the texts joined by spaces. */
static PyObject *text_signals(PyObject *self, PyObject *args) {
    PyObject *joined;
    Py_ssize_t limit;
    if (!PyArg_ParseTuple(args, "Un", &joined, &limit)) return NULL;
    if (!need_config()) return NULL;
    words_t t;
    memset(&t, 0, sizeof t);
    Py_BEGIN_ALLOW_THREADS
    text_part(joined, limit, &t);
    Py_END_ALLOW_THREADS
    PyObject *g = PyTuple_New(n_word_groups);
    if (g == NULL) return NULL;
    for (int i = 0; i < n_word_groups; i++) {
        PyObject *x = PyLong_FromSsize_t(t.groups[i]);
        if (x == NULL) {
            Py_DECREF(g);
            return NULL;
        }
        PyTuple_SET_ITEM(g, i, x);
    }
    return Py_BuildValue("(nnnN)", t.n_tok, t.n_cur, t.n_dig, g);
}

/* ------------------------------------------------------------------ the page-kind model */

/* numpy's log1p of a count: from configure's table of np.log1p values where the count is in
 * it, else libm's (as the block signals': to ~1e-16) */
static inline double log1p_count(double k) {
    return k < (double)n_log1p ? log1p_small[(Py_ssize_t)k] : log1p(k);
}

/* what the page-kind model reads: the standardisation (mean, scale), one weight row per kind
 * (coef: nk x nf, icpt), the signals' positions that take log1p (log_at, of the tail after the
 * head signals) */
typedef struct {
    const double *mean, *scale, *coef, *icpt;
    const int64_t *log_at;
    Py_ssize_t n_log, nk, nf;
} kind_model_t;

/* the page-kind probabilities of a page into out (m->nk): its signals (head_part of hs, us;
 * block_part; text_part of joined's first limit characters) through the model m; x: scratch of
 * m->nf. No Python: runs without the GIL; -1 when out of memory. */
static int kind_core(const kind_model_t *m, const str_t *hs, const str_t *us, const double *cnt,
                     const int64_t *flags, const int64_t *tag, const int64_t *cont, Py_ssize_t n,
                     PyObject *joined, Py_ssize_t limit, double *x, double *out) {
    Py_ssize_t np_ = n_head(), nf = m->nf, nk = m->nk;
    if (head_part(hs, us, x) < 0) return -1;
    double *v = x + np_;
    x[head_depth()] = log1p_count(x[head_depth()]);
    x[head_dashes()] = log1p_count(x[head_dashes()]);
    if (block_part(cnt, flags, tag, cont, n, v) < 0) return -1;
    words_t t;
    memset(&t, 0, sizeof t);
    text_part(joined, limit, &t);
    double n_read = (double)(t.n_tok > 1 ? t.n_tok : 1);
    v[N_BLOCK] = (double)t.n_cur;
    v[N_BLOCK + 1] = (double)t.n_dig / n_read;
    for (int g = 0; g < n_word_groups; g++) v[N_BLOCK + 2 + g] = 1000.0 * (double)t.groups[g] / n_read;
    for (Py_ssize_t j = 0; j < m->n_log; j++) v[m->log_at[j]] = log1p(v[m->log_at[j]]);
    for (Py_ssize_t f = 0; f < nf; f++) x[f] = (x[f] - m->mean[f]) / m->scale[f];
    double top = 0.0;
    for (Py_ssize_t k = 0; k < nk; k++) {
        double z = 0.0;
        for (Py_ssize_t f = 0; f < nf; f++) z += x[f] * m->coef[k * nf + f];
        out[k] = z + m->icpt[k];
        if (k == 0 || out[k] > top) top = out[k];
    }
    double sum = 0.0;
    for (Py_ssize_t k = 0; k < nk; k++) sum += (out[k] = exp(out[k] - top));
    for (Py_ssize_t k = 0; k < nk; k++) out[k] /= sum;
    return 0;
}

/* kind_proba(html, url, scan_limit, counts, flags, tag, cont, joined, limit, log_at, mean,
 * scale, coef, intercept, out): PageKindModel.proba(page_signals(...)) in one call: the signals
 * (head_signals' of html[:scan_limit] and url, the URL's two counts' log1p from configure's
 * table of numpy's values; then block_signals' and text_signals' values as page_signals
 * assembles them, log1p at the positions log_at of that tail), standardised (mean, scale), one
 * weight row per kind (coef: kinds x features, intercept) and the softmax, into out (kinds).
 * Everything after the arguments' checks runs without the GIL. The tail's log1p and exp are
 * libm's, and the products are added in feature order: equal to the numpy reference to ~1e-15
 * (bit for bit where numpy's log1p and exp are libm's). */
static PyObject *kind_proba(PyObject *self, PyObject *args) {
    PyObject *html, *url, *co, *fo, *to, *po, *joined, *olog, *omean, *oscale, *ocoef, *oicpt, *oout;
    Py_ssize_t scan_limit, limit;
    if (!PyArg_ParseTuple(args, "UOnOOOOUnOOOOOO", &html, &url, &scan_limit, &co, &fo, &to, &po, &joined,
                          &limit, &olog, &omean, &oscale, &ocoef, &oicpt, &oout))
        return NULL;
    if (!need_config()) return NULL;
    str_t hs, us;
    if (head_args(html, scan_limit, url, &hs, &us) < 0) return NULL;
    Py_buffer b[12];
    int nb = 0;
    PyObject *ret = NULL;
    double *x = NULL;
#define GET(o, n, fl, what) (get_buf(o, &b[nb], n, fl, what) < 0 ? NULL : b[nb++].buf)
    const int64_t *flags = GET(fo, -1, 0, "flags");
    if (!flags) goto done;
    Py_ssize_t n = b[0].len / 8;
    const double *cnt = GET(co, 3 * n, 1, "counts");
    const int64_t *tag = cnt ? GET(to, n, 0, "tag") : NULL;
    const int64_t *cont = tag ? GET(po, n * path_len, 0, "cont") : NULL;
    if (!cont) goto done;
    Py_ssize_t np_ = n_head(), nf = np_ + N_BLOCK + 2 + n_word_groups;
    const double *mean = GET(omean, nf, 1, "mean");
    const double *scale = mean ? GET(oscale, nf, 1, "scale") : NULL;
    const int64_t *log_at = scale ? GET(olog, -1, 0, "log_at") : NULL;
    if (!log_at) goto done;
    Py_ssize_t n_log = b[nb - 1].len / 8;
    const double *icpt = GET(oicpt, -1, 1, "intercept");
    if (!icpt) goto done;
    Py_ssize_t nk = b[nb - 1].len / 8;
    const double *coef = GET(ocoef, nk * nf, 1, "coef");
    double *out = coef ? GET(oout, nk, 1, "out") : NULL;
#undef GET
    if (!out) goto done;
    for (Py_ssize_t j = 0; j < n_log; j++)
        if (log_at[j] < 0 || log_at[j] >= nf - np_) {
            PyErr_SetString(PyExc_ValueError, "kind_proba: log_at past the signals");
            goto done;
        }
    if (!(x = PyMem_RawMalloc((size_t)nf * sizeof(double)))) { PyErr_NoMemory(); goto done; }
    const kind_model_t m = {mean, scale, coef, icpt, log_at, n_log, nk, nf};
    int err;
    Py_BEGIN_ALLOW_THREADS
    err = kind_core(&m, &hs, &us, cnt, flags, tag, cont, n, joined, limit, x, out);
    Py_END_ALLOW_THREADS
    if (err) PyErr_NoMemory();
    else ret = Py_NewRef(Py_None);
done:
    PyMem_RawFree(x);
    for (int i = 0; i < nb; i++) PyBuffer_Release(&b[i]);
    return ret;
}

/* ------------------------------------------------------------------ test hook */

/* charclass(s) -> (classes, folds): per character of s, a byte of the classes the matchers
 * use (1 \s as split() sees it, 2 [\w.:-], 4 [^"'\s>], 8 [A-Za-z] under re.I, 16 digit start, 32 currency) and
 * its fold (the ASCII letter re.I matches it to, else 0): for the tests, which compare them
 * with Python's re on every code point */
static PyObject *charclass(PyObject *self, PyObject *args) {
    PyObject *u;
    if (!PyArg_ParseTuple(args, "U", &u)) return NULL;
    if (!need_config()) return NULL;
    Py_ssize_t n = PyUnicode_GET_LENGTH(u);
    PyObject *cls = PyBytes_FromStringAndSize(NULL, n), *fo = PyBytes_FromStringAndSize(NULL, n);
    if (!cls || !fo) {
        Py_XDECREF(cls);
        Py_XDECREF(fo);
        return NULL;
    }
    char *c = PyBytes_AS_STRING(cls), *f = PyBytes_AS_STRING(fo);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 ch = PyUnicode_READ_CHAR(u, i), fd = fold(ch);
        c[i] = (char)((is_space(ch) ? 1 : 0) | (is_og_char(ch) ? 2 : 0) |
                      (is_href_char(ch) ? 4 : 0) | (is_ci_letter(ch) ? 8 : 0) |
                      (is_digit_start(ch) ? 16 : 0) | (is_currency(ch) ? 32 : 0));
        f[i] = (char)((fd >= 'a' && fd <= 'z') ? fd : 0);
    }
    return Py_BuildValue("(NN)", cls, fo);
}

/* the part's functions, in the module of the pass after the walk (ce_filter/_pass.c) */
#define PAGEKIND_METHODS \
    {"configure", configure, METH_VARARGS, "Set the lexicons, type table, tags and flag bits."}, \
    {"scan_html", scan_html, METH_VARARGS, "Declared types, og:type and canonical link of a page."}, \
    {"block_signals", block_signals, METH_VARARGS, "The block-array signals of page_signals."}, \
    {"text_signals", text_signals, METH_VARARGS, "Token, currency, digit and lexicon counts."}, \
    {"head_signals", head_signals, METH_VARARGS, "Declared types, og:type and URL signals of a page."}, \
    {"kind_proba", kind_proba, METH_VARARGS, "The page-kind model's probabilities in one call."}, \
    {"charclass", charclass, METH_VARARGS, "Character classes and folds (for the tests)."},
