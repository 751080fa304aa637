/* The page after the walk in C, one module (ce_filter._pass): the parts it is made of are
 * included here (each keeps its own functions, which their Python modules call), and
 * page_scores chains them over a page in one call without the GIL: the dense features (the
 * heading lexicon matched among them), the last groups' columns, stage 1 with the class/id
 * token weights, stage 2 over stage 1's context, the cut and the span rule. The Python steps it
 * replaces (features.page_inputs, Model.scores, Extractor.decide) remain the general path of
 * the model shapes it does not cover (blockmodel.Model.pass_plan says which), and give the same
 * bits (tests/core/test_pass.py, on every corpus page).
 *
 * Built with -ffp-contract=off: its arithmetic is its parts'. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "score/features/_dense.c"
#include "score/_blockmodel.c"

/* ------------------------------------------------------------------ the model's plan */

/* what page_scores reads of a model, once per model: the dense row's layout, the weights */
typedef struct {
    Py_ssize_t path, width, extra, off[6], head_group, rx_u, rx_n, n_lut, n_w2;
    double b1, b2, head_max_words, fallback_rel;
    int page_rel;
    long long code_bit;
    double *w;   /* width + extra: stage 1's dense weights */
    double *w2;  /* n_w2, or NULL: no stage 2 */
    int64_t *lut;
} plan_t;

#define PLAN_CAPSULE "ce_filter.pass_plan"

static void plan_free(PyObject *cap) {
    plan_t *p = PyCapsule_GetPointer(cap, PLAN_CAPSULE);
    if (!p) return;
    PyMem_RawFree(p->w);
    PyMem_RawFree(p->w2);
    PyMem_RawFree(p->lut);
    PyMem_RawFree(p);
}

/* a copy of a float64 or int64 buffer of n items (n < 0: any length, put in *n) */
static void *copy_buf(PyObject *o, Py_ssize_t *n, const char *what) {
    bufs_t b = {.n = 0};
    const char *src = get(&b, o, 8, *n < 0 ? 0 : *n, 0, what);
    void *out = NULL;
    if (src) {
        if (*n < 0) *n = b.v[0].len / 8;
        if ((out = PyMem_RawMalloc((size_t)(*n ? *n : 1) * 8))) memcpy(out, src, (size_t)*n * 8);
        else PyErr_NoMemory();
    }
    release(&b);
    return out;
}

/* pass_plan(path, width, extra, (o_st, o_cetr, o_dom, o_rx, o_kind, o_head), head_group, rx_u, rx_n,
 *           lut, head_max_words, w, b1, w2, b2, page_rel, code_bit, fallback_rel)
 * -> capsule: the ancestor ids' path length, the dense row of width C columns then extra of the last groups, stage 1's weights
 * w (width + extra) and intercept b1, stage 2's weights w2 (None: none) and b2 over the context
 * (page_rel: with the page-relative column), the cut's code bit and fallback */
static PyObject *pass_plan(PyObject *self, PyObject *args) {
    PyObject *ow, *ow2, *olut;
    plan_t q;
    memset(&q, 0, sizeof q);
    if (!PyArg_ParseTuple(args, "nnn(nnnnnn)nnnOdOdOdpLd", &q.path, &q.width, &q.extra, &q.off[0],
                          &q.off[1], &q.off[2], &q.off[3], &q.off[4], &q.off[5], &q.head_group,
                          &q.rx_u, &q.rx_n, &olut, &q.head_max_words, &ow, &q.b1, &ow2, &q.b2,
                          &q.page_rel, &q.code_bit, &q.fallback_rel))
        return NULL;
    if (q.width < 0 || q.extra < 0 || q.path < 5) {
        PyErr_SetString(PyExc_ValueError, "pass_plan: width, extra >= 0, path >= 5 levels");
        return NULL;
    }
    plan_t *p = PyMem_RawCalloc(1, sizeof(plan_t));
    if (!p) return PyErr_NoMemory();
    *p = q;
    p->w = NULL, p->w2 = NULL, p->lut = NULL;
    Py_ssize_t nw = q.width + q.extra, nl = -1;
    p->n_w2 = 2 * CONTEXT + 7 + q.page_rel;
    if (!(p->w = copy_buf(ow, &nw, "w")) || (ow2 != Py_None && !(p->w2 = copy_buf(ow2, &p->n_w2, "w2")))
        || !(p->lut = copy_buf(olut, &nl, "lut")))
        goto fail;
    p->n_lut = nl;
    PyObject *cap = PyCapsule_New(p, PLAN_CAPSULE, plan_free);
    if (cap) return cap;
fail:
    PyMem_RawFree(p->w);
    PyMem_RawFree(p->w2);
    PyMem_RawFree(p->lut);
    PyMem_RawFree(p);
    return NULL;
}

