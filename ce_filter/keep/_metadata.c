/* The metadata rules' per-page sorting and scanning in C, the one implementation of each step
 * (tests/oracles/metadata_python.py is their Python oracle, which these must equal on every
 * input):
 *   head       metadata.page_head's loop over what the walk gathered (keys lower-cased, rels and
 *              byline markers checked exactly, the first bylines kept) and the first non-blank
 *              value of each <meta> key; first_meta, the first of some keys' value; terms,
 *              split_terms of a str or a list of str;
 *   marks      where a date line's labels stand ("Published", "Updated"; dates.label_marks);
 *   starting, with_year  the blocks a byline or date line rule may apply to (metadata._Joined:
 *              the ones that start with a word, case-blind; the ones that hold a year);
 *   split_title, norm_text, clean_title, site_part  a title's parts, a text's words, a title
 *              without the site's name;
 *   normalise_date  dates.normalise_date;
 *   cut_at     where a byline's name ends (metadata.cut_at);
 *   date_values  the values of the <meta>s that date the page;
 *   hostname   a URL's host (read.address.hostname: the metadata's and the site memory's);
 *   positions  the indices of a column's items equal to a value (result.h1_positions).
 * The regexes these stand for read text as str does: \d a decimal digit of any script, \w
 * str.isalnum() or "_", \s str.isspace(), re.IGNORECASE's case folds (the Py_UNICODE_ macros);
 * NFKC forms, case folding and lower-casing are str's and unicodedata's own (called where a text
 * is not ASCII), RFC 2822 dates email.utils'. The metadata runs with the GIL held. */
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

/* The characters re.IGNORECASE takes for one another besides a character's lower case: the
 * classes of re._casefix (each lower-case, up to three in a class, 0 padded). */
static const Py_UCS4 fold_classes[][3] = {
    {0x69, 0x131, 0}, {0x73, 0x17F, 0}, {0xB5, 0x3BC, 0}, {0x345, 0x3B9, 0x1FBE}, {0x390, 0x1FD3, 0},
    {0x3B0, 0x1FE3, 0}, {0x3B2, 0x3D0, 0}, {0x3B5, 0x3F5, 0}, {0x3B8, 0x3D1, 0}, {0x3BA, 0x3F0, 0},
    {0x3C0, 0x3D6, 0}, {0x3C1, 0x3F1, 0}, {0x3C2, 0x3C3, 0}, {0x3C6, 0x3D5, 0}, {0x432, 0x1C80, 0},
    {0x434, 0x1C81, 0}, {0x43E, 0x1C82, 0}, {0x441, 0x1C83, 0}, {0x442, 0x1C84, 0x1C85}, {0x44A, 0x1C86, 0},
    {0x463, 0x1C87, 0}, {0x1C88, 0xA64B, 0}, {0x1E61, 0x1E9B, 0}, {0xFB05, 0xFB06, 0},
};

static int in_class(const Py_UCS4 *k, Py_UCS4 c) { return c && (k[0] == c || k[1] == c || k[2] == c); }

/* whether the text's c matches the pattern's q (its lower case) as re.IGNORECASE matches a
 * literal: c's simple lower case is q or in q's class */
static int ic_match(Py_UCS4 c, Py_UCS4 q) {
    if (c == q) return 1;
    Py_UCS4 l = c < 128 ? ascii_lower(c) : Py_UNICODE_TOLOWER(c);
    if (l == q) return 1;
    if (l < 0xB5 && q < 0xB5) return 0;
    for (size_t i = 0; i < sizeof fold_classes / sizeof fold_classes[0]; i++)
        if (in_class(fold_classes[i], l) && in_class(fold_classes[i], q)) return 1;
    return 0;
}

/* a letter as the regex's [^\W\d_] sees it: str.isalnum() and not a decimal digit */
static inline int u_letter(Py_UCS4 c) {
    return c < 128 ? is_alpha((Py_UCS1)c) : Py_UNICODE_ISALNUM(c) && !Py_UNICODE_ISDECIMAL(c);
}

/* The labels, in the regex's order (the published ones first): their lower-case text, their
 * kind (a str), and for each ASCII lower case a text's character can have the labels whose
 * first character it matches, in order (a text's character of another lower case is tried
 * against every label). */
#define MAX_LABELS 256
static Py_UCS4 *label_text[MAX_LABELS];
static Py_ssize_t label_len[MAX_LABELS];
static PyObject *label_kind[MAX_LABELS];
static int n_labels = 0;
static int by_first[128][MAX_LABELS + 1]; /* label indices, -1 ended */

/* configure(labels): labels a sequence of (label, kind str) in the regex's order, each label
 * as the regex writes it (lower case). */
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
        Py_ssize_t len = PyUnicode_GET_LENGTH(text);
        if (len == 0 || !u_letter(PyUnicode_READ_CHAR(text, 0))) {
            PyErr_SetString(PyExc_ValueError, "labels: a letter first");
            goto fail;
        }
        Py_UCS4 *copy = PyUnicode_AsUCS4Copy(text);
        if (!copy) goto fail;
        for (Py_ssize_t j = 0; j < len; j++) copy[j] = Py_UNICODE_TOLOWER(copy[j]);
        label_text[n_labels] = copy;
        label_len[n_labels] = len;
        label_kind[n_labels] = Py_NewRef(kind);
        for (Py_UCS4 c = 0; c < 128; c++) {
            if (!ic_match(c, copy[0])) continue;
            int *list = by_first[c], k = 0;
            while (list[k] >= 0) k++;
            list[k] = n_labels;
            list[k + 1] = -1;
        }
        n_labels++;
    }
    Py_DECREF(fast);
    Py_RETURN_NONE;
fail:
    Py_DECREF(fast);
    return NULL;
}

/* whether label l stands at i of the text (case-blind) with no letter after it */
static int label_at(int kind, const void *d, Py_ssize_t n, Py_ssize_t i, int l) {
    Py_ssize_t m = label_len[l];
    if (i + m > n) return 0;
    const Py_UCS4 *t = label_text[l];
    for (Py_ssize_t j = 0; j < m; j++)
        if (!ic_match(PyUnicode_READ(kind, d, i + j), t[j])) return 0;
    return !(i + m < n && u_letter(PyUnicode_READ(kind, d, i + m)));
}

/* marks(s, first_only) -> [(start, kind), ...] of dates._LABEL.finditer(s) (the first only
 * where first_only): a label starts where no letter stands before it (or a character of
 * U+3000 to U+9FFF does), and is the first of the labels (in order) that the text holds
 * there, case-blind, with no letter after it. */
