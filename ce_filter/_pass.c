/* The page after the walk in C, one module (ce_filter._pass): the parts it is made of are
 * included here (each keeps its own functions, which their Python modules call), and
 * page_scores chains them over a page in one call: the page-kind signals and model, the dense
 * features (the heading lexicon matched among them), the last groups' columns, stage 1 with
 * the class/id token weights, stage 2 over stage 1's context, the cut and the span rule; then,
 * where asked (Extractor.page_run), the rules after the cut (keep/_articles.c, their class/id
 * columns made by the walk's C API), the thin-page rule and the text (keep/_render.c). The GIL
 * is released but to fold the case of hidden copies and to make the text's str. The Python
 * steps it replaces (features.page_inputs, Model.scores, Extractor.decide, Extractor.keep,
 * render.to_text) remain the general path of the model shapes and options it does not cover
 * (blockmodel.Model.pass_plan, Extractor.page_run say which), and give the same values
 * (tests/core/test_pass.py, on every corpus page).
 *
 * Built with -ffp-contract=off: its arithmetic is its parts'. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "score/_pagekind.c"
#include "score/features/_dense.c"
#include "score/_blockmodel.c"
#include "keep/_articles.c"
#include "keep/_render.c"

#define KIND_ARTICLE 0        /* pagekind.KINDS.index("article") (checked by the tests) */
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

/* ------------------------------------------------------------------ after the cut */

/* the walk's C API (its module's C_API capsule), imported at the first page that needs it */
static const segment_api_t *seg_api(void) {
    static const segment_api_t *api = NULL;
    if (!api) { /* (the module as imported: sys.modules', not its package's attribute) */
        PyObject *mod = PyImport_ImportModule("ce_filter.read._segment");
        PyObject *cap = mod ? PyObject_GetAttrString(mod, "C_API") : NULL;
        api = cap ? PyCapsule_GetPointer(cap, SEGMENT_API) : NULL;
        Py_XDECREF(cap); /* (the module keeps it, and the module stays imported) */
        Py_XDECREF(mod);
    }
    return api;
}

/* the page's class/id tokens as the pass reads them (classes_get): the walk's C API, its
 * tokens and the blocks' openers; the rx group's matcher, levels and bits (rx_m NULL: no rx
 * columns); stage 1's token-weight vocabularies (NULL: none) */
typedef struct {
    const segment_api_t *api;
    const void *tokens;
    const int64_t *openers;
    void *rx_m;
    int rx_levels, rx_bits;
    const void *v_own, *v_anc;
} classes_t;

/* classes' tuple (tokens, openers, rx_matcher, rx_levels, rx_bits, vocab_own, vocab_anc): the
 * walk's (Blocks.class_tokens), the rx group's matcher (None: not in the model) and the token
 * tables of stage 1's class/id weights (None: none); 0, or -1 (error set) */
static int classes_get(PyObject *o, bufs_t *b, Py_ssize_t n, classes_t *c) {
    PyObject *otok, *oop, *orx, *oown, *oanc;
    if (!PyTuple_Check(o)) { PyErr_SetString(PyExc_TypeError, "page_scores: classes, a tuple"); return -1; }
    if (!PyArg_ParseTuple(o, "OOOiiOO", &otok, &oop, &orx, &c->rx_levels, &c->rx_bits, &oown, &oanc))
        return -1;
    if (!(c->api = seg_api()) || !(c->tokens = PyCapsule_GetPointer(otok, c->api->tokens_capsule)))
        return -1;
    c->rx_m = NULL, c->v_own = c->v_anc = NULL;
    if ((orx != Py_None && !(c->rx_m = PyCapsule_GetPointer(orx, c->api->matcher_capsule))) ||
        (oown != Py_None && !(c->v_own = PyCapsule_GetPointer(oown, c->api->vocab_capsule))) ||
        (oanc != Py_None && !(c->v_anc = PyCapsule_GetPointer(oanc, c->api->vocab_capsule))))
        return -1;
    if (c->rx_m && (c->rx_levels < 0 || c->rx_bits < 1 || c->rx_bits > 32)) {
        PyErr_SetString(PyExc_ValueError, "page_scores: rx levels >= 0, 1 <= bits <= 32");
        return -1;
    }
    return (c->openers = get(b, oop, 8, n, 0, "openers")) ? 0 : -1;
}

