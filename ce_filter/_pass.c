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

#include "score/_pagekind.c"
#include "score/features/_dense.c"
#include "score/_blockmodel.c"

#define KIND_PRODUCT 6        /* pagekind.KINDS.index("product") (checked by the tests) */
#define SHOP_HEAD_MAX_WORDS 10 /* features/shop.py SHOP_HEADING_MAX_WORDS */

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

static void plan_release(plan_t *p) {
    if (!p) return;
    PyMem_RawFree(p->w);
    PyMem_RawFree(p->w2);
    PyMem_RawFree(p->lut);
    PyMem_RawFree(p);
}

static void plan_free(PyObject *cap) { plan_release(PyCapsule_GetPointer(cap, PLAN_CAPSULE)); }

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
    plan_release(p);
    return NULL;
}

/* ------------------------------------------------------------------ the page-kind model */

#define KIND_PLAN_CAPSULE "ce_filter.kind_plan"

typedef struct {
    kind_model_t m;
    Py_ssize_t scan_limit, text_limit;
    double *buf; /* mean, scale, coef, intercept, one allocation */
    int64_t *log_at;
} kind_plan_t;

static void kind_plan_free(PyObject *cap) {
    kind_plan_t *k = PyCapsule_GetPointer(cap, KIND_PLAN_CAPSULE);
    if (!k) return;
    PyMem_RawFree(k->buf);
    PyMem_RawFree(k->log_at);
    PyMem_RawFree(k);
}

/* kind_plan(mean, scale, coef, intercept, log_at, scan_limit, text_limit) -> capsule: what
 * page_scores reads of a page-kind model (kind_proba's arguments of the same names) */
static PyObject *kind_plan(PyObject *self, PyObject *args) {
    PyObject *omean, *oscale, *ocoef, *oicpt, *olog;
    Py_ssize_t scan_limit, text_limit;
    if (!PyArg_ParseTuple(args, "OOOOOnn", &omean, &oscale, &ocoef, &oicpt, &olog, &scan_limit,
                          &text_limit))
        return NULL;
    if (!need_config()) return NULL;
    Py_ssize_t nf = n_head() + N_BLOCK + 2 + n_word_groups, nk = -1, n_log = -1, nm = nf;
    double *icpt = copy_buf(oicpt, &nk, "intercept");
    if (!icpt) return NULL;
    Py_ssize_t ncoef = nk * nf;
    double *mean = copy_buf(omean, &nm, "mean"), *scale = mean ? copy_buf(oscale, &nm, "scale") : NULL;
    double *coef = scale ? copy_buf(ocoef, &ncoef, "coef") : NULL;
    int64_t *log_at = coef ? copy_buf(olog, &n_log, "log_at") : NULL;
    kind_plan_t *k = log_at ? PyMem_RawCalloc(1, sizeof(kind_plan_t)) : NULL;
    double *buf = k ? PyMem_RawMalloc((size_t)(2 * nf + ncoef + nk) * sizeof(double)) : NULL;
    PyObject *cap = NULL;
    if (log_at && (!k || !buf)) PyErr_NoMemory();
    for (Py_ssize_t j = 0; buf && j < n_log; j++)
        if (log_at[j] < 0 || log_at[j] >= nf - n_head()) {
            PyErr_SetString(PyExc_ValueError, "kind_plan: log_at past the signals");
            PyMem_RawFree(buf);
            buf = NULL;
        }
    if (buf) {
        memcpy(buf, mean, (size_t)nf * 8);
        memcpy(buf + nf, scale, (size_t)nf * 8);
        memcpy(buf + 2 * nf, coef, (size_t)ncoef * 8);
        memcpy(buf + 2 * nf + ncoef, icpt, (size_t)nk * 8);
        k->buf = buf;
        k->log_at = log_at;
        k->m = (kind_model_t){buf, buf + nf, buf + 2 * nf, buf + 2 * nf + ncoef, log_at, n_log, nk, nf};
        k->scan_limit = scan_limit;
        k->text_limit = text_limit;
        if ((cap = PyCapsule_New(k, KIND_PLAN_CAPSULE, kind_plan_free))) log_at = NULL, k = NULL;
    }
    PyMem_RawFree(icpt);
    PyMem_RawFree(mean);
    PyMem_RawFree(scale);
    PyMem_RawFree(coef);
    PyMem_RawFree(log_at);
    if (k) { PyMem_RawFree(k->buf); PyMem_RawFree(k); }
    return cap;
}

