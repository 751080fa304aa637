/* The site memory in C: the block hashes (hashes), the page's block fingerprints from its texts
 * (block_fingerprints: the case folding, Unicode spaces and UTF-8 done here too) and the site
 * stage (stage: its columns, weights and sigmoid; 1e-12 of site.stage's numpy reference, the
 * terms added in column order). For the hashes: sitememory.fingerprints (numpy over the page's bytes:
 * ~25 array passes) is the reference, and the values must be the same: the memory and the
 * shipped site stage were built on them. Integer arithmetic modulo 2**64 only, so one pass
 * over the bytes gives exactly what the prefix sums give.
 *
 * In: the UTF-8 of the page's block texts, case-folded, joined by NUL (sitememory does that in
 * Python). Per byte, as the reference: ASCII digits read as "0", ASCII whitespace as " "; a "0"
 * after a "0" goes, a " " after a " " or at a block's start goes (both against the byte before
 * it in the input, removed or not), then a " " at a block's end goes. Per block: the polynomial
 * hash sum((b + 1) * P**k) over its kept bytes (k from 0), xor its kept length times LEN,
 * through splitmix64's finaliser.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>

#define P 0x9E3779B97F4A7C15ULL
#define LEN 0xD6E8FEB86659FD93ULL
#define M1 0xBF58476D1CE4E5B9ULL
#define M2 0x94D049BB133111EBULL

static inline uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * M1;
    z = (z ^ (z >> 27)) * M2;
    return z ^ (z >> 31);
}

static inline uint8_t byte_class(uint8_t c) {
    if (c >= '0' && c <= '9') return '0';
    if (c >= 9 && c <= 13) return ' ';
    return c;
}

/* hashes(data, n, out, lengths): data (bytes: n blocks joined by NUL), out (n uint64: each
 * block's mixed hash), lengths (n int64: its kept bytes). A count of NULs other than n - 1 is
 * an error. */
static PyObject *hashes(PyObject *self, PyObject *args) {
    Py_buffer data, out, lens;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "y*nw*w*", &data, &n, &out, &lens)) return NULL;
    PyObject *ret = NULL;
    if (n < 1 || out.len < n * 8 || lens.len < n * 8 || out.itemsize != 8 || lens.itemsize != 8) {
        PyErr_SetString(PyExc_ValueError, "n >= 1 and out, lengths of n 8-byte items");
        goto done;
    }
    const uint8_t *s = data.buf;
    uint64_t *o = out.buf;
    int64_t *ln = lens.buf;
    Py_ssize_t seps = 0;
    for (Py_ssize_t i = 0; i < data.len; i++) seps += s[i] == 0;
    if (seps != n - 1) {
        PyErr_Format(PyExc_ValueError, "%zd separators for %zd blocks", seps, n);
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    Py_ssize_t block = 0;
    uint64_t h = 0, pw = 1;
    int64_t len = 0;
    int pending = 0; /* a kept space not yet hashed: it goes if the block ends next */
    uint8_t prev = 0;
    for (Py_ssize_t i = 0; i <= data.len; i++) {
        uint8_t c = i < data.len ? byte_class(s[i]) : 0;
        if (c == 0) { /* a block's end: a pending space goes */
            o[block] = mix(h ^ ((uint64_t)len * LEN));
            ln[block] = len;
            block++;
            h = 0, pw = 1, len = 0, pending = 0;
        } else if (!((c == '0' && prev == '0') || (c == ' ' && (prev == ' ' || prev == 0)))) {
            if (pending) {
                h += ((uint64_t)' ' + 1) * pw, pw *= P, len++;
                pending = 0;
            }
            if (c == ' ') pending = 1;
            else h += ((uint64_t)c + 1) * pw, pw *= P, len++;
        }
        prev = c;
    }
    Py_END_ALLOW_THREADS
    ret = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&data);
    PyBuffer_Release(&out);
    PyBuffer_Release(&lens);
    return ret;
}

/* ------------------------------------------------------------------ from the texts */

/* CPython's case-folding table is in its C API up to 3.12 (internal from 3.13: there the
 * module has no block_fingerprints and sitememory does the folding in Python) */
#if PY_VERSION_HEX < 0x030D0000
#define HAVE_FOLD 1

