/* The page after the walk in C: the dense block features of the groups st, cetr, dom, rx,
 * head and kind in one call (features), CETR's smoothing on its own (smooth, for the ctx group
 * and research), stage 2's context input (context) and the repeated items' group (ritem).
 *
 * This code is the definition of these features: the shipped models are fitted on its values
 * (scripts/train_models.sh). The numpy versions under tests/oracles check it at a stated
 * tolerance. Same bits on every platform where the C library's log1p and exp give the same
 * bits (docs/ARCHITECTURE.md, "Floating point"): every other operation is IEEE-754 double
 * arithmetic (+ - * / sqrt) in a fixed order, built without fused multiply-add
 * (-ffp-contract=off), every sum in block order.
 *
 * Why one call: over ~180 blocks a page, a numpy version is ~150 array calls of 1-5 us each;
 * the arithmetic itself is a few microseconds.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_common.h"
#include "_phrases.h"
#include "score/features/_context.h"

#define N_FLAGS 20      /* segment.FLAG_NAMES */
#define N_TAG_GROUPS 12 /* dom.TAG_GROUPS */
#define N_KINDS 7       /* pagekind.KINDS */
#define MAIN_SHARE 0.5  /* dom.MAIN_SHARE */
#define ALPHA 3         /* cetr.ALPHA */

/* The arithmetic runs without the GIL (other threads run Python meanwhile): the buffers are
 * held (get), nothing in it calls Python, and its errors are noted (err) and raised after. Below
 * UNLOCK_MIN blocks the work is shorter than handing the GIL over, so it keeps the GIL. */
#define UNLOCK_MIN 64
static PyThreadState *unlock(Py_ssize_t n) { return n >= UNLOCK_MIN ? PyEval_SaveThread() : NULL; }
static void relock(PyThreadState *ts) { if (ts) PyEval_RestoreThread(ts); }

/* ------------------------------------------------------------------ ranks */

/* idx (n) sorted by descending key, ties in index order: np.argsort(-key, kind="stable") for
 * keys that are not NaN. A bottom-up merge sort (stable) over tmp (n). */
static void argsort_desc(const double *key, Py_ssize_t *idx, Py_ssize_t *tmp, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) idx[i] = i;
    for (Py_ssize_t w = 1; w < n; w *= 2) {
        for (Py_ssize_t lo = 0; lo < n; lo += 2 * w) {
            Py_ssize_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            Py_ssize_t a = lo, b = mid, k = lo;
            while (a < mid && b < hi) tmp[k++] = key[idx[b]] > key[idx[a]] ? idx[b++] : idx[a++];
            while (a < mid) tmp[k++] = idx[a++];
            while (b < hi) tmp[k++] = idx[b++];
        }
        memcpy(idx, tmp, (size_t)n * sizeof(Py_ssize_t));
    }
}

/* ------------------------------------------------------------------ pass one */

/* lut[min(tag, len(lut) - 1)] (dom's tag groups by tag id; a negative index counts from the end) */
static inline int64_t tag_group(int64_t tag, const int64_t *lut, Py_ssize_t n_lut) {
    int64_t t = tag < n_lut - 1 ? tag : n_lut - 1;
    if (t < 0) t += n_lut;
    return t >= 0 ? lut[t] : -1;
}

/* the page's arrays one pass reads (all n long but cnt, n x 3, and cont, n x path) */
typedef struct {
    Py_ssize_t n, path, width, n_lut;
    const double *cnt, *ntags, *depth, *kind, *rx;
    const int64_t *tag, *flags, *cont, *lut;
    texts_t T;                /* the block texts (the heading lexicon reads the headings') */
    const phrases_t *lexicon; /* the boilerplate section titles (headings.BOILER_WORDS) */
    double head_max_words;    /* a longer heading is prose: not read (headings.HEADING_MAX_WORDS) */
    double *out;
    Py_ssize_t o_st, o_cetr, o_dom, o_rx, o_kind, o_head, rx_w, rx_u, rx_n, head_group;
} page_t;

/* the per-block values both passes share: td, ld, log1p of the words, tags, depth and CETR's
 * ratio, the prose base ** 1.5, the smoothed ratio */
typedef struct {
    double *td, *ld, *lt, *ltags, *ldepth, *ttr, *prose, *g, *na;
    double tok_sum, chr_sum, tok_max, td_max, prose_sum, na_sum;
    Py_ssize_t main;
    int64_t cmax;
} vals_t;

/* 1 + x's logarithm: the C library's log1p (the one function here that is not IEEE-754
 * arithmetic) */
static inline double lg1p(double x) { return log1p(x); }

/* st and the block values: link and text density (shallow.py's definitions), the logarithms,
 * the prose base, the page's sums in block order */