/* a matcher's columns of the page (n rows of (levels + 2) * bits: flag_fill), or NULL when out
 * of memory; PyMem_RawFree it. No Python. */
static double *class_columns(const classes_t *c, void *m, int levels, int bits, Py_ssize_t n) {
    double *cols = PyMem_RawMalloc((size_t)(n * (levels + 2) * bits) * sizeof(double));
    if (cols && c->api->flag_fill(c->tokens, m, c->openers, (size_t)n, levels, bits, cols) < 0) {
        PyMem_RawFree(cols);
        cols = NULL;
    }
    return cols;
}

/* what page_scores does after the cut where it is given ``after`` (Extractor.page_run): the
 * rules (tidy's options; the class/id columns of the comments and author-box rules made here,
 * by the walk's flag_fill on the page's tokens, where the page's kind needs them), the
 * thin-page rule and the text (text's form) */
/* pieces of bytes looked for in a page's class/id values (Blocks.may_name) */
#define MAX_PIECES 8
typedef struct { const char *s[MAX_PIECES]; Py_ssize_t len[MAX_PIECES]; int n; } pieces_t;

/* a tuple of bytes (1 to MAX_PIECES, none empty) into p (pointing into o: keep o alive); 0 or
 * -1 (error set) */
static int pieces_get(PyObject *o, pieces_t *p) {
    if (!PyTuple_Check(o) || PyTuple_GET_SIZE(o) < 1 || PyTuple_GET_SIZE(o) > MAX_PIECES) {
        PyErr_SetString(PyExc_ValueError, "page_scores: pieces, a tuple of 1 to 8 bytes");
        return -1;
    }
    p->n = (int)PyTuple_GET_SIZE(o);
    for (int k = 0; k < p->n; k++) {
        PyObject *b = PyTuple_GET_ITEM(o, k);
        if (!PyBytes_Check(b) || PyBytes_GET_SIZE(b) < 1) {
            PyErr_SetString(PyExc_ValueError, "page_scores: a piece, non-empty bytes");
            return -1;
        }
        p->s[k] = PyBytes_AS_STRING(b);
        p->len[k] = PyBytes_GET_SIZE(b);
    }
    return 0;
}

/* whether one of p's pieces stands in the n bytes h (Blocks.may_name's any(k in packed)): one
 * pass, the pieces that may start at each byte known from a table of first bytes */
static int any_piece(const char *h, Py_ssize_t n, const pieces_t *p) {
    uint8_t first[256];
    memset(first, 0, sizeof first);
    for (int k = 0; k < p->n; k++) first[(unsigned char)p->s[k][0]] |= (uint8_t)(1u << k);
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned m = first[(unsigned char)h[i]];
        for (int k = 0; m; k++, m >>= 1)
            if ((m & 1u) && p->len[k] <= n - i && memcmp(h + i, p->s[k], (size_t)p->len[k]) == 0)
                return 1;
    }
    return 0;
}

typedef struct {
    long rules, article_kinds, comment_kinds;
    int bylines, comments;
    void *comment_m, *author_m;
    const char *vals; /* the page's class/id values (NULL: may name anything) */
    Py_ssize_t n_vals;
    pieces_t comment_p, author_p;
    double min_words, thin_p;
    Py_ssize_t page_chars, thin_min_chars;
    text_form_t form;
    code_t code;
} after_t;

/* why a page's text is empty (Extractor.keep's reasons, in Python) */
enum { R_TEXT = 0, R_THIN = 1, R_NONE = 2 };

/* after's tuple: (rules, bylines, comments, comment_matcher, author_matcher, class_values,
 * comment_pieces, author_pieces, article_kinds, comment_kinds, min_words, page_chars, thin_p,
 * thin_min_chars, path, pre_bit, tag_pre, cell_a, cell_b, max_cell, code): articles.pass_rules's, the kinds (bits by kind index) whose pages the
 * rules read as articles and whose reader comments go, the thin-page rule's
 * (blockmodel.thin_page), render.pass_form's, the code blocks' raw text (Blocks.code_column);
 * 0, or -1 (error set) */
