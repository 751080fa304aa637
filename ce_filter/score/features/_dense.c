/* The page after the walk in C: the dense block features (dense_a, dense_b) and stage 2's
 * context input (context). The numpy code of ce_filter/score/features (shallow.py, cetr.py,
 * dom.py, kind.py, context.py) is the reference: the values must be the same bit for bit (the
 * shipped models were fitted on them, and scripts/train_models.sh must rebuild them byte for
 * byte); tests compare the two on every corpus page and on edge pages, and features/dense.py
 * checks a probe page at first use.
 *
 * Why: over ~180 blocks a page, the numpy version is ~150 array calls of 1-5 us each; the
 * arithmetic itself is a few microseconds. Here each group is one pass.
 *
 * How the values stay identical:
 * - every operation is the reference's, in its order, in double precision, no FMA contraction
 *   (built with -ffp-contract=off);
 * - transcendental functions (log1p, ** 1.5) are not computed here: numpy's SIMD versions are
 *   not libm's bit for bit. dense_a writes their inputs, features/dense.py applies numpy once
 *   to the stacked inputs, dense_b reads the results;
 * - float sums numpy does pairwise (ndarray.sum) are done by numpy and passed in; the sums
 *   done here are those numpy does in order (np.cumsum, np.bincount), or sums of whole numbers
 *   (exact in any order);
 * - CETR's smoothing (np.convolve) and its k-means (_kmeans.c) stay where they are.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_common.h"
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

/* ------------------------------------------------------------------ dense_a */

/* lut[np.minimum(tag, len(lut) - 1)] (dom.TAG_GROUP_LUT; a negative index counts from the end) */
static inline int64_t tag_group(int64_t tag, const int64_t *lut, Py_ssize_t n_lut) {
    int64_t t = tag < n_lut - 1 ? tag : n_lut - 1;
    if (t < 0) t += n_lut;
    return t >= 0 ? lut[t] : -1;
}

/* dense_a(cnt, tag, n_tags, depth, flags, cont, lut, out, L, W, o_st, o_dom)
 *
 * cnt (n x 3 float64: characters, words, words in links), tag/flags (n int64), n_tags/depth
 * (n float64), cont (n x path int64), lut (int64: tag id -> tag group, dom.TAG_GROUP_LUT),
 * out (n x width float64: the page's dense matrix), L (4n + 2 float64: log1p's inputs: words,
 * tags, depth, CETR's ratio, then the page's words and the block count), W (4n + 1 float64: td,
 * ld, the prose base (n_tok * (1 - ld), 0 under 8 words), the link words ld * n_tok, then
 * the page's words max(n_tok.sum(), 1)).
 * o_st, o_dom: the groups' first columns in out (-1: not in the model). Fills st and every
 * dom column that needs no transcendental or float sum (the rest: dense_b). Returns the
 * heading blocks (tag group head_group) and those of them of at most head_words words (whose
 * titles headings.py's lexicon is to read), as two lists of block indices. */
