/* The metadata rules' per-page sorting and scanning in C; metadata.py and dates.py keep the
 * references, which they probe against this part at first use:
 *   head       metadata.page_head's loop over what the walk gathered (keys lower-cased, rels and
 *              byline markers checked exactly, the first bylines kept) and the first non-blank
 *              value of each <meta> key; first_meta, the first of some keys' value; terms,
 *              split_terms of a str or a list of str;
 *   marks      dates._LABEL.finditer over an ASCII text: where a date line's labels stand
 *              ("Published", "Updated"); None for other texts (the regex reads those);
 *   starting, with_year  the blocks a byline or date line rule may apply to (metadata._Joined:
 *              the ones that start with a word, case-blind; the ones that hold a year);
 *   split_title, norm_ascii  a title's parts; an ASCII text's words (metadata.norm_text);
 *   positions  the indices of an int64 column's items equal to a value (result.h1_positions'
 *              numpy reference: the <h1> blocks).
 * Only the labels' ASCII spellings are given to ``configure``: a label with another character
 * cannot match an ASCII text, whose case-blind matching is then ASCII's. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>


/* ------------------------------------------------------------------ helpers */

static inline Py_UCS4 ascii_lower(Py_UCS4 c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

/* an ASCII letter: on ASCII, what the regexes' [^\W\d_] is */
static inline int is_alpha(Py_UCS1 c) { return (c | 32) >= 'a' && (c | 32) <= 'z'; }

/* Whether s holds needle (lower-case ASCII letters without i or k), case-blind: ``needle in
 * s.lower()``. No other character lower-cases to such a letter (U+212A and U+0130 lower-case to
 * k and to i with a combining dot, so neither can stand in the needle). */
static int has_word(PyObject *s, const char *needle) {
    int kind = PyUnicode_KIND(s);
    const void *d = PyUnicode_DATA(s);
    Py_ssize_t n = PyUnicode_GET_LENGTH(s), m = (Py_ssize_t)strlen(needle);
    for (Py_ssize_t i = 0; i + m <= n; i++) {
        Py_ssize_t j = 0;
        while (j < m && ascii_lower(PyUnicode_READ(kind, d, i + j)) == (Py_UCS4)needle[j]) j++;
        if (j == m) return 1;
    }
    return 0;
}

/* Whether one of the whitespace-separated words of s is ``word`` (lower-case ASCII) after
 * lower-casing: ``word in s.lower().split()``. A word of s lower-cases to an ASCII word only
 * where it is ASCII itself (see has_word), so its characters are compared as ASCII. */
static int has_token(PyObject *s, const char *word) {
    int kind = PyUnicode_KIND(s);
    const void *d = PyUnicode_DATA(s);
    Py_ssize_t n = PyUnicode_GET_LENGTH(s), m = (Py_ssize_t)strlen(word), i = 0;
    while (i < n) {
        while (i < n && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, d, i))) i++;
        Py_ssize_t start = i;
        while (i < n && !Py_UNICODE_ISSPACE(PyUnicode_READ(kind, d, i))) i++;
        if (i - start == m) {
            Py_ssize_t j = 0;
            while (j < m && ascii_lower(PyUnicode_READ(kind, d, start + j)) == (Py_UCS4)word[j]) j++;
            if (j == m) return 1;
        }
    }
    return 0;
}

/* s.lower() (a new reference): ASCII without capitals is returned as it is */
static PyObject *lower(PyObject *s) {
    if (PyUnicode_IS_ASCII(s)) {
        const Py_UCS1 *d = PyUnicode_1BYTE_DATA(s);
        Py_ssize_t n = PyUnicode_GET_LENGTH(s), i = 0;
        while (i < n && !(d[i] >= 'A' && d[i] <= 'Z')) i++;
        if (i == n) return Py_NewRef(s);
        PyObject *out = PyUnicode_New(n, 127);
        if (!out) return NULL;
        Py_UCS1 *o = PyUnicode_1BYTE_DATA(out);
        for (Py_ssize_t k = 0; k < n; k++) o[k] = (Py_UCS1)ascii_lower(d[k]);
        return out;
    }
    return PyObject_CallMethod(s, "lower", NULL);
}

/* s.strip() (a new reference) */
static PyObject *strip(PyObject *s) {
    int kind = PyUnicode_KIND(s);
    const void *d = PyUnicode_DATA(s);
    Py_ssize_t a = 0, b = PyUnicode_GET_LENGTH(s);
    while (a < b && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, d, a))) a++;
    while (b > a && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, d, b - 1))) b--;
    return PyUnicode_Substring(s, a, b);
}

/* whether s is all whitespace (and not empty): s.isspace() */
static int all_space(PyObject *s) {
    int kind = PyUnicode_KIND(s);
    const void *d = PyUnicode_DATA(s);
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    for (Py_ssize_t i = 0; i < n; i++)
        if (!Py_UNICODE_ISSPACE(PyUnicode_READ(kind, d, i))) return 0;
    return n > 0;
}

/* item k of tuple t as a str, or NULL with TypeError */
static PyObject *str_at(PyObject *t, Py_ssize_t k) {
    if (k >= PyTuple_GET_SIZE(t)) {
        PyErr_SetString(PyExc_TypeError, "a head item too short");
        return NULL;
    }
    PyObject *v = PyTuple_GET_ITEM(t, k);
    if (!PyUnicode_Check(v)) {
        PyErr_SetString(PyExc_TypeError, "a head item's values are str");
        return NULL;
    }
    return v;
}

/* ------------------------------------------------------------------ head */

/* metadata.byline_marker: the attribute value that makes an element a byline candidate, or
 * NULL (borrowed) */
static PyObject *byline_marker(PyObject *cls, PyObject *idv, PyObject *rel, PyObject *prop) {
    if (PyUnicode_GET_LENGTH(rel) && has_token(rel, "author")) return rel;
    if (PyUnicode_GET_LENGTH(prop) && has_token(prop, "author")) return prop;
    if (PyUnicode_GET_LENGTH(cls) && (has_word(cls, "author") || has_word(cls, "byline"))) return cls;
    if (PyUnicode_GET_LENGTH(idv) && (has_word(idv, "author") || has_word(idv, "byline"))) return idv;
    return NULL;
}

static int append_pair(PyObject *list, PyObject *a, PyObject *b) {
    PyObject *t = PyTuple_Pack(2, a, b);
    if (!t) return -1;
    int r = PyList_Append(list, t);
    Py_DECREF(t);
    return r;
}

/* head(items, max_bylines, max_byline_chars) -> (lang, metas, links, jsonld, times, bylines,
 * first): metadata.page_head's fields, and first the {key: value} of each <meta> key's first
 * non-blank value (metadata._first_values). */
static PyObject *head(PyObject *self, PyObject *args) {
    PyObject *items;
    Py_ssize_t max_bylines, max_chars;
    if (!PyArg_ParseTuple(args, "O!nn", &PyList_Type, &items, &max_bylines, &max_chars)) return NULL;
    PyObject *metas = PyList_New(0), *links = PyList_New(0), *jsonld = PyList_New(0);
    PyObject *times = PyList_New(0), *bylines = PyList_New(0), *first = PyDict_New();
    PyObject *lang = PyUnicode_FromString(""), *ret = NULL, *space = PyUnicode_FromString(" ");
    if (!metas || !links || !jsonld || !times || !bylines || !first || !lang || !space) goto done;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(items); i++) {
        PyObject *it = PyList_GET_ITEM(items, i);
        if (!PyTuple_Check(it) || PyTuple_GET_SIZE(it) < 2) {
            PyErr_SetString(PyExc_TypeError, "a head item is a tuple of str");
            goto done;
        }
        PyObject *kind = str_at(it, 0);
        if (!kind) goto done;
        const char *k = PyUnicode_AsUTF8(kind);
        if (!k) goto done;
        if (!strcmp(k, "meta")) {
            PyObject *key = str_at(it, 1), *value = key ? str_at(it, 2) : NULL;
            if (!value) goto done;
            PyObject *low = lower(key);
            if (!low) goto done;
            int r = append_pair(metas, low, value);
            if (r == 0 && PyUnicode_GET_LENGTH(value) && !all_space(value)) {
                r = PyDict_Contains(first, low);
                if (r == 0) r = PyDict_SetItem(first, low, value);
            }
            Py_DECREF(low);
            if (r < 0) goto done;
        } else if (!strcmp(k, "by")) {
            if (PyList_GET_SIZE(bylines) >= max_bylines) continue;
            PyObject *text = str_at(it, 5);
            if (!text) goto done;
            Py_ssize_t n = PyUnicode_GET_LENGTH(text);
            if (!n || n > max_chars) continue;
            PyObject *cls = str_at(it, 1), *idv = cls ? str_at(it, 2) : NULL;
            PyObject *rel = idv ? str_at(it, 3) : NULL, *prop = rel ? str_at(it, 4) : NULL;
            if (!prop) goto done;
            PyObject *m = byline_marker(cls, idv, rel, prop);
            if (m && append_pair(bylines, m, text) < 0) goto done;
        } else if (!strcmp(k, "time")) {
            PyObject *dt = str_at(it, 1), *prop = dt ? str_at(it, 2) : NULL;
            PyObject *cls = prop ? str_at(it, 3) : NULL, *text = cls ? str_at(it, 4) : NULL;
            if (!text) goto done;
            /* f"{itemprop} {class}".strip() */
            PyObject *a = PyUnicode_Concat(prop, space), *joined = a ? PyUnicode_Concat(a, cls) : NULL;
            PyObject *marker = joined ? strip(joined) : NULL;
            PyObject *t = marker ? PyTuple_Pack(3, dt, marker, text) : NULL;
            int r = t ? PyList_Append(times, t) : -1;
            Py_XDECREF(a);
            Py_XDECREF(joined);
            Py_XDECREF(marker);
            Py_XDECREF(t);
            if (r < 0) goto done;
        } else if (!strcmp(k, "link")) {
            PyObject *rel = str_at(it, 1), *href = rel ? str_at(it, 2) : NULL;
            if (!href) goto done;
            PyObject *low = lower(rel);
            if (!low) goto done;
            int r = 0;
            if (has_token(low, "canonical") || has_token(low, "author")) r = append_pair(links, low, href);
            Py_DECREF(low);
            if (r < 0) goto done;
        } else if (!strcmp(k, "ld")) {
            PyObject *text = str_at(it, 1);
            if (!text || PyList_Append(jsonld, text) < 0) goto done;
        } else if (!strcmp(k, "lang") && !PyUnicode_GET_LENGTH(lang)) {
            PyObject *v = str_at(it, 1);
            if (!v) goto done;
            Py_SETREF(lang, Py_NewRef(v));
        }
    }
    ret = PyTuple_Pack(7, lang, metas, links, jsonld, times, bylines, first);