static PyObject *marks(PyObject *self, PyObject *args) {
    PyObject *s;
    int first_only;
    if (!PyArg_ParseTuple(args, "Up", &s, &first_only)) return NULL;
    int kind = PyUnicode_KIND(s);
    const void *d = PyUnicode_DATA(s);
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    Py_ssize_t i = 0;
    while (i < n) {
        Py_UCS4 c = PyUnicode_READ(kind, d, i);
        if (i > 0) {
            Py_UCS4 b = PyUnicode_READ(kind, d, i - 1);
            if (u_letter(b) && !(b >= 0x3000 && b <= 0x9FFF)) {
                i++;
                continue;
            }
        }
        int found = -1;
        Py_UCS4 l = c < 128 ? ascii_lower(c) : Py_UNICODE_TOLOWER(c);
        if (l < 128) {
            for (const int *k = by_first[l]; *k >= 0 && found < 0; k++)
                if (label_at(kind, d, n, i, *k)) found = *k;
        } else {
            for (int k = 0; k < n_labels && found < 0; k++)
                if (label_at(kind, d, n, i, k)) found = k;
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

static int append_index(PyObject *out, Py_ssize_t i) {
    PyObject *k = PyLong_FromSsize_t(i);
    int r = k ? PyList_Append(out, k) : -1;
    Py_XDECREF(k);
    return r;
}

/* positions(column, value) -> the indices of the column's items equal to value: the column a
 * one-dimensional buffer of int64 (any stride), or a sequence of int (TypeError for another) */
static PyObject *positions(PyObject *self, PyObject *args) {
    PyObject *col;
    long long value;
    if (!PyArg_ParseTuple(args, "OL", &col, &value)) return NULL;
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    if (!PyObject_CheckBuffer(col)) {
        PyObject *fast = PySequence_Fast(col, "positions: a column of int");
        if (!fast) goto fail;
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast); i++) {
            PyObject *x = PySequence_Fast_GET_ITEM(fast, i);
            if (!PyLong_Check(x)) {
                Py_DECREF(fast);
                PyErr_SetString(PyExc_TypeError, "positions: a column of int");
                goto fail;
            }
            int overflow;
            long long v = PyLong_AsLongLongAndOverflow(x, &overflow);
            if (v == -1 && PyErr_Occurred()) {
                Py_DECREF(fast);
                goto fail;
            }
            if (!overflow && v == value && append_index(out, i) < 0) {
                Py_DECREF(fast);
                goto fail;
            }
        }
        Py_DECREF(fast);
        return out;
    }
    Py_buffer v;
    if (PyObject_GetBuffer(col, &v, PyBUF_RECORDS_RO) < 0) goto fail;
    const char *f = v.format ? v.format : "B";
    if (f[0] == '<' || f[0] == '=' || f[0] == '@') f++;
    if (v.itemsize != 8 || v.ndim != 1 || !(f[0] == 'l' || f[0] == 'q') || f[1]) {
        PyBuffer_Release(&v);
        PyErr_SetString(PyExc_TypeError, "positions: a one-dimensional int64 column");
        goto fail;
    }
    Py_ssize_t n = v.shape[0], stride = v.strides ? v.strides[0] : 8;
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t x;
        memcpy(&x, (const char *)v.buf + i * stride, 8);
        if (x == value && append_index(out, i) < 0) {
            PyBuffer_Release(&v);
            goto fail;
        }
    }
    PyBuffer_Release(&v);
    return out;
fail:
    Py_DECREF(out);
    return NULL;
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
    if (len >= *(const Py_ssize_t *)ctx) return 0;
    for (Py_ssize_t j = 0; j + 3 < len; j++) {
        Py_UCS4 a = PyUnicode_READ(kind, d, j), b = PyUnicode_READ(kind, d, j + 1);
        if (!((a == '1' && b == '9') || (a == '2' && b == '0'))) continue;
        if (Py_UNICODE_ISDECIMAL(PyUnicode_READ(kind, d, j + 2))
            && Py_UNICODE_ISDECIMAL(PyUnicode_READ(kind, d, j + 3)))
            return 1;
    }
    return 0;
}

/* the indices, in order, of the texts for which hit(...) is true: texts a str (the blocks'
 * texts joined by "\n", texts.TextColumn.joined) or a list of str (each a text, "\n" or not) */
static PyObject *indices_where(PyObject *texts, int (*hit)(int, const void *, Py_ssize_t, const void *),
                               const void *ctx) {
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    if (PyList_Check(texts)) {
        for (Py_ssize_t k = 0; k < PyList_GET_SIZE(texts); k++) {
            PyObject *t = PyList_GET_ITEM(texts, k);
            if (!PyUnicode_Check(t)) {
                PyErr_SetString(PyExc_TypeError, "texts: str");
                Py_DECREF(out);
                return NULL;
            }
            if (hit(PyUnicode_KIND(t), PyUnicode_DATA(t), PyUnicode_GET_LENGTH(t), ctx) && append_index(out, k) < 0) {
                Py_DECREF(out);
                return NULL;
            }
        }
        return out;
    }
    if (!PyUnicode_Check(texts)) {
        PyErr_SetString(PyExc_TypeError, "texts: a str or a list of str");
        Py_DECREF(out);
        return NULL;
    }
    PyObject *joined = texts;
    int kind = PyUnicode_KIND(joined);
    const char *d = PyUnicode_DATA(joined);
    Py_ssize_t n = PyUnicode_GET_LENGTH(joined), a = 0, k = 0;
    while (out) {
        Py_ssize_t z = PyUnicode_FindChar(joined, '\n', a, n, 1);
        if (z == -2) { Py_CLEAR(out); break; }
        if (z < 0) z = n;
        if (hit(kind, d + a * kind, z - a, ctx) && append_index(out, k) < 0) Py_CLEAR(out);
        if (z >= n) break;
        a = z + 1;
        k++;
    }
    return out;
}

/* starting(texts, words) -> the indices, in order, of the texts that start with one of words
 * (lower-case ASCII letters), as loosely as re.IGNORECASE would: metadata._Joined.starting of
 * a _block_start pattern. */
static PyObject *starting(PyObject *self, PyObject *args) {
    PyObject *seq, *words;
    if (!PyArg_ParseTuple(args, "OO!", &seq, &PyTuple_Type, &words)) return NULL;
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

/* with_year(texts, max_len) -> the indices, in order, of the texts shorter than max_len
 * characters that hold "19" or "20" and two decimal digits after it (any script's, as the
 * regex's \d): metadata._Joined.with_year (the date lines: a longer text is none, and is not
 * read). */
static PyObject *with_year(PyObject *self, PyObject *args) {
    PyObject *seq;
    Py_ssize_t max_len;
    if (!PyArg_ParseTuple(args, "On", &seq, &max_len)) return NULL;
    return indices_where(seq, holds_year, &max_len);
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

static PyObject *normalize = NULL; /* unicodedata.normalize, imported at first need */

/* the words (runs of \w: str.isalnum() or "_") of s, joined by a space (a new reference) */
static PyObject *words_of(PyObject *s) {
    int kind = PyUnicode_KIND(s);
    const void *d = PyUnicode_DATA(s);
    Py_ssize_t n = PyUnicode_GET_LENGTH(s), m = 0;
    Py_UCS4 *buf = PyMem_Malloc((size_t)(n + 1) * sizeof(Py_UCS4));
    if (!buf) return PyErr_NoMemory();
    int prev = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, d, i);
        int word = c < 128 ? is_alpha((Py_UCS1)c) || (c >= '0' && c <= '9') || c == '_' : Py_UNICODE_ISALNUM(c);
        if (word) {
            if (!prev && m) buf[m++] = ' ';
            buf[m++] = c;
        }
        prev = word;
    }
    PyObject *out = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf, m);
    PyMem_Free(buf);
    return out;
}

/* norm_text(s) -> metadata.norm_text(s): the words of s's NFKC form case-folded (\w runs),
 * joined by a space. An ASCII text is its own NFKC form and its casefold is its lower(): its
 * words are [A-Za-z0-9_] runs, read here without a call; another text is normalised by
 * unicodedata.normalize and case-folded by str.casefold. */
