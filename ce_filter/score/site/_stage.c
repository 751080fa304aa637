/* The site stage in C (stage.py's SiteStage.apply): its columns, weights and sigmoid in one
 * call without the GIL; 1e-12 of stage.py's numpy reference (apply_reference), the terms added
 * in column order. stage.py probes it at first use. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>

/* stage(scores, fps, k, n, coef, intercept, out): SiteStage.apply of a page with n > 0 other
 * pages into out: the stage's columns (stage.site_columns: the model's log-odds, the
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
    {"stage", stage, METH_VARARGS, "the site stage's probabilities (stage.SiteStage.apply)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_stage", NULL, -1, methods};

PyMODINIT_FUNC PyInit__stage(void) { return PyModule_Create(&module); }