done:
    Py_XDECREF(metas);
    Py_XDECREF(links);
    Py_XDECREF(jsonld);
    Py_XDECREF(times);
    Py_XDECREF(bylines);
    Py_XDECREF(first);
    Py_XDECREF(lang);
    Py_XDECREF(space);
    return ret;
}

/* " ".join(v.split()) (a new reference): v itself where it is so already */
static PyObject *collapse(PyObject *v) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(v);
    int kind = PyUnicode_KIND(v);
    const void *d = PyUnicode_DATA(v);
    int plain = n > 0 && !Py_UNICODE_ISSPACE(PyUnicode_READ(kind, d, 0))
                && !Py_UNICODE_ISSPACE(PyUnicode_READ(kind, d, n - 1));
    for (Py_ssize_t i = 1; plain && i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, d, i);
        plain = c == ' ' ? !Py_UNICODE_ISSPACE(PyUnicode_READ(kind, d, i - 1)) : !Py_UNICODE_ISSPACE(c);
    }
    if (plain || !n) return Py_NewRef(v);
    PyObject *parts = PyUnicode_Split(v, NULL, -1), *sp = parts ? PyUnicode_FromString(" ") : NULL;
    PyObject *out = sp ? PyUnicode_Join(sp, parts) : NULL;
    Py_XDECREF(parts);
    Py_XDECREF(sp);
    return out;
}

/* first_meta(first, keys) -> metadata._first_meta: the value in dict first of the first of
 * keys (a tuple of str) it has with a value not empty, whitespace collapsed (" ".join of its
 * split()); '' where none has. */
static PyObject *first_meta(PyObject *self, PyObject *args) {
    PyObject *first, *keys;
    if (!PyArg_ParseTuple(args, "O!O!", &PyDict_Type, &first, &PyTuple_Type, &keys)) return NULL;
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(keys); k++) {
        PyObject *v = PyDict_GetItemWithError(first, PyTuple_GET_ITEM(keys, k));
        if (!v) {
            if (PyErr_Occurred()) return NULL;
            continue;
        }
        if (!PyUnicode_Check(v)) {
            PyErr_SetString(PyExc_TypeError, "first: str values");
            return NULL;
        }
        Py_ssize_t n = PyUnicode_GET_LENGTH(v);
        if (!n) continue;
        return collapse(v);
    }
    return PyUnicode_FromString("");
}

/* ------------------------------------------------------------------ tags and categories */

static PyObject *unescape = NULL; /* html.unescape, imported at first need */

/* metadata.clean_ld_text(s) (a new reference): character references decoded where s has an
 * "&" (by html.unescape), whitespace collapsed */
static PyObject *clean_text(PyObject *s) {
    if (PyUnicode_FindChar(s, '&', 0, PyUnicode_GET_LENGTH(s), 1) < 0) return collapse(s);
    if (!unescape) {
        PyObject *mod = PyImport_ImportModule("html");
        if (!mod) return NULL;
        unescape = PyObject_GetAttrString(mod, "unescape");
        Py_DECREF(mod);
        if (!unescape) return NULL;
    }
    PyObject *u = PyObject_CallOneArg(unescape, s);
    if (!u) return NULL;
    if (!PyUnicode_Check(u)) {
        Py_DECREF(u);
        PyErr_SetString(PyExc_TypeError, "html.unescape gave no str");
        return NULL;
    }
    PyObject *out = collapse(u);
    Py_DECREF(u);
    return out;
}

/* terms(v, max_terms, max_chars) -> metadata.split_terms(v) of a str or a list of str (None for
 * another value: the caller reads it): the items (a str split at its first kind of separator
 * of , ; 、 ，), cleaned, the blank, overlong and repeated (case-blind: casefold) ones left out,
 * at most max_terms. */
static PyObject *terms(PyObject *self, PyObject *args) {
    PyObject *v;
    Py_ssize_t max_terms, max_chars;
    if (!PyArg_ParseTuple(args, "Onn", &v, &max_terms, &max_chars)) return NULL;
    PyObject *items = NULL;
    if (PyUnicode_Check(v)) {
        static const Py_UCS4 seps[] = {',', ';', 0x3001, 0xFF0C};
        Py_ssize_t n = PyUnicode_GET_LENGTH(v);
        for (int k = 0; k < 4 && !items; k++) {
            if (PyUnicode_FindChar(v, seps[k], 0, n, 1) < 0) continue;
            PyObject *sep = PyUnicode_FromOrdinal((int)seps[k]);
            if (!sep) return NULL;
            items = PyUnicode_Split(v, sep, -1);
            Py_DECREF(sep);
            if (!items) return NULL;
        }
        if (!items && !(items = PyList_New(1))) return NULL;
        if (PyList_GET_SIZE(items) == 1 && !PyList_GET_ITEM(items, 0)) PyList_SET_ITEM(items, 0, Py_NewRef(v));
    } else if (PyList_Check(v)) {
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(v); i++)
            if (!PyUnicode_Check(PyList_GET_ITEM(v, i))) Py_RETURN_NONE;
        items = Py_NewRef(v);
    } else {
        Py_RETURN_NONE;
    }
    PyObject *seen = PyDict_New(), *ret = NULL;
    if (!seen) goto done;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(items); i++) {
        PyObject *x = PyList_GET_ITEM(items, i);
        if (!PyUnicode_Check(x)) {
            PyErr_SetString(PyExc_TypeError, "terms: str items");
            goto done;
        }
        PyObject *t = clean_text(x);
        if (!t) goto done;
        Py_ssize_t n = PyUnicode_GET_LENGTH(t);
        if (!n || n > max_chars) {
            Py_DECREF(t);
            continue;
        }
        PyObject *key = PyUnicode_IS_ASCII(t) ? lower(t) : PyObject_CallMethod(t, "casefold", NULL);
        int r = key ? PyDict_Contains(seen, key) : -1;
        if (r == 0) r = PyDict_SetItem(seen, key, t);
        Py_XDECREF(key);
        Py_DECREF(t);
        if (r < 0) goto done;
        if (PyDict_GET_SIZE(seen) >= max_terms) break;
    }
    ret = PyDict_Values(seen);
done:
    Py_XDECREF(seen);
    Py_XDECREF(items);
    return ret;
}

/* ------------------------------------------------------------------ date labels */

/* The ASCII labels, in the regex's order (the published ones first): their lower-case text,
 * their kind (a str), and for each first letter the labels that start with it, in order. */
#define MAX_LABELS 256
static char *label_text[MAX_LABELS];
static Py_ssize_t label_len[MAX_LABELS];
static PyObject *label_kind[MAX_LABELS];
static int n_labels = 0;
static int by_first[128][MAX_LABELS + 1]; /* label indices, -1 ended */

/* configure(labels): labels a sequence of (lower-case ASCII label, kind str) in the regex's
 * order. */