static int pass_one(const page_t *p, vals_t *v) {
    Py_ssize_t n = p->n;
    v->tok_sum = v->chr_sum = v->prose_sum = v->na_sum = 0.0;
    v->tok_max = p->cnt[1];
    v->td_max = 0.0;
    v->main = 0;
    v->cmax = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        double n_chr = p->cnt[3 * i], n_tok = p->cnt[3 * i + 1], n_a = p->cnt[3 * i + 2];
        double ld = NP_MIN(n_a / NP_MAX(n_tok, 1.0), 1.0);
        double lines = floor(n_chr / 80.0);
        double full = lines > 0 ? n_tok * (lines * 80.0) / NP_MAX(n_chr, 1.0) : n_tok;
        double td = full / NP_MAX(lines, 1.0);
        double base = n_tok >= 8 ? n_tok * (1.0 - ld) : 0.0;
        v->td[i] = td;
        v->ld[i] = ld;
        v->prose[i] = base * sqrt(base); /* base ** 1.5, IEEE-exact steps */
        v->na[i] = ld * n_tok;
        v->lt[i] = lg1p(n_tok);
        v->ltags[i] = lg1p(p->ntags[i]);
        v->ldepth[i] = lg1p(p->depth[i]);
        v->ttr[i] = lg1p(n_chr / NP_MAX(p->ntags[i], 1.0));
        v->tok_sum += n_tok;
        v->chr_sum += n_chr;
        v->prose_sum += v->prose[i];
        v->na_sum += v->na[i];
        if (n_tok > v->tok_max) { v->tok_max = n_tok; v->main = i; } /* the first maximum */
        if (i == 0 || td > v->td_max) v->td_max = td;
        for (Py_ssize_t l = 0; l < p->path; l++) {
            int64_t c = p->cont[i * p->path + l];
            if (c < 0) return E_NEG;
            if (c > v->cmax) v->cmax = c;
        }
    }
    if (p->o_st >= 0) {
        for (Py_ssize_t i = 0; i < n; i++) {
            double *r = p->out + i * p->width + p->o_st;
            r[0] = v->td[i];
            r[1] = v->ld[i];
            r[2] = i > 0 ? v->td[i - 1] : 0.0;
            r[3] = i > 0 ? v->ld[i - 1] : 0.0;
            r[4] = i + 1 < n ? v->td[i + 1] : 0.0;
            r[5] = i + 1 < n ? v->ld[i + 1] : 0.0;
        }
    }
    return OK;
}

/* ------------------------------------------------------------------ CETR */

/* The Gaussian kernel (sigma 1 block, radius 3), normalised: exp(-x^2 / 2) / its sum, the sum
 * taken from x = -3 to 3. Filled once at import. */
#define RADIUS 3
static double kernel[2 * RADIUS + 1];

static void kernel_init(void) {
    double s = 0.0;
    for (int k = -RADIUS; k <= RADIUS; k++) s += (kernel[k + RADIUS] = exp(-0.5 * (double)(k * k)));
    for (int k = 0; k < 2 * RADIUS + 1; k++) kernel[k] /= s;
}

/* g = x smoothed by the kernel, the ends repeated: g[i] = sum over k of kernel[k] * x[i + k -
 * RADIUS] (clamped to the page), k ascending */
static void smooth_fill(const double *x, Py_ssize_t n, double *g) {
    for (Py_ssize_t i = 0; i < n; i++) {
        double acc = 0.0;
        for (int k = 0; k < 2 * RADIUS + 1; k++) {
            Py_ssize_t j = i + k - RADIUS;
            j = j < 0 ? 0 : (j >= n ? n - 1 : j);
            acc += kernel[k] * x[j];
        }
        g[i] = acc;
    }
}

/* CETR's per-page k-means (k = 3, seeds the lowest, median and highest of x + y after scaling
 * each by its maximum, iters + 1 rounds): 1.0 into verdict[i * stride] for the blocks outside
 * the cluster nearest the origin. idx: n scratch, lab: n scratch. Under 3 blocks: all 1.0. */
static void kmeans_fill(const double *a, const double *b, Py_ssize_t n, int iters, double *x,
                        double *y, Py_ssize_t *idx, Py_ssize_t *tmp, uint8_t *lab,
                        double *verdict, Py_ssize_t stride) {
    if (n < 3) {
        for (Py_ssize_t i = 0; i < n; i++) verdict[i * stride] = 1.0;
        return;
    }
    double ma = a[0], mb = b[0];
    for (Py_ssize_t i = 1; i < n; i++) {
        if (a[i] > ma) ma = a[i];
        if (b[i] > mb) mb = b[i];
    }
    ma = ma == 0.0 ? 1.0 : ma;
    mb = mb == 0.0 ? 1.0 : mb;
    double *key = x + n; /* x has 2n room */
    for (Py_ssize_t i = 0; i < n; i++) {
        x[i] = a[i] / ma;
        y[i] = b[i] / mb;
        key[i] = -(x[i] + y[i]);
    }
    /* ascending x + y, ties in index order: the stable descending sort of its negation */
    argsort_desc(key, idx, tmp, n);
    Py_ssize_t seeds[3] = {idx[0], idx[n / 2], idx[n - 1]};
    double cx[3], cy[3];
    for (int k = 0; k < 3; k++) { cx[k] = x[seeds[k]]; cy[k] = y[seeds[k]]; }
    for (int it = 0; it < iters + 1; it++) {
        double sx[3] = {0, 0, 0}, sy[3] = {0, 0, 0};
        Py_ssize_t cnt[3] = {0, 0, 0};
        for (Py_ssize_t i = 0; i < n; i++) {
            int best = 0;
            double bd = 0;
            for (int k = 0; k < 3; k++) {
                double dx = x[i] - cx[k], dy = y[i] - cy[k];
                double d = dx * dx + dy * dy;
                if (k == 0 || d < bd) { bd = d; best = k; }
            }
            lab[i] = (uint8_t)best;
            cnt[best]++;
            sx[best] += x[i];
            sy[best] += y[i];
        }
        for (int k = 0; k < 3; k++)
            if (cnt[k] > 0) { cx[k] = sx[k] / (double)cnt[k]; cy[k] = sy[k] / (double)cnt[k]; }
    }
    int boiler = 0;
    double bn = 0;
    for (int k = 0; k < 3; k++) {
        double d = cx[k] * cx[k] + cy[k] * cy[k];
        if (k == 0 || d < bn) { bn = d; boiler = k; }
    }
    for (Py_ssize_t i = 0; i < n; i++) verdict[i * stride] = lab[i] != boiler ? 1.0 : 0.0;
}