static PyObject *norm(PyObject *s) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    if (PyUnicode_IS_ASCII(s)) {
        char small[256], *buf = n < (Py_ssize_t)sizeof small ? small : PyMem_Malloc(n + 1);
        if (!buf) return PyErr_NoMemory();
        PyObject *out = PyUnicode_DecodeASCII(buf, ct_norm(PyUnicode_1BYTE_DATA(s), n, buf), NULL);
        if (buf != small) PyMem_Free(buf);
        return out;
    }
    if (!normalize) {
        PyObject *mod = PyImport_ImportModule("unicodedata");
        if (!mod) return NULL;
        normalize = PyObject_GetAttrString(mod, "normalize");
        Py_DECREF(mod);
        if (!normalize) return NULL;
    }
    PyObject *nf = PyObject_CallFunction(normalize, "sO", "NFKC", s);
    if (!nf) return NULL;
    PyObject *folded = PyObject_CallMethod(nf, "casefold", NULL);
    Py_DECREF(nf);
    if (!folded) return NULL;
    PyObject *out = words_of(folded);
    Py_DECREF(folded);
    return out;
}

static PyObject *norm_text(PyObject *self, PyObject *args) {
    PyObject *s;
    if (!PyArg_ParseTuple(args, "U", &s)) return NULL;
    return norm(s);
}

/* ------------------------------------------------------------------ dates.normalise_date
   The date forms of dates.py (the oracle's regexes), position by position in each pattern's
   order of preference (the regex's backtracking where it can matter), on a copy of the text
   as UCS4; an RFC 2822 date by email.utils. */

/* the regexes' classes as str reads them: \d a decimal digit (any script's), [^\W\d_] a letter
 * (str.isalnum() and not a decimal digit), \w str.isalnum() or "_", \s str.isspace() */
static inline int d_digit(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t i) {
    return i >= 0 && i < n && (s[i] < 128 ? s[i] >= '0' && s[i] <= '9' : Py_UNICODE_ISDECIMAL(s[i]));
}
static inline int d_isalpha(Py_UCS4 c) { return c < 128 ? is_alpha((Py_UCS1)c) : u_letter(c); }
static inline int d_alpha(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t i) { return i >= 0 && i < n && d_isalpha(s[i]); }
static inline int d_word(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t i) {
    if (i < 0 || i >= n) return 0;
    Py_UCS4 c = s[i];
    return c < 128 ? is_alpha((Py_UCS1)c) || (c >= '0' && c <= '9') || c == '_' : Py_UNICODE_ISALNUM(c);
}
static inline int d_isspace(Py_UCS4 c) { return Py_UNICODE_ISSPACE(c); }
static inline int d_space(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t i) { return i >= 0 && i < n && d_isspace(s[i]); }
/* a word boundary before s[i] where s[i] is a word character */
static inline int d_starts(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t i) { return d_word(s, n, i) && !d_word(s, n, i - 1); }
static inline int d_ends(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t i) { return !d_word(s, n, i); } /* after a word char */
static long d_num(const Py_UCS4 *s, Py_ssize_t i, Py_ssize_t k) {
    long v = 0;
    while (k--) v = v * 10 + Py_UNICODE_TODECIMAL(s[i++]);
    return v;
}
static Py_ssize_t d_spaces(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t i) { while (i < n && d_isspace(s[i])) i++; return i; }
/* the letters from i */
static Py_ssize_t d_letters(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t i) { Py_ssize_t j = i; while (j < n && d_isalpha(s[j])) j++; return j - i; }

static PyObject *d_ymd(long y, long m, long d, long max_year) {
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (y < 1 || m < 1 || m > 12 || d < 1) return PyUnicode_FromStringAndSize("", 0);
    int dim = days[m - 1] + (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0));
    if (d > dim || y < 1990 || y > max_year) return PyUnicode_FromStringAndSize("", 0);
    char buf[32];
    int len = snprintf(buf, sizeof buf, "%04ld-%02ld-%02ld", y, m, d);
    return PyUnicode_FromStringAndSize(buf, len);
}

/* months[w] of w = s[i:i+k], lower-cased first (str.lower) where ``lower``: > 0 a month, 0
 * none, -1 an error (a value that is no month's number: TypeError) */
static int d_month(PyObject *months, const Py_UCS4 *s, Py_ssize_t i, Py_ssize_t k, int lower) {
    int ascii = 1;
    for (Py_ssize_t j = 0; j < k; j++) ascii &= s[i + j] < 128;
    PyObject *key;
    if (ascii) {
        char buf[64], *b = k <= (Py_ssize_t)sizeof buf ? buf : PyMem_Malloc((size_t)k);
        if (!b) {
            PyErr_NoMemory();
            return -1;
        }
        for (Py_ssize_t j = 0; j < k; j++) b[j] = (char)(lower ? ascii_lower(s[i + j]) : s[i + j]);
        key = PyUnicode_FromStringAndSize(b, k);
        if (b != buf) PyMem_Free(b);
    } else {
        PyObject *w = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, s + i, k);
        key = w && lower ? PyObject_CallMethod(w, "lower", NULL) : Py_XNewRef(w);
        Py_XDECREF(w);
    }
    if (!key) return -1;
    PyObject *v = PyDict_GetItemWithError(months, key);
    Py_DECREF(key);
    if (!v) return PyErr_Occurred() ? -1 : 0;
    long m = PyLong_Check(v) ? PyLong_AsLong(v) : -1;
    if (m == -1 && PyErr_Occurred()) return -1;
    if (m < 1 || m > 12) {
        PyErr_SetString(PyExc_TypeError, "months: month numbers 1 to 12");
        return -1;
    }
    return (int)m;
}

/* a named form's match: where its month's name, day and year stand, and where it ends */
typedef struct { Py_ssize_t name, name_len, day, day_len, year, end; } d_match;