static PyObject *configure(PyObject *self, PyObject *args) {
    PyObject *seq;
    if (!PyArg_ParseTuple(args, "O", &seq)) return NULL;
    PyObject *fast = PySequence_Fast(seq, "labels: a sequence");
    if (!fast) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n > MAX_LABELS) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "too many labels");
        return NULL;
    }
    for (int i = 0; i < n_labels; i++) {
        PyMem_Free(label_text[i]);
        Py_CLEAR(label_kind[i]);
    }
    n_labels = 0;
    for (int c = 0; c < 128; c++) by_first[c][0] = -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *pair = PySequence_Fast_GET_ITEM(fast, i), *text, *kind;
        if (!PyArg_ParseTuple(pair, "UU", &text, &kind)) goto fail;
        Py_ssize_t len;
        const char *s = PyUnicode_AsUTF8AndSize(text, &len);
        if (!s) goto fail;
        int ok = PyUnicode_IS_ASCII(text) && len > 0 && is_alpha((Py_UCS1)s[0]);
        for (Py_ssize_t j = 0; ok && j < len; j++) ok = !(s[j] >= 'A' && s[j] <= 'Z');
        if (!ok) {
            PyErr_SetString(PyExc_ValueError, "labels: lower-case ASCII, a letter first");
            goto fail;
        }
        char *copy = PyMem_Malloc(len + 1);
        if (!copy) {
            PyErr_NoMemory();
            goto fail;
        }
        memcpy(copy, s, len + 1);
        label_text[n_labels] = copy;
        label_len[n_labels] = len;
        label_kind[n_labels] = Py_NewRef(kind);
        int *list = by_first[(unsigned char)s[0]];
        int k = 0;
        while (list[k] >= 0) k++;
        list[k] = n_labels;
        list[k + 1] = -1;
        n_labels++;
    }
    Py_DECREF(fast);
    Py_RETURN_NONE;
fail:
    Py_DECREF(fast);
    return NULL;
}

/* marks(s, first_only) -> [(start, kind), ...] of dates._LABEL.finditer(s) (the first only
 * where first_only), or None where s is not ASCII. On ASCII, the regex's [^\W\d_] is a letter
 * and its [\u3000-\u9fff] nothing: a label starts where no letter stands before it, and is
 * the first of the labels (in order) that the text holds there, case-blind, with no letter
 * after it. */
static PyObject *marks(PyObject *self, PyObject *args) {
    PyObject *s;
    int first_only;
    if (!PyArg_ParseTuple(args, "Up", &s, &first_only)) return NULL;
    if (!PyUnicode_IS_ASCII(s)) Py_RETURN_NONE;
    const Py_UCS1 *d = PyUnicode_1BYTE_DATA(s);
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    Py_ssize_t i = 0;
    while (i < n) {
        if (!is_alpha(d[i]) || (i > 0 && is_alpha(d[i - 1]))) {
            i++;
            continue;
        }
        int found = -1;
        for (const int *l = by_first[ascii_lower(d[i])]; *l >= 0; l++) {
            Py_ssize_t m = label_len[*l];
            if (i + m > n) continue;
            const char *t = label_text[*l];
            Py_ssize_t j = 1;
            while (j < m && (char)ascii_lower(d[i + j]) == t[j]) j++;
            if (j == m && !(i + m < n && is_alpha(d[i + m]))) {
                found = *l;
                break;
            }
        }
        if (found < 0) {
            i++;
            continue;
        }
        PyObject *t = Py_BuildValue("(nO)", i, label_kind[found]);
        if (!t || PyList_Append(out, t) < 0) {
            Py_XDECREF(t);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(t);
        if (first_only) break;
        i += label_len[found];
    }
    return out;
}

/* ------------------------------------------------------------------ positions */

/* positions(column, value) -> the indices of the column's items equal to value, where the
 * column is a contiguous one-dimensional buffer of int64; None where it is not (a list) */
static PyObject *positions(PyObject *self, PyObject *args) {
    PyObject *col;
    long long value;
    if (!PyArg_ParseTuple(args, "OL", &col, &value)) return NULL;
    if (!PyObject_CheckBuffer(col)) Py_RETURN_NONE;
    Py_buffer v;
    if (PyObject_GetBuffer(col, &v, PyBUF_RECORDS_RO) < 0) return NULL;
    PyObject *out = NULL;
    const char *f = v.format ? v.format : "B";
    if (f[0] == '<' || f[0] == '=' || f[0] == '@') f++;
    if (v.itemsize != 8 || v.ndim != 1 || !PyBuffer_IsContiguous(&v, 'C') || !(f[0] == 'l' || f[0] == 'q')
            || f[1]) {
        out = Py_NewRef(Py_None);
        goto done;
    }
    const int64_t *x = v.buf;
    Py_ssize_t n = v.len / 8;
    if (!(out = PyList_New(0))) goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (x[i] != value) continue;
        PyObject *k = PyLong_FromSsize_t(i);
        if (!k || PyList_Append(out, k) < 0) {
            Py_XDECREF(k);
            Py_CLEAR(out);
            goto done;
        }
        Py_DECREF(k);
    }
done:
    PyBuffer_Release(&v);
    return out;
}

/* ------------------------------------------------------------------ block scans */

/* Whether c is letter (a lower-case ASCII letter) as re.IGNORECASE sees it: either case, or the
 * other characters it matches to that letter (metadata._IGNORECASE_ALSO: the dotted and dotless
 * I, the Kelvin sign, the long s). */
static inline int loose_is(Py_UCS4 c, char letter) {
    if (c == (Py_UCS4)letter || c == (Py_UCS4)(letter - 32)) return 1;
    switch (letter) {
    case 'i': return c == 0x130 || c == 0x131;
    case 'k': return c == 0x212A;
    case 's': return c == 0x17F;
    default: return 0;
    }
}

/* the words a text may start with (starting), read once per call */
typedef struct {
    const char *w[16];
    Py_ssize_t wl[16], n;
} words_t;

static int starts_with_word(int kind, const void *d, Py_ssize_t len, const void *ctx) {
    const words_t *ws = ctx;
    for (Py_ssize_t k = 0; k < ws->n; k++) {
        if (ws->wl[k] > len) continue;
        Py_ssize_t j = 0;
        while (j < ws->wl[k] && loose_is(PyUnicode_READ(kind, d, j), ws->w[k][j])) j++;
        if (j == ws->wl[k]) return 1;
    }
    return 0;
}

static int holds_year(int kind, const void *d, Py_ssize_t len, const void *ctx) {
    (void)ctx;
    for (Py_ssize_t j = 0; j + 3 < len; j++) {
        Py_UCS4 a = PyUnicode_READ(kind, d, j), b = PyUnicode_READ(kind, d, j + 1);
        if (!((a == '1' && b == '9') || (a == '2' && b == '0'))) continue;
        if (Py_UNICODE_ISDECIMAL(PyUnicode_READ(kind, d, j + 2))
            && Py_UNICODE_ISDECIMAL(PyUnicode_READ(kind, d, j + 3)))
            return 1;
    }
    return 0;
}

/* the indices, in order, of the texts of joined (str: the blocks' texts joined by "\n",
 * texts.TextColumn.joined) for which hit(...) is true */
static PyObject *indices_where(PyObject *joined, int (*hit)(int, const void *, Py_ssize_t, const void *),
                               const void *ctx) {
    PyObject *out = PyList_New(0);
    int kind = PyUnicode_KIND(joined);
    const char *d = PyUnicode_DATA(joined);
    Py_ssize_t n = PyUnicode_GET_LENGTH(joined), a = 0, k = 0;
    while (out) {
        Py_ssize_t z = PyUnicode_FindChar(joined, '\n', a, n, 1);
        if (z == -2) { Py_CLEAR(out); break; }
        if (z < 0) z = n;
        if (hit(kind, d + a * kind, z - a, ctx)) {
            PyObject *x = PyLong_FromSsize_t(k);
            if (!x || PyList_Append(out, x) < 0) Py_CLEAR(out);
            Py_XDECREF(x);
        }
        if (z >= n) break;
        a = z + 1;
        k++;
    }
    return out;
}

/* starting(joined, words) -> the indices, in order, of the texts that start with one of words
 * (lower-case ASCII letters), as loosely as re.IGNORECASE would: metadata._Joined.starting of
 * a _block_start pattern. */
static PyObject *starting(PyObject *self, PyObject *args) {
    PyObject *seq, *words;
    if (!PyArg_ParseTuple(args, "UO!", &seq, &PyTuple_Type, &words)) return NULL;
    words_t ws = {.n = PyTuple_GET_SIZE(words)};
    if (ws.n > 16) {
        PyErr_SetString(PyExc_ValueError, "at most 16 words");
        return NULL;
    }
    for (Py_ssize_t k = 0; k < ws.n; k++) {
        PyObject *o = PyTuple_GET_ITEM(words, k);
        if (!PyUnicode_Check(o) || !PyUnicode_IS_ASCII(o)) {
            PyErr_SetString(PyExc_TypeError, "words: ASCII str");
            return NULL;
        }
        ws.w[k] = (const char *)PyUnicode_1BYTE_DATA(o);
        ws.wl[k] = PyUnicode_GET_LENGTH(o);
        for (Py_ssize_t j = 0; j < ws.wl[k]; j++)
            if (ws.w[k][j] < 'a' || ws.w[k][j] > 'z') {
                PyErr_SetString(PyExc_ValueError, "words: lower-case ASCII letters");
                return NULL;
            }
    }
    return indices_where(seq, starts_with_word, &ws);
}