/* the cetr group: the log tag ratio, its smoothing, |mean of the next ALPHA - this one|, the
 * k-means verdict over the last two. c: n + 1 scratch for the running sum. */
static void cetr_fill(const page_t *p, const vals_t *v, double *c, double *x, Py_ssize_t *idx,
                      uint8_t *lab) {
    Py_ssize_t n = p->n;
    const double *g = v->g;
    c[0] = 0.0;
    for (Py_ssize_t i = 0; i < n; i++) c[i + 1] = c[i] + g[i];
    double *dg = x + 2 * n; /* x: 3n */
    for (Py_ssize_t i = 0; i < n; i++) {
        double *r = p->out + i * p->width + p->o_cetr;
        Py_ssize_t hi = i + ALPHA + 1 < n ? i + ALPHA + 1 : n, lo = i + 1;
        Py_ssize_t k = hi - lo > 1 ? hi - lo : 1;
        double ahead = hi > lo ? (c[hi] - c[lo]) / (double)k : g[i];
        r[0] = v->ttr[i];
        r[1] = g[i];
        r[2] = dg[i] = fabs(ahead - g[i]);
    }
    double *y = c; /* c is done with: n + 1 room */
    kmeans_fill(g, dg, n, 4, x, y, idx, idx + n, lab, p->out + p->o_cetr + 3, p->width);
}

/* ------------------------------------------------------------------ dom */

/* dom: the flags as bits, the tag group, readability's main container in vector form, the
 * page's figures, ranks and positions. mass: (cmax + 1) x 3 zeroed scratch; order: 2n. */
static int dom_fill(const page_t *p, const vals_t *v, double *mass, Py_ssize_t *order) {
    Py_ssize_t n = p->n, path = p->path, w = p->width;
    const int64_t *cont = p->cont;
    double total = dmax(v->tok_sum, 1.0);
    /* words per ancestor at levels 0..2, summed in block order */
    for (Py_ssize_t i = 0; i < n; i++)
        for (int l = 0; l < 3; l++) mass[3 * cont[i * path + l] + l] += p->cnt[3 * i + 1];
    argsort_desc(v->lt, order, order + n, n); /* log1p is monotone: the words' order */
    double td_div = dmax(v->td_max, 1.0), rank_div = (double)(n - 1 > 1 ? n - 1 : 1);
    double chr_div = dmax(v->chr_sum, 1.0);
    int64_t main_parent = cont[v->main * path + 1];
    double main_depth = p->depth[v->main], cum = 0.0, lt_max = v->lt[0];
    double page_ld = v->na_sum / total, page_lt = lg1p(total), n_blocks = lg1p((double)n);
    for (Py_ssize_t i = 1; i < n; i++)
        if (v->lt[i] > lt_max) lt_max = v->lt[i];
    for (Py_ssize_t k = 0; k < n; k++) p->out[order[k] * w + p->o_dom + 41] = (double)k / rank_div;
    for (Py_ssize_t i = 0; i < n; i++) {
        double *r = p->out + i * w + p->o_dom;
        uint32_t f = (uint32_t)p->flags[i];
        for (int k = 0; k < N_FLAGS; k++) r[k] = (double)((f >> k) & 1u);
        int64_t g = tag_group(p->tag[i], p->lut, p->n_lut);
        for (int k = 0; k < N_TAG_GROUPS; k++) r[N_FLAGS + k] = g == k ? 1.0 : 0.0;
        /* 32..36: the main container (below) */
        r[37] = page_ld;
        r[38] = page_lt;
        r[39] = v->tok_max / total; /* top_share */
        r[40] = v->td[i] / td_div;  /* td_rel */
        r[42] = v->lt[i];
        r[43] = v->ltags[i];
        r[44] = v->ldepth[i];
        r[45] = fabs(p->depth[i] - main_depth);
        r[46] = cont[i * path + 1] == main_parent ? 1.0 : 0.0;
        r[47] = (double)i / rank_div; /* pos */
        r[48] = cum / chr_div;         /* char_pos: the characters before the block */
        cum += p->cnt[3 * i];
        for (int l = 0; l < 3; l++) r[49 + l] = mass[3 * cont[i * path + l] + l] / total;
        r[52] = v->lt[i] - lt_max;
        r[53] = n_blocks;
    }
    /* the main container: the prose (long, link-poor blocks) summed into every ancestor; the
     * element with the least prose still holding MAIN_SHARE of the page's, lowest id first */
    Py_ssize_t lvl4 = path - 1 < 4 ? path - 1 : 4;
    if (!(v->prose_sum > 0)) {
        for (Py_ssize_t i = 0; i < n; i++)
            for (int k = 32; k < 37; k++) p->out[i * w + p->o_dom + k] = 0.0;
        return OK;
    }
    double *pm = mass; /* reused: cmax + 1 */
    for (int64_t e = 0; e <= v->cmax; e++) pm[e] = 0.0;
    for (Py_ssize_t i = 0; i < n; i++)
        for (Py_ssize_t l = 0; l < path; l++) pm[cont[i * path + l]] += v->prose[i];
    pm[0] = 0.0;
    int64_t best = -1;
    double lim = MAIN_SHARE * v->prose_sum;
    for (int64_t e = 0; e <= v->cmax; e++)
        if (pm[e] >= lim && (best < 0 || pm[e] < pm[best])) best = e;
    for (Py_ssize_t i = 0; i < n; i++) {
        double *r = p->out + i * w + p->o_dom;
        const int64_t *ci = cont + i * path;
        Py_ssize_t at = -1;
        if (best >= 0)
            for (Py_ssize_t l = 0; l < path; l++)
                if (ci[l] == best) { at = l; break; }
        r[32] = at >= 0 ? 1.0 : 0.0;
        r[33] = (double)at;
        r[34] = pm[ci[1]] / v->prose_sum;
        r[35] = pm[ci[2]] / v->prose_sum;
        r[36] = pm[ci[lvl4]] / v->prose_sum;
    }
    return OK;
}