/* ------------------------------------------------------------------ the page */

/* the span rule (kindrules.fill_span) on keep, in place: between the first and the last kept
 * block, a block of probability lo or more outside the flags out (and not seen, where given) */
static void span_fill(uint8_t *keep, const double *s, const int64_t *fl, Py_ssize_t n, double lo,
                      long long out, const uint8_t *seen) {
    Py_ssize_t a = -1, b = -1;
    for (Py_ssize_t i = 0; i < n; i++)
        if (keep[i]) { if (a < 0) a = i; b = i; }
    if (a < 0 || a == b) return; /* fewer than two kept */
    for (Py_ssize_t i = a; i <= b; i++)
        if (!keep[i] && s[i] >= lo && !(fl[i] & out) && !(seen && seen[i])) keep[i] = 1;
}

/* page_scores(plan, cnt, tag, n_tags, depth, flags, cont, kind, rx, utf8, starts, lexicon,
 *             after, tok_own, tok_anc, weight, cut, span_lo, span_out, seen, scores, keep)
 *
 * A page's block probabilities into scores (n float64) and the blocks kept at the cut into keep
 * (n uint8), in one call without the GIL: the dense row (features(); after: n x extra float64,
 * None for zeros), stage 1 (tok_own, tok_anc: the class/id token-weight sums, each None for
 * none), stage 2 (weight: the blocks' token counts), the cut at cut (select), then, where span_lo
 * >= 0, the span rule at span_lo outside the flags span_out (seen: n uint8 or None). The arrays as features() and score()
 * take them. */