/* with_year(joined) -> the indices, in order, of the texts that hold "19" or "20" and two
 * decimal digits after it (any script's, as the regex's \d): metadata._Joined.with_year. */
static PyObject *with_year(PyObject *self, PyObject *args) {
    PyObject *seq;
    if (!PyArg_ParseTuple(args, "U", &seq)) return NULL;
    return indices_where(seq, holds_year, NULL);
}

/* ------------------------------------------------------------------ titles */

static inline int is_sep(Py_UCS4 c) {
    return c == '|' || c == '-' || c == 0x2013 || c == 0x2014 || c == 0xB7 || c == 0x2022 || c == 0xBB
           || c == ':' || c == '~' || c == '/';
}

static inline int is_bare_sep(Py_UCS4 c) { return c == '|' || c == 0xB7 || c == 0x2022 || c == 0xBB; }

/* split_title(title) -> metadata.split_title(title): the parts between the separators (a
 * separator character with whitespace before and after it, "::" so, or one of | · • » bare),
 * the whitespace around a separator dropped. */
static PyObject *split_title(PyObject *self, PyObject *args) {
    PyObject *t;
    if (!PyArg_ParseTuple(args, "U", &t)) return NULL;
    int kind = PyUnicode_KIND(t);
    const void *d = PyUnicode_DATA(t);
    Py_ssize_t n = PyUnicode_GET_LENGTH(t), start = 0, at = 0;
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
#define CH(i) PyUnicode_READ(kind, d, (i))
#define SPACE(i) Py_UNICODE_ISSPACE(CH(i))
    for (Py_ssize_t q = 0; q < n; q++) {
        if (q < at || !is_sep(CH(q))) continue;
        Py_ssize_t p = q, end;
        while (p > at && SPACE(p - 1)) p--;
        if (p < q && q + 1 < n && SPACE(q + 1)) end = q + 1;
        else if (p < q && CH(q) == ':' && q + 1 < n && CH(q + 1) == ':' && q + 2 < n && SPACE(q + 2)) end = q + 2;
        else if (is_bare_sep(CH(q))) end = q + 1;
        else {
            at = q + 1;
            continue;
        }
        while (end < n && SPACE(end)) end++;
        PyObject *part = PyUnicode_Substring(t, start, p);
        if (!part || PyList_Append(out, part) < 0) {
            Py_XDECREF(part);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(part);
        start = at = end;
        q = end - 1;
    }
#undef CH
#undef SPACE
    PyObject *last = PyUnicode_Substring(t, start, n);
    if (!last || PyList_Append(out, last) < 0) {
        Py_XDECREF(last);
        Py_DECREF(out);
        return NULL;
    }
    Py_DECREF(last);
    return out;
}

/* norm_text of an ASCII text into buf (n + 1 bytes at least): its length */
static Py_ssize_t ct_norm(const Py_UCS1 *d, Py_ssize_t n, char *buf) {
    Py_ssize_t m = 0;
    int prev = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS1 c = d[i];
        int word = (c >= '0' && c <= '9') || is_alpha(c) || c == '_';
        if (word) {
            if (!prev && m) buf[m++] = ' ';
            buf[m++] = (char)ascii_lower(c);
        }
        prev = word;
    }
    return m;
}

/* norm_ascii(s) -> metadata.norm_text(s) of an ASCII s (its words, [A-Za-z0-9_] runs, lower
 * case, joined by a space), None for other texts (the caller reads those). */
static PyObject *norm_ascii(PyObject *self, PyObject *args) {
    PyObject *s;
    if (!PyArg_ParseTuple(args, "U", &s)) return NULL;
    if (!PyUnicode_IS_ASCII(s)) Py_RETURN_NONE;
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    char small[256], *buf = n < (Py_ssize_t)sizeof small ? small : PyMem_Malloc(n + 1);
    if (!buf) return PyErr_NoMemory();
    PyObject *out = PyUnicode_DecodeASCII(buf, ct_norm(PyUnicode_1BYTE_DATA(s), n, buf), NULL);
    if (buf != small) PyMem_Free(buf);
    return out;
}

/* ------------------------------------------------------------------ dates.normalise_date
   normalise_date_reference's patterns on an ASCII text, position by position in each
   pattern's order of preference (the regex's backtracking where it can matter): None where
   the text is not ASCII, the month table is not a dict of int, or only the RFC 2822 parser
   could still read it (Python reads those). */

static inline int d_digit(const Py_UCS1 *s, Py_ssize_t n, Py_ssize_t i) { return i < n && s[i] >= '0' && s[i] <= '9'; }
static inline int d_alpha(const Py_UCS1 *s, Py_ssize_t n, Py_ssize_t i) { return i < n && is_alpha(s[i]); }
static inline int d_word(const Py_UCS1 *s, Py_ssize_t n, Py_ssize_t i) {
    return i >= 0 && i < n && (is_alpha(s[i]) || (s[i] >= '0' && s[i] <= '9') || s[i] == '_');
}
static inline int d_isspace(Py_UCS1 c) { return c == ' ' || (c >= 9 && c <= 13) || (c >= 0x1c && c <= 0x1f); }
static inline int d_space(const Py_UCS1 *s, Py_ssize_t n, Py_ssize_t i) { return i < n && d_isspace(s[i]); }
/* a word boundary before s[i] where s[i] is a word character */
static inline int d_starts(const Py_UCS1 *s, Py_ssize_t n, Py_ssize_t i) { return d_word(s, n, i) && !d_word(s, n, i - 1); }
static inline int d_ends(const Py_UCS1 *s, Py_ssize_t n, Py_ssize_t i) { return !d_word(s, n, i); } /* after a word char */
static long d_num(const Py_UCS1 *s, Py_ssize_t i, Py_ssize_t k) { long v = 0; while (k--) v = v * 10 + (s[i++] - '0'); return v; }
static Py_ssize_t d_spaces(const Py_UCS1 *s, Py_ssize_t n, Py_ssize_t i) { while (i < n && d_isspace(s[i])) i++; return i; }
/* the letters from i (at most 21 counted) */
static Py_ssize_t d_letters(const Py_UCS1 *s, Py_ssize_t n, Py_ssize_t i) { Py_ssize_t j = i; while (j < n && is_alpha(s[j])) j++; return j - i; }

#define NULL_OR_NONE (PyErr_Occurred() ? NULL : Py_NewRef(Py_None))

static PyObject *d_ymd(long y, long m, long d, long max_year) {
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (y < 1 || m < 1 || m > 12 || d < 1) return PyUnicode_FromStringAndSize("", 0);
    int dim = days[m - 1] + (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0));
    if (d > dim || y < 1990 || y > max_year) return PyUnicode_FromStringAndSize("", 0);
    char buf[32];
    int len = snprintf(buf, sizeof buf, "%04ld-%02ld-%02ld", y, m, d);
    return PyUnicode_FromStringAndSize(buf, len);
}

/* months[s[i:i+k].lower()]: > 0 a month, 0 none, -1 an error or a value that is no int */
static int d_month(PyObject *months, const Py_UCS1 *s, Py_ssize_t i, Py_ssize_t k) {
    char buf[24];
    for (Py_ssize_t j = 0; j < k; j++) buf[j] = (char)ascii_lower(s[i + j]);
    PyObject *key = PyUnicode_FromStringAndSize(buf, k);
    if (!key) return -1;
    PyObject *v = PyDict_GetItemWithError(months, key);
    Py_DECREF(key);
    if (!v) return PyErr_Occurred() ? -1 : 0;
    if (!PyLong_CheckExact(v)) return -1;
    long m = PyLong_AsLong(v);
    if (m == -1 && PyErr_Occurred()) return -1;
    return m >= 1 && m <= 12 ? (int)m : -1;
}

/* a named form's match: where its month's name, day and year stand, and where it ends */
typedef struct { Py_ssize_t name, name_len, day, day_len, year, end; } d_match;