/* ------------------------------------------------------------------ rx, head, kind */

/* rx: the class/id pattern bits copied in; head: a heading's own title (lex) and class/id (rx
 * unlikely or negative), a block after a heading takes its governing heading's two; kind: the
 * page-kind probabilities and their products with log words, ld and td */
static int rx_head_kind_fill(const page_t *p, const vals_t *v) {
    Py_ssize_t n = p->n, w = p->width;
    if (p->o_rx >= 0)
        for (Py_ssize_t i = 0; i < n; i++)
            memcpy(p->out + i * w + p->o_rx, p->rx + i * p->rx_w, (size_t)p->rx_w * sizeof(double));
    if (p->o_head >= 0) {
        double gov_lex = 0.0, gov_rx = 0.0;
        for (Py_ssize_t i = 0; i < n; i++) {
            double *r = p->out + i * w + p->o_head;
            if (tag_group(p->tag[i], p->lut, p->n_lut) == p->head_group) {
                double u = p->rx[i * p->rx_w + p->rx_u], q = p->rx[i * p->rx_w + p->rx_n];
                int lex = 0; /* a short heading whose title reads as boilerplate */
                if (p->cnt[3 * i + 1] <= p->head_max_words) {
                    Py_ssize_t len;
                    const char *t = text_at(&p->T, i, &len);
                    if ((lex = phrases_search(p->lexicon, t, len)) < 0) return E_MEM;
                }
                r[0] = gov_lex = lex ? 1.0 : 0.0;
                r[1] = gov_rx = NP_MAX(u, q);
                r[2] = r[3] = 0.0;
            } else {
                r[0] = r[1] = 0.0;
                r[2] = gov_lex;
                r[3] = gov_rx;
            }
        }
    }
    if (p->o_kind >= 0) {
        for (Py_ssize_t i = 0; i < n; i++) {
            double *r = p->out + i * w + p->o_kind;
            double x[3] = {v->lt[i], v->ld[i], v->td[i]}; /* kind.KIND_X */
            for (int k = 0; k < N_KINDS; k++) r[k] = p->kind[k];
            for (int j = 0; j < 3; j++)
                for (int k = 0; k < N_KINDS; k++) r[N_KINDS + j * N_KINDS + k] = x[j] * p->kind[k];
        }
    }
    return OK;
}

/* every column of the groups at p's offsets: the page's features, without Python (the GIL
 * may be released; OK, or the error to raise) */
static int compute(const page_t *p) {
    Py_ssize_t n = p->n;
    /* scratch: the block values (9n), k-means and CETR (3n + n + 1), ranks (2n idx) */
    double *f = PyMem_RawMalloc((size_t)(13 * n + 1) * sizeof(double));
    Py_ssize_t *idx = PyMem_RawMalloc(2 * (size_t)n * sizeof(Py_ssize_t));
    uint8_t *lab = PyMem_RawMalloc((size_t)n);
    double *mass = NULL;
    int err = OK;
    if (!f || !idx || !lab) { err = E_MEM; goto done; }
    vals_t v = {.td = f, .ld = f + n, .lt = f + 2 * n, .ltags = f + 3 * n, .ldepth = f + 4 * n,
                .ttr = f + 5 * n, .prose = f + 6 * n, .g = f + 7 * n, .na = f + 8 * n};
    if ((err = pass_one(p, &v)) != OK) goto done;
    if (p->o_cetr >= 0) {
        smooth_fill(v.ttr, n, v.g);
        cetr_fill(p, &v, f + 12 * n, f + 9 * n, idx, lab);
    }
    if (p->o_dom >= 0) {
        mass = PyMem_RawCalloc((size_t)v.cmax + 1, 3 * sizeof(double));
        if (!mass) { err = E_MEM; goto done; }
        err = dom_fill(p, &v, mass, idx);
    }
    if (err == OK) err = rx_head_kind_fill(p, &v);
done:
    PyMem_RawFree(f);
    PyMem_RawFree(idx);
    PyMem_RawFree(lab);
    PyMem_RawFree(mass);
    return err;
}

