/* The arithmetic of the rules after the cut in C (tidy_plan, tidy_tail, tidy_author, tidy_finish:
 * articles.py's tidy; tidy_reference is the reference, which articles.py probes at import): the
 * blocks the label and byline rules are to read, the tail rule (its words matched here), the
 * author-box rule (its class/id tokens matched by the walk's flag_columns), then the tables and
 * lists as units and the repeats rule. The regular expressions stay in articles.py. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_common.h"

/* Whether str t (of the ASCII letters' case) holds needle (lower-case ASCII letters other than
 * i and k: the only letters that a non-ASCII character lower-cases into, U+0130 and U+212A, so
 * that this is ``needle in t.lower()``) */
static int has_ascii(PyObject *t, const char *needle) {
    int kind = PyUnicode_KIND(t);
    const void *d = PyUnicode_DATA(t);
    Py_ssize_t n = PyUnicode_GET_LENGTH(t), m = (Py_ssize_t)strlen(needle);
    for (Py_ssize_t i = 0; i + m <= n; i++) {
        Py_ssize_t j = 0;
        for (; j < m; j++) {
            Py_UCS4 c = PyUnicode_READ(kind, d, i + j);
            if ((c >= 'A' && c <= 'Z' ? c + 32 : c) != (Py_UCS4)needle[j]) break;
        }
        if (j == m) return 1;
    }
    return 0;
}

/* Whether articles.is_label may hold for a block of text t (False only where it cannot: a
 * superset, the caller decides). lead: the characters stripped before a label's first three
 * (articles._LEAD); heads: the labels' first three characters (a set of str); markers: the
 * newsletter line's other markers (str, tested with ``in``). The first three characters after
 * the lead, where all are ASCII, must be a head; with a non-ASCII one among them, maybe. */
static int maybe_label(PyObject *t, double words, double short_words, Py_ssize_t short_chars,
                       PyObject *lead, PyObject *heads, PyObject *markers) {
    int kind = PyUnicode_KIND(t);
    const void *d = PyUnicode_DATA(t);
    Py_ssize_t n = PyUnicode_GET_LENGTH(t);
    if (words <= short_words && n < short_chars) {
        Py_ssize_t k = 0;
        while (k < n && PyUnicode_FindChar(lead, PyUnicode_READ(kind, d, k), 0,
                                           PyUnicode_GET_LENGTH(lead), 1) >= 0)
            k++;
        char head[4];
        int m = 0, ascii = 1;
        for (; m < 3 && k + m < n; m++) {
            Py_UCS4 c = PyUnicode_READ(kind, d, k + m);
            if (c > 127) { ascii = 0; break; }
            head[m] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
        }
        if (!ascii) return 1;
        PyObject *h = PyUnicode_FromStringAndSize(head, m);
        if (!h) return -1;
        int in = PySet_Contains(heads, h);
        Py_DECREF(h);
        if (in) return in;
    }
    if (has_ascii(t, "newsletter") || has_ascii(t, "suscr")) return 1;
    Py_ssize_t nm = PyList_GET_SIZE(markers);
    for (Py_ssize_t j = 0; j < nm; j++) {
        Py_ssize_t at = PyUnicode_Find(t, PyList_GET_ITEM(markers, j), 0, n, 1);
        if (at != -1) return at == -2 ? -1 : 1;
    }
    return 0;
}

/* tidy_plan(keep, counts, flags, texts, bylines, story_words, max_byline, max_label, figure_bit,
 * short_words, short_chars, lead, heads, markers): the kept blocks that articles.tidy's label
 * and byline rules are to read, in block order, each as 2 * index + edge (edge: a byline
 * candidate: before or after the story's paragraphs, or in a figure, and short enough; the
 * others of at most max_label words that may be labels: maybe_label). keep: n bytes (0/1);
 * counts: n x 3 float64 (characters, words, words in links: segment.Blocks.counts); flags: n
 * int64; texts: the blocks' texts (two arguments: texts.TextColumn.c_args); bylines: whether
 * the byline rule runs (else no block is an edge). */