/* ------------------------------------------------------------------ the page */

/* the shop group's three cues (features/shop.py shop_matrix) into the extra columns of x (row
 * width W, from column at): a block whose text an earlier block has, a block governed by a
 * heading of at most SHOP_HEAD_MAX_WORDS words that names a shop section (titles), a block
 * whose element or near ancestors' class/id name one (ic: n float64, 0/1), each times p; -1 when
 * out of memory. The one implementation of the cues: shop_matrix calls it through shop(). */
static int shop_fill(const page_t *pg, const phrases_t *titles, const double *ic, double p,
                     double *x, Py_ssize_t W, Py_ssize_t at) {
    Py_ssize_t n = pg->n;
    text_set_t seen;
    if (text_set_init(&seen, n) < 0) return -1;
    int hit = 0, err = 0;
    Py_ssize_t last = -1;
    for (Py_ssize_t i = 0; i < n && !err; i++) {
        double *r = x + i * W + at;
        r[0] = (text_set_add(&seen, &pg->T, i) ? 1.0 : 0.0) * p;
        if (tag_group(pg->tag[i], pg->lut, pg->n_lut) == pg->head_group) {
            last = i;
            hit = 0;
            if (pg->cnt[3 * i + 1] <= SHOP_HEAD_MAX_WORDS) {
                Py_ssize_t len;
                const char *t = text_at(&pg->T, i, &len);
                if ((hit = phrases_search(titles, t, len)) < 0) err = 1;
            }
        }
        r[1] = (last >= 0 && hit > 0 ? 1.0 : 0.0) * p;
        r[2] = ic[i] * p;
    }
    text_set_free(&seen);
    return err ? -1 : 0;
}

/* shop(cnt, tag, lut, head_group, utf8, starts, titles, ic, p, out): shop_fill of a
 * page into out (n x 3 float64): the shop group's cues at the product probability p
 * (features/shop.py shop_matrix, which the pass computes in its call) */
static PyObject *shop(PyObject *self, PyObject *args) {
    PyObject *ocnt, *otag, *olut, *ou, *oat, *otitles, *oic, *oout;
    Py_ssize_t head_group;
    double pp;
    if (!PyArg_ParseTuple(args, "OOOnOOOOdO", &ocnt, &otag, &olut, &head_group, &ou, &oat, &otitles,
                          &oic, &pp, &oout))
        return NULL;
    const phrases_t *titles = PyCapsule_GetPointer(otitles, PHRASES_CAPSULE);
    Py_ssize_t n = PyObject_Length(otag);
    if (!titles || n < 0) return NULL;
    page_t p = {.n = n, .head_group = head_group};
    bufs_t b = {.n = 0};
    PyObject *ret = NULL;
    p.cnt = get(&b, ocnt, 8, 3 * n, 0, "cnt");
    p.tag = p.cnt ? get(&b, otag, 8, n, 0, "tag") : NULL;
    p.lut = p.tag ? get(&b, olut, 8, 1, 0, "lut") : NULL;
    const double *ic = p.lut ? get(&b, oic, 8, n, 0, "ic") : NULL;
    double *out = ic ? get(&b, oout, 8, 3 * n, 1, "out") : NULL;
    if (!out || texts_get(&b, ou, oat, n, &p.T) < 0) goto done;
    p.n_lut = b.v[2].len / 8;
    int err;
    Py_BEGIN_ALLOW_THREADS
    err = shop_fill(&p, titles, ic, pp, out, 3, 0) < 0 ? E_MEM : OK;
    Py_END_ALLOW_THREADS
    if (!raise_err(err)) ret = Py_NewRef(Py_None);
done:
    release(&b);
    return ret;
}

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