/* _MDY at p: \b NAME \.? \s+ (\d{1,2}) (?:st|nd|rd|th)? ,? \s+ (\d{4}) \b */
static int d_mdy(const Py_UCS1 *s, Py_ssize_t n, Py_ssize_t p, d_match *m) {
    if (!d_alpha(s, n, p) || d_word(s, n, p - 1)) return 0;
    Py_ssize_t L = d_letters(s, n, p);
    if (L < 3 || L > 20) return 0;
    Py_ssize_t q = p + L;
    for (int dot = (q < n && s[q] == '.'); dot >= 0; dot--) {
        Py_ssize_t r = q + dot;
        if (!d_space(s, n, r)) continue;
        Py_ssize_t t = d_spaces(s, n, r);
        for (int k = 2; k >= 1; k--) {
            int ok = 1;
            for (int j = 0; j < k; j++) ok &= d_digit(s, n, t + j);
            if (!ok) continue;
            Py_ssize_t u = t + k;
            int suf = u + 1 < n && ((s[u] == 's' && s[u + 1] == 't') || (s[u] == 'n' && s[u + 1] == 'd') ||
                                    (s[u] == 'r' && s[u + 1] == 'd') || (s[u] == 't' && s[u + 1] == 'h'));
            for (int sf = suf; sf >= 0; sf--) {
                Py_ssize_t u2 = u + 2 * sf;
                for (int c = (u2 < n && s[u2] == ','); c >= 0; c--) {
                    Py_ssize_t w = u2 + c;
                    if (!d_space(s, n, w)) continue;
                    Py_ssize_t v = d_spaces(s, n, w);
                    if (d_digit(s, n, v) && d_digit(s, n, v + 1) && d_digit(s, n, v + 2) && d_digit(s, n, v + 3) &&
                        d_ends(s, n, v + 4)) {
                        *m = (d_match){p, L, t, k, v, v + 4};
                        return 1;
                    }
                }
            }
        }
    }
    return 0;
}

/* _DMY at p: \b(\d{1,2})(?:st|nd|rd|th|er|º|\.)?\s*(?:of\s+|de\s+|d')?NAME\.?,?\s+(?:de\s+|del\s+|r\.\s+)?(\d{4})\b */
static int d_dmy(const Py_UCS1 *s, Py_ssize_t n, Py_ssize_t p, d_match *m) {
    if (!d_digit(s, n, p) || d_word(s, n, p - 1)) return 0;
    for (int k = 2; k >= 1; k--) {
        if (k == 2 && !d_digit(s, n, p + 1)) continue;
        Py_ssize_t u = p + k;
        int suf = 0;
        if (u + 1 < n && ((s[u] == 's' && s[u + 1] == 't') || (s[u] == 'n' && s[u + 1] == 'd') ||
                          (s[u] == 'r' && s[u + 1] == 'd') || (s[u] == 't' && s[u + 1] == 'h') ||
                          (s[u] == 'e' && s[u + 1] == 'r')))
            suf = 2;
        else if (u < n && s[u] == '.')
            suf = 1;
        for (int sv = suf; ; sv = 0) {
            /* \s* greedy: fewer spaces leave a space where a letter must follow */
            Py_ssize_t x = d_spaces(s, n, u + sv);
            Py_ssize_t pre[4]; int np = 0;
            if (x + 1 < n && s[x] == 'o' && s[x + 1] == 'f' && d_space(s, n, x + 2)) pre[np++] = d_spaces(s, n, x + 2);
            if (x + 1 < n && s[x] == 'd' && s[x + 1] == 'e' && d_space(s, n, x + 2)) pre[np++] = d_spaces(s, n, x + 2);
            if (x + 1 < n && s[x] == 'd' && s[x + 1] == '\'') pre[np++] = x + 2;
            pre[np++] = x;
            for (int a = 0; a < np; a++) {
                Py_ssize_t y = pre[a];
                Py_ssize_t L = d_letters(s, n, y);
                if (L < 3 || L > 20) continue;
                Py_ssize_t q = y + L;
                for (int dot = (q < n && s[q] == '.'); dot >= 0; dot--) {
                    for (int c = (q + dot < n && s[q + dot] == ','); c >= 0; c--) {
                        Py_ssize_t w = q + dot + c;
                        if (!d_space(s, n, w)) continue;
                        Py_ssize_t z = d_spaces(s, n, w);
                        Py_ssize_t post[4]; int nq = 0;
                        if (z + 1 < n && s[z] == 'd' && s[z + 1] == 'e' && d_space(s, n, z + 2)) post[nq++] = d_spaces(s, n, z + 2);
                        if (z + 2 < n && s[z] == 'd' && s[z + 1] == 'e' && s[z + 2] == 'l' && d_space(s, n, z + 3))
                            post[nq++] = d_spaces(s, n, z + 3);
                        if (z + 1 < n && s[z] == 'r' && s[z + 1] == '.' && d_space(s, n, z + 2)) post[nq++] = d_spaces(s, n, z + 2);
                        post[nq++] = z;
                        for (int b = 0; b < nq; b++) {
                            Py_ssize_t v = post[b];
                            if (d_digit(s, n, v) && d_digit(s, n, v + 1) && d_digit(s, n, v + 2) && d_digit(s, n, v + 3) &&
                                d_ends(s, n, v + 4)) {
                                *m = (d_match){y, L, p, k, v, v + 4};
                                return 1;
                            }
                        }
                    }
                }
            }
            if (sv == 0) break;
        }
    }
    return 0;
}

/* _YMD_NAME at p: \b(\d{4})\.?\s+NAME\.?\s+(\d{1,2})\b */
static int d_ymd_name(const Py_UCS1 *s, Py_ssize_t n, Py_ssize_t p, d_match *m) {
    if (!d_digit(s, n, p) || d_word(s, n, p - 1)) return 0;
    if (!(d_digit(s, n, p + 1) && d_digit(s, n, p + 2) && d_digit(s, n, p + 3))) return 0;
    Py_ssize_t q0 = p + 4;
    for (int dot = (q0 < n && s[q0] == '.'); dot >= 0; dot--) {
        if (!d_space(s, n, q0 + dot)) continue;
        Py_ssize_t y = d_spaces(s, n, q0 + dot);
        Py_ssize_t L = d_letters(s, n, y);
        if (L < 3 || L > 20) continue;
        Py_ssize_t q = y + L;
        for (int dot2 = (q < n && s[q] == '.'); dot2 >= 0; dot2--) {
            if (!d_space(s, n, q + dot2)) continue;
            Py_ssize_t t = d_spaces(s, n, q + dot2);
            for (int k = 2; k >= 1; k--) {
                int ok = 1;
                for (int j = 0; j < k; j++) ok &= d_digit(s, n, t + j);
                if (ok && d_ends(s, n, t + k)) {
                    *m = (d_match){y, L, t, k, p, t + k};
                    return 1;
                }
            }
        }
    }
    return 0;
}

typedef int (*d_pattern)(const Py_UCS1 *, Py_ssize_t, Py_ssize_t, d_match *);

/* _named over the pattern's matches (finditer: each search resumes where the last match
   ended): 1 and *out the first match naming a month (its date, '' when no real day), 0 none, -1 error */
static int d_named(const Py_UCS1 *s, Py_ssize_t n, PyObject *months, d_pattern pat, long max_year, PyObject **out) {
    Py_ssize_t p = 0;
    d_match m;
    while (p < n) {
        if (!pat(s, n, p, &m)) { p++; continue; }
        int month = d_month(months, s, m.name, m.name_len);
        if (month < 0) return -1;
        if (month > 0) {
            *out = d_ymd(d_num(s, m.year, 4), month, d_num(s, m.day, m.day_len), max_year);
            return *out ? 1 : -1;
        }
        p = m.end > p ? m.end : p + 1;
    }
    return 0;
}