static PyObject *tidy_plan(PyObject *self, PyObject *args) {
    PyObject *ok, *oc, *of, *ou, *oat, *lead, *heads, *markers;
    int by;
    double story, max_by, max_label, short_words;
    long long fig;
    Py_ssize_t short_chars;
    if (!PyArg_ParseTuple(args, "OOOOOpdddLdnUO!O!", &ok, &oc, &of, &ou, &oat, &by,
                          &story, &max_by, &max_label, &fig, &short_words, &short_chars, &lead,
                          &PyFrozenSet_Type, &heads, &PyList_Type, &markers))
        return NULL;
    bufs_t b = {.n = 0};
    PyObject *ret = NULL;
    Py_ssize_t n;
    const uint8_t *keep = mask(&b, ok, &n);
    if (!keep) return NULL;
    const double *cnt = get(&b, oc, 8, 3 * n, 0, "counts");
    const int64_t *fl = cnt ? get(&b, of, 8, n, 0, "flags") : NULL;
    texts_t T;
    if (!fl || texts_get(&b, ou, oat, n, &T) < 0) goto done;
#define W(i) cnt[3 * (i) + 1]
    /* the story's span: from the first kept block of story_words words or more to the last
     * (the last itself stays an edge, as the reference's slice leaves it) */
    Py_ssize_t first = -1, last = -1;
    if (by)
        for (Py_ssize_t i = 0; i < n; i++)
            if (keep[i] && W(i) >= story) { if (first < 0) first = i; last = i; }
    if (!(ret = PyList_New(0))) goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!keep[i]) continue;
        int edge = by && (first < 0 || i < first || i >= last || (fl[i] & fig)) && W(i) <= max_by;
        if (!edge) {
            if (!(W(i) <= max_label)) continue;
            PyObject *t = text_str(&T, i);
            int maybe = t ? maybe_label(t, W(i), short_words, short_chars, lead, heads, markers) : -1;
            Py_XDECREF(t);
            if (maybe < 0) { Py_CLEAR(ret); goto done; }
            if (!maybe) continue;
        }
        PyObject *v = PyLong_FromSsize_t(2 * i + edge);
        if (!v || PyList_Append(ret, v) < 0) { Py_XDECREF(v); Py_CLEAR(ret); goto done; }
        Py_DECREF(v);
    }
#undef W
done:
    release(&b);
    return ret;
}

/* articles._norm(t.lower()) where it is at most max_chars long: lower-cased (str.lower), each
 * character of punct and each run of white space (str.split's) one space, none at either end.
 * Returns a new str, Py_None (longer than max_chars; a new reference) or NULL (an error). */
static PyObject *norm_lower(PyObject *t, PyObject *punct, Py_ssize_t max_chars) {
    PyObject *low = PyObject_CallMethod(t, "lower", NULL);
    if (!low) return NULL;
    int kind = PyUnicode_KIND(low);
    const void *d = PyUnicode_DATA(low);
    Py_ssize_t n = PyUnicode_GET_LENGTH(low), np = PyUnicode_GET_LENGTH(punct), m = 0;
    Py_UCS4 *buf = PyMem_Malloc((size_t)(n + 1) * sizeof(Py_UCS4));
    if (!buf) { Py_DECREF(low); return PyErr_NoMemory(); }
    int space = 1; /* (no space at the start) */
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, d, i);
        if (Py_UNICODE_ISSPACE(c) || PyUnicode_FindChar(punct, c, 0, np, 1) >= 0) {
            if (!space) buf[m++] = ' ';
            space = 1;
        } else {
            buf[m++] = c;
            space = 0;
        }
    }
    if (m && buf[m - 1] == ' ') m--;
    Py_DECREF(low);
    PyObject *r = m > max_chars ? Py_NewRef(Py_None)
                                : PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf, m);
    PyMem_Free(buf);
    return r;
}

/* articles.tail_match(t): 0, 1 (starts with a phrase of spaced, at a word's end) or 2 (is one;
 * or holds one of unspaced with at most slack characters more); -1 on an error */