/* ------------------------------------------------------------------ features */

/* the page's block arrays into p (held in b, its first six buffers): the counts (n x 3), tags,
 * tag counts, depths, flags and ancestor ids (n x p->path); 0, or -1 with the error set */
static int block_bufs(bufs_t *b, page_t *p, PyObject *ocnt, PyObject *otag, PyObject *ontags,
                      PyObject *odepth, PyObject *oflags, PyObject *ocont) {
    Py_ssize_t n = p->n;
    p->cnt = get(b, ocnt, 8, 3 * n, 0, "cnt");
    p->tag = p->cnt ? get(b, otag, 8, n, 0, "tag") : NULL;
    p->ntags = p->tag ? get(b, ontags, 8, n, 0, "n_tags") : NULL;
    p->depth = p->ntags ? get(b, odepth, 8, n, 0, "depth") : NULL;
    p->flags = p->depth ? get(b, oflags, 8, n, 0, "flags") : NULL;
    p->cont = p->flags ? get(b, ocont, 8, n * p->path, 0, "cont") : NULL;
    return p->cont ? 0 : -1;
}

/* features(n, path, width, cnt, tag, n_tags, depth, flags, cont, lut, kind, rx, utf8, starts,
 *          lexicon, head_max_words, out, o_st, o_cetr, o_dom, o_rx, o_kind, o_head, head_group,
 *          rx_u, rx_n)
 *
 * cnt (n x 3 float64: characters, words, words in links), tag/flags (n int64), n_tags/depth
 * (n float64), cont (n x path int64 ancestor ids), lut (int64: tag id -> tag group), kind
 * (N_KINDS float64), rx (n x rx_w float64, the class/id pattern bits; rx_w = its length / n,
 * read for rx and head), utf8/starts (the block texts: texts.TextColumn.c_args), lexicon (a
 * phrases capsule: the titles the head group reads as boilerplate in a heading of at most
 * head_max_words words), out (n x width float64). o_*: each group's first column in a row of out
 * (-1: not in the model). Fills every column of those groups. */
static PyObject *features(PyObject *self, PyObject *args) {
    PyObject *ocnt, *otag, *ontags, *odepth, *oflags, *ocont, *olut, *okind, *orx, *ou, *oat, *olexicon, *oout;
    page_t p;
    if (!PyArg_ParseTuple(args, "nnn" "OOOOOOOOOOOOdO" "nnnnnnnnn", &p.n, &p.path, &p.width, &ocnt, &otag,
                          &ontags, &odepth, &oflags, &ocont, &olut, &okind, &orx, &ou, &oat,
                          &olexicon, &p.head_max_words, &oout,
                          &p.o_st, &p.o_cetr, &p.o_dom, &p.o_rx, &p.o_kind, &p.o_head,
                          &p.head_group, &p.rx_u, &p.rx_n))
        return NULL;
    Py_ssize_t n = p.n;
    if (n < 1 || p.path < 5 || p.width < 0) {
        PyErr_SetString(PyExc_ValueError, "n >= 1 blocks, path >= 5 levels");
        return NULL;
    }
    if (!(p.lexicon = PyCapsule_GetPointer(olexicon, PHRASES_CAPSULE))) return NULL;
    bufs_t b = {.n = 0};
    PyObject *ret = NULL;
    p.lut = block_bufs(&b, &p, ocnt, otag, ontags, odepth, oflags, ocont) == 0
                ? get(&b, olut, 8, 1, 0, "lut") : NULL;
    p.kind = p.lut ? get(&b, okind, 8, N_KINDS, 0, "kind") : NULL;
    p.rx = p.kind ? get(&b, orx, 8, 0, 0, "rx") : NULL;
    p.out = p.rx ? get(&b, oout, 8, n * p.width, 1, "out") : NULL;
    if (!p.out || texts_get(&b, ou, oat, n, &p.T) < 0) goto done;
    p.n_lut = b.v[6].len / 8;
    p.rx_w = b.v[8].len / 8 / n;
    if ((p.o_st >= 0 && p.o_st + 6 > p.width) || (p.o_cetr >= 0 && p.o_cetr + 4 > p.width) ||
        (p.o_dom >= 0 && p.o_dom + 54 > p.width) || (p.o_rx >= 0 && p.o_rx + p.rx_w > p.width) ||
        (p.o_kind >= 0 && p.o_kind + 4 * N_KINDS > p.width) ||
        (p.o_head >= 0 && p.o_head + 4 > p.width) ||
        ((p.o_head >= 0 || p.o_rx >= 0) && (p.rx_w < 1 || p.rx_u < 0 || p.rx_n < 0 ||
                                             p.rx_u >= p.rx_w || p.rx_n >= p.rx_w))) {
        PyErr_SetString(PyExc_ValueError, "group columns past the matrix");
        goto done;
    }
    PyThreadState *ts = unlock(n);
    int err = compute(&p);
    relock(ts);
    if (!raise_err(err)) ret = Py_NewRef(Py_None);
done:
    release(&b);
    return ret;
}