static PyObject *date_ascii(PyObject *self, PyObject *args) {
    PyObject *str, *months;
    long max_year;
    if (!PyArg_ParseTuple(args, "UOl", &str, &months, &max_year)) return NULL;
    if (!PyUnicode_IS_ASCII(str) || !PyDict_CheckExact(months)) Py_RETURN_NONE;
    const Py_UCS1 *s = PyUnicode_1BYTE_DATA(str);
    Py_ssize_t b = 0, n = PyUnicode_GET_LENGTH(str);
    while (b < n && d_isspace(s[b])) b++;
    while (n > b && d_isspace(s[n - 1])) n--;
    s += b;
    n -= b;
    int year = 0, dash = 0, sep = 0, dotspace = 0, colon = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS1 c = s[i];
        if (c == '-') dash = 1;
        else if (c == '/') sep = 1;
        else if (c == '.') { sep = 1; if (i + 1 < n && s[i + 1] == ' ') dotspace = 1; }
        else if (c == ':') colon = 1;
        else if (!year && i + 3 < n && ((c == '1' && s[i + 1] == '9') || (c == '2' && s[i + 1] == '0')) &&
                 d_digit(s, n, i + 2) && d_digit(s, n, i + 3)) year = 1;
    }
    if (!year) return PyUnicode_FromStringAndSize("", 0);
    /* _ISO: (\d{4})-(\d{1,2})-(\d{1,2}) */
    if (dash)
        for (Py_ssize_t p = 0; p < n; p++) {
            if (!(d_digit(s, n, p) && d_digit(s, n, p + 1) && d_digit(s, n, p + 2) && d_digit(s, n, p + 3) && p + 4 < n && s[p + 4] == '-'))
                continue;
            Py_ssize_t t = p + 5, k;
            if (d_digit(s, n, t) && t + 1 < n && s[t + 1] == '-') k = 1;
            else if (d_digit(s, n, t) && d_digit(s, n, t + 1) && t + 2 < n && s[t + 2] == '-') k = 2;
            else continue;
            Py_ssize_t u = t + k + 1;
            if (!d_digit(s, n, u)) continue;
            Py_ssize_t kd = d_digit(s, n, u + 1) ? 2 : 1;
            return d_ymd(d_num(s, p, 4), d_num(s, t, k), d_num(s, u, kd), max_year);
        }
    if (sep) {
        /* _SLASH: \b(\d{4})[/.](\d{1,2})[/.](\d{1,2})\b, then _YMD_SPACED: \b(\d{4})\.\s(\d{1,2})\.\s(\d{1,2})\b */
        for (int spaced = 0; spaced <= 1; spaced++) {
            if (spaced && !dotspace) break;
            for (Py_ssize_t p = 0; p < n; p++) {
                if (!(d_starts(s, n, p) && d_digit(s, n, p) && d_digit(s, n, p + 1) && d_digit(s, n, p + 2) && d_digit(s, n, p + 3)))
                    continue;
                Py_ssize_t t = p + 4, parts[2], lens[2];
                int ok = 1;
                for (int g = 0; g < 2 && ok; g++) {
                    if (!(t < n && (spaced ? s[t] == '.' : (s[t] == '/' || s[t] == '.')))) { ok = 0; break; }
                    t++;
                    if (spaced) { if (!d_space(s, n, t)) { ok = 0; break; } t++; }
                    if (!d_digit(s, n, t)) { ok = 0; break; }
                    Py_ssize_t k;
                    if (g == 0) {  /* the month: its digits, then the separator */
                        Py_UCS1 c2 = t + 1 < n ? s[t + 1] : 0, c3 = t + 2 < n ? s[t + 2] : 0;
                        if (spaced ? c2 == '.' : (c2 == '/' || c2 == '.')) k = 1;
                        else if (d_digit(s, n, t + 1) && (spaced ? c3 == '.' : (c3 == '/' || c3 == '.'))) k = 2;
                        else { ok = 0; break; }
                    } else {  /* the day: its digits, then a boundary */
                        if (d_digit(s, n, t + 1)) { k = 2; if (!d_ends(s, n, t + 2)) { ok = 0; break; } }
                        else { k = 1; if (!d_ends(s, n, t + 1)) { ok = 0; break; } }
                    }
                    parts[g] = t; lens[g] = k;
                    t += k;
                }
                if (ok) return d_ymd(d_num(s, p, 4), d_num(s, parts[0], lens[0]), d_num(s, parts[1], lens[1]), max_year);
            }
        }
    }
    /* _ISO_COMPACT: ^(\d{4})(\d{2})(\d{2})(?:T|$) */
    if (n >= 8) {
        int ok = 1;
        for (int j = 0; j < 8; j++) ok &= d_digit(s, n, j);
        if (ok && (n == 8 || s[8] == 'T')) return d_ymd(d_num(s, 0, 4), d_num(s, 4, 2), d_num(s, 6, 2), max_year);
    }
    /* _NUMERIC: \b(\d{1,2})([/.])(\d{1,2})\2(\d{4})\b */
    if (sep)
        for (Py_ssize_t p = 0; p < n; p++) {
            if (!(d_digit(s, n, p) && !d_word(s, n, p - 1))) continue;
            Py_ssize_t k1;
            if (p + 1 < n && (s[p + 1] == '/' || s[p + 1] == '.')) k1 = 1;
            else if (d_digit(s, n, p + 1) && p + 2 < n && (s[p + 2] == '/' || s[p + 2] == '.')) k1 = 2;
            else continue;
            Py_UCS1 c = s[p + k1];
            Py_ssize_t t = p + k1 + 1, k2;
            if (!d_digit(s, n, t)) continue;
            if (t + 1 < n && s[t + 1] == c) k2 = 1;
            else if (d_digit(s, n, t + 1) && t + 2 < n && s[t + 2] == c) k2 = 2;
            else continue;
            Py_ssize_t v = t + k2 + 1;
            if (!(d_digit(s, n, v) && d_digit(s, n, v + 1) && d_digit(s, n, v + 2) && d_digit(s, n, v + 3) && d_ends(s, n, v + 4)))
                continue;
            long a = d_num(s, p, k1), bb = d_num(s, t, k2), y = d_num(s, v, 4);
            int day_first = a > 12 || (bb <= 12 && c == '.');
            return day_first ? d_ymd(y, bb, a, max_year) : d_ymd(y, a, bb, max_year);
        }
    /* the words (runs of letters, 20 at most each, 3 at least) of which one must be a month's name */
    int named = 0;
    for (Py_ssize_t i = 0; i < n && !named;) {
        if (!is_alpha(s[i])) { i++; continue; }
        Py_ssize_t L = d_letters(s, n, i);
        for (Py_ssize_t j = i; j < i + L; j += 20) {
            Py_ssize_t k = i + L - j < 20 ? i + L - j : 20;
            if (k < 3) break;
            int month = d_month(months, s, j, k);
            if (month < 0) return NULL_OR_NONE;
            if (month > 0) { named = 1; break; }
        }
        i += L;
    }
    if (!named) return PyUnicode_FromStringAndSize("", 0);
    d_pattern pats[3] = {d_mdy, d_dmy, d_ymd_name};
    for (int k = 0; k < 3; k++) {
        PyObject *out = NULL;
        int r = d_named(s, n, months, pats[k], max_year, &out);
        if (r < 0) return NULL_OR_NONE;
        if (r > 0) {
            if (PyUnicode_GET_LENGTH(out) > 0) return out;
            Py_DECREF(out);
        }
    }
    if (!colon || n > 40) return PyUnicode_FromStringAndSize("", 0);
    Py_RETURN_NONE;  /* perhaps an RFC 2822 date: Python's email.utils reads those */
}

/* ------------------------------------------------------------------ metadata._CUT
   Where a byline's name ends, on an ASCII text: the leftmost start of a match of _CUT (the
   regex's branches each looked for, the earliest start kept), -1 for none, None for a text
   that is not ASCII. months: the month names, lower case; caps: the words a name cannot run
   into ("Published", "March"...). */

static int c_ieq(const Py_UCS1 *s, Py_ssize_t n, Py_ssize_t i, const char *w, Py_ssize_t k) {
    if (i + k > n) return 0;
    for (Py_ssize_t j = 0; j < k; j++) if (ascii_lower(s[i + j]) != (Py_UCS1)w[j]) return 0;
    return 1;
}

static int c_eq(const Py_UCS1 *s, Py_ssize_t n, Py_ssize_t i, const char *w, Py_ssize_t k) {
    return i + k <= n && memcmp(s + i, w, (size_t)k) == 0;
}

/* the branches that start with one whitespace character at p (A's words, C's digit) */
static int c_after_space(const Py_UCS1 *s, Py_ssize_t n, Py_ssize_t p) {
    if (!d_space(s, n, p) || p + 1 >= n) return 0;
    Py_ssize_t q = p + 1;
    Py_UCS1 c = s[q];
    if (c == '|' || (c >= '0' && c <= '9')) return 1;
    if (c == '-' && d_space(s, n, q + 1)) return 1;
    if (c_ieq(s, n, q, "on", 2) && d_space(s, n, q + 2)) return 1;
    if (c_ieq(s, n, q, "last", 4) && d_space(s, n, q + 4)) return 1;
    return c_ieq(s, n, q, "updated", 7) || c_ieq(s, n, q, "published", 9) || c_ieq(s, n, q, "posted", 6);
}

/* B: a lower-case letter before p, one of caps at p (its case as written) and a word's end */
static int c_glued(const Py_UCS1 *s, Py_ssize_t n, Py_ssize_t p, PyObject *caps) {
    if (p == 0 || !(s[p - 1] >= 'a' && s[p - 1] <= 'z') || p >= n || !(s[p] >= 'A' && s[p] <= 'Z')) return 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(caps); i++) {
        PyObject *w = PyTuple_GET_ITEM(caps, i);
        Py_ssize_t k = PyUnicode_GET_LENGTH(w);
        if (c_eq(s, n, p, (const char *)PyUnicode_1BYTE_DATA(w), k) && d_ends(s, n, p + k)) return 1;
    }
    return 0;
}