static PyObject *dense_a(PyObject *self, PyObject *args) {
    PyObject *ocnt, *otag, *ontags, *odepth, *oflags, *ocont, *olut, *oout, *oL, *oW;
    Py_ssize_t n, path, width, o_st, o_dom, head_group, head_words;
    if (!PyArg_ParseTuple(args, "nnnOOOOOOOOOOnnnn", &n, &path, &width, &ocnt, &otag, &ontags,
                          &odepth, &oflags, &ocont, &olut, &oout, &oL, &oW, &o_st, &o_dom,
                          &head_group, &head_words))
        return NULL;
    if (n < 1 || path < 3 || width < 0) {
        PyErr_SetString(PyExc_ValueError, "n >= 1 blocks, path >= 3 levels");
        return NULL;
    }
    bufs_t b = {.n = 0};
    PyObject *ret = NULL;
    double *mass = NULL;
    Py_ssize_t *order = NULL;
    const double *cnt = get(&b, ocnt, 8, 3 * n, 0, "cnt");
    const int64_t *tag = cnt ? get(&b, otag, 8, n, 0, "tag") : NULL;
    const double *ntags = tag ? get(&b, ontags, 8, n, 0, "n_tags") : NULL;
    const double *depth = ntags ? get(&b, odepth, 8, n, 0, "depth") : NULL;
    const int64_t *flags = depth ? get(&b, oflags, 8, n, 0, "flags") : NULL;
    const int64_t *cont = flags ? get(&b, ocont, 8, n * path, 0, "cont") : NULL;
    const int64_t *lut = cont ? get(&b, olut, 8, 1, 0, "lut") : NULL;
    double *out = lut ? get(&b, oout, 8, n * width, 1, "out") : NULL;
    double *L = out ? get(&b, oL, 8, 4 * n + 2, 1, "L") : NULL;
    double *W = L ? get(&b, oW, 8, 4 * n + 1, 1, "W") : NULL;
    if (!W) goto done;
    Py_ssize_t n_lut = b.v[6].len / 8;
    if ((o_st >= 0 && o_st + 6 > width) || (o_dom >= 0 && o_dom + 54 > width)) {
        PyErr_SetString(PyExc_ValueError, "group columns past the matrix");
        goto done;
    }
    double *td = W, *ld = W + n, *base = W + 2 * n, *na = W + 3 * n;
    double tok_sum = 0.0, chr_sum = 0.0, tok_max = cnt[1], td_max = 0.0;
    int err = OK;
    PyThreadState *ts = unlock(n);
    Py_ssize_t main = 0;
    int64_t cmax = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        double n_chr = cnt[3 * i], n_tok = cnt[3 * i + 1], n_a = cnt[3 * i + 2];
        /* shallow.link_density, shallow.text_density */
        ld[i] = NP_MIN(n_a / NP_MAX(n_tok, 1.0), 1.0);
        double lines = floor(n_chr / 80.0);
        double full = lines > 0 ? n_tok * (lines * 80.0) / NP_MAX(n_chr, 1.0) : n_tok;
        td[i] = full / NP_MAX(lines, 1.0);
        base[i] = n_tok >= 8 ? n_tok * (1.0 - ld[i]) : 0.0; /* 0 ** 1.5 == 0.0 */
        na[i] = ld[i] * n_tok;
        L[i] = n_tok;
        L[n + i] = ntags[i];
        L[2 * n + i] = depth[i];
        L[3 * n + i] = n_chr / NP_MAX(ntags[i], 1.0); /* cetr: log1p of it is the ratio */
        tok_sum += n_tok; /* whole numbers: exact in any order */
        chr_sum += n_chr;
        if (n_tok > tok_max) { tok_max = n_tok; main = i; } /* np.argmax: the first maximum */
        if (i == 0 || td[i] > td_max) td_max = td[i];
        for (Py_ssize_t l = 0; l < path; l++)
            if (cont[i * path + l] > cmax) cmax = cont[i * path + l];
    }
    double total = dmax(tok_sum, 1.0); /* max(n_tok.sum(), 1.0) */
    L[4 * n] = total;
    W[4 * n] = total;
    L[4 * n + 1] = (double)n;
    if (o_st >= 0) {
        for (Py_ssize_t i = 0; i < n; i++) {
            double *r = out + i * width + o_st;
            r[0] = td[i];
            r[1] = ld[i];
            r[2] = i > 0 ? td[i - 1] : 0.0;
            r[3] = i > 0 ? ld[i - 1] : 0.0;
            r[4] = i + 1 < n ? td[i + 1] : 0.0;
            r[5] = i + 1 < n ? ld[i + 1] : 0.0;
        }
    }
    if (o_dom >= 0) {
        if (cmax < 0) { err = E_NEG; goto computed; }
        mass = PyMem_RawCalloc((size_t)cmax + 1, 3 * sizeof(double));
        order = PyMem_RawMalloc(2 * (size_t)n * sizeof(Py_ssize_t));
        if (!mass || !order) { err = E_MEM; goto computed; }
        /* dom.group_sum of n_tok over levels 0..2: np.bincount, in block order */
        for (Py_ssize_t i = 0; i < n; i++) {
            for (int l = 0; l < 3; l++) {
                int64_t c = cont[i * path + l];
                if (c < 0) { err = E_NEG; goto computed; }
                mass[3 * c + l] += cnt[3 * i + 1];
            }
        }
        argsort_desc(L, order, order + n, n); /* L's first row: the words */
        double td_div = dmax(td_max, 1.0), rank_div = (double)(n - 1 > 1 ? n - 1 : 1);
        double chr_div = dmax(chr_sum, 1.0);
        int64_t main_parent = cont[main * path + 1];
        double main_depth = depth[main], cum = 0.0;
        for (Py_ssize_t k = 0; k < n; k++) {
            Py_ssize_t i = order[k];
            out[i * width + o_dom + 41] = (double)k / rank_div; /* tok_rank */
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            double *r = out + i * width + o_dom;
            uint32_t f = (uint32_t)flags[i]; /* flags.astype("<u4"), bits unpacked */
            for (int k = 0; k < N_FLAGS; k++) r[k] = (double)((f >> k) & 1u);
            int64_t g = tag_group(tag[i], lut, n_lut);
            for (int k = 0; k < N_TAG_GROUPS; k++) r[N_FLAGS + k] = g == k ? 1.0 : 0.0;
            /* 32..36: _main_container (dense_b); 37..39: page_ld, page_log_tok (dense_b) */
            r[39] = tok_max / total; /* top_share */
            r[40] = td[i] / td_div;  /* td_rel */
            /* 41: tok_rank (above); 42..44: log columns (dense_b) */
            double dd = depth[i] - main_depth;
            r[45] = fabs(dd);
            r[46] = cont[i * path + 1] == main_parent ? 1.0 : 0.0;
            r[47] = (double)i / rank_div; /* pos */
            cum += cnt[3 * i];
            r[48] = (cum - cnt[3 * i]) / chr_div; /* char_pos */
            for (int l = 0; l < 3; l++) r[49 + l] = mass[3 * cont[i * path + l] + l] / total;
            /* 52, 53: log_tok_vs_max, n_blocks (dense_b) */
        }
    }