/* smooth(x, out): CETR's smoothing of any float64 array into out (the ctx group's td_smooth) */
static PyObject *smooth(PyObject *self, PyObject *args) {
    PyObject *ox, *oout;
    if (!PyArg_ParseTuple(args, "OO", &ox, &oout)) return NULL;
    bufs_t b = {.n = 0};
    PyObject *ret = NULL;
    const double *x = get(&b, ox, 8, 0, 0, "x");
    double *out = x ? get(&b, oout, 8, b.v[0].len / 8, 1, "out") : NULL;
    if (out) {
        smooth_fill(x, b.v[0].len / 8, out);
        ret = Py_NewRef(Py_None);
    }
    release(&b);
    return ret;
}

/* ------------------------------------------------------------------ context */

/* context(s, cont, weight, page_rel, s_sum, path, out): context_fill from Python (cont and
 * weight may be None). */
static PyObject *context(PyObject *self, PyObject *args) {
    PyObject *os, *ocont, *ow, *oout;
    int page_rel;
    double s_sum;
    Py_ssize_t n, path;
    if (!PyArg_ParseTuple(args, "nOOOpdnO", &n, &os, &ocont, &ow, &page_rel, &s_sum, &path, &oout))
        return NULL;
    Py_ssize_t width = 2 * CONTEXT + 7 + page_rel;
    if (n < 1 || (ocont != Py_None && path < 4)) {
        PyErr_SetString(PyExc_ValueError, "n >= 1 blocks, path >= 4 levels");
        return NULL;
    }
    bufs_t b = {.n = 0};
    PyObject *ret = NULL;
    const int64_t *cont = NULL;
    const double *w = NULL, *s = get(&b, os, 8, n, 0, "s");
    if (!s) goto done;
    if (ocont != Py_None && !(cont = get(&b, ocont, 8, n * path, 0, "cont"))) goto done;
    if (ow != Py_None && !(w = get(&b, ow, 8, n, 0, "weight"))) goto done;
    double *out = get(&b, oout, 8, n * width, 1, "out");
    if (!out) goto done;
    PyThreadState *ts = unlock(n);
    int err = context_fill(n, s, cont, path, w, page_rel, s_sum, out);
    relock(ts);
    if (!raise_err(err)) ret = Py_NewRef(Py_None);
done:
    release(&b);
    return ret;
}


/* ------------------------------------------------------------------ repeated items */

/* The group ``ritem`` (features/repitem.py): groups of same-shaped siblings. A block's item is
 * its ancestor RI_LEVEL_LO..RI_LEVEL_HI levels up, the item's box the ancestor one level
 * further; the items of one box whose first block (in block order) has the same tag are one
 * group, a repeated structure at RI_MIN_ITEMS items or more. */
#define RI_LEVEL_LO 1
#define RI_LEVEL_HI 3
#define RI_MIN_ITEMS 3
#define RI_WIDTH 7

typedef struct {
    int64_t box, shape, item;
    Py_ssize_t i;
} rkey_t;

