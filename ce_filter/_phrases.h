/* Phrases found in a lower-cased text, the C twin of a regular expression searched in
 * str.lower() of the text: \b(?:p1|p2|...)\b (a "bounded" phrase: Python's \w is str.isalnum()
 * or "_"), or, for the scripts written without spaces, ^\s*.{0,k}(?:q1|q2|...).{0,k}\s*$ (an
 * "unspaced" phrase with at most k other characters around it, white space at either end not
 * counted). Used for the section titles the features read (the heading lexicon, the shop
 * section titles) with no Python: usable without the GIL. Include after Python.h.
 *
 * Lower-casing is str.lower()'s: Python's own case table (Py_UNICODE_TOLOWER) and its one
 * unconditional two-character lower case (U+0130 -> "i" U+0307). The one context rule of
 * str.lower() (a Greek capital sigma at a word's end -> U+03C2) is not applied: every Σ reads
 * as σ, so a phrase holding ς never matches (phrases_new refuses one). */
#ifndef CE_FILTER_PHRASES_H
#define CE_FILTER_PHRASES_H

#include <stdint.h>
#include <string.h>

typedef struct {
    Py_ssize_t n, n_bounded, slack;
    Py_UCS4 *cp;    /* every phrase's code points, one after another */
    Py_ssize_t *at; /* n + 1 starts in cp: the bounded phrases first, by their first code point */
    Py_ssize_t first[129]; /* bounded phrases whose first code point is c (< 128) start at
                            * first[c]; those of a non-ASCII first code point: first[128].. */
} phrases_t;

static void phrases_free(phrases_t *p) {
    if (!p) return;
    PyMem_RawFree(p->cp);
    PyMem_RawFree(p->at);
    PyMem_RawFree(p);
}

static int phrase_cmp_first(const void *a, const void *b) {
    Py_UCS4 x = PyUnicode_READ_CHAR(*(PyObject *const *)a, 0), y = PyUnicode_READ_CHAR(*(PyObject *const *)b, 0);
    Py_UCS4 kx = x < 128 ? x : 128, ky = y < 128 ? y : 128;
    return kx < ky ? -1 : kx > ky;
}

/* the phrases of two sequences of non-empty lower-case str (bounded, unspaced) and the slack k
 * of the unspaced ones; NULL with an error set */
static phrases_t *phrases_new(PyObject *bounded, PyObject *unspaced, Py_ssize_t slack) {
    PyObject *fb = PySequence_Fast(bounded, "bounded phrases: a sequence of str");
    PyObject *fu = fb ? PySequence_Fast(unspaced, "unspaced phrases: a sequence of str") : NULL;
    PyObject **items = NULL;
    phrases_t *p = NULL;
    if (!fu) goto fail;
    Py_ssize_t nb = PySequence_Fast_GET_SIZE(fb), nu = PySequence_Fast_GET_SIZE(fu), total = 0;
    items = PyMem_Malloc((size_t)(nb + nu + 1) * sizeof(PyObject *));
    if (!items) { PyErr_NoMemory(); goto fail; }
    for (Py_ssize_t i = 0; i < nb + nu; i++) {
        PyObject *s = i < nb ? PySequence_Fast_GET_ITEM(fb, i) : PySequence_Fast_GET_ITEM(fu, i - nb);
        if (!PyUnicode_Check(s) || PyUnicode_GET_LENGTH(s) == 0) {
            PyErr_SetString(PyExc_ValueError, "a phrase is a non-empty str");
            goto fail;
        }
        if (PyUnicode_FindChar(s, 0x3C2, 0, PyUnicode_GET_LENGTH(s), 1) >= 0) {
            PyErr_SetString(PyExc_ValueError, "a phrase with a final sigma is not read (_phrases.h)");
            goto fail;
        }
        items[i] = s;
        total += PyUnicode_GET_LENGTH(s);
    }
    qsort(items, (size_t)nb, sizeof(PyObject *), phrase_cmp_first);
    p = PyMem_RawCalloc(1, sizeof(phrases_t));
    if (!p) { PyErr_NoMemory(); goto fail; }
    p->n = nb + nu;
    p->n_bounded = nb;
    p->slack = slack;
    p->cp = PyMem_RawMalloc((size_t)(total + 1) * sizeof(Py_UCS4));
    p->at = PyMem_RawMalloc((size_t)(p->n + 1) * sizeof(Py_ssize_t));
    if (!p->cp || !p->at) { PyErr_NoMemory(); goto fail; }
    Py_ssize_t j = 0;
    for (Py_ssize_t i = 0; i < p->n; i++) {
        p->at[i] = j;
        Py_ssize_t m = PyUnicode_GET_LENGTH(items[i]);
        for (Py_ssize_t k = 0; k < m; k++) p->cp[j++] = PyUnicode_READ_CHAR(items[i], k);
    }
    p->at[p->n] = j;
    for (int c = 0, i = 0; c <= 128; c++) { /* the first bounded phrase at or past c */
        while (i < nb && (p->cp[p->at[i]] < 128 ? (int)p->cp[p->at[i]] : 128) < c) i++;
        p->first[c] = i;
    }
    PyMem_Free(items);
    Py_DECREF(fb);
    Py_DECREF(fu);
    return p;
fail:
    PyMem_Free(items);
    Py_XDECREF(fb);
    Py_XDECREF(fu);
    phrases_free(p);
    return NULL;
}

/* UTF-8 s[0..len) (whole sequences; surrogates allowed, as texts.TextColumn's "surrogatepass"
 * writes them) lower-cased into out as str.lower: each code point's lower case
 * (Py_UNICODE_TOLOWER), U+0130 as "i" U+0307 (its full lower case, two code points from two
 * bytes: out needs room for len code points); the number written */
