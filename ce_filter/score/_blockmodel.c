/* The block model's scores and cut in C: a page's block probabilities without the GIL
 * (score_page: Model.scores' numpy reference, to ~1e-15: the dot products add in column order)
 * and the blocks kept at a cut (select_page: blockmodel.select's mask), each also a function of
 * its own (score, select). A part of the pass after the walk (ce_filter/_pass.c), built with
 * -ffp-contract=off, as the dense features (stage 2's context input is theirs:
 * score/features/_context.h). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_common.h"
#include "score/features/_context.h"

/* ------------------------------------------------------------------ scores and the cut */

/* a . b over n: 8 running sums (the additions' chain cut in eight, so the loop runs at the
 * speed of the loads, not of one addition's latency), then added pairwise */
static inline double dot(const double *a, const double *b, Py_ssize_t n) {
    double r[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    Py_ssize_t j = 0;
    for (; j + 8 <= n; j += 8)
        for (int k = 0; k < 8; k++) r[k] += a[j + k] * b[j + k];
    for (int k = 0; j < n; j++, k++) r[k] += a[j] * b[j];
    return ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
}

/* model.sigmoid: 1 / (1 + exp(-clip(z, -40, 40))) */
static inline double sigmoid(double z) {
    double c = z > 40.0 ? 40.0 : (z < -40.0 ? -40.0 : z);
    return 1.0 / (1.0 + exp(-c));
}

/* Model.scores of a model whose stage 1 is one linear layer over the dense matrix x (n x width)
 * with weights w (width) and intercept b1, plus each block's token-weight sum tok (NULL: none),
 * and whose stage 2 (w2: NULL for none; 2 CONTEXT + 7 + page_rel weights, intercept b2) reads
 * context_fill of stage 1's probabilities (cont, wt: NULL or as context), into out (n). Dot
 * products in column order (not numpy's einsum order: equal to ~1e-15). No Python: runs
 * without the GIL; OK or the error. */
static int score_page(Py_ssize_t n, const double *x, Py_ssize_t width, const double *w, double b1,
                      const double *tok, const double *w2, double b2, int page_rel,
                      const int64_t *cont, Py_ssize_t path, const double *wt, double *out) {
    Py_ssize_t cw = 2 * CONTEXT + 7 + page_rel;
    int err = OK;
    double *s1 = w2 ? PyMem_RawMalloc((size_t)n * sizeof(double)) : out;
    double *ctx = w2 ? PyMem_RawMalloc((size_t)(n * cw) * sizeof(double)) : NULL;
    if (!s1 || (w2 && !ctx)) { err = E_MEM; goto done; }
    for (Py_ssize_t i = 0; i < n; i++) {
        double z = dot(x + i * width, w, width);
        z += b1;
        if (tok) z += tok[i];
        s1[i] = sigmoid(z);
    }
    if (w2) {
        err = context_fill(n, s1, cont, path, wt, page_rel, pairwise_sum(s1, n), ctx);
        if (err) goto done;
        for (Py_ssize_t i = 0; i < n; i++) out[i] = sigmoid(dot(ctx + i * cw, w2, cw) + b2);
    }
done:
    if (w2) PyMem_RawFree(s1);
    PyMem_RawFree(ctx);
    return err;
}

/* score(n, x, width, w, b, tok, w2, b2, page_rel, cont, path, weight, out): score_page of a
 * page's arrays (tok, w2, cont, weight: None for none), without the GIL */
static PyObject *score(PyObject *self, PyObject *args) {
    PyObject *ox, *ow, *otok, *ow2, *ocont, *oweight, *oout;
    Py_ssize_t n, width, path;
    double b1, b2;
    int page_rel;
    if (!PyArg_ParseTuple(args, "nOnOdOOdpOnOO", &n, &ox, &width, &ow, &b1, &otok, &ow2, &b2,
                          &page_rel, &ocont, &path, &oweight, &oout))
        return NULL;
    if (n < 1 || width < 0 || (ocont != Py_None && path < 4)) {
        PyErr_SetString(PyExc_ValueError, "n >= 1 blocks, width >= 0, path >= 4 levels");
        return NULL;
    }
    Py_ssize_t cw = 2 * CONTEXT + 7 + page_rel;
    bufs_t b = {.n = 0};
    PyObject *ret = NULL;
    const int64_t *cont = NULL;
    const double *tok = NULL, *w2 = NULL, *wt = NULL;
    const double *x = get(&b, ox, 8, n * width, 0, "x");
    const double *w = x ? get(&b, ow, 8, width, 0, "w") : NULL;
    double *out = w ? get(&b, oout, 8, n, 1, "out") : NULL;
    if (!out) goto done;
    if (otok != Py_None && !(tok = get(&b, otok, 8, n, 0, "tok"))) goto done;
    if (ow2 != Py_None && !(w2 = get(&b, ow2, 8, cw, 0, "w2"))) goto done;
    if (ocont != Py_None && !(cont = get(&b, ocont, 8, n * path, 0, "cont"))) goto done;
    if (oweight != Py_None && !(wt = get(&b, oweight, 8, n, 0, "weight"))) goto done;
    int err;
    Py_BEGIN_ALLOW_THREADS
    err = score_page(n, x, width, w, b1, tok, w2, b2, page_rel, cont, path, wt, out);
    Py_END_ALLOW_THREADS
    if (!raise_err(err)) ret = Py_NewRef(Py_None);
done:
    release(&b);
    return ret;
}

/* extractor.select into out (n bytes, 0/1): the blocks of scores s at or above the threshold t,
 * else those within rel of the best; then a block whose flags have code_bit (inside a <pre>)
 * between the first and the last kept one (fl: NULL for no code rule). No Python. */
static void select_page(const double *s, Py_ssize_t n, double t, const int64_t *fl, long long code_bit,
                        double rel, uint8_t *out) {
    Py_ssize_t first = -1, last = -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        out[i] = s[i] >= t;
        if (out[i]) { if (first < 0) first = i; last = i; }
    }
    if (first < 0 && n) {
        double m = s[0];
        for (Py_ssize_t i = 1; i < n; i++) if (s[i] > m) m = s[i];
        double lim = m * rel;
        for (Py_ssize_t i = 0; i < n; i++) {
            out[i] = s[i] >= lim;
            if (out[i]) { if (first < 0) first = i; last = i; }
        }
    }
    if (fl && first >= 0)
        for (Py_ssize_t i = first + 1; i < last; i++)
            if (fl[i] & code_bit) out[i] = 1;
}