computed:
    relock(ts);
    if (raise_err(err)) goto done;
    /* the heading blocks (lut group head_group), and those of at most head_words words */
    PyObject *heads = PyList_New(0), *short_heads = PyList_New(0);
    if (!heads || !short_heads) { Py_XDECREF(heads); Py_XDECREF(short_heads); goto done; }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (tag_group(tag[i], lut, n_lut) != head_group) continue;
        PyObject *k = PyLong_FromSsize_t(i);
        int bad = !k || PyList_Append(heads, k) < 0 ||
                  (cnt[3 * i + 1] <= (double)head_words && PyList_Append(short_heads, k) < 0);
        Py_XDECREF(k);
        if (bad) { Py_DECREF(heads); Py_DECREF(short_heads); goto done; }
    }
    ret = Py_BuildValue("NN", heads, short_heads);
done:
    PyMem_RawFree(mass);
    PyMem_RawFree(order);
    release(&b);
    return ret;
}

/* ------------------------------------------------------------------ dense_b */

/* dense_b(n, path, width, lg, W, prose, prose_sum, na_sum, g, cont, kind, out, o_cetr, o_dom,
 * o_kind, rx, heads, lex, o_head, rx_w, rx_u, rx_n)
 *
 * lg: log1p of dense_a's L; W: dense_a's; prose: W's prose base ** 1.5; prose_sum, na_sum:
 * numpy's (pairwise) sums of prose and of W's link words; g: CETR's smoothed ratio (n); kind:
 * the page-kind probabilities (N_KINDS float64). Fills CETR's first three columns (the fourth,
 * the k-means verdict, is _kmeans'), the dom columns dense_a left, the kind group, and the
 * head group from rx (n x rx_w: the rx flags, rx_u and rx_n the level-0 unlikely and negative
 * columns), heads (dense_a's heading blocks) and lex (those whose title reads as boilerplate). */