#define MAX_CHARS 4096 /* sitememory.MAX_CHARS */
#define MIN_BYTES 3    /* sitememory.MIN_BYTES */
#define LINK_BITS 0x9E3779B97F4A7C15ULL /* sitememory.LINK_BITS */

/* the hash's state over one block's bytes (hashes' loop, one byte at a time) */
typedef struct { uint64_t h, pw; int64_t len; int pending; uint8_t prev; } hstate_t;

static inline void feed(hstate_t *st, uint8_t raw) {
    uint8_t c = byte_class(raw), prev = st->prev;
    if (!((c == '0' && prev == '0') || (c == ' ' && (prev == ' ' || prev == 0)))) {
        if (st->pending) {
            st->h += ((uint64_t)' ' + 1) * st->pw, st->pw *= P, st->len++;
            st->pending = 0;
        }
        if (c == ' ') st->pending = 1;
        else st->h += ((uint64_t)c + 1) * st->pw, st->pw *= P, st->len++;
    }
    st->prev = c;
}

/* a code point's UTF-8 bytes (surrogates as three bytes, as "surrogatepass") into the hash */
static inline void feed_utf8(hstate_t *st, Py_UCS4 c) {
    if (c < 0x80) feed(st, (uint8_t)c);
    else if (c < 0x800) { feed(st, 0xC0 | (c >> 6)); feed(st, 0x80 | (c & 0x3F)); }
    else if (c < 0x10000) {
        feed(st, 0xE0 | (c >> 12)); feed(st, 0x80 | ((c >> 6) & 0x3F)); feed(st, 0x80 | (c & 0x3F));
    } else {
        feed(st, 0xF0 | (c >> 18)); feed(st, 0x80 | ((c >> 12) & 0x3F));
        feed(st, 0x80 | ((c >> 6) & 0x3F)); feed(st, 0x80 | (c & 0x3F));
    }
}

static inline int is_uspace(Py_UCS4 c) { /* sitememory._USPACES */
    return c == 0xA0 || c == 0x3000 || c == 0x2002 || c == 0x2003 || c == 0x2009 || c == 0x202F
           || c == 0x205F || c == 0x1680;
}

/* block_fingerprints(texts, anchor_texts, out): sitememory.block_fingerprints of a page's
 * blocks into out (n uint64), from the texts themselves: each block's first MAX_CHARS
 * characters (a NUL read as a space) case-folded as str.casefold (CPython's own table), the
 * Unicode spaces of _USPACES as " ", as UTF-8 through the hash of ``hashes``; a cut block's
 * whole length mixed in, a fingerprint of 0 made 1, one of fewer than MIN_BYTES kept bytes
 * 0, and a link block's (anchor text at least half of the text) bits flipped by LINK_BITS. */
static PyObject *block_fingerprints(PyObject *self, PyObject *args) {
    PyObject *texts, *anchors;
    Py_buffer out;
    if (!PyArg_ParseTuple(args, "O!O!w*", &PyList_Type, &texts, &PyList_Type, &anchors, &out))
        return NULL;
    PyObject *ret = NULL;
    Py_ssize_t n = PyList_GET_SIZE(texts);
    if (PyList_GET_SIZE(anchors) != n || out.itemsize != 8 || out.len < n * 8) {
        PyErr_SetString(PyExc_ValueError, "texts and anchor texts of n blocks, out of n uint64");
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (!PyUnicode_Check(PyList_GET_ITEM(texts, i)) || !PyUnicode_Check(PyList_GET_ITEM(anchors, i))) {
            PyErr_SetString(PyExc_TypeError, "texts must be str");
            goto done;
        }
    uint64_t *o = out.buf;
    /* the str objects are held by the lists the caller holds, and str is immutable */
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = PyList_GET_ITEM(texts, i);
        int kind = PyUnicode_KIND(t);
        const void *d = PyUnicode_DATA(t);
        Py_ssize_t len = PyUnicode_GET_LENGTH(t), cut = len < MAX_CHARS ? len : MAX_CHARS;
        hstate_t st = {0, 1, 0, 0, 0};
        for (Py_ssize_t k = 0; k < cut; k++) {
            Py_UCS4 c = PyUnicode_READ(kind, d, k);
            if (c < 0x80) {
                if (c == 0) c = ' ';
                else if (c >= 'A' && c <= 'Z') c += 32;
                feed(&st, (uint8_t)c);
                continue;
            }
            Py_UCS4 f[3];
            int m = _PyUnicode_ToFoldedFull(c, f);
            for (int j = 0; j < m; j++) feed_utf8(&st, is_uspace(f[j]) ? ' ' : (f[j] ? f[j] : ' '));
        }
        uint64_t v = mix(st.h ^ ((uint64_t)st.len * LEN));
        if (len > MAX_CHARS) v = mix(v ^ ((uint64_t)len * M1));
        if (v == 0) v = 1;
        if (st.len < MIN_BYTES) v = 0;
        Py_ssize_t link = PyUnicode_GET_LENGTH(PyList_GET_ITEM(anchors, i));
        if (v != 0 && link > 0 && 2 * link >= len) {
            v ^= LINK_BITS;
            if (v == 0) v = 1;
        }
        o[i] = v;
    }
    Py_END_ALLOW_THREADS
    ret = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&out);
    return ret;
}
#endif