static int after_get(PyObject *o, const classes_t *c, bufs_t *b, Py_ssize_t n, Py_ssize_t path,
                     after_t *a) {
    PyObject *ocm, *oam, *ovals, *ocp, *oap, *ocode;
    if (!PyTuple_Check(o)) { PyErr_SetString(PyExc_TypeError, "page_scores: after, a tuple"); return -1; }
    if (!PyArg_ParseTuple(o, "lppOOOOOlldndnnLLLLnO", &a->rules, &a->bylines, &a->comments, &ocm,
                          &oam, &ovals, &ocp, &oap, &a->article_kinds, &a->comment_kinds,
                          &a->min_words, &a->page_chars, &a->thin_p, &a->thin_min_chars,
                          &a->form.path, &a->form.pre_bit, &a->form.tag_pre, &a->form.cell_a,
                          &a->form.cell_b, &a->form.max_cell, &ocode))
        return -1;
    if (ocode == Py_None) { PyErr_SetString(PyExc_TypeError, "page_scores: the code column, a tuple"); return -1; }
    if (code_get(ocode, b, n, &a->code) < 0 || pieces_get(ocp, &a->comment_p) < 0 ||
        pieces_get(oap, &a->author_p) < 0)
        return -1;
    a->vals = NULL, a->n_vals = 0;
    if (ovals != Py_None) {
        if (!PyBytes_Check(ovals)) { PyErr_SetString(PyExc_TypeError, "page_scores: class values, bytes"); return -1; }
        a->vals = PyBytes_AS_STRING(ovals);
        a->n_vals = PyBytes_GET_SIZE(ovals);
    }
    if (not_ready()) return -1;
    if (!RC.ready || RC.path != path || a->form.path != path) {
        PyErr_SetString(PyExc_RuntimeError, "page_scores: the rules are not configured for this path");
        return -1;
    }
    a->comment_m = a->author_m = NULL;
    if ((ocm != Py_None && !(a->comment_m = PyCapsule_GetPointer(ocm, c->api->matcher_capsule))) ||
        (oam != Py_None && !(a->author_m = PyCapsule_GetPointer(oam, c->api->matcher_capsule))))
        return -1;
    return 0;
}

/* the rules after the cut on keep (in place, from the cut's mask: a copy of it is the rules'
 * input) of a page whose kind is k (-1: no estimate); what needs Python is left: *rest (the
 * hidden copies: tidy_rest). E_MEM or OK. */
static int after_rules(const after_t *a, const classes_t *c, const page_t *p, const double *s,
                       int k, uint8_t *cut, uint8_t *keep, tidy_page_t *tp, double **cols, int *rest) {
    Py_ssize_t n = p->n;
    int article = k >= 0 && ((a->article_kinds >> k) & 1);
    int comment_kind = k >= 0 && ((a->comment_kinds >> k) & 1);
    *rest = 0;
    int any = 0;
    for (Py_ssize_t i = 0; i < n && !any; i++) any = keep[i];
    if (!any) return OK;
    memcpy(cut, keep, (size_t)n);
    *tp = (tidy_page_t){.n = n, .keep = cut, .out = keep, .s = s, .cnt = p->cnt, .fl = p->flags,
                        .tag = p->tag, .cont = p->cont, .T = &p->T, .article = article,
                        .comment_kind = comment_kind, .bylines = a->bylines,
                        .comments = a->comments, .rules = a->rules};
    /* (Blocks.may_name: a page whose class/id values hold no piece names no such container) */
    if (comment_kind && !a->comments && (a->rules & RULE_COMMENTS) && a->comment_m &&
        (!a->vals || any_piece(a->vals, a->n_vals, &a->comment_p))) {
        if (!(cols[0] = class_columns(c, a->comment_m, 0, 1, n))) return E_MEM;
        tp->ccols = cols[0];
    }
    if (article && !a->comments && !a->bylines && (a->rules & RULE_AUTHORBOX) && a->author_m &&
        (!a->vals || any_piece(a->vals, a->n_vals, &a->author_p))) {
        tp->aw = 3 * (RC.author_levels + 2);
        if (!(cols[1] = class_columns(c, a->author_m, (int)RC.author_levels, 3, n))) return E_MEM;
        tp->acols = cols[1];
    }
    int err = tidy_core(tp, rest);
    *rest = *rest && article;
    return err;
}