/* _MDY at p: \b NAME \.? \s+ (\d{1,2}) (?:st|nd|rd|th)? ,? \s+ (\d{4}) \b */
static int d_mdy(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t p, d_match *m) {
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
static int d_dmy(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t p, d_match *m) {
    if (!d_digit(s, n, p) || d_word(s, n, p - 1)) return 0;
    for (int k = 2; k >= 1; k--) {
        if (k == 2 && !d_digit(s, n, p + 1)) continue;
        Py_ssize_t u = p + k;
        int suf = 0;
        if (u + 1 < n && ((s[u] == 's' && s[u + 1] == 't') || (s[u] == 'n' && s[u + 1] == 'd') ||
                          (s[u] == 'r' && s[u + 1] == 'd') || (s[u] == 't' && s[u + 1] == 'h') ||
                          (s[u] == 'e' && s[u + 1] == 'r')))
            suf = 2;
        else if (u < n && (s[u] == '.' || s[u] == 0xBA))  /* . or º */
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
static int d_ymd_name(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t p, d_match *m) {
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

typedef int (*d_pattern)(const Py_UCS4 *, Py_ssize_t, Py_ssize_t, d_match *);

/* _named over the pattern's matches (finditer: each search resumes where the last match
   ended): 1 and *out the first match naming a month (its date, '' when no real day), 0 none, -1 error */
static int d_named(const Py_UCS4 *s, Py_ssize_t n, PyObject *months, d_pattern pat, long max_year, PyObject **out) {
    Py_ssize_t p = 0;
    d_match m;
    while (p < n) {
        if (!pat(s, n, p, &m)) { p++; continue; }
        int month = d_month(months, s, m.name, m.name_len, 1);
        if (month < 0) return -1;
        if (month > 0) {
            *out = d_ymd(d_num(s, m.year, 4), month, d_num(s, m.day, m.day_len), max_year);
            return *out ? 1 : -1;
        }
        p = m.end > p ? m.end : p + 1;
    }
    return 0;
}

static PyObject *email_date = NULL; /* email.utils.parsedate_to_datetime, imported at first need */

/* _CJK: (\d{4})\s*[年년]\s*(\d{1,2})\s*[月월]\s*(\d{1,2}), searched */
static PyObject *d_cjk(const Py_UCS4 *s, Py_ssize_t n, long max_year) {
    for (Py_ssize_t p = 0; p + 4 <= n; p++) {
        if (!(d_digit(s, n, p) && d_digit(s, n, p + 1) && d_digit(s, n, p + 2) && d_digit(s, n, p + 3))) continue;
        Py_ssize_t t = d_spaces(s, n, p + 4);
        if (!(t < n && (s[t] == 0x5E74 || s[t] == 0xB144))) continue;
        t = d_spaces(s, n, t + 1);
        if (!d_digit(s, n, t)) continue;
        Py_ssize_t k = d_digit(s, n, t + 1) ? 2 : 1;  /* (one digit then a digit: no 月 after it) */
        Py_ssize_t u = d_spaces(s, n, t + k);
        if (!(u < n && (s[u] == 0x6708 || s[u] == 0xC6D4))) continue;
        u = d_spaces(s, n, u + 1);
        if (!d_digit(s, n, u)) continue;
        Py_ssize_t kd = d_digit(s, n, u + 1) ? 2 : 1;
        return d_ymd(d_num(s, p, 4), d_num(s, t, k), d_num(s, u, kd), max_year);
    }
    return NULL;
}

/* whether w (lower case) is at i, case-blind as re.IGNORECASE */
static int d_ieq(const Py_UCS4 *s, Py_ssize_t n, Py_ssize_t i, const Py_UCS4 *w, Py_ssize_t k) {
    if (i + k > n) return 0;
    for (Py_ssize_t j = 0; j < k; j++) if (!ic_match(s[i + j], w[j])) return 0;
    return 1;
}

/* _VI: \b(\d{1,2})\s+tháng\s+(\d{1,2})\s*(?:năm|,|/)?\s*(\d{4})\b, case-blind, searched */
static PyObject *d_vi(const Py_UCS4 *s, Py_ssize_t n, long max_year) {
    static const Py_UCS4 thang[] = {'t', 'h', 0xE1, 'n', 'g'}, nam[] = {'n', 0x103, 'm'};
    for (Py_ssize_t p = 0; p < n; p++) {
        if (!d_digit(s, n, p) || d_word(s, n, p - 1)) continue;
        Py_ssize_t k = d_digit(s, n, p + 1) ? 2 : 1;
        if (!d_space(s, n, p + k)) continue;
        Py_ssize_t t = d_spaces(s, n, p + k);
        if (!d_ieq(s, n, t, thang, 5) || !d_space(s, n, t + 5)) continue;
        Py_ssize_t u = d_spaces(s, n, t + 5);
        if (!d_digit(s, n, u)) continue;
        for (Py_ssize_t km = d_digit(s, n, u + 1) ? 2 : 1; km >= 1; km--) {
            Py_ssize_t w = d_spaces(s, n, u + km), after[2];
            int na = 0;
            if (d_ieq(s, n, w, nam, 3)) after[na++] = w + 3;
            else if (w < n && (s[w] == ',' || s[w] == '/')) after[na++] = w + 1;
            after[na++] = w;
            for (int j = 0; j < na; j++) {
                Py_ssize_t v = d_spaces(s, n, after[j]);
                if (d_digit(s, n, v) && d_digit(s, n, v + 1) && d_digit(s, n, v + 2) && d_digit(s, n, v + 3)
                    && d_ends(s, n, v + 4))
                    return d_ymd(d_num(s, v, 4), d_num(s, u, km), d_num(s, p, k), max_year);
            }
        }
    }
    return NULL;
}

/* an RFC 2822 date by email.utils.parsedate_to_datetime (its errors: '') */
static PyObject *d_email(PyObject *text, long max_year) {
    if (!email_date) {
        PyObject *mod = PyImport_ImportModule("email.utils");
        if (!mod) return NULL;
        email_date = PyObject_GetAttrString(mod, "parsedate_to_datetime");
        Py_DECREF(mod);
        if (!email_date) return NULL;
    }
    PyObject *t = PyObject_CallOneArg(email_date, text);
    if (!t) {
        if (PyErr_ExceptionMatches(PyExc_TypeError) || PyErr_ExceptionMatches(PyExc_ValueError)
            || PyErr_ExceptionMatches(PyExc_IndexError)) {
            PyErr_Clear();
            return PyUnicode_FromStringAndSize("", 0);
        }
        return NULL;
    }
    if (t == Py_None) {
        Py_DECREF(t);
        return PyUnicode_FromStringAndSize("", 0);
    }
    long ymd[3];
    static const char *names[3] = {"year", "month", "day"};
    for (int i = 0; i < 3; i++) {
        PyObject *v = PyObject_GetAttrString(t, names[i]);
        ymd[i] = v ? PyLong_AsLong(v) : -1;
        Py_XDECREF(v);
        if (ymd[i] == -1 && PyErr_Occurred()) {
            Py_DECREF(t);
            return NULL;
        }
    }
    Py_DECREF(t);
    return d_ymd(ymd[0], ymd[1], ymd[2], max_year);
}

static PyObject *date_in(const Py_UCS4 *s, Py_ssize_t n, PyObject *months, long max_year);

/* normalise_date(s, months, max_year) -> dates.normalise_date(s, months): the forms of its
 * regexes, tried in its order, each position by position in the pattern's order of preference
 * (the regex's backtracking where it can matter), with str's \d, \w, \s and letters; the
 * month names looked up in months (a dict: name -> 1 to 12) after str.lower; an RFC 2822 date
 * read by email.utils; years from 1990 to max_year. */
static PyObject *normalise_date(PyObject *self, PyObject *args) {
    PyObject *str, *months;
    long max_year;
    if (!PyArg_ParseTuple(args, "UO!l", &str, &PyDict_Type, &months, &max_year)) return NULL;
    Py_ssize_t n = PyUnicode_GET_LENGTH(str);
    Py_UCS4 small[256], *buf = n <= 256 ? small : PyMem_Malloc((size_t)n * sizeof(Py_UCS4));
    if (!buf) return PyErr_NoMemory();
    PyObject *out = NULL;
    if (PyUnicode_AsUCS4(str, buf, n > 256 ? n : 256, 0)) {
        Py_ssize_t b = 0;
        while (b < n && d_isspace(buf[b])) b++;
        while (n > b && d_isspace(buf[n - 1])) n--;
        out = date_in(buf + b, n - b, months, max_year);
    }
    if (buf != small) PyMem_Free(buf);
    return out;
}

/* normalise_date of the text s (n characters: stripped) */
static PyObject *date_in(const Py_UCS4 *s, Py_ssize_t n, PyObject *months, long max_year) {
    int year = 0, dash = 0, sep = 0, dotspace = 0, colon = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = s[i];
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
                        Py_UCS4 c2 = t + 1 < n ? s[t + 1] : 0, c3 = t + 2 < n ? s[t + 2] : 0;
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
            Py_UCS4 c = s[p + k1];
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
    int ascii = 1;
    for (Py_ssize_t i = 0; i < n && ascii; i++) ascii = s[i] < 128;
    if (!ascii) {  /* the forms with a 年, 년 or "tháng" */
        int cjk = 0, vi = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            cjk |= s[i] == 0x5E74 || s[i] == 0xB144;
            vi |= i + 4 <= n && s[i] == 'h' && s[i + 1] == 0xE1 && s[i + 2] == 'n' && s[i + 3] == 'g';
        }
        PyObject *d = cjk ? d_cjk(s, n, max_year) : NULL;
        if (!d && vi && !PyErr_Occurred()) d = d_vi(s, n, max_year);
        if (d || PyErr_Occurred()) return d;
    }
    /* the words (runs of letters, 20 at most each, 3 at least) of the lower-cased text, of
       which one must be a month's name (an ASCII text lower-cased as it is read) */
    PyObject *low = NULL;
    Py_UCS4 *lw = NULL;
    const Py_UCS4 *w = s;
    Py_ssize_t wn = n;
    if (!ascii) {
        PyObject *stripped = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, s, n);
        low = stripped ? PyObject_CallMethod(stripped, "lower", NULL) : NULL;
        Py_XDECREF(stripped);
        lw = low ? PyUnicode_AsUCS4Copy(low) : NULL;
        if (!lw) {
            Py_XDECREF(low);
            return NULL;
        }
        w = lw;
        wn = PyUnicode_GET_LENGTH(low);
    }
    int named = 0;
    for (Py_ssize_t i = 0; i < wn && !named;) {
        if (!d_isalpha(w[i])) { i++; continue; }
        Py_ssize_t L = d_letters(w, wn, i);
        for (Py_ssize_t j = i; j < i + L; j += 20) {
            Py_ssize_t k = i + L - j < 20 ? i + L - j : 20;
            if (k < 3) break;
            int month = d_month(months, w, j, k, ascii);
            if (month < 0) named = -1;
            if (month != 0) { named = named ? named : 1; break; }
        }
        i += L;
    }
    if (lw) PyMem_Free(lw);
    Py_XDECREF(low);
    if (named < 0) return NULL;
    if (!named) return PyUnicode_FromStringAndSize("", 0);
    d_pattern pats[3] = {d_mdy, d_dmy, d_ymd_name};
    for (int k = 0; k < 3; k++) {
        PyObject *out = NULL;
        int r = d_named(s, n, months, pats[k], max_year, &out);
        if (r < 0) return NULL;
        if (r > 0) {
            if (PyUnicode_GET_LENGTH(out) > 0) return out;
            Py_DECREF(out);
        }
    }
    if (!colon || n > 40) return PyUnicode_FromStringAndSize("", 0);
    /* perhaps an RFC 2822 date */
    PyObject *text = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, s, n);
    PyObject *out = text ? d_email(text, max_year) : NULL;
    Py_XDECREF(text);
    return out;
}

/* ------------------------------------------------------------------ metadata._CUT
   Where a byline's name ends: the leftmost start of a match of _CUT (the regex's branches each
   looked for, the earliest start kept), -1 for none. The regex is case-blind (re.IGNORECASE:
   loose_is for its ASCII letters, and [a-z] is a letter loose_is knows) and reads \s, \d and
   \b as str does (Py_UNICODE_ISSPACE, Py_UNICODE_ISDECIMAL, \w: str.isalnum() or "_").
   months: the month names, lower-case ASCII letters; caps: the words a name cannot run into
   ("Published", "March"...), ASCII, matched as written. */

typedef struct {
    const Py_UCS4 *u;  /* the text's characters */
    Py_ssize_t n;
} text_t;

#define TX(t, i) ((t)->u[i])

static inline int u_space(const text_t *t, Py_ssize_t i) { return i >= 0 && i < t->n && Py_UNICODE_ISSPACE(TX(t, i)); }
static inline int u_digit(const text_t *t, Py_ssize_t i) {
    if (i < 0 || i >= t->n) return 0;
    Py_UCS4 c = TX(t, i);
    return c < 128 ? c >= '0' && c <= '9' : Py_UNICODE_ISDECIMAL(c);
}
static inline int u_word(const text_t *t, Py_ssize_t i) {
    if (i < 0 || i >= t->n) return 0;
    Py_UCS4 c = TX(t, i);
    return c < 128 ? is_alpha((Py_UCS1)c) || (c >= '0' && c <= '9') || c == '_' : Py_UNICODE_ISALNUM(c);
}
/* an ASCII letter of either case as the case-blind [a-z] (or [A-Za-z]) sees it */
static inline int u_loose_letter(const text_t *t, Py_ssize_t i) {
    if (i < 0 || i >= t->n) return 0;
    Py_UCS4 c = TX(t, i);
    return (c < 128 && is_alpha((Py_UCS1)c)) || c == 0x130 || c == 0x131 || c == 0x17F || c == 0x212A;
}
static Py_ssize_t u_spaces(const text_t *t, Py_ssize_t i) { while (u_space(t, i)) i++; return i; }

/* whether w (lower-case ASCII letters) is at i, case-blind as re.IGNORECASE */
static int u_ieq(const text_t *t, Py_ssize_t i, const char *w, Py_ssize_t k) {
    if (i + k > t->n) return 0;
    for (Py_ssize_t j = 0; j < k; j++) if (!loose_is(TX(t, i + j), w[j])) return 0;
    return 1;
}

/* whether w (ASCII) is at i as written */
static int u_eq(const text_t *t, Py_ssize_t i, const char *w, Py_ssize_t k) {
    if (i + k > t->n) return 0;
    for (Py_ssize_t j = 0; j < k; j++) if (TX(t, i + j) != (Py_UCS4)(unsigned char)w[j]) return 0;
    return 1;
}

/* the branches that start with one whitespace character at p (A's words, C's digit) */
static int c_after_space(const text_t *t, Py_ssize_t p) {
    if (!u_space(t, p) || p + 1 >= t->n) return 0;
    Py_ssize_t q = p + 1;
    Py_UCS4 c = TX(t, q);
    if (c == '|' || c == 0x2022 || c == 0xB7 || c == 0x2014 || c == 0x2013 || c == 0xBB || Py_UNICODE_ISDECIMAL(c))
        return 1;
    if (c == '-' && u_space(t, q + 1)) return 1;
    if (u_ieq(t, q, "on", 2) && u_space(t, q + 2)) return 1;
    if (u_ieq(t, q, "last", 4) && u_space(t, q + 4)) return 1;
    return u_ieq(t, q, "updated", 7) || u_ieq(t, q, "published", 9) || u_ieq(t, q, "posted", 6);
}

/* B: a lower-case ASCII letter before p, one of caps at p (as written) and a word's end */
static int c_glued(const text_t *t, Py_ssize_t p, PyObject *caps) {
    if (p == 0 || p >= t->n) return 0;
    Py_UCS4 b = TX(t, p - 1), c = TX(t, p);
    if (!(b >= 'a' && b <= 'z') || !(c >= 'A' && c <= 'Z')) return 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(caps); i++) {
        PyObject *w = PyTuple_GET_ITEM(caps, i);
        Py_ssize_t k = PyUnicode_GET_LENGTH(w);
        if (u_eq(t, p, (const char *)PyUnicode_1BYTE_DATA(w), k) && !u_word(t, p + k)) return 1;
    }
    return 0;
}