static int tail_match(PyObject *t, PyObject *spaced, PyObject *unspaced, Py_ssize_t slack,
                      Py_ssize_t max_chars, PyObject *punct) {
    if (PyUnicode_GET_LENGTH(t) > 4 * max_chars) return 0;
    PyObject *norm = norm_lower(t, punct, max_chars);
    if (!norm) return -1;
    int r = 0;
    Py_ssize_t n = norm == Py_None ? 0 : PyUnicode_GET_LENGTH(norm);
    if (n == 0) goto done;
    if ((r = PySet_Contains(spaced, norm)) != 0) { r = r < 0 ? -1 : 2; goto done; }
    int kind = PyUnicode_KIND(norm);
    const void *d = PyUnicode_DATA(norm);
    for (Py_ssize_t k = 0; k < n && !r; k++) {
        if (PyUnicode_READ(kind, d, k) != ' ') continue;
        PyObject *head = PyUnicode_Substring(norm, 0, k);
        if (!head) { r = -1; goto done; }
        r = PySet_Contains(spaced, head);
        Py_DECREF(head);
    }
    if (r) { r = r < 0 ? -1 : 1; goto done; }
    Py_ssize_t nu = PyTuple_GET_SIZE(unspaced);
    for (Py_ssize_t j = 0; j < nu && !r; j++) {
        PyObject *p = PyTuple_GET_ITEM(unspaced, j);
        if (n > PyUnicode_GET_LENGTH(p) + slack) continue;
        Py_ssize_t at = PyUnicode_Find(norm, p, 0, n, 1);
        r = at == -2 ? -1 : (at >= 0 ? 2 : 0);
    }
done:
    Py_DECREF(norm);
    return r;
}

/* tail_match of text i */
static int tail_text(const texts_t *T, Py_ssize_t i, PyObject *spaced, PyObject *unspaced,
                     Py_ssize_t slack, Py_ssize_t max_chars, PyObject *punct) {
    Py_ssize_t len;
    text_at(T, i, &len);
    if (len > 16 * max_chars) return 0;  /* over 4 * max_chars characters (4 bytes at most each) */
    PyObject *t = text_str(T, i);
    int m = t ? tail_match(t, spaced, unspaced, slack, max_chars, punct) : -1;
    Py_XDECREF(t);
    return m;
}

/* tidy_tail(keep, out, counts, tag, texts (two arguments), story_words, max_label, levels, spaced, unspaced,
 * slack, max_chars, punct): articles._tail on out. After the last block of keep of story_words
 * words or more: a heading (levels[tag]: 1-6) whose text tail_match-es drops the blocks up to the
 * next heading of its level or above, itself among them; another kept block of at most max_label
 * words that is a title or prompt (tail_match 2) is dropped. keep/out: n bytes; counts: n x 3
 * float64; tag: n int64; levels: bytes by tag id. */
static PyObject *tidy_tail(PyObject *self, PyObject *args) {
    PyObject *ok, *oo, *ocnt, *ot, *ou, *oat, *levels, *spaced, *unspaced, *punct;
    double story, max_label;
    Py_ssize_t slack, max_chars;
    if (!PyArg_ParseTuple(args, "OOOOOOddSO!O!nnU", &ok, &oo, &ocnt, &ot, &ou, &oat,
                          &story, &max_label, &levels, &PyFrozenSet_Type, &spaced,
                          &PyTuple_Type, &unspaced, &slack, &max_chars, &punct))
        return NULL;
    bufs_t b = {.n = 0};
    PyObject *ret = NULL;
    Py_ssize_t n;
    const uint8_t *keep = mask(&b, ok, &n);
    if (!keep) return NULL;
    uint8_t *out = get(&b, oo, 1, n, 1, "out");
    const double *cnt = out ? get(&b, ocnt, 8, 3 * n, 0, "counts") : NULL;
    const int64_t *tag = cnt ? get(&b, ot, 8, n, 0, "tag") : NULL;
    texts_t T;
    if (!tag || texts_get(&b, ou, oat, n, &T) < 0) goto done;
    const unsigned char *lv = (const unsigned char *)PyBytes_AS_STRING(levels);
    Py_ssize_t nlv = PyBytes_GET_SIZE(levels);
#define LEVEL(i) (tag[i] >= 0 && tag[i] < nlv ? lv[tag[i]] : 0)
    Py_ssize_t last = -1;
    for (Py_ssize_t i = 0; i < n; i++)
        if (keep[i] && cnt[3 * i + 1] >= story) last = i;
    if (last >= 0) {
        for (Py_ssize_t i = last + 1; i < n;) {
            int level = LEVEL(i);
            if (level) {
                int m = tail_text(&T, i, spaced, unspaced, slack, max_chars, punct);
                if (m < 0) goto done;
                if (m) {
                    Py_ssize_t j = i + 1;
                    while (j < n && !(LEVEL(j) > 0 && LEVEL(j) <= level)) j++;
                    memset(out + i, 0, (size_t)(j - i));
                    i = j;
                    continue;
                }
            } else if (out[i] && cnt[3 * i + 1] <= max_label) {
                int m = tail_text(&T, i, spaced, unspaced, slack, max_chars, punct);
                if (m < 0) goto done;
                if (m == 2) out[i] = 0;
            }
            i++;
        }
    }
#undef LEVEL
    ret = Py_NewRef(Py_None);
done:
    release(&b);
    return ret;
}