/* the thin-page rule (blockmodel.thin_page) and the text of the kept blocks into o, code
 * blocks from a->code (no Python): R_TEXT, R_THIN or R_NONE; -1 when out of memory */
static int after_text(const after_t *a, const page_t *p, const double *kind, uint8_t *keep, Buf *o) {
    Py_ssize_t n = p->n;
    double words = 0; /* (whole numbers: exact in any order) */
    int any = 0;
    for (Py_ssize_t i = 0; i < n; i++) if (keep[i]) { words += p->cnt[3 * i + 1]; any = 1; }
    if (a->min_words != 0 && kind && kind[KIND_ARTICLE] < a->thin_p && words < a->min_words &&
        a->page_chars >= a->thin_min_chars) {
        memset(keep, 0, (size_t)n);
        return R_THIN;
    }
    if (!any) return R_NONE;
    return text_write(o, keep, &p->T, p->tag, p->flags, p->cont, n, &a->form, &a->code, NULL) < 0
           ? -1 : R_TEXT;
}

/* shop.shop_ic in the call: 1.0 where the block's element or one of its levels nearest
 * ancestors has a class/id token of the matcher m's (n float64, PyMem_RawFree it); NULL when out
 * of memory. No Python. */
static double *shop_ic_fill(const classes_t *c, void *m, int levels, Py_ssize_t n) {
    Py_ssize_t w = levels + 2;
    double *cols = class_columns(c, m, levels, 1, n);
    double *ic = cols ? PyMem_RawMalloc((size_t)(n ? n : 1) * sizeof(double)) : NULL;
    for (Py_ssize_t i = 0; ic && i < n; i++) {
        double v = 0.0;
        for (Py_ssize_t l = 0; l <= levels; l++) if (cols[i * w + l] > v) v = cols[i * w + l];
        ic[i] = v;
    }
    PyMem_RawFree(cols);
    return ic;
}

/* page_scores(plan, kind_plan, html, url, cnt, tag, n_tags, depth, flags, cont, joined, kind,
 *             classes, utf8, starts, lexicon, shop_titles, shop, shop_min_p, weight, cuts, spans,
 *             span_out, seen, scores, keep, after)
 *
 * A page after the walk in one call: the page-kind probabilities into kind (N_KINDS float64;
 * with kind_plan None, kind is read instead: None made no estimate); the class/id columns of
 * the rx group and stage 1's token weights from the page's tokens (classes: classes_get's
 * tuple); the dense row (features(), the heading lexicon); the shop group's cues where the plan
 * has its columns (shop_fill, at the product probability if it reaches shop_min_p; shop: its
 * class/id matcher and levels); stage 1, stage 2 (weight: the blocks' token counts), into
 * scores (n float64); then, for the most probable kind k (the first on ties), the cut at
 * cuts[k] (select) and where spans[k] >= 0 the span rule at that level outside the flags
 * span_out (seen: n uint8 or None), into keep (n uint8). html, url, joined: as kind_proba reads
 * them.
 *
 * after: None (returns None), or the rules, the thin-page rule and the text too (after_get's
 * tuple; Extractor.page_run): keep is then the kept blocks, and it returns (why, text): why
 * R_TEXT (text: the kept text), R_THIN or R_NONE (text ''). The GIL is released but for the
 * hidden copies' case folding (tidy_rest) and to make the str. */