/* page_scores(plan, kind_plan, html, url, cnt, tag, n_tags, depth, flags, cont, joined, kind,
 *             rx, utf8, starts, lexicon, shop_titles, shop_ic, shop_min_p, tok_own, tok_anc,
 *             weight, cuts, spans, span_out, seen, scores, keep)
 *
 * A page after the walk in one call without the GIL: the page-kind probabilities into kind
 * (N_KINDS float64; with kind_plan None, kind is read instead: None made no estimate),
 * the dense row (features(), the heading lexicon), the shop group's cues where the plan has its
 * columns (shop_fill, at the product probability if it reaches shop_min_p; shop_ic: the
 * class/id column, n float64), stage 1 (tok_own, tok_anc: the token-weight sums, each None
 * for none), stage 2 (weight: the blocks' token counts), into scores (n float64); then, for the
 * most probable kind k (the first on ties), the cut at cuts[k] (select) and where spans[k] >= 0
 * the span rule at that level outside the flags span_out (seen: n uint8 or None), into keep (n
 * uint8). html, url, joined: as kind_proba reads them. */
static PyObject *page_scores(PyObject *self, PyObject *args) {
    PyObject *oplan, *okplan, *html, *url, *ocnt, *otag, *ontags, *odepth, *oflags, *ocont, *joined,
        *okind, *orx, *ou, *oat, *olex, *otitles, *oic, *oown, *oanc, *oweight, *ocuts, *ospans,
        *oseen, *oscores, *okeep;
    double shop_min_p;
    long long span_out;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOOOOOOOdOOOOOLOOO", &oplan, &okplan, &html, &url, &ocnt,
                          &otag, &ontags, &odepth, &oflags, &ocont, &joined, &okind, &orx, &ou, &oat,
                          &olex, &otitles, &oic, &shop_min_p, &oown, &oanc, &oweight, &ocuts, &ospans,
                          &span_out, &oseen, &oscores, &okeep))
        return NULL;
    const plan_t *q = PyCapsule_GetPointer(oplan, PLAN_CAPSULE);
    const kind_plan_t *kp = NULL;
    if (!q || (okplan != Py_None && !(kp = PyCapsule_GetPointer(okplan, KIND_PLAN_CAPSULE))))
        return NULL;
    const phrases_t *lexicon = PyCapsule_GetPointer(olex, PHRASES_CAPSULE);
    const phrases_t *titles = lexicon ? PyCapsule_GetPointer(otitles, PHRASES_CAPSULE) : NULL;
    if (!titles) return NULL;
    str_t hs, us;
    if (kp && (!need_config() || !PyUnicode_Check(html) || !PyUnicode_Check(joined) ||
               head_args(html, kp->scan_limit, url, &hs, &us) < 0)) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "page_scores: html and joined are str");
        return NULL;
    }
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
    const double *own = NULL, *anc = NULL, *ic = NULL;
    const uint8_t *seen = NULL;
    double *kind = NULL;
    kind = block_bufs(&b, &p, ocnt, otag, ontags, odepth, oflags, ocont) == 0
           ? get(&b, okind, 8, N_KINDS, kp != NULL, "kind") : NULL;
    p.rx = kind ? get(&b, orx, 8, 0, 0, "rx") : NULL;
    const double *wt = p.rx ? get(&b, oweight, 8, n, 0, "weight") : NULL;
    double *scores = wt ? get(&b, oscores, 8, n, 1, "scores") : NULL;
    uint8_t *keep = scores ? get(&b, okeep, 1, n, 1, "keep") : NULL;
    const double *cuts = keep ? get(&b2, ocuts, 8, N_KINDS, 0, "cuts") : NULL;
    const double *spans = cuts ? get(&b2, ospans, 8, N_KINDS, 0, "spans") : NULL;
    if (!spans || texts_get(&b2, ou, oat, n, &p.T) < 0) goto done;
    p.kind = kind;
    p.rx_w = b.v[7].len / 8 / n;
    if ((oown != Py_None && !(own = get(&b2, oown, 8, n, 0, "tok_own"))) ||
        (oanc != Py_None && !(anc = get(&b2, oanc, 8, n, 0, "tok_anc"))) ||
        (oic != Py_None && !(ic = get(&b2, oic, 8, n, 0, "shop_ic"))) ||
        (oseen != Py_None && !(seen = get(&b2, oseen, 1, n, 0, "seen"))))
        goto done;
    if ((p.o_head >= 0 || p.o_rx >= 0) && (p.rx_w < 1 || p.rx_u >= p.rx_w || p.rx_n >= p.rx_w ||
                                           (p.o_rx >= 0 && p.o_rx + p.rx_w > q->width))) {
        PyErr_SetString(PyExc_ValueError, "page_scores: the class/id bits do not fit the plan");
        goto done;
    }
    if (q->extra && (q->extra != 3 || !ic)) {
        PyErr_SetString(PyExc_ValueError, "page_scores: the plan's last columns are the shop group's "
                                          "(3), with its class/id column");
        goto done;
    }
    if (kp && kp->m.nk != N_KINDS) {
        PyErr_SetString(PyExc_ValueError, "page_scores: a page-kind model of the N_KINDS kinds");
        goto done;
    }
    int err = OK;
    double *x = NULL, *tok = NULL, *kx = NULL;
    Py_BEGIN_ALLOW_THREADS
    x = PyMem_RawMalloc((size_t)(n * W) * sizeof(double));
    tok = (own || anc) ? PyMem_RawMalloc((size_t)n * sizeof(double)) : NULL;
    kx = kp ? PyMem_RawMalloc((size_t)kp->m.nf * sizeof(double)) : NULL;
    if (!x || ((own || anc) && !tok) || (kp && !kx)) err = E_MEM;
    else if (kp && kind_core(&kp->m, &hs, &us, p.cnt, p.flags, p.tag, p.cont, n, joined,
                             kp->text_limit, kx, kind) < 0)
        err = E_MEM;
    if (err == OK) {
        p.out = x;
        err = compute(&p);
    }
    if (err == OK && q->extra) { /* the shop group's cues, after the C groups' columns */
        double pp = kind[KIND_PRODUCT];
        if (pp < shop_min_p) pp = 0.0; /* shop._weight: no cues under the gate */
        if (pp == 0.0)
            for (Py_ssize_t i = 0; i < n; i++) memset(x + i * W + q->width, 0, 3 * sizeof(double));
        else if (shop_fill(&p, titles, ic, pp, x, W, q->width) < 0)
            err = E_MEM;
    }
    if (err == OK) {
        if (tok) /* own + anc, as Model.scores adds them */
            for (Py_ssize_t i = 0; i < n; i++) tok[i] = own && anc ? own[i] + anc[i] : (own ? own[i] : anc[i]);
        err = score_page(n, x, W, q->w, q->b1, tok, q->w2, q->b2, q->page_rel, p.cont, q->path, wt,
                         scores);
    }
    if (err == OK) {
        Py_ssize_t k = 0; /* the most probable kind, the first on ties (np.argmax) */
        for (Py_ssize_t j = 1; j < N_KINDS; j++) if (kind[j] > kind[k]) k = j;
        select_page(scores, n, cuts[k], p.flags, q->code_bit, q->fallback_rel, keep);
        if (spans[k] >= 0) span_fill(keep, scores, p.flags, n, spans[k], span_out, seen);
    }
    PyMem_RawFree(x);
    PyMem_RawFree(tok);
    PyMem_RawFree(kx);
    Py_END_ALLOW_THREADS
    if (!raise_err(err)) ret = Py_NewRef(Py_None);
done:
    release(&b);
    release(&b2);
    return ret;
}

static PyMethodDef methods[] = {
    PAGEKIND_METHODS
    DENSE_METHODS
    BLOCKMODEL_METHODS
    {"pass_plan", pass_plan, METH_VARARGS, "what page_scores reads of a model"},
    {"shop", shop, METH_VARARGS, "the shop group's cues of a page"},
    {"kind_plan", kind_plan, METH_VARARGS, "what page_scores reads of a page-kind model"},
    {"page_scores", page_scores, METH_VARARGS, "a page's scores and cut in one call"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_pass", NULL, -1, methods};

PyMODINIT_FUNC PyInit__pass(void) {
    DENSE_INIT();
    return PyModule_Create(&module);
}