/* D's core at q: \b MONTH \.? \s+ \d{1,2} \b, case-blind */
static int c_month_day(const Py_UCS1 *s, Py_ssize_t n, Py_ssize_t q, PyObject *months) {
    if (!d_alpha(s, n, q) || d_word(s, n, q - 1)) return 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(months); i++) {
        PyObject *w = PyTuple_GET_ITEM(months, i);
        Py_ssize_t k = PyUnicode_GET_LENGTH(w);
        if (!c_ieq(s, n, q, (const char *)PyUnicode_1BYTE_DATA(w), k)) continue;
        for (int dot = (q + k < n && s[q + k] == '.'); dot >= 0; dot--) {
            Py_ssize_t r = q + k + dot;
            if (!d_space(s, n, r)) continue;
            Py_ssize_t t = d_spaces(s, n, r);
            if (!d_digit(s, n, t)) continue;
            Py_ssize_t e = d_digit(s, n, t + 1) ? t + 2 : t + 1;
            if (d_ends(s, n, e)) return 1;
        }
    }
    return 0;
}

/* F: a letter before p, then \d+ (?:st|nd|rd|th)? \s+ [A-Za-z], case-blind */
static int c_number_word(const Py_UCS1 *s, Py_ssize_t n, Py_ssize_t p) {
    if (p == 0 || !is_alpha(s[p - 1]) || !d_digit(s, n, p)) return 0;
    Py_ssize_t q = p;
    while (d_digit(s, n, q)) q++;
    int suf = c_ieq(s, n, q, "st", 2) || c_ieq(s, n, q, "nd", 2) || c_ieq(s, n, q, "rd", 2) || c_ieq(s, n, q, "th", 2);
    for (int sf = suf; sf >= 0; sf--) {
        Py_ssize_t r = q + 2 * sf;
        if (!d_space(s, n, r)) continue;
        if (d_alpha(s, n, d_spaces(s, n, r))) return 1;
    }
    return 0;
}

static PyObject *cut_at(PyObject *self, PyObject *args) {
    PyObject *str, *months, *caps;
    if (!PyArg_ParseTuple(args, "UO!O!", &str, &PyTuple_Type, &months, &PyTuple_Type, &caps)) return NULL;
    if (!PyUnicode_IS_ASCII(str)) Py_RETURN_NONE;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(months); i++)
        if (!PyUnicode_Check(PyTuple_GET_ITEM(months, i)) || !PyUnicode_IS_ASCII(PyTuple_GET_ITEM(months, i))) Py_RETURN_NONE;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(caps); i++)
        if (!PyUnicode_Check(PyTuple_GET_ITEM(caps, i)) || !PyUnicode_IS_ASCII(PyTuple_GET_ITEM(caps, i))) Py_RETURN_NONE;
    const Py_UCS1 *s = PyUnicode_1BYTE_DATA(str);
    Py_ssize_t n = PyUnicode_GET_LENGTH(str);
    /* the leftmost match of an alternation is the earliest of its branches' leftmost matches;
       D's and E's start is where the whitespace (and a comma, for D) before their first month
       and day or bar begins */
    Py_ssize_t best = -1;
    for (Py_ssize_t p = 0; p < n; p++)
        if (c_after_space(s, n, p) || c_glued(s, n, p, caps) || c_number_word(s, n, p)) { best = p; break; }
    for (int branch = 0; branch < 2; branch++) {  /* E, then D */
        for (Py_ssize_t p = 0; p < n; p++) {
            if (!(branch == 0 ? s[p] == '|' : c_month_day(s, n, p, months))) continue;
            Py_ssize_t b = p;
            while (b > 0 && d_isspace(s[b - 1])) b--;
            if (branch == 1 && b > 0 && s[b - 1] == ',') {
                b--;
                while (b > 0 && d_isspace(s[b - 1])) b--;
            }
            if (best < 0 || b < best) best = b;
            break;
        }
    }
    return PyLong_FromSsize_t(best);
}

/* ------------------------------------------------------------------ metadata._is_date_key
   The values of the <meta>s whose key dates the page (_DATE_KEY and not _NOT_DATE_KEY, both
   case-blind), in order; None where a key is not ASCII (the regexes read those). */

static int dk_has(const Py_UCS1 *s, Py_ssize_t n, const char *w) {
    Py_ssize_t k = (Py_ssize_t)strlen(w);
    for (Py_ssize_t i = 0; i + k <= n; i++)
        if (ascii_lower(s[i]) == (Py_UCS1)w[0] && c_ieq(s, n, i, w, k)) return 1;
    return 0;
}

static PyObject *date_values(PyObject *self, PyObject *args) {
    static const char *yes[] = {"date", "time", "publish", "created", NULL};
    static const char *no[] = {"modif", "updat", "expir", "valid", "start", "end", "event", "verif", "birth", NULL};
    PyObject *metas;
    if (!PyArg_ParseTuple(args, "O", &metas)) return NULL;
    if (!PyList_Check(metas)) Py_RETURN_NONE;
    Py_ssize_t m = PyList_GET_SIZE(metas);
    for (Py_ssize_t i = 0; i < m; i++) {
        PyObject *kv = PyList_GET_ITEM(metas, i);
        if (!PyTuple_Check(kv) || PyTuple_GET_SIZE(kv) != 2 || !PyUnicode_Check(PyTuple_GET_ITEM(kv, 0)) ||
            !PyUnicode_IS_ASCII(PyTuple_GET_ITEM(kv, 0)))
            Py_RETURN_NONE;
    }
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    for (Py_ssize_t i = 0; i < m; i++) {
        PyObject *kv = PyList_GET_ITEM(metas, i), *key = PyTuple_GET_ITEM(kv, 0);
        const Py_UCS1 *s = PyUnicode_1BYTE_DATA(key);
        Py_ssize_t n = PyUnicode_GET_LENGTH(key);
        int ok = 0;
        for (int j = 0; yes[j] && !ok; j++) ok = dk_has(s, n, yes[j]);
        for (int j = 0; no[j] && ok; j++) ok = !dk_has(s, n, no[j]);
        if (ok && PyList_Append(out, PyTuple_GET_ITEM(kv, 1)) < 0) {
            Py_DECREF(out);
            return NULL;
        }
    }
    return out;
}

/* ------------------------------------------------------------------ read.address.hostname
   The host of an ASCII URL as hostname() reads it (lower case, without "www." and port, ''
   for none or a relative URL); None for other values (hostname reads them). */

static PyObject *host_ascii(PyObject *self, PyObject *args) {
    PyObject *url;
    if (!PyArg_ParseTuple(args, "O", &url)) return NULL;
    if (url == Py_None) return PyUnicode_FromStringAndSize("", 0);
    if (!PyUnicode_CheckExact(url) || !PyUnicode_IS_ASCII(url)) Py_RETURN_NONE;
    const Py_UCS1 *s = PyUnicode_1BYTE_DATA(url);
    Py_ssize_t b = 0, n = PyUnicode_GET_LENGTH(url);
    while (b < n && d_isspace(s[b])) b++;
    while (n > b && d_isspace(s[n - 1])) n--;
    s += b;
    n -= b;
    Py_ssize_t at = -1;
    for (Py_ssize_t i = 0; i + 1 < n; i++)
        if (s[i] == '/' && s[i + 1] == '/') { at = i; break; }
    if (at < 0) return PyUnicode_FromStringAndSize("", 0);
    if (at > 0) {
        if (s[at - 1] != ':') return PyUnicode_FromStringAndSize("", 0);
        Py_ssize_t alnum = 0;  /* the scheme: letters, digits, + and - (one letter or digit at least) */
        for (Py_ssize_t i = 0; i < at - 1; i++) {
            Py_UCS1 c = s[i];
            if (is_alpha(c) || (c >= '0' && c <= '9')) alnum++;
            else if (c != '+' && c != '-') return PyUnicode_FromStringAndSize("", 0);
        }
        if (at - 1 > 0 && alnum == 0) return PyUnicode_FromStringAndSize("", 0);
    }
    Py_ssize_t r = at + 2, end = n;
    for (Py_ssize_t i = r; i < n; i++)
        if (s[i] == '/' || s[i] == '?' || s[i] == '#') { end = i; break; }
    Py_ssize_t h = r;
    for (Py_ssize_t i = r; i < end; i++)
        if (s[i] == '@') h = i + 1;
    Py_ssize_t he = end;
    if (h < end && s[h] == '[') {
        Py_ssize_t close = -1;
        for (Py_ssize_t i = h; i < end; i++)
            if (s[i] == ']') { close = i; break; }
        if (close < 0) return PyUnicode_FromStringAndSize("", 0);
        h++;
        he = close;
    } else {
        for (Py_ssize_t i = h; i < end; i++)
            if (s[i] == ':') { he = i; break; }
    }
    while (h < he && d_isspace(s[h])) h++;
    while (he > h && d_isspace(s[he - 1])) he--;
    char buf[256];
    char *out = he - h <= (Py_ssize_t)sizeof buf ? buf : PyMem_Malloc((size_t)(he - h));
    if (!out) return PyErr_NoMemory();
    for (Py_ssize_t i = h; i < he; i++) out[i - h] = (char)ascii_lower(s[i]);
    Py_ssize_t k = he - h, skip = k >= 4 && memcmp(out, "www.", 4) == 0 ? 4 : 0;
    PyObject *res = PyUnicode_FromStringAndSize(out + skip, k - skip);
    if (out != buf) PyMem_Free(out);
    return res;
}