static int cmp_item(const void *a, const void *b) {
    const rkey_t *x = a, *y = b;
    if (x->item != y->item) return x->item < y->item ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

static int cmp_group(const void *a, const void *b) {
    const rkey_t *x = a, *y = b;
    if (x->box != y->box) return x->box < y->box ? -1 : 1;
    if (x->shape != y->shape) return x->shape < y->shape ? -1 : 1;
    if (x->item != y->item) return x->item < y->item ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

static inline int price_sign(Py_UCS4 c) {
    return c == 0x24 || c == 0xa3 || c == 0xa5 || c == 0x20ac || c == 0x20b9 || c == 0x20bd;
}
static inline int is_digit09(Py_UCS4 c) { return c >= '0' && c <= '9'; }
static inline int is_gap(Py_UCS4 c) { return c == ' ' || c == 0xa0; }

/* a price: a currency sign ($ £ ¥ € ₹ ₽) with an ASCII digit next to it, on either side, or one
 * space (or no-break space) between: "$5", "€ 12", "19,99 €", "100$" */
static int has_price(PyObject *t) {
    Py_ssize_t len = PyUnicode_GET_LENGTH(t);
    int kind = PyUnicode_KIND(t);
    const void *d = PyUnicode_DATA(t);
    for (Py_ssize_t j = 0; j < len; j++) {
        if (!price_sign(PyUnicode_READ(kind, d, j))) continue;
        Py_UCS4 a1 = j + 1 < len ? PyUnicode_READ(kind, d, j + 1) : 0;
        Py_UCS4 a2 = j + 2 < len ? PyUnicode_READ(kind, d, j + 2) : 0;
        Py_UCS4 b1 = j >= 1 ? PyUnicode_READ(kind, d, j - 1) : 0;
        Py_UCS4 b2 = j >= 2 ? PyUnicode_READ(kind, d, j - 2) : 0;
        if (is_digit09(a1) || (is_gap(a1) && is_digit09(a2)) || is_digit09(b1) ||
            (is_gap(b1) && is_digit09(b2)))
            return 1;
    }
    return 0;
}

/* the columns (RI_WIDTH, from out's column o): per block, of its group at the level of the most
 * items (the nearest level on ties; zeros outside any group): log1p(items), the group's words /
 * the page's, its link words / max(its words, 1), log1p(words / items), the share of its items
 * with a heading block, with a price; and 1 where the block is a heading in such a group. */
static int ritem_fill(Py_ssize_t n, Py_ssize_t path, Py_ssize_t width, Py_ssize_t o, const double *cnt,
                      const int64_t *tag, const int64_t *cont, const uint8_t *head, const uint8_t *price,
                      double *out) {
    rkey_t *k = PyMem_RawMalloc((size_t)n * sizeof(rkey_t));
    double *best = PyMem_RawCalloc((size_t)n, sizeof(double));
    if (!k || !best) {
        PyMem_RawFree(k);
        PyMem_RawFree(best);
        return E_MEM;
    }
    double total = 0.0;
    for (Py_ssize_t i = 0; i < n; i++) {
        total += cnt[3 * i + 1];
        for (Py_ssize_t c = 0; c < RI_WIDTH; c++) out[i * width + o + c] = 0.0;
    }
    total = NP_MAX(total, 1.0);
    for (Py_ssize_t lvl = RI_LEVEL_LO; lvl <= RI_LEVEL_HI && lvl + 1 < path; lvl++) {
        Py_ssize_t m = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            int64_t item = cont[i * path + lvl], box = cont[i * path + lvl + 1];
            if (item > 0 && box > 0) k[m++] = (rkey_t){box, 0, item, i};
        }
        if (!m) continue;
        qsort(k, (size_t)m, sizeof(rkey_t), cmp_item);
        for (Py_ssize_t a = 0; a < m;) { /* an item's shape: its first block's tag */
            Py_ssize_t z = a;
            while (z < m && k[z].item == k[a].item) z++;
            for (Py_ssize_t j = a; j < z; j++) k[j].shape = tag[k[a].i];
            a = z;
        }
        qsort(k, (size_t)m, sizeof(rkey_t), cmp_group);
        for (Py_ssize_t a = 0; a < m;) {
            Py_ssize_t z = a;
            double items = 0.0, words = 0.0, link = 0.0, heads = 0.0, prices = 0.0;
            int h = 0, p = 0;
            for (; z < m && k[z].box == k[a].box && k[z].shape == k[a].shape; z++) {
                Py_ssize_t i = k[z].i;
                words += cnt[3 * i + 1];
                link += cnt[3 * i + 2];
                h |= head[i] != 0;
                p |= price[i] != 0;
                if (z + 1 == m || k[z + 1].item != k[z].item || k[z + 1].box != k[z].box ||
                    k[z + 1].shape != k[z].shape) { /* the item's last block */
                    items += 1.0;
                    heads += h;
                    prices += p;
                    h = p = 0;
                }
            }
            if (items >= RI_MIN_ITEMS) {
                for (Py_ssize_t j = a; j < z; j++) {
                    Py_ssize_t i = k[j].i;
                    if (!(items > best[i])) continue;
                    best[i] = items;
                    double *r = out + i * width + o;
                    r[0] = log1p(items);
                    r[1] = words / total;
                    r[2] = link / NP_MAX(words, 1.0);
                    r[3] = log1p(words / items);
                    r[4] = heads / items;
                    r[5] = prices / items;
                    r[6] = head[i] ? 1.0 : 0.0;
                }
            }
            a = z;
        }
    }
    PyMem_RawFree(k);
    PyMem_RawFree(best);
    return OK;
}

/* ritem(n, path, width, o, cnt, tag, cont, is_head, texts, out): the ritem group's columns into
 * out (n x width float64) from column o. cnt (n x 3 float64), tag (n int64), cont (n x path
 * int64), is_head (uint8 by tag id: a heading tag), texts (n str: the blocks' texts, read for
 * prices). */
static PyObject *ritem(PyObject *self, PyObject *args) {
    PyObject *ocnt, *otag, *ocont, *ohead, *texts, *oout;
    Py_ssize_t n, path, width, o;
    if (!PyArg_ParseTuple(args, "nnnnOOOOO!O", &n, &path, &width, &o, &ocnt, &otag, &ocont, &ohead,
                          &PyList_Type, &texts, &oout))
        return NULL;
    if (n < 1 || path < RI_LEVEL_HI + 2 || o < 0 || o + RI_WIDTH > width || PyList_GET_SIZE(texts) != n) {
        PyErr_SetString(PyExc_ValueError, "ritem: n >= 1 blocks and texts, path >= 5, columns in the matrix");
        return NULL;
    }
    bufs_t b = {.n = 0};
    PyObject *ret = NULL;
    uint8_t *price = NULL;
    const double *cnt = get(&b, ocnt, 8, 3 * n, 0, "cnt");
    const int64_t *tag = cnt ? get(&b, otag, 8, n, 0, "tag") : NULL;
    const int64_t *cont = tag ? get(&b, ocont, 8, n * path, 0, "cont") : NULL;
    const uint8_t *lut = cont ? get(&b, ohead, 1, 1, 0, "is_head") : NULL;
    double *out = lut ? get(&b, oout, 8, n * width, 1, "out") : NULL;
    if (!out) goto done;
    Py_ssize_t n_lut = b.v[3].len;
    price = PyMem_Malloc((size_t)n * 2);
    if (!price) {
        PyErr_NoMemory();
        goto done;
    }
    uint8_t *head = price + n;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = PyList_GET_ITEM(texts, i);
        if (!PyUnicode_Check(t)) {
            PyErr_SetString(PyExc_TypeError, "ritem: texts must be str");
            goto done;
        }
        price[i] = (uint8_t)has_price(t);
        int64_t g = tag[i] < n_lut - 1 ? tag[i] : n_lut - 1;
        head[i] = g >= 0 ? lut[g] : 0;
    }
    PyThreadState *ts = unlock(n);
    int err = ritem_fill(n, path, width, o, cnt, tag, cont, head, price, out);
    relock(ts);
    if (!raise_err(err)) ret = Py_NewRef(Py_None);
done:
    PyMem_Free(price);
    release(&b);
    return ret;
}

