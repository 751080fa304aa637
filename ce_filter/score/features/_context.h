/* context.context_features (stage 2's input) in C: the dense features' context() and the block
 * model's score() fill it alike (score/features/_dense.c, score/_blockmodel.c). Include after
 * _common.h. */
#ifndef CE_FILTER_CONTEXT_H
#define CE_FILTER_CONTEXT_H

#define CONTEXT 3       /* context.CONTEXT */

/* context_fill: context.context_features (stage 2's input) of the scores s (n) into out (n x
 * (2 CONTEXT + 7 + page_rel)); cont: NULL or the ancestor ids (n x path); w: NULL or n weights;
 * s_sum: s.sum() as numpy adds it (pairwise). Runs without the GIL; returns OK or an error. */
static int context_fill(Py_ssize_t n, const double *s, const int64_t *cont, Py_ssize_t path,
                        const double *w, int page_rel, double s_sum, double *out) {
    Py_ssize_t width = 2 * CONTEXT + 7 + page_rel;
    int err = OK;
    double *c = NULL, *num = NULL, *den = NULL;
    c = PyMem_RawMalloc((size_t)(n + 1) * sizeof(double));
    if (!c) { err = E_MEM; goto done; }
    c[0] = 0.0;
    double acc = 0.0, s_max = s[0];
    for (Py_ssize_t i = 0; i < n; i++) {
        acc = i ? acc + s[i] : s[i]; /* np.cumsum */
        c[i + 1] = acc;
        if (s[i] > s_max) s_max = s[i]; /* scores: never NaN */
    }
    double mean = s_sum / (double)n;
    for (Py_ssize_t i = 0; i < n; i++) {
        double *r = out + i * width;
        for (Py_ssize_t k = 0; k < 2 * CONTEXT + 1; k++) {
            Py_ssize_t j = i + k - CONTEXT;
            r[k] = j >= 0 && j < n ? s[j] : 0.5;
        }
        static const Py_ssize_t radius[2] = {5, 15};
        for (int q = 0; q < 2; q++) {
            Py_ssize_t lo = i - radius[q] > 0 ? i - radius[q] : 0;
            Py_ssize_t hi = i + radius[q] + 1 < n ? i + radius[q] + 1 : n;
            r[2 * CONTEXT + 1 + q] = (c[hi] - c[lo]) / (double)(hi - lo > 1 ? hi - lo : 1);
        }
        r[2 * CONTEXT + 3] = mean;
    }
    for (int q = 0; q < 3; q++) { /* context.CONTAINER_LEVELS */
        Py_ssize_t j = 2 * CONTEXT + 4 + q;
        if (!cont) {
            for (Py_ssize_t i = 0; i < n; i++) out[i * width + j] = s[i];
            continue;
        }
        int64_t cmax = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            int64_t e = cont[i * path + q + 1];
            if (e < 0) { err = E_NEG; goto done; }
            if (e > cmax) cmax = e;
        }
        PyMem_RawFree(num);
        PyMem_RawFree(den);
        num = PyMem_RawCalloc((size_t)cmax + 1, sizeof(double));
        den = PyMem_RawCalloc((size_t)cmax + 1, sizeof(double));
        if (!num || !den) { err = E_MEM; goto done; }
        /* dom.group_sum: np.bincount in block order, of s * w and of w */
        for (Py_ssize_t i = 0; i < n; i++) {
            int64_t e = cont[i * path + q + 1];
            double wi = w ? w[i] : 1.0;
            num[e] += s[i] * wi;
            den[e] += wi;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            int64_t e = cont[i * path + q + 1];
            out[i * width + j] = num[e] / NP_MAX(den[e], 1e-9);
        }
    }
    if (page_rel) {
        double m = dmax(s_max, 1e-6); /* max(float(s.max()), 1e-6) */
        for (Py_ssize_t i = 0; i < n; i++) out[i * width + width - 1] = s[i] / m;
    }
done:
    PyMem_RawFree(c);
    PyMem_RawFree(num);
    PyMem_RawFree(den);
    return err;
}

#endif