/* tidy_author(keep, out, counts, inside, story_words, min_story, max_box): articles'
 * _drop_author_box on out. After the last block of keep of story_words words or more that is
 * not inside an author box (inside: n bytes, articles.author_box), where the kept words outside
 * boxes up to it are min_story or more, the blocks of out inside a box of at most max_box words
 * are dropped. keep/out: n bytes; counts: n x 3 float64. */
static PyObject *tidy_author(PyObject *self, PyObject *args) {
    PyObject *ok, *oo, *ocnt, *oi;
    double story, min_story, max_box;
    if (!PyArg_ParseTuple(args, "OOOOddd", &ok, &oo, &ocnt, &oi, &story, &min_story, &max_box))
        return NULL;
    bufs_t b = {.n = 0};
    PyObject *ret = NULL;
    Py_ssize_t n;
    const uint8_t *keep = mask(&b, ok, &n);
    if (!keep) return NULL;
    uint8_t *out = get(&b, oo, 1, n, 1, "out");
    const double *cnt = out ? get(&b, ocnt, 8, 3 * n, 0, "counts") : NULL;
    const uint8_t *in = cnt ? get(&b, oi, 1, n, 0, "inside") : NULL;
    if (!in) goto done;
    Py_ssize_t end = -1;
    for (Py_ssize_t i = 0; i < n; i++)
        if (keep[i] && !in[i] && cnt[3 * i + 1] >= story) end = i;
    if (end >= 0) {
        double words = 0; /* (whole numbers: any order of the sum is exact) */
        for (Py_ssize_t i = 0; i <= end; i++)
            if (keep[i] && !in[i]) words += cnt[3 * i + 1];
        if (words >= min_story)
            for (Py_ssize_t i = end + 1; i < n; i++)
                if (out[i] && in[i] && cnt[3 * i + 1] <= max_box) out[i] = 0;
    }
    ret = Py_NewRef(Py_None);
done:
    release(&b);
    return ret;
}

typedef struct { int64_t key; Py_ssize_t at; } keyed_t;

static int by_key(const void *a, const void *b) {
    const keyed_t *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->at < y->at ? -1 : (x->at > y->at);
}

/* articles._units on out (n bytes): a table's cells (tag cell_a or cell_b, grouped by their
 * container at level 3) or a list's items (tag item, level 1) inside the kept span with mixed
 * decisions are kept whole where their mean score is at least cut, else dropped whole. The mean
 * as numpy's (pairwise sum / count). Returns OK or E_MEM. */
static int units(uint8_t *out, const double *s, const int64_t *tag, const int64_t *cont,
                 Py_ssize_t path, Py_ssize_t n, int64_t cell_a, int64_t cell_b, int64_t item,
                 double cut) {
    Py_ssize_t lo = -1, hi = -1, k = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        if (out[i]) { if (lo < 0) lo = i; hi = i; k++; }
    if (k < 3) return OK;
    int mixed = 0;
    for (Py_ssize_t i = lo; i <= hi && !mixed; i++)
        mixed = !out[i] && (tag[i] == cell_a || tag[i] == cell_b || tag[i] == item);
    if (!mixed) return OK;
    keyed_t *g = PyMem_RawMalloc((size_t)(hi - lo + 1) * sizeof(keyed_t));
    double *tmp = PyMem_RawMalloc((size_t)(hi - lo + 1) * sizeof(double));
    if (!g || !tmp) { PyMem_RawFree(g); PyMem_RawFree(tmp); return E_MEM; }
    for (int pass = 0; pass < 2; pass++) {
        Py_ssize_t m = 0, on = 0, level = pass == 0 ? 3 : 1;
        for (Py_ssize_t i = lo; i <= hi; i++) {
            int is = pass == 0 ? (tag[i] == cell_a || tag[i] == cell_b) : tag[i] == item;
            if (!is) continue;
            on += out[i];
            g[m].key = level < path ? cont[i * path + level] : 0;
            g[m++].at = i;
        }
        if (m < 2 || on == m || on == 0) continue;
        qsort(g, (size_t)m, sizeof(keyed_t), by_key);
        for (Py_ssize_t a = 0; a < m;) {
            Py_ssize_t z = a;
            while (z < m && g[z].key == g[a].key) z++;
            if (g[a].key != 0 && g[a].at > lo && g[z - 1].at < hi) {
                Py_ssize_t kept = 0;
                for (Py_ssize_t j = a; j < z; j++) kept += out[g[j].at];
                if (kept && kept < z - a) {
                    for (Py_ssize_t j = a; j < z; j++) tmp[j - a] = s[g[j].at];
                    uint8_t v = pairwise_sum(tmp, z - a) / (double)(z - a) >= cut;
                    for (Py_ssize_t j = a; j < z; j++) out[g[j].at] = v;
                }
            }
            a = z;
        }
    }
    PyMem_RawFree(g);
    PyMem_RawFree(tmp);
    return OK;
}

