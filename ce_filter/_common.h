/* What the C parts share (included by read/_segment.c, score/features/_dense.c,
 * score/_blockmodel.c, keep/_articles.c and keep/_render.c; a header, each part has its own
 * copy): the bytes they grow, the buffers they read, the block texts, the errors noted while
 * the GIL is released, numpy's max/min and its pairwise sum, and the block mask argument.
 * Include after Python.h. */
#ifndef CE_FILTER_COMMON_H
#define CE_FILTER_COMMON_H

#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------------ buffers */

typedef struct {
    Py_buffer v[12];
    int n;
} bufs_t;

static inline void release(bufs_t *b) {
    for (int i = 0; i < b->n; i++) PyBuffer_Release(&b->v[i]);
    b->n = 0;
}

/* a C-contiguous buffer of at least ``count`` items of ``size`` bytes, or NULL (error set) */
static inline void *get(bufs_t *b, PyObject *o, Py_ssize_t size, Py_ssize_t count, int writable,
                        const char *what) {
    if (b->n >= (int)(sizeof b->v / sizeof b->v[0])) { /* a caller holding more: a bug */
        PyErr_Format(PyExc_SystemError, "%s: more buffers than bufs_t holds", what);
        return NULL;
    }
    Py_buffer *v = &b->v[b->n];
    if (PyObject_GetBuffer(o, v, PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0)) < 0)
        return NULL;
    b->n++;
    if (v->itemsize != size || v->len < size * count) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd items of %zd bytes", what, count, size);
        return NULL;
    }
    return v->buf;
}

/* ------------------------------------------------------------------ the walk's C API */

/* What the walk's part (read/_segment.c) lends the other parts, as its module's C_API capsule:
 * flag_fill (Blocks.pattern_columns of a page's tokens) and ic_fill (the class/id token weights
 * of each block's opener, or of its ancestors: ic_sums), both without the GIL and -1 when out of
 * memory, and the names of the capsules they take (the page's tokens, a token matcher, a
 * vocabulary table). */
#define SEGMENT_API "ce_filter.read._segment.C_API"
typedef struct {
    int (*flag_fill)(const void *tokens, void *matcher, const int64_t *openers, size_t nb,
                     int levels, int n_bits, double *out);
    int (*ic_fill)(const void *tokens, const void *vocab, const int64_t *openers, size_t nb,
                   int ancestors, double *out);
    const char *tokens_capsule, *matcher_capsule, *vocab_capsule;
} segment_api_t;

/* ------------------------------------------------------------------ growable bytes */

/* bytes grown as they are put (PyMem_RawRealloc: usable without the GIL; the error is set only
 * where the GIL is held); free p with PyMem_RawFree */
typedef struct { char *p; size_t n, cap; } Buf;

static inline int buf_put(Buf *b, const void *s, size_t n) {
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n) cap *= 2;
        char *p = PyMem_RawRealloc(b->p, cap);
        if (!p) { if (PyGILState_Check()) PyErr_NoMemory(); return -1; }
        b->p = p; b->cap = cap;
    }
    if (n) memcpy(b->p + b->n, s, n);
    b->n += n;
    return 0;
}

/* ------------------------------------------------------------------ the block texts */

/* A page's block texts as the C parts read them (texts.TextColumn.c_args: its UTF-8 and the
 * n + 1 byte starts): text i is s[at[i] .. at[i + 1] - 1), the "\n" after it left out. */
typedef struct { const char *s; const int64_t *at; Py_ssize_t n; } texts_t;

/* texts_t of n texts from the bytes ou and the int64 starts oat (held in b); -1 (error set)
 * where they are not n texts' parts */
static inline int texts_get(bufs_t *b, PyObject *ou, PyObject *oat, Py_ssize_t n, texts_t *t) {
    if (!PyBytes_Check(ou)) { PyErr_SetString(PyExc_TypeError, "texts: UTF-8 bytes"); return -1; }
    const int64_t *at = get(b, oat, 8, n + 1, 0, "text starts");
    if (!at) return -1;
    Py_ssize_t len = PyBytes_GET_SIZE(ou);
    int bad = at[0] != (n ? 0 : 1) || at[n] != (int64_t)len + 1;
    for (Py_ssize_t i = 0; i < n && !bad; i++) bad = at[i + 1] < at[i] + 1;
    if (bad) { PyErr_SetString(PyExc_ValueError, "texts: starts of n texts"); return -1; }
    t->s = PyBytes_AS_STRING(ou);
    t->at = at;
    t->n = n;
    return 0;
}