/* D's core at q: \b MONTH \.? \s+ \d{1,2} \b, case-blind */
static int c_month_day(const text_t *t, Py_ssize_t q, PyObject *months) {
    if (!u_word(t, q) || u_word(t, q - 1)) return 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(months); i++) {
        PyObject *w = PyTuple_GET_ITEM(months, i);
        Py_ssize_t k = PyUnicode_GET_LENGTH(w);
        if (!u_ieq(t, q, (const char *)PyUnicode_1BYTE_DATA(w), k)) continue;
        for (int dot = (q + k < t->n && TX(t, q + k) == '.'); dot >= 0; dot--) {
            Py_ssize_t r = q + k + dot;
            if (!u_space(t, r)) continue;
            Py_ssize_t e = u_spaces(t, r);
            if (!u_digit(t, e)) continue;
            e = u_digit(t, e + 1) ? e + 2 : e + 1;
            if (!u_word(t, e)) return 1;
        }
    }
    return 0;
}

/* F: a letter before p, then \d+ (?:st|nd|rd|th)? \s+ [A-Za-z], case-blind */
static int c_number_word(const text_t *t, Py_ssize_t p) {
    if (p == 0 || !u_loose_letter(t, p - 1) || !u_digit(t, p)) return 0;
    Py_ssize_t q = p;
    while (u_digit(t, q)) q++;
    int suf = u_ieq(t, q, "st", 2) || u_ieq(t, q, "nd", 2) || u_ieq(t, q, "rd", 2) || u_ieq(t, q, "th", 2);
    for (int sf = suf; sf >= 0; sf--) {
        Py_ssize_t r = q + 2 * sf;
        if (!u_space(t, r)) continue;
        if (u_loose_letter(t, u_spaces(t, r))) return 1;
    }
    return 0;
}