static PyObject *page_scores(PyObject *self, PyObject *args) {
    PyObject *oplan, *okplan, *html, *url, *ocnt, *otag, *ontags, *odepth, *oflags, *ocont, *joined,
        *okind, *ocls, *ou, *oat, *olex, *otitles, *oshop, *oweight, *ocuts, *ospans, *oseen,
        *oscores, *okeep, *oafter;
    double shop_min_p;
    long long span_out;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOOOOOOOdOOOLOOOO", &oplan, &okplan, &html, &url, &ocnt,
                          &otag, &ontags, &odepth, &oflags, &ocont, &joined, &okind, &ocls, &ou, &oat,
                          &olex, &otitles, &oshop, &shop_min_p, &oweight, &ocuts, &ospans, &span_out,
                          &oseen, &oscores, &okeep, &oafter))
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
    const uint8_t *seen = NULL;
    double *kind = NULL;
    static double no_kind[N_KINDS]; /* a page with no kind estimate: zeros, read as the first kind's */
    int known = kp || okind != Py_None; /* a kind estimate: the rules after the cut read it */
    kind = block_bufs(&b, &p, ocnt, otag, ontags, odepth, oflags, ocont) < 0 ? NULL
           : known ? get(&b, okind, 8, N_KINDS, kp != NULL, "kind") : no_kind;
    const double *wt = kind ? get(&b, oweight, 8, n, 0, "weight") : NULL;
    double *scores = wt ? get(&b, oscores, 8, n, 1, "scores") : NULL;
    uint8_t *keep = scores ? get(&b, okeep, 1, n, 1, "keep") : NULL;
    const double *cuts = keep ? get(&b2, ocuts, 8, N_KINDS, 0, "cuts") : NULL;
    const double *spans = cuts ? get(&b2, ospans, 8, N_KINDS, 0, "spans") : NULL;
    if (!spans || texts_get(&b2, ou, oat, n, &p.T) < 0) goto done;
    p.kind = kind;
    if (oseen != Py_None && !(seen = get(&b2, oseen, 1, n, 0, "seen"))) goto done;
    classes_t cls;
    if (classes_get(ocls, &b2, n, &cls) < 0) goto done;
    p.rx_w = cls.rx_m ? (Py_ssize_t)(cls.rx_levels + 2) * cls.rx_bits : 0;
    void *shop_m = NULL;
    int shop_levels = 0;
    if (oshop != Py_None && (!PyArg_ParseTuple(oshop, "Oi", &shop_m, &shop_levels) ||
                             !(shop_m = PyCapsule_GetPointer(shop_m, cls.api->matcher_capsule))))
        goto done;
    if ((p.o_head >= 0 || p.o_rx >= 0) && (p.rx_w < 1 || p.rx_u >= p.rx_w || p.rx_n >= p.rx_w ||
                                           (p.o_rx >= 0 && p.o_rx + p.rx_w > q->width))) {
        PyErr_SetString(PyExc_ValueError, "page_scores: the class/id bits do not fit the plan");
        goto done;
    }
    if (q->extra && (q->extra != 3 || !shop_m || shop_levels < 0)) {
        PyErr_SetString(PyExc_ValueError, "page_scores: the plan's last columns are the shop group's "
                                          "(3), with its class/id matcher");
        goto done;
    }
    if (kp && kp->m.nk != N_KINDS) {
        PyErr_SetString(PyExc_ValueError, "page_scores: a page-kind model of the N_KINDS kinds");
        goto done;
    }
    after_t aft;
    const after_t *af = NULL;
    if (oafter != Py_None) {
        if (after_get(oafter, &cls, &b2, n, q->path, &aft) < 0) goto done;
        af = &aft;
    }
    int err = OK, rest = 0, why = R_TEXT;
    double *x = NULL, *tok = NULL, *own = NULL, *anc = NULL, *rx = NULL, *kx = NULL;
    double *cols[2] = {NULL, NULL};
    uint8_t *cut = NULL;
    tidy_page_t tp;
    Buf o = {NULL, 0, 0}; /* the text, UTF-8 */
    Py_BEGIN_ALLOW_THREADS
    x = PyMem_RawMalloc((size_t)(n * W) * sizeof(double));
    kx = kp ? PyMem_RawMalloc((size_t)kp->m.nf * sizeof(double)) : NULL;
    if (!x || (kp && !kx)) err = E_MEM;
    else if (kp && kind_core(&kp->m, &hs, &us, p.cnt, p.flags, p.tag, p.cont, n, joined,
                             kp->text_limit, kx, kind) < 0)
        err = E_MEM;
    if (err == OK && cls.rx_m && !(p.rx = rx = class_columns(&cls, cls.rx_m, cls.rx_levels, cls.rx_bits, n)))
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
        else {
            double *icv = shop_ic_fill(&cls, shop_m, shop_levels, n);
            if (!icv || shop_fill(&p, titles, icv, pp, x, W, q->width) < 0) err = E_MEM;
            PyMem_RawFree(icv);
        }
    }
    if (err == OK && (cls.v_own || cls.v_anc)) { /* stage 1's class/id token weights: own + anc */
        own = cls.v_own ? PyMem_RawMalloc((size_t)n * sizeof(double)) : NULL;
        anc = cls.v_anc ? PyMem_RawMalloc((size_t)n * sizeof(double)) : NULL;
        if ((cls.v_own && (!own || cls.api->ic_fill(cls.tokens, cls.v_own, cls.openers, (size_t)n, 0, own) < 0)) ||
            (cls.v_anc && (!anc || cls.api->ic_fill(cls.tokens, cls.v_anc, cls.openers, (size_t)n, 1, anc) < 0)))
            err = E_MEM;
        else if (own && anc) /* as Model.scores adds them */
            for (Py_ssize_t i = 0; i < n; i++) own[i] = own[i] + anc[i];
        tok = own ? own : anc;
    }
    if (err == OK)
        err = score_page(n, x, W, q->w, q->b1, tok, q->w2, q->b2, q->page_rel, p.cont, q->path, wt,
                         scores);
    if (err == OK) {
        Py_ssize_t k = 0; /* the most probable kind, the first on ties (np.argmax) */
        for (Py_ssize_t j = 1; j < N_KINDS; j++) if (kind[j] > kind[k]) k = j;
        select_page(scores, n, cuts[k], p.flags, q->code_bit, q->fallback_rel, keep);
        if (spans[k] >= 0) span_fill(keep, scores, p.flags, n, spans[k], span_out, seen);
        if (af) {
            if (!(cut = PyMem_RawMalloc((size_t)n))) err = E_MEM;
            else err = after_rules(af, &cls, &p, scores, known ? (int)k : -1, cut, keep, &tp, cols, &rest);
            if (err == OK && !rest && (why = after_text(af, &p, known ? kind : NULL, keep, &o)) < 0)
                err = E_MEM;
        }
    }
    PyMem_RawFree(x);
    PyMem_RawFree(own);
    PyMem_RawFree(anc);
    PyMem_RawFree(rx);
    PyMem_RawFree(kx);
    Py_END_ALLOW_THREADS
    if (raise_err(err)) goto after_done;
    if (!af) { ret = Py_NewRef(Py_None); goto after_done; }
    if (rest) { /* the hidden copies, with Python's case folding; then the rest */
        if (tidy_rest(&tp, rest) < 0) goto after_done;
        if ((why = after_text(af, &p, known ? kind : NULL, keep, &o)) < 0) {
            PyErr_NoMemory();
            goto after_done;
        }
    }
    PyObject *text = why != R_TEXT ? PyUnicode_FromString("")
                     : PyUnicode_DecodeUTF8(o.p ? o.p : "", (Py_ssize_t)o.n, "surrogatepass");
    if (text) ret = Py_BuildValue("(iN)", why, text);
after_done:
    PyMem_RawFree(cut);
    PyMem_RawFree(cols[0]);
    PyMem_RawFree(cols[1]);
    PyMem_RawFree(o.p);
done:
    release(&b);
    release(&b2);
    return ret;
}

static PyMethodDef methods[] = {
    PAGEKIND_METHODS
    DENSE_METHODS
    BLOCKMODEL_METHODS
    ARTICLES_METHODS
    RENDER_METHODS
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