/* tidy_finish(keep, out, scores, tag, cont, path, flags, counts, texts, hidden_bit, cell_a,
 * cell_b, item, unit_cut, min_words, min_chars): articles.tidy's rules for an article after
 * the label, byline and comments rules: the tables and lists as units on out, then, where no
 * block of the cut's mask keep is hidden, the repeats rule (a kept block of min_words words or
 * min_chars characters, not a list item or table cell, whose text an earlier such block has,
 * is dropped). Returns True where some kept block is hidden: the caller then runs the repeats
 * and hidden rules itself (articles.py), else False. keep/out: n bytes; counts: n x 3 float64;
 * texts: the blocks' texts (two arguments: texts.TextColumn.c_args). */
static PyObject *tidy_finish(PyObject *self, PyObject *args) {
    PyObject *ok, *oo, *os, *ot, *oc, *of, *ocnt, *ou, *oat;
    Py_ssize_t path;
    long long hid_bit, cell_a, cell_b, item;
    double cut, min_words, min_chars;
    if (!PyArg_ParseTuple(args, "OOOOOnOOOOLLLLddd", &ok, &oo, &os, &ot, &oc, &path, &of, &ocnt,
                          &ou, &oat, &hid_bit, &cell_a, &cell_b, &item, &cut,
                          &min_words, &min_chars))
        return NULL;
    bufs_t b = {.n = 0};
    PyObject *ret = NULL;
    Py_ssize_t n;
    const uint8_t *keep = mask(&b, ok, &n);
    if (!keep) return NULL;
    uint8_t *out = get(&b, oo, 1, n, 1, "out");
    const double *s = out ? get(&b, os, 8, n, 0, "scores") : NULL;
    const int64_t *tag = s ? get(&b, ot, 8, n, 0, "tag") : NULL;
    const int64_t *cont = tag ? get(&b, oc, 8, n * path, 0, "cont") : NULL;
    const int64_t *fl = cont ? get(&b, of, 8, n, 0, "flags") : NULL;
    const double *cnt = fl ? get(&b, ocnt, 8, 3 * n, 0, "counts") : NULL;
    texts_t T;
    if (!cnt || texts_get(&b, ou, oat, n, &T) < 0) goto done;
    if (raise_err(units(out, s, tag, cont, path, n, cell_a, cell_b, item, cut))) goto done;
    for (Py_ssize_t i = 0; i < n; i++)
        if (keep[i] && (fl[i] & hid_bit)) { ret = Py_NewRef(Py_True); goto done; }
    /* the repeats: the texts met so far (their UTF-8) */
    text_set_t seen;
    if (text_set_init(&seen, n) < 0) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!keep[i] || !out[i] || tag[i] == item || tag[i] == cell_a || tag[i] == cell_b) continue;
        if (!(cnt[3 * i + 1] >= min_words || cnt[3 * i] >= min_chars)) continue;
        if (text_set_add(&seen, &T, i)) out[i] = 0;
    }
    text_set_free(&seen);
    ret = Py_NewRef(Py_False);
done:
    release(&b);
    return ret;
}

static PyMethodDef methods[] = {
    {"tidy_plan", tidy_plan, METH_VARARGS, "the blocks the label and byline rules read (articles.tidy)"},
    {"tidy_tail", tidy_tail, METH_VARARGS, "the tail rule (articles.tidy)"},
    {"tidy_author", tidy_author, METH_VARARGS, "the author-box rule (articles.tidy)"},
    {"tidy_finish", tidy_finish, METH_VARARGS, "the units and repeats rules (articles.tidy)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_articles", NULL, -1, methods};

PyMODINIT_FUNC PyInit__articles(void) { return PyModule_Create(&module); }