static inline int is_bar(Py_UCS4 c) {  /* [•·⋅∙|»] */
    return c == 0x2022 || c == 0xB7 || c == 0x22C5 || c == 0x2219 || c == '|' || c == 0xBB;
}

static int lower_ascii_words(PyObject *tuple, int letters_only) {
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(tuple); i++) {
        PyObject *w = PyTuple_GET_ITEM(tuple, i);
        if (!PyUnicode_Check(w) || !PyUnicode_IS_ASCII(w) || PyUnicode_GET_LENGTH(w) == 0) return 0;
        const Py_UCS1 *d = PyUnicode_1BYTE_DATA(w);
        for (Py_ssize_t j = 0; letters_only && j < PyUnicode_GET_LENGTH(w); j++)
            if (d[j] < 'a' || d[j] > 'z') return 0;
    }
    return 1;
}

static PyObject *cut_at(PyObject *self, PyObject *args) {
    PyObject *str, *months, *caps;
    if (!PyArg_ParseTuple(args, "UO!O!", &str, &PyTuple_Type, &months, &PyTuple_Type, &caps)) return NULL;
    static PyObject *checked_months = NULL, *checked_caps = NULL;  /* the last ones checked (held) */
    if (months != checked_months || caps != checked_caps) {
        if (!lower_ascii_words(months, 1) || !lower_ascii_words(caps, 0)) {
            PyErr_SetString(PyExc_ValueError, "cut_at: months lower-case ASCII letters, caps ASCII");
            return NULL;
        }
        Py_XSETREF(checked_months, Py_NewRef(months));
        Py_XSETREF(checked_caps, Py_NewRef(caps));
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(str);
    Py_UCS4 small[256], *buf = n <= 256 ? small : PyMem_Malloc((size_t)n * sizeof(Py_UCS4));
    if (!buf) return PyErr_NoMemory();
    if (!PyUnicode_AsUCS4(str, buf, n > 256 ? n : 256, 0)) {
        if (buf != small) PyMem_Free(buf);
        return NULL;
    }
    text_t tx = {buf, n}, *t = &tx;
    /* the leftmost match of an alternation is the earliest of its branches' leftmost matches;
       D's and E's start is where the whitespace (and a comma, for D) before their first month
       and day or bar begins */
    Py_ssize_t best = -1;
    for (Py_ssize_t p = 0; p < n; p++)
        if (c_after_space(t, p) || c_glued(t, p, caps) || c_number_word(t, p)) { best = p; break; }
    for (int branch = 0; branch < 2; branch++) {  /* E, then D */
        for (Py_ssize_t p = 0; p < n; p++) {
            if (!(branch == 0 ? is_bar(TX(t, p)) : c_month_day(t, p, months))) continue;
            Py_ssize_t b = p;
            while (b > 0 && u_space(t, b - 1)) b--;
            if (branch == 1 && b > 0 && TX(t, b - 1) == ',') {
                b--;
                while (b > 0 && u_space(t, b - 1)) b--;
            }
            if (best < 0 || b < best) best = b;
            break;
        }
    }
    if (buf != small) PyMem_Free(buf);
    return PyLong_FromSsize_t(best);
}

/* ------------------------------------------------------------------ metadata._is_date_key
   The values of the <meta>s whose key dates the page (_DATE_KEY and not _NOT_DATE_KEY, both
   case-blind as re.IGNORECASE is: loose_is), in order. */

static int dk_has(int kind, const void *s, Py_ssize_t n, const char *w) {
    Py_ssize_t k = (Py_ssize_t)strlen(w);
    for (Py_ssize_t i = 0; i + k <= n; i++) {
        Py_ssize_t j = 0;
        while (j < k && loose_is(PyUnicode_READ(kind, s, i + j), w[j])) j++;
        if (j == k) return 1;
    }
    return 0;
}

static PyObject *date_values(PyObject *self, PyObject *args) {
    static const char *yes[] = {"date", "time", "publish", "created", NULL};
    static const char *no[] = {"modif", "updat", "expir", "valid", "start", "end", "event", "verif", "birth", NULL};
    PyObject *metas;
    if (!PyArg_ParseTuple(args, "O!", &PyList_Type, &metas)) return NULL;
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(metas); i++) {
        PyObject *kv = PyList_GET_ITEM(metas, i);
        if (!PyTuple_Check(kv) || PyTuple_GET_SIZE(kv) != 2 || !PyUnicode_Check(PyTuple_GET_ITEM(kv, 0))) {
            Py_DECREF(out);
            PyErr_SetString(PyExc_TypeError, "metas: (str, value) pairs");
            return NULL;
        }
        PyObject *key = PyTuple_GET_ITEM(kv, 0);
        int kind = PyUnicode_KIND(key);
        const void *s = PyUnicode_DATA(key);
        Py_ssize_t n = PyUnicode_GET_LENGTH(key);
        int ok = 0;
        for (int j = 0; yes[j] && !ok; j++) ok = dk_has(kind, s, n, yes[j]);
        for (int j = 0; no[j] && ok; j++) ok = !dk_has(kind, s, n, no[j]);
        if (ok && PyList_Append(out, PyTuple_GET_ITEM(kv, 1)) < 0) {
            Py_DECREF(out);
            return NULL;
        }
    }
    return out;
}