/* select(scores, threshold, flags, code_bit, fallback_rel, out): select_page (flags: None for
 * no code rule) */
static PyObject *select_blocks(PyObject *self, PyObject *args) {
    PyObject *os, *of, *oout;
    double t, rel;
    long long code_bit;
    if (!PyArg_ParseTuple(args, "OdOLdO", &os, &t, &of, &code_bit, &rel, &oout)) return NULL;
    bufs_t b = {.n = 0};
    PyObject *ret = NULL;
    Py_buffer *sv = &b.v[0];
    if (PyObject_GetBuffer(os, sv, PyBUF_C_CONTIGUOUS) < 0) return NULL;
    b.n = 1;
    if (sv->itemsize != 8) { PyErr_SetString(PyExc_ValueError, "scores: float64"); goto done; }
    Py_ssize_t n = sv->len / 8;
    const int64_t *fl = NULL;
    if (of != Py_None && !(fl = get(&b, of, 8, n, 0, "flags"))) goto done;
    uint8_t *out = get(&b, oout, 1, n, 1, "out");
    if (!out) goto done;
    select_page(sv->buf, n, t, fl, code_bit, rel, out);
    ret = Py_NewRef(Py_None);
done:
    release(&b);
    return ret;
}

/* the part's functions, in the module of the pass after the walk (ce_filter/_pass.c) */
#define BLOCKMODEL_METHODS \
    {"score", score, METH_VARARGS, "stage 1 and 2 probabilities of a page (Model.scores)"}, \
    {"select", select_blocks, METH_VARARGS, "the kept blocks at a cut (blockmodel.select)"},