/* ------------------------------------------------------------------ the site stage */

/* stage(scores, fps, k, n, coef, intercept, out): SiteStage.apply of a page with n > 0 other
 * pages into out: the stage's columns (site.stage.site_columns: the model's log-odds, the
 * share of the host's other pages holding the block, its neighbours' mean share, unique,
 * short, share x log-odds) through its weights coef (6) and intercept, then the sigmoid.
 * scores, k: n_blocks float64; fps: n_blocks uint64. Terms added in column order (numpy's
 * matrix product may add them in another: equal to ~1e-15). */
static PyObject *stage(PyObject *self, PyObject *args) {
    Py_buffer sc, fp, kk, cf, out;
    Py_ssize_t n_pages;
    double b;
    if (!PyArg_ParseTuple(args, "y*y*y*ny*dw*", &sc, &fp, &kk, &n_pages, &cf, &b, &out)) return NULL;
    PyObject *ret = NULL;
    Py_ssize_t n = sc.len / 8;
    if (sc.itemsize != 8 || fp.len != n * 8 || kk.len != n * 8 || cf.len != 6 * 8 || out.len != n * 8
            || n_pages < 1) {
        PyErr_SetString(PyExc_ValueError, "scores, fps, k, out of n 8-byte items; 6 weights; n > 0");
        goto done;
    }
    const double *s = sc.buf, *k = kk.buf, *w = cf.buf;
    const uint64_t *f = fp.buf;
    double *o = out.buf, np_ = (double)n_pages;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        double p = s[i] < 1e-12 ? 1e-12 : (s[i] > 1 - 1e-12 ? 1 - 1e-12 : s[i]);
        double z = log(p / (1 - p));
        int has = f[i] != 0;
        double share = has ? k[i] / np_ : 0.0;
        double a = 0.0, c = 0.0;
        if (i > 0 && f[i - 1] != 0) a += k[i - 1] / np_, c += 1.0;
        if (i + 1 < n && f[i + 1] != 0) a += k[i + 1] / np_, c += 1.0;
        double nb = a / (c > 1.0 ? c : 1.0);
        double d = z * w[0] + share * w[1] + nb * w[2] + (has && k[i] == 0) * w[3] + (!has) * w[4]
                   + share * z * w[5] + b;
        d = d > 40.0 ? 40.0 : (d < -40.0 ? -40.0 : d);
        o[i] = 1.0 / (1.0 + exp(-d));
    }
    Py_END_ALLOW_THREADS
    ret = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&sc);
    PyBuffer_Release(&fp);
    PyBuffer_Release(&kk);
    PyBuffer_Release(&cf);
    PyBuffer_Release(&out);
    return ret;
}

static PyMethodDef methods[] = {
    {"hashes", hashes, METH_VARARGS, "each block's mixed hash and kept length (sitememory.fingerprints)"},
    {"stage", stage, METH_VARARGS, "the site stage's probabilities (site.stage.SiteStage.apply)"},
#ifdef HAVE_FOLD
    {"block_fingerprints", block_fingerprints, METH_VARARGS, "sitememory.block_fingerprints from the texts"},
#endif
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_hash", NULL, -1, methods};

PyMODINIT_FUNC PyInit__hash(void) { return PyModule_Create(&module); }