/* ------------------------------------------------------------------ read.address.hostname
   The host of a URL: lower case (str.lower), without "www." and port; '' for None, a relative
   URL or anything other than a scheme (letters, digits, + and -: str.isalnum) before "//". */

static PyObject *hostname(PyObject *self, PyObject *args) {
    PyObject *url;
    if (!PyArg_ParseTuple(args, "O", &url)) return NULL;
    if (url == Py_None) return PyUnicode_FromStringAndSize("", 0);
    if (!PyUnicode_Check(url)) {
        PyErr_SetString(PyExc_TypeError, "hostname: a str or None");
        return NULL;
    }
    int kind = PyUnicode_KIND(url);
    const void *d = PyUnicode_DATA(url);
#define U(i) PyUnicode_READ(kind, d, (i))
    Py_ssize_t b = 0, n = PyUnicode_GET_LENGTH(url);
    while (b < n && Py_UNICODE_ISSPACE(U(b))) b++;
    while (n > b && Py_UNICODE_ISSPACE(U(n - 1))) n--;
    Py_ssize_t at = -1;
    for (Py_ssize_t i = b; i + 1 < n; i++)
        if (U(i) == '/' && U(i + 1) == '/') { at = i; break; }
    if (at < 0) return PyUnicode_FromStringAndSize("", 0);
    if (at > b) {
        if (U(at - 1) != ':') return PyUnicode_FromStringAndSize("", 0);
        Py_ssize_t alnum = 0;  /* the scheme: letters, digits, + and - (one letter or digit at least) */
        for (Py_ssize_t i = b; i < at - 1; i++) {
            Py_UCS4 c = U(i);
            if (c != '+' && c != '-' && !Py_UNICODE_ISALNUM(c)) return PyUnicode_FromStringAndSize("", 0);
            alnum += c != '+' && c != '-';
        }
        if (at - 1 > b && alnum == 0) return PyUnicode_FromStringAndSize("", 0);
    }
    Py_ssize_t r = at + 2, end = n;
    for (Py_ssize_t i = r; i < n; i++) {
        Py_UCS4 c = U(i);
        if (c == '/' || c == '?' || c == '#') { end = i; break; }
    }
    Py_ssize_t h = r;
    for (Py_ssize_t i = r; i < end; i++)
        if (U(i) == '@') h = i + 1;
    Py_ssize_t he = end;
    if (h < end && U(h) == '[') {
        Py_ssize_t close = -1;
        for (Py_ssize_t i = h; i < end; i++)
            if (U(i) == ']') { close = i; break; }
        if (close < 0) return PyUnicode_FromStringAndSize("", 0);
        h++;
        he = close;
    } else {
        for (Py_ssize_t i = h; i < end; i++)
            if (U(i) == ':') { he = i; break; }
    }
    while (h < he && Py_UNICODE_ISSPACE(U(h))) h++;
    while (he > h && Py_UNICODE_ISSPACE(U(he - 1))) he--;
    int ascii = 1;
    for (Py_ssize_t i = h; i < he && ascii; i++) ascii = U(i) < 128;
    if (ascii) {
        char buf[256];
        char *out = he - h <= (Py_ssize_t)sizeof buf ? buf : PyMem_Malloc((size_t)(he - h));
        if (!out) return PyErr_NoMemory();
        for (Py_ssize_t i = h; i < he; i++) out[i - h] = (char)ascii_lower(U(i));
        Py_ssize_t k = he - h, skip = k >= 4 && memcmp(out, "www.", 4) == 0 ? 4 : 0;
        PyObject *res = PyUnicode_FromStringAndSize(out + skip, k - skip);
        if (out != buf) PyMem_Free(out);
        return res;
    }
#undef U
    PyObject *part = PyUnicode_Substring(url, h, he);
    PyObject *low = part ? PyObject_CallMethod(part, "lower", NULL) : NULL;
    Py_XDECREF(part);
    if (!low) return NULL;
    PyObject *www = PyUnicode_FromString("www.");
    Py_ssize_t starts = www ? PyUnicode_Tailmatch(low, www, 0, PY_SSIZE_T_MAX, -1) : -1;
    Py_XDECREF(www);
    if (starts < 0) {
        Py_DECREF(low);
        return NULL;
    }
    if (!starts) return low;
    PyObject *res = PyUnicode_Substring(low, 4, PyUnicode_GET_LENGTH(low));
    Py_DECREF(low);
    return res;
}

/* ------------------------------------------------------------------ metadata._clean_title
   A title without the site's name: the parts (split_title's, blank ones left out; two at
   least) that are not the site's name (site: its words, norm_text) or its domain (dom: the
   domain's words, their spaces taken out) kept as they stand in the title. ASCII text is
   compared in byte buffers; other text through str's own functions. */

static int ct_contains(const char *hay, Py_ssize_t hn, const char *needle, Py_ssize_t nn) {
    if (nn == 0) return 1;
    for (Py_ssize_t i = 0; i + nn <= hn; i++)
        if (hay[i] == needle[0] && memcmp(hay + i, needle, (size_t)nn) == 0) return 1;
    return 0;
}

/* _is_site_part of an ASCII part, site and domain words (buf, sq: len(part) + 1 bytes each) */
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
        if (k && k <= q && memcmp(sq, PyUnicode_1BYTE_DATA(d), (size_t)k) == 0) return 1;
    }
    return 0;
}

/* whether site and the domain words are all ASCII str (the domain words: str, else TypeError) */
static int all_ascii(PyObject *site, PyObject *dom) {
    int ascii = PyUnicode_IS_ASCII(site);
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(dom); i++) {
        PyObject *d = PyTuple_GET_ITEM(dom, i);
        if (!PyUnicode_Check(d)) {
            PyErr_SetString(PyExc_TypeError, "dom: a tuple of str");
            return -1;
        }
        ascii = ascii && PyUnicode_IS_ASCII(d);
    }
    return ascii;
}