/* repeated(utf8, starts, out): out[i] = 1.0 where text i (texts.TextColumn.c_args) is the same
 * as an earlier block's, else 0.0 (shop.repeated; equal UTF-8, equal str) */
static PyObject *repeated(PyObject *self, PyObject *args) {
    PyObject *ou, *oat, *oo;
    if (!PyArg_ParseTuple(args, "OOO", &ou, &oat, &oo)) return NULL;
    bufs_t b = {.n = 0};
    PyObject *ret = NULL;
    Py_buffer *v = &b.v[b.n];
    if (PyObject_GetBuffer(oo, v, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) return NULL;
    b.n++;
    Py_ssize_t n = v->len / 8;
    double *out = v->buf;
    texts_t T;
    if (v->itemsize != 8 || texts_get(&b, ou, oat, n, &T) < 0) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "out: float64");
        goto done;
    }
    text_set_t seen;
    if (text_set_init(&seen, n) < 0) { PyErr_NoMemory(); goto done; }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) out[i] = text_set_add(&seen, &T, i) ? 1.0 : 0.0;
    Py_END_ALLOW_THREADS
    text_set_free(&seen);
    ret = Py_NewRef(Py_None);
done:
    release(&b);
    return ret;
}

/* phrase_hits(phrases, utf8, starts, idx, out): out[j] = 1 where block idx[j]'s text holds a
 * phrase of the capsule (phrases_search), else 0; idx int64, out uint8, both m long */
static PyObject *phrase_hits(PyObject *self, PyObject *args) {
    PyObject *ocap, *ou, *oat, *oidx, *oout;
    if (!PyArg_ParseTuple(args, "OOOOO", &ocap, &ou, &oat, &oidx, &oout)) return NULL;
    const phrases_t *ph = PyCapsule_GetPointer(ocap, PHRASES_CAPSULE);
    if (!ph) return NULL;
    Py_ssize_t n = PyObject_Length(oat) - 1, m; /* starts: n + 1 */
    if (n < 0) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "phrase_hits: starts of n + 1 texts");
        return NULL;
    }
    bufs_t b = {.n = 0};
    PyObject *ret = NULL;
    texts_t T;
    if (texts_get(&b, ou, oat, n, &T) < 0) goto done;
    const int64_t *idx = get(&b, oidx, 8, 0, 0, "idx");
    m = idx ? b.v[b.n - 1].len / 8 : 0;
    uint8_t *out = idx ? get(&b, oout, 1, m, 1, "out") : NULL;
    if (!out) goto done;
    int err = OK;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t j = 0; j < m && err == OK; j++) {
        if (idx[j] < 0 || idx[j] >= n) { err = E_NEG; break; }
        Py_ssize_t len;
        const char *t = text_at(&T, idx[j], &len);
        int hit = phrases_search(ph, t, len);
        if (hit < 0) err = E_MEM;
        out[j] = (uint8_t)(hit > 0);
    }
    Py_END_ALLOW_THREADS
    if (err == E_NEG) PyErr_SetString(PyExc_IndexError, "phrase_hits: a block index out of range");
    else if (!raise_err(err)) ret = Py_NewRef(Py_None);
done:
    release(&b);
    return ret;
}

/* the part's functions, in the module of the pass after the walk (ce_filter/_pass.c) */
#define DENSE_METHODS \
    {"phrases", py_phrases, METH_VARARGS, "compiled phrases (_phrases.h): bounded, unspaced, slack"}, \
    {"phrase_hits", phrase_hits, METH_VARARGS, "which of the given blocks' texts hold a phrase"}, \
    {"features", features, METH_VARARGS, "the dense columns of st, cetr, dom, rx, head, kind"}, \
    {"smooth", smooth, METH_VARARGS, "CETR's Gaussian smoothing of a float64 array"}, \
    {"context", context, METH_VARARGS, "stage 2's context input (context.context_features)"}, \
    {"ritem", ritem, METH_VARARGS, "the ritem group's columns (features.repitem)"}, \
    {"repeated", repeated, METH_VARARGS, "the blocks whose text an earlier block has (shop.repeated)"},
#define DENSE_INIT() kernel_init()