static PyObject *page_scores(PyObject *self, PyObject *args) {
    PyObject *oplan, *ocnt, *otag, *ontags, *odepth, *oflags, *ocont, *okind, *orx, *ou, *oat, *olex,
        *oafter, *oown, *oanc, *oweight, *oseen, *oscores, *okeep;
    double cut, span_lo;
    long long span_out;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOOOOOddLOOO", &oplan, &ocnt, &otag, &ontags, &odepth,
                          &oflags, &ocont, &okind, &orx, &ou, &oat, &olex, &oafter, &oown, &oanc,
                          &oweight, &cut, &span_lo, &span_out, &oseen, &oscores, &okeep))
        return NULL;
    const plan_t *q = PyCapsule_GetPointer(oplan, PLAN_CAPSULE);
    const phrases_t *lexicon = q ? PyCapsule_GetPointer(olex, PHRASES_CAPSULE) : NULL;
    if (!lexicon) return NULL;
    Py_ssize_t n = PyObject_Length(oflags);
    if (n < 1) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "page_scores: n >= 1 blocks");
        return NULL;
    }
    Py_ssize_t W = q->width + q->extra;
    page_t p = {.n = n, .path = q->path, .width = W, .n_lut = q->n_lut, .lut = q->lut,
                .lexicon = lexicon, .head_max_words = q->head_max_words, .o_st = q->off[0],
                .o_cetr = q->off[1], .o_dom = q->off[2], .o_rx = q->off[3], .o_kind = q->off[4],
                .o_head = q->off[5], .head_group = q->head_group, .rx_u = q->rx_u, .rx_n = q->rx_n};
    bufs_t b = {.n = 0};
    bufs_t b2 = {.n = 0}; /* the optional arrays */
    PyObject *ret = NULL;
    const double *after = NULL, *own = NULL, *anc = NULL;
    const uint8_t *seen = NULL;
    p.cnt = get(&b, ocnt, 8, 3 * n, 0, "cnt");
    p.tag = p.cnt ? get(&b, otag, 8, n, 0, "tag") : NULL;
    p.ntags = p.tag ? get(&b, ontags, 8, n, 0, "n_tags") : NULL;
    p.depth = p.ntags ? get(&b, odepth, 8, n, 0, "depth") : NULL;
    p.flags = p.depth ? get(&b, oflags, 8, n, 0, "flags") : NULL;
    p.cont = p.flags ? get(&b, ocont, 8, n * q->path, 0, "cont") : NULL;
    p.kind = p.cont ? get(&b, okind, 8, N_KINDS, 0, "kind") : NULL;
    p.rx = p.kind ? get(&b, orx, 8, 0, 0, "rx") : NULL;
    const double *wt = p.rx ? get(&b, oweight, 8, n, 0, "weight") : NULL;
    double *scores = wt ? get(&b, oscores, 8, n, 1, "scores") : NULL;
    uint8_t *keep = scores ? get(&b, okeep, 1, n, 1, "keep") : NULL;
    if (!keep || texts_get(&b, ou, oat, n, &p.T) < 0) goto done;
    p.rx_w = b.v[7].len / 8 / n;
    if ((oafter != Py_None && !(after = get(&b2, oafter, 8, n * q->extra, 0, "after"))) ||
        (oown != Py_None && !(own = get(&b2, oown, 8, n, 0, "tok_own"))) ||
        (oanc != Py_None && !(anc = get(&b2, oanc, 8, n, 0, "tok_anc"))) ||
        (oseen != Py_None && !(seen = get(&b2, oseen, 1, n, 0, "seen"))))
        goto done;
    if ((p.o_head >= 0 || p.o_rx >= 0) && (p.rx_w < 1 || p.rx_u >= p.rx_w || p.rx_n >= p.rx_w ||
                                           (p.o_rx >= 0 && p.o_rx + p.rx_w > q->width))) {
        PyErr_SetString(PyExc_ValueError, "page_scores: the class/id bits do not fit the plan");
        goto done;
    }
    int err = OK;
    double *x = NULL, *tok = NULL;
    Py_BEGIN_ALLOW_THREADS
    x = PyMem_RawMalloc((size_t)(n * W) * sizeof(double));
    tok = (own || anc) ? PyMem_RawMalloc((size_t)n * sizeof(double)) : NULL;
    if (!x || ((own || anc) && !tok)) err = E_MEM;
    else {
        p.out = x;
        err = compute(&p);
    }
    if (err == OK) {
        for (Py_ssize_t i = 0; i < n; i++) { /* the last groups' columns, after the C groups' */
            double *r = x + i * W + q->width;
            if (after) memcpy(r, after + i * q->extra, (size_t)q->extra * sizeof(double));
            else memset(r, 0, (size_t)q->extra * sizeof(double));
        }
        if (tok) /* own + anc, as Model.scores adds them */
            for (Py_ssize_t i = 0; i < n; i++) tok[i] = own && anc ? own[i] + anc[i] : (own ? own[i] : anc[i]);
        err = score_page(n, x, W, q->w, q->b1, tok, q->w2, q->b2, q->page_rel, p.cont, q->path, wt,
                         scores);
    }
    if (err == OK) {
        select_page(scores, n, cut, p.flags, q->code_bit, q->fallback_rel, keep);
        if (span_lo >= 0) span_fill(keep, scores, p.flags, n, span_lo, span_out, seen);
    }
    PyMem_RawFree(x);
    PyMem_RawFree(tok);
    Py_END_ALLOW_THREADS
    if (!raise_err(err)) ret = Py_NewRef(Py_None);
done:
    release(&b);
    release(&b2);
    return ret;
}

static PyMethodDef methods[] = {
    DENSE_METHODS
    BLOCKMODEL_METHODS
    {"pass_plan", pass_plan, METH_VARARGS, "what page_scores reads of a model"},
    {"page_scores", page_scores, METH_VARARGS, "a page's scores and cut in one call"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_pass", NULL, -1, methods};

PyMODINIT_FUNC PyInit__pass(void) {
    DENSE_INIT();
    return PyModule_Create(&module);
}