static PyObject *dense_b(PyObject *self, PyObject *args) {
    PyObject *olg, *oW, *oprose, *og, *ocont, *okind, *oout, *orx, *oheads, *olex;
    Py_ssize_t n, path, width, o_cetr, o_dom, o_kind, o_head, rx_w, rx_u, rx_n;
    double prose_sum, na_sum;
    if (!PyArg_ParseTuple(args, "nnnOOOddOOOOnnnOO!O!nnnn", &n, &path, &width, &olg, &oW,
                          &oprose, &prose_sum, &na_sum, &og, &ocont, &okind, &oout, &o_cetr,
                          &o_dom, &o_kind, &orx, &PyList_Type, &oheads, &PyList_Type, &olex,
                          &o_head, &rx_w, &rx_u, &rx_n))
        return NULL;
    if (n < 1 || path < 5 || width < 0) {
        PyErr_SetString(PyExc_ValueError, "n >= 1 blocks, path >= 5 levels");
        return NULL;
    }
    if ((o_cetr >= 0 && o_cetr + 4 > width) || (o_dom >= 0 && o_dom + 54 > width) ||
        (o_kind >= 0 && o_kind + 4 * N_KINDS > width) || (o_head >= 0 && o_head + 4 > width) ||
        (o_head >= 0 && (rx_u < 0 || rx_n < 0 || rx_u >= rx_w || rx_n >= rx_w))) {
        PyErr_SetString(PyExc_ValueError, "group columns past the matrix");
        return NULL;
    }
    bufs_t b = {.n = 0};
    PyObject *ret = NULL;
    double *mass = NULL, *c = NULL;
    Py_ssize_t *hidx = NULL;
    const double *lg = get(&b, olg, 8, 4 * n + 2, 0, "lg");
    const double *W = lg ? get(&b, oW, 8, 4 * n + 1, 0, "W") : NULL;
    const double *prose = W ? get(&b, oprose, 8, n, 0, "prose") : NULL;
    const double *g = prose ? get(&b, og, 8, o_cetr >= 0 ? n : 0, 0, "g") : NULL;
    const int64_t *cont = g ? get(&b, ocont, 8, n * path, 0, "cont") : NULL;
    const double *kind = cont ? get(&b, okind, 8, N_KINDS, 0, "kind") : NULL;
    double *out = kind ? get(&b, oout, 8, n * width, 1, "out") : NULL;
    if (!out) goto done;
    const double *rx = o_head >= 0 ? get(&b, orx, 8, n * rx_w, 0, "rx") : NULL;
    if (o_head >= 0 && !rx) goto done;
    const double *td = W, *ld = W + n, *log_tok = lg;
    /* the heading blocks and the lexicon's, as indices (read with the GIL) */
    Py_ssize_t nh = PyList_GET_SIZE(oheads), nl = PyList_GET_SIZE(olex);
    hidx = PyMem_RawMalloc((size_t)(nh + nl + 1) * sizeof(Py_ssize_t));
    if (!hidx) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t k = 0; k < nh + nl; k++) {
        hidx[k] = PyLong_AsSsize_t(PyList_GET_ITEM(k < nh ? oheads : olex, k < nh ? k : k - nh));
        if (hidx[k] == -1 && PyErr_Occurred()) goto done;
    }
    int err = OK;
    PyThreadState *ts = unlock(n);
    if (o_cetr >= 0) {
        /* cetr.derivative: |mean of the next ALPHA smoothed ratios - this one| over np.cumsum */
        c = PyMem_RawMalloc((size_t)(n + 1) * sizeof(double));
        if (!c) { err = E_MEM; goto computed; }
        c[0] = 0.0;
        double acc = 0.0;
        for (Py_ssize_t i = 0; i < n; i++) { acc = i ? acc + g[i] : g[i]; c[i + 1] = acc; }
        for (Py_ssize_t i = 0; i < n; i++) {
            double *r = out + i * width + o_cetr;
            Py_ssize_t hi = i + ALPHA + 1 < n ? i + ALPHA + 1 : n, lo = i + 1;
            Py_ssize_t k = hi - lo > 1 ? hi - lo : 1;
            double ahead = hi > lo ? (c[hi] - c[lo]) / (double)k : g[i];
            r[0] = lg[3 * n + i];
            r[1] = g[i];
            r[2] = fabs(ahead - g[i]);
        }
    }
    if (o_dom >= 0) {
        double total = W[4 * n]; /* max(n_tok.sum(), 1.0) */
        double lt_max = log_tok[0];
        int64_t cmax = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            if (log_tok[i] > lt_max) lt_max = log_tok[i];
            for (Py_ssize_t l = 0; l < path; l++)
                if (cont[i * path + l] > cmax) cmax = cont[i * path + l];
                else if (cont[i * path + l] < 0) { err = E_NEG; goto computed; }
        }
        Py_ssize_t lvl4 = path - 1 < 4 ? path - 1 : 4;
        if (prose_sum > 0) {
            /* dom._main_container: the prose summed into every ancestor (np.bincount over the
             * flattened paths, in order); the candidate with the least mass, lowest id first */
            mass = PyMem_RawCalloc((size_t)cmax + 1, sizeof(double));
            if (!mass) { err = E_MEM; goto computed; }
            for (Py_ssize_t i = 0; i < n; i++)
                for (Py_ssize_t l = 0; l < path; l++) mass[cont[i * path + l]] += prose[i];
            mass[0] = 0.0;
            int64_t best = -1;
            double lim = MAIN_SHARE * prose_sum;
            for (int64_t e = 0; e <= cmax; e++)
                if (mass[e] >= lim && (best < 0 || mass[e] < mass[best])) best = e;
            for (Py_ssize_t i = 0; i < n; i++) {
                double *r = out + i * width + o_dom;
                const int64_t *ci = cont + i * path;
                Py_ssize_t at = -1;
                if (best >= 0)
                    for (Py_ssize_t l = 0; l < path; l++)
                        if (ci[l] == best) { at = l; break; }
                r[32] = at >= 0 ? 1.0 : 0.0;
                r[33] = (double)at;
                r[34] = mass[ci[1]] / prose_sum;
                r[35] = mass[ci[2]] / prose_sum;
                r[36] = mass[ci[lvl4]] / prose_sum;
            }
        } else {
            for (Py_ssize_t i = 0; i < n; i++)
                for (int k = 32; k < 37; k++) out[i * width + o_dom + k] = 0.0;
        }
        double page_ld = na_sum / total;
        for (Py_ssize_t i = 0; i < n; i++) {
            double *r = out + i * width + o_dom;
            r[37] = page_ld;
            r[38] = lg[4 * n]; /* page_log_tok */
            r[42] = log_tok[i];
            r[43] = lg[n + i];     /* log_tags */
            r[44] = lg[2 * n + i]; /* depth */
            r[52] = log_tok[i] - lt_max;
            r[53] = lg[4 * n + 1]; /* n_blocks */
        }
    }
    if (o_kind >= 0) {
        for (Py_ssize_t i = 0; i < n; i++) {
            double *r = out + i * width + o_kind;
            double x[3] = {log_tok[i], ld[i], td[i]}; /* kind.KIND_X */
            for (int k = 0; k < N_KINDS; k++) r[k] = kind[k];
            for (int j = 0; j < 3; j++)
                for (int k = 0; k < N_KINDS; k++) r[N_KINDS + j * N_KINDS + k] = x[j] * kind[k];
        }
    }
    if (o_head >= 0) {
        /* headings.heading_columns: a heading's own title (lex: the heading blocks whose title
         * the lexicon reads as boilerplate) and class/id (rx unlikely or negative); a block
         * under a heading takes its governing heading's two */
        const Py_ssize_t *hs = hidx, *ls = hidx + nh;
        Py_ssize_t h = 0, l = 0;
        double gov_lex = 0.0, gov_rx = 0.0;
        int seen = 0;
        Py_ssize_t next_h = nh ? hs[0] : -1;
        Py_ssize_t next_l = nl ? ls[0] : -1;
        for (Py_ssize_t i = 0; i < n; i++) {
            double *r = out + i * width + o_head;
            if (i == next_h) {
                double lex = 0.0;
                if (i == next_l) {
                    lex = 1.0;
                    next_l = ++l < nl ? ls[l] : -1;
                }
                double u = rx[i * rx_w + rx_u], v = rx[i * rx_w + rx_n];
                r[0] = gov_lex = lex;
                r[1] = gov_rx = NP_MAX(u, v);
                r[2] = r[3] = 0.0;
                seen = 1;
                next_h = ++h < nh ? hs[h] : -1;
            } else {
                r[0] = r[1] = 0.0;
                r[2] = seen ? gov_lex : 0.0;
                r[3] = seen ? gov_rx : 0.0;
            }
        }
    }
computed:
    relock(ts);
    if (!raise_err(err)) ret = Py_NewRef(Py_None);
done:
    PyMem_RawFree(hidx);
    PyMem_RawFree(mass);
    PyMem_RawFree(c);
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

static PyMethodDef methods[] = {
    {"dense_a", dense_a, METH_VARARGS, "st and the dom columns that need no transcendental"},
    {"dense_b", dense_b, METH_VARARGS, "CETR, the rest of dom, kind, from numpy's log1p/power/sums"},
    {"context", context, METH_VARARGS, "stage 2's context input (context.context_features)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_dense", NULL, -1, methods};

PyMODINIT_FUNC PyInit__dense(void) { return PyModule_Create(&module); }