/* text i's UTF-8 and its length in bytes */
static inline const char *text_at(const texts_t *t, Py_ssize_t i, Py_ssize_t *len) {
    *len = (Py_ssize_t)(t->at[i + 1] - t->at[i] - 1);
    return t->s + t->at[i];
}

/* text i as a new str (NULL: an error) */
static inline PyObject *text_str(const texts_t *t, Py_ssize_t i) {
    Py_ssize_t len;
    const char *p = text_at(t, i, &len);
    return PyUnicode_DecodeUTF8(p, len, "surrogatepass");
}

/* The texts met so far, for "is this text an earlier block's too": an open-addressing table of
 * block indices by a hash (FNV-1a) of their UTF-8 (equal bytes: equal str). No Python: usable
 * without the GIL. */
typedef struct { Py_ssize_t *slot; Py_ssize_t cap; } text_set_t;

/* a set for up to n texts; -1 where the memory is not there (no error set) */
static inline int text_set_init(text_set_t *s, Py_ssize_t n) {
    s->cap = 16;
    while (s->cap < 2 * n) s->cap *= 2;
    s->slot = PyMem_RawMalloc((size_t)s->cap * sizeof(Py_ssize_t));
    if (!s->slot) return -1;
    for (Py_ssize_t j = 0; j < s->cap; j++) s->slot[j] = -1;
    return 0;
}

/* 1 where an earlier text of the set is text i's (i is not added), else 0 (i added) */
static inline int text_set_add(text_set_t *s, const texts_t *T, Py_ssize_t i) {
    Py_ssize_t len, len2;
    const char *t = text_at(T, i, &len);
    uint64_t h = 1469598103934665603ull;
    for (Py_ssize_t k = 0; k < len; k++) h = (h ^ (unsigned char)t[k]) * 1099511628211ull;
    for (Py_ssize_t j = (Py_ssize_t)(h & (uint64_t)(s->cap - 1));; j = (j + 1) & (s->cap - 1)) {
        if (s->slot[j] < 0) { s->slot[j] = i; return 0; }
        const char *u = text_at(T, s->slot[j], &len2);
        if (len2 == len && memcmp(u, t, (size_t)len) == 0) return 1;
    }
}

static inline void text_set_free(text_set_t *s) { PyMem_RawFree(s->slot); }

/* errors noted where the GIL is released (err), raised once it is held again */
enum { OK = 0, E_NEG = 1, E_MEM = 2 };
static inline int raise_err(int err) {
    if (err == E_NEG) PyErr_SetString(PyExc_ValueError, "negative container ids");
    else if (err == E_MEM) PyErr_NoMemory();
    return err;
}

static inline double dmax(double a, double b) { return a >= b ? a : b; } /* max(a, b), a kept on ties */

/* np.maximum / np.minimum of non-NaN values (the inputs here are counts, never NaN) */
#define NP_MAX(a, b) ((a) >= (b) ? (a) : (b))
#define NP_MIN(a, b) ((a) <= (b) ? (a) : (b))

/* numpy's pairwise sum of a contiguous float64 array (ndarray.sum): the same additions in the
 * same order (8 accumulators up to 128 items, halves above), so the same bits */
static inline double pairwise_sum(const double *a, Py_ssize_t n) {
    if (n < 8) {
        double r = 0.0; /* -0.0 + ... as numpy starts; 0.0 for sums of probabilities */
        for (Py_ssize_t i = 0; i < n; i++) r += a[i];
        return r;
    }
    if (n <= 128) {
        double r[8];
        for (int k = 0; k < 8; k++) r[k] = a[k];
        Py_ssize_t i;
        for (i = 8; i < n - (n % 8); i += 8)
            for (int k = 0; k < 8; k++) r[k] += a[i + k];
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++) res += a[i];
        return res;
    }
    Py_ssize_t n2 = n / 2;
    n2 -= n2 % 8;
    return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2);
}

/* the first buffer of b: a page's block mask (n bytes, 0/1), its length in n; NULL (error
 * set, nothing held) where it is not a contiguous buffer */
static inline const uint8_t *mask(bufs_t *b, PyObject *o, Py_ssize_t *n) {
    if (PyObject_GetBuffer(o, &b->v[0], PyBUF_C_CONTIGUOUS) < 0) return NULL;
    b->n = 1;
    *n = b->v[0].len;
    return b->v[0].buf;
}

#endif