/* ------------------------------------------------------------------ metadata._clean_title
   A title without the site's name, on ASCII text: the parts (split_title's, blank ones left
   out; two at least) that are not the site's name (site: its words, norm_text) or its domain
   (dom: the domain's words, their spaces taken out) kept as they stand in the title; None
   where the title, a part, the site or a domain word is not ASCII (Python reads those). */

static int ct_contains(const char *hay, Py_ssize_t hn, const char *needle, Py_ssize_t nn) {
    if (nn == 0) return 1;
    for (Py_ssize_t i = 0; i + nn <= hn; i++)
        if (hay[i] == needle[0] && memcmp(hay + i, needle, (size_t)nn) == 0) return 1;
    return 0;
}

/* _is_site_part of an ASCII part */
static int ct_site_part(PyObject *part, const char *site, Py_ssize_t sn, PyObject *dom, char *buf, char *sq) {
    Py_ssize_t n = ct_norm(PyUnicode_1BYTE_DATA(part), PyUnicode_GET_LENGTH(part), buf);
    if (n == 0) return 1;
    if (sn && ((n == sn && memcmp(buf, site, (size_t)n) == 0) || ct_contains(site, sn, buf, n) ||
               (n <= sn + 12 && ct_contains(buf, n, site, sn))))
        return 1;
    Py_ssize_t q = 0;
    for (Py_ssize_t i = 0; i < n; i++) if (buf[i] != ' ') sq[q++] = buf[i];
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(dom); i++) {
        PyObject *d = PyTuple_GET_ITEM(dom, i);
        Py_ssize_t k = PyUnicode_GET_LENGTH(d);
        if (k <= q && memcmp(sq, PyUnicode_1BYTE_DATA(d), (size_t)k) == 0) return 1;
    }
    return 0;
}

/* _is_site_part of an ASCII part (True, False; None for other text, sites or domain words) */
static PyObject *site_part(PyObject *self, PyObject *args) {
    PyObject *part, *site, *dom;
    if (!PyArg_ParseTuple(args, "UUO!", &part, &site, &PyTuple_Type, &dom)) return NULL;
    if (!PyUnicode_IS_ASCII(part) || !PyUnicode_IS_ASCII(site)) Py_RETURN_NONE;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(dom); i++) {
        PyObject *d = PyTuple_GET_ITEM(dom, i);
        if (!PyUnicode_Check(d) || !PyUnicode_IS_ASCII(d) || PyUnicode_GET_LENGTH(d) == 0) Py_RETURN_NONE;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(part);
    char small[512], *buf = 2 * n + 2 <= (Py_ssize_t)sizeof small ? small : PyMem_Malloc((size_t)(2 * n + 2));
    if (!buf) return PyErr_NoMemory();
    int r = ct_site_part(part, (const char *)PyUnicode_1BYTE_DATA(site), PyUnicode_GET_LENGTH(site), dom, buf,
                         buf + n + 1);
    if (buf != small) PyMem_Free(buf);
    return PyBool_FromLong(r);
}

static PyObject *clean_title(PyObject *self, PyObject *args) {
    PyObject *title, *parts, *site, *dom;
    if (!PyArg_ParseTuple(args, "UO!UO!", &title, &PyTuple_Type, &parts, &site, &PyTuple_Type, &dom)) return NULL;
    Py_ssize_t np = PyTuple_GET_SIZE(parts), longest = 0;
    if (np < 2 || !PyUnicode_IS_ASCII(title) || !PyUnicode_IS_ASCII(site)) Py_RETURN_NONE;
    for (Py_ssize_t i = 0; i < np; i++) {
        PyObject *p = PyTuple_GET_ITEM(parts, i);
        if (!PyUnicode_Check(p) || !PyUnicode_IS_ASCII(p)) Py_RETURN_NONE;
        if (PyUnicode_GET_LENGTH(p) > longest) longest = PyUnicode_GET_LENGTH(p);
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(dom); i++) {
        PyObject *d = PyTuple_GET_ITEM(dom, i);
        if (!PyUnicode_Check(d) || !PyUnicode_IS_ASCII(d) || PyUnicode_GET_LENGTH(d) == 0) Py_RETURN_NONE;
    }
    char *buf = PyMem_Malloc((size_t)(2 * longest + 2));
    if (!buf) return PyErr_NoMemory();
    Py_ssize_t first = -1, lastk = -1, kept = 0;
    for (Py_ssize_t i = 0; i < np; i++) {
        if (!ct_site_part(PyTuple_GET_ITEM(parts, i), (const char *)PyUnicode_1BYTE_DATA(site),
                          PyUnicode_GET_LENGTH(site), dom, buf, buf + longest + 1)) {
            if (first < 0) first = i;
            lastk = i;
            kept++;
        }
    }
    PyMem_Free(buf);
    Py_ssize_t tn = PyUnicode_GET_LENGTH(title);
    const Py_UCS1 *t = PyUnicode_1BYTE_DATA(title);
    if (kept == 0) return Py_NewRef(title);
    if (kept == np) {
        /* nothing looks like the site: only a short last part (four words at most, shorter
           than the rest) is dropped */
        PyObject *last = PyTuple_GET_ITEM(parts, np - 1);
        const Py_UCS1 *l = PyUnicode_1BYTE_DATA(last);
        Py_ssize_t ln = PyUnicode_GET_LENGTH(last), words = 0, rest = np - 2;
        for (Py_ssize_t i = 0; i < ln; i++)
            if (!d_isspace(l[i]) && (i == 0 || d_isspace(l[i - 1]))) words++;
        for (Py_ssize_t i = 0; i < np - 1; i++) rest += PyUnicode_GET_LENGTH(PyTuple_GET_ITEM(parts, i));
        if (words <= 4 && ln < rest) {
            Py_ssize_t at = PyUnicode_Find(title, last, 0, tn, -1);
            if (at == -2) return NULL;
            if (at < 0) Py_RETURN_NONE;  /* (a part is in its title) */
            while (at > 0 && strchr(" |-:~/", t[at - 1]) && t[at - 1]) at--;
            return PyUnicode_Substring(title, 0, at);
        }
        return Py_NewRef(title);
    }
    PyObject *a = PyTuple_GET_ITEM(parts, first), *b = PyTuple_GET_ITEM(parts, lastk);
    Py_ssize_t start = PyUnicode_Find(title, a, 0, tn, 1), end = PyUnicode_Find(title, b, 0, tn, -1);
    if (start == -2 || end == -2) return NULL;
    if (start < 0 || end < 0) Py_RETURN_NONE;
    end += PyUnicode_GET_LENGTH(b);
    if (end < start) end = start;
    while (start < end && d_isspace(t[start])) start++;
    while (end > start && d_isspace(t[end - 1])) end--;
    return PyUnicode_Substring(title, start, end);
}

static PyMethodDef methods[] = {
    {"head", head, METH_VARARGS, "metadata.page_head's fields and each <meta> key's first value"},
    {"first_meta", first_meta, METH_VARARGS, "the first of some keys' value, whitespace collapsed"},
    {"terms", terms, METH_VARARGS, "tags or categories from a str or a list of str"},
    {"configure", configure, METH_VARARGS, "the date labels marks() finds"},
    {"marks", marks, METH_VARARGS, "where the date labels stand in an ASCII text"},
    {"starting", starting, METH_VARARGS, "the texts that start with one of the words, case-blind"},
    {"with_year", with_year, METH_VARARGS, "the texts that hold a year (19xx, 20xx)"},
    {"split_title", split_title, METH_VARARGS, "a title's parts between its separators"},
    {"norm_ascii", norm_ascii, METH_VARARGS, "an ASCII text's words, lower case, one space apart"},
    {"date_ascii", date_ascii, METH_VARARGS, "dates.normalise_date on an ASCII text (None: Python reads it)"},
    {"cut_at", cut_at, METH_VARARGS, "where a byline's name ends in an ASCII text (-1: nowhere)"},
    {"date_values", date_values, METH_VARARGS, "the values of the <meta>s whose ASCII key dates the page"},
    {"host_ascii", host_ascii, METH_VARARGS, "address.hostname of an ASCII URL"},
    {"clean_title", clean_title, METH_VARARGS, "an ASCII title without the site's name"},
    {"site_part", site_part, METH_VARARGS, "whether an ASCII title part is the site's name or domain"},
    {"positions", positions, METH_VARARGS, "the indices of an int64 column's items equal to a value"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_metadata", NULL, -1, methods};

PyMODINIT_FUNC PyInit__metadata(void) { return PyModule_Create(&module); }