static Py_ssize_t lower_utf8(const unsigned char *s, Py_ssize_t len, Py_UCS4 *out) {
    Py_ssize_t k = 0;
    for (Py_ssize_t i = 0; i < len;) {
        unsigned char c = s[i];
        Py_UCS4 u;
        if (c < 0x80) { out[k++] = c >= 'A' && c <= 'Z' ? c + 32u : c; i++; continue; }
        if (c < 0xE0 && i + 1 < len) { u = ((Py_UCS4)(c & 0x1F) << 6) | (s[i + 1] & 0x3F); i += 2; }
        else if (c < 0xF0 && i + 2 < len) {
            u = ((Py_UCS4)(c & 0x0F) << 12) | ((Py_UCS4)(s[i + 1] & 0x3F) << 6) | (s[i + 2] & 0x3F);
            i += 3;
        } else if (i + 3 < len) {
            u = ((Py_UCS4)(c & 0x07) << 18) | ((Py_UCS4)(s[i + 1] & 0x3F) << 12) |
                ((Py_UCS4)(s[i + 2] & 0x3F) << 6) | (s[i + 3] & 0x3F);
            i += 4;
        } else { u = 0xFFFD; i = len; } /* a cut sequence (the texts are whole UTF-8) */
        if (u == 0x130) { out[k++] = 'i'; out[k++] = 0x307; }
        else out[k++] = Py_UNICODE_TOLOWER(u);
    }
    return k;
}

static inline int is_word_cp(Py_UCS4 c) {
    return c < 128 ? ((c | 32) - 'a' < 26u || c - '0' < 10u || c == '_')
                   : (Py_UNICODE_ISALNUM(c) != 0);
}

/* whether a bounded phrase starts at t[i] and ends at a word boundary */
static int bounded_at(const phrases_t *p, const Py_UCS4 *t, Py_ssize_t n, Py_ssize_t i) {
    int c = t[i] < 128 ? (int)t[i] : 128;
    Py_ssize_t lo = p->first[c], hi = c < 128 ? p->first[c + 1] : p->n_bounded;
    for (Py_ssize_t k = lo; k < hi; k++) {
        Py_ssize_t m = p->at[k + 1] - p->at[k];
        if (i + m > n || memcmp(t + i, p->cp + p->at[k], (size_t)m * sizeof(Py_UCS4)) != 0) continue;
        Py_ssize_t e = i + m; /* \b after it: the word classes differ across e */
        int before = is_word_cp(t[e - 1]), after = e < n && is_word_cp(t[e]);
        if (before != after) return 1;
    }
    return 0;
}

/* whether the lower-cased code points t[0..n) hold a phrase of p, as the regular expression
 * above finds one */
static int phrases_search_cp(const phrases_t *p, const Py_UCS4 *t, Py_ssize_t n) {
    int prev = 0; /* the word class before position i (none before the start) */
    for (Py_ssize_t i = 0; i < n && p->n_bounded; i++) {
        int cur = is_word_cp(t[i]);
        if (prev != cur && bounded_at(p, t, n, i)) return 1;
        prev = cur;
    }
    if (p->n_bounded == p->n) return 0;
    Py_ssize_t lead = 0, trail = 0; /* the white space at either end */
    while (lead < n && Py_UNICODE_ISSPACE(t[lead])) lead++;
    while (trail < n && Py_UNICODE_ISSPACE(t[n - 1 - trail])) trail++;
    for (Py_ssize_t k = p->n_bounded; k < p->n; k++) {
        Py_ssize_t m = p->at[k + 1] - p->at[k];
        const Py_UCS4 *q = p->cp + p->at[k];
        /* an occurrence at i leaves at most slack characters before it once the leading white
         * space is taken, and after it once the trailing white space is */
        for (Py_ssize_t i = 0; i + m <= n && i - (i < lead ? i : lead) <= p->slack; i++) {
            if (memcmp(t + i, q, (size_t)m * sizeof(Py_UCS4)) != 0) continue;
            Py_ssize_t r = n - (i + m);
            if (r - (r < trail ? r : trail) <= p->slack) return 1;
        }
    }
    return 0;
}

/* whether UTF-8 s[0..len) holds a phrase of p once lower-cased (-1: no memory) */
static int phrases_search(const phrases_t *p, const char *s, Py_ssize_t len) {
    Py_UCS4 stack[256], *t = stack;
    if (len > 256 && !(t = PyMem_RawMalloc((size_t)len * sizeof(Py_UCS4)))) return -1;
    int hit = phrases_search_cp(p, t, lower_utf8((const unsigned char *)s, len, t));
    if (t != stack) PyMem_RawFree(t);
    return hit;
}

#define PHRASES_CAPSULE "ce_filter.phrases"

static void phrases_capsule_free(PyObject *cap) {
    phrases_free(PyCapsule_GetPointer(cap, PHRASES_CAPSULE));
}

/* phrases(bounded, unspaced, slack) -> capsule: the compiled phrases (phrases_new) */
static PyObject *py_phrases(PyObject *self, PyObject *args) {
    PyObject *bounded, *unspaced;
    Py_ssize_t slack;
    if (!PyArg_ParseTuple(args, "OOn", &bounded, &unspaced, &slack)) return NULL;
    phrases_t *p = phrases_new(bounded, unspaced, slack);
    if (!p) return NULL;
    PyObject *cap = PyCapsule_New(p, PHRASES_CAPSULE, phrases_capsule_free);
    if (!cap) phrases_free(p);
    return cap;
}

#endif