/* _is_site_part (1, 0; -1 with an exception): ascii says whether site and dom are */
static int is_site_part(PyObject *part, PyObject *site, PyObject *dom, int ascii) {
    if (!PyUnicode_Check(part)) {
        PyErr_SetString(PyExc_TypeError, "parts: str");
        return -1;
    }
    Py_ssize_t pn = PyUnicode_GET_LENGTH(part);
    if (ascii && PyUnicode_IS_ASCII(part)) {
        char small[512], *buf = 2 * pn + 2 <= (Py_ssize_t)sizeof small ? small : PyMem_Malloc((size_t)(2 * pn + 2));
        if (!buf) {
            PyErr_NoMemory();
            return -1;
        }
        int r = ct_site_part(part, (const char *)PyUnicode_1BYTE_DATA(site), PyUnicode_GET_LENGTH(site), dom,
                             buf, buf + pn + 1);
        if (buf != small) PyMem_Free(buf);
        return r;
    }
    PyObject *n = norm(part);
    if (!n) return -1;
    Py_ssize_t nl = PyUnicode_GET_LENGTH(n), sl = PyUnicode_GET_LENGTH(site);
    int r = nl == 0;
    if (!r && sl) {
        r = PyUnicode_Compare(n, site) == 0;
        if (!r && PyErr_Occurred()) r = -1;
        if (!r) r = PyUnicode_Contains(site, n);
        if (!r && nl <= sl + 12) r = PyUnicode_Contains(n, site);
    }
    if (!r) {
        PyObject *sp = PyUnicode_FromString(" "), *none = PyUnicode_New(0, 0);
        PyObject *sq = sp && none ? PyUnicode_Replace(n, sp, none, -1) : NULL;
        Py_XDECREF(sp);
        Py_XDECREF(none);
        if (!sq) r = -1;
        for (Py_ssize_t i = 0; !r && i < PyTuple_GET_SIZE(dom); i++) {
            PyObject *d = PyTuple_GET_ITEM(dom, i);
            if (PyUnicode_GET_LENGTH(d)) r = (int)PyUnicode_Tailmatch(sq, d, 0, PY_SSIZE_T_MAX, -1);
        }
        Py_XDECREF(sq);
    }
    Py_DECREF(n);
    return r;
}

/* site_part(part, site, dom) -> metadata._is_site_part: whether a title's part is the site's
 * name or its domain */
static PyObject *site_part(PyObject *self, PyObject *args) {
    PyObject *part, *site, *dom;
    if (!PyArg_ParseTuple(args, "UUO!", &part, &site, &PyTuple_Type, &dom)) return NULL;
    int ascii = all_ascii(site, dom);
    int r = ascii < 0 ? -1 : is_site_part(part, site, dom, ascii);
    return r < 0 ? NULL : PyBool_FromLong(r);
}

/* whether c is one of the characters a title is cut back over before the site's name */
static inline int title_sep(Py_UCS4 c) {
    return c == ' ' || c == '|' || c == '-' || c == 0x2013 || c == 0x2014 || c == 0xB7 || c == 0x2022
           || c == 0xBB || c == ':' || c == '~' || c == '/';
}

/* clean_title(title, parts, site, dom) -> metadata._clean_title's choice of the title's parts
 * (parts: two at least) */
static PyObject *clean_title(PyObject *self, PyObject *args) {
    PyObject *title, *parts, *site, *dom;
    if (!PyArg_ParseTuple(args, "UO!UO!", &title, &PyTuple_Type, &parts, &site, &PyTuple_Type, &dom)) return NULL;
    Py_ssize_t np = PyTuple_GET_SIZE(parts);
    if (np < 2) {
        PyErr_SetString(PyExc_ValueError, "parts: two at least");
        return NULL;
    }
    int ascii = all_ascii(site, dom);
    if (ascii < 0) return NULL;
    Py_ssize_t first = -1, lastk = -1, kept = 0;
    for (Py_ssize_t i = 0; i < np; i++) {
        int r = is_site_part(PyTuple_GET_ITEM(parts, i), site, dom, ascii);
        if (r < 0) return NULL;
        if (!r) {
            if (first < 0) first = i;
            lastk = i;
            kept++;
        }
    }
    Py_ssize_t tn = PyUnicode_GET_LENGTH(title);
    int kind = PyUnicode_KIND(title);
    const void *t = PyUnicode_DATA(title);
    if (kept == 0) return Py_NewRef(title);
    if (kept == np) {
        /* nothing looks like the site: only a short last part (four words at most, shorter
           than the rest) is dropped */
        PyObject *last = PyTuple_GET_ITEM(parts, np - 1);
        int lk = PyUnicode_KIND(last);
        const void *l = PyUnicode_DATA(last);
        Py_ssize_t ln = PyUnicode_GET_LENGTH(last), words = 0, rest = np - 2;
        for (Py_ssize_t i = 0; i < ln; i++)
            if (!Py_UNICODE_ISSPACE(PyUnicode_READ(lk, l, i))
                && (i == 0 || Py_UNICODE_ISSPACE(PyUnicode_READ(lk, l, i - 1))))
                words++;
        for (Py_ssize_t i = 0; i < np - 1; i++) rest += PyUnicode_GET_LENGTH(PyTuple_GET_ITEM(parts, i));
        if (words <= 4 && ln < rest) {
            Py_ssize_t at = PyUnicode_Find(title, last, 0, tn, -1);
            if (at == -2) return NULL;
            if (at < 0) at = tn > 0 ? tn - 1 : 0;  /* (title[:-1], as the slice of rfind's -1) */
            while (at > 0 && title_sep(PyUnicode_READ(kind, t, at - 1))) at--;
            return PyUnicode_Substring(title, 0, at);
        }
        return Py_NewRef(title);
    }
    /* the kept parts as they stand in the title (the slice of find's and rfind's places) */
    PyObject *a = PyTuple_GET_ITEM(parts, first), *b = PyTuple_GET_ITEM(parts, lastk);
    Py_ssize_t start = PyUnicode_Find(title, a, 0, tn, 1), end = PyUnicode_Find(title, b, 0, tn, -1);
    if (start == -2 || end == -2) return NULL;
    end += PyUnicode_GET_LENGTH(b);
    if (start < 0) start = start + tn < 0 ? 0 : start + tn;
    if (end < 0) end = end + tn < 0 ? 0 : end + tn;
    if (end > tn) end = tn;
    if (end < start) end = start;
    while (start < end && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, t, start))) start++;
    while (end > start && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, t, end - 1))) end--;
    return PyUnicode_Substring(title, start, end);
}

static PyMethodDef methods[] = {
    {"head", head, METH_VARARGS, "metadata.page_head's fields and each <meta> key's first value"},
    {"first_meta", first_meta, METH_VARARGS, "the first of some keys' value, whitespace collapsed"},
    {"terms", terms, METH_VARARGS, "tags or categories from a str or a list of str"},
    {"configure", configure, METH_VARARGS, "the date labels marks() finds"},
    {"marks", marks, METH_VARARGS, "where the date labels stand in a text"},
    {"starting", starting, METH_VARARGS, "the texts that start with one of the words, case-blind"},
    {"with_year", with_year, METH_VARARGS, "the texts shorter than a length that hold a year (19xx, 20xx)"},
    {"split_title", split_title, METH_VARARGS, "a title's parts between its separators"},
    {"norm_text", norm_text, METH_VARARGS, "a text's words (NFKC, case-folded), one space apart"},
    {"normalise_date", normalise_date, METH_VARARGS, "dates.normalise_date: a date as YYYY-MM-DD, or ''"},
    {"cut_at", cut_at, METH_VARARGS, "where a byline's name ends (-1: nowhere)"},
    {"date_values", date_values, METH_VARARGS, "the values of the <meta>s whose key dates the page"},
    {"hostname", hostname, METH_VARARGS, "address.hostname: a URL's host, lower case, without www. and port"},
    {"clean_title", clean_title, METH_VARARGS, "a title without the site's name"},
    {"site_part", site_part, METH_VARARGS, "whether a title's part is the site's name or domain"},
    {"positions", positions, METH_VARARGS, "the indices of an int64 column's items equal to a value"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_metadata", NULL, -1, methods};

PyMODINIT_FUNC PyInit__metadata(void) { return PyModule_Create(&module); }
