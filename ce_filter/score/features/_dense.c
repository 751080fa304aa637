/* The page after the walk in C: the dense block features and stage 2's context input, the
 * block model's scores and cut (score, select), the arithmetic of the rules after the cut
 * (tidy_plan, tidy_finish: articles.py's reference) and the kept text (text: render.py's
 * to_text_reference). For the features: the numpy code of
 * ce_filter/features (shallow.py, cetr.py, dom.py, kind.py, context.py) is the reference: the
 * values must be the same bit for bit (the shipped models were fitted on them, and
 * scripts/train_models.sh must rebuild them byte for byte); tests compare the two on every
 * corpus page and on edge pages, and features/fast.py checks a probe page at import.
 *
 * Why: over ~180 blocks a page, the numpy version is ~150 array calls of 1-5 us each; the
 * arithmetic itself is a few microseconds. Here each group is one pass.
 *
 * How the values stay identical:
 * - every operation is the reference's, in its order, in double precision, no FMA contraction
 *   (built with -ffp-contract=off);
 * - transcendental functions (log1p, ** 1.5) are not computed here: numpy's SIMD versions are
 *   not libm's bit for bit. dense_a writes their inputs, features/fast.py applies numpy once
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

#define N_FLAGS 20      /* segment.FLAG_NAMES */
#define N_TAG_GROUPS 12 /* dom.TAG_GROUPS */
#define N_KINDS 7       /* pagekind.KINDS */
#define MAIN_SHARE 0.5  /* dom.MAIN_SHARE */
#define ALPHA 3         /* cetr.ALPHA */
#define CONTEXT 3       /* context.CONTEXT */

/* ------------------------------------------------------------------ buffers */

typedef struct {
    Py_buffer v[12];
    int n;
} bufs_t;

static void release(bufs_t *b) {
    for (int i = 0; i < b->n; i++) PyBuffer_Release(&b->v[i]);
    b->n = 0;
}

/* a C-contiguous buffer of at least ``count`` items of ``size`` bytes, or NULL (error set) */
static void *get(bufs_t *b, PyObject *o, Py_ssize_t size, Py_ssize_t count, int writable,
                 const char *what) {
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

/* The arithmetic runs without the GIL (other threads run Python meanwhile): the buffers are
 * held (get), nothing in it calls Python, and its errors are noted (err) and raised after. Below
 * UNLOCK_MIN blocks the work is shorter than handing the GIL over, so it keeps the GIL. */
#define UNLOCK_MIN 64
enum { OK = 0, E_NEG = 1, E_MEM = 2 };
static PyThreadState *unlock(Py_ssize_t n) { return n >= UNLOCK_MIN ? PyEval_SaveThread() : NULL; }
static void relock(PyThreadState *ts) { if (ts) PyEval_RestoreThread(ts); }
static int raise_err(int err) {
    if (err == E_NEG) PyErr_SetString(PyExc_ValueError, "negative container ids");
    else if (err == E_MEM) PyErr_NoMemory();
    return err;
}

static inline double dmax(double a, double b) { return a >= b ? a : b; } /* max(a, b), a kept on ties */

/* np.maximum / np.minimum of non-NaN values (the inputs here are counts, never NaN) */
#define NP_MAX(a, b) ((a) >= (b) ? (a) : (b))
#define NP_MIN(a, b) ((a) <= (b) ? (a) : (b))

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

/* ------------------------------------------------------------------ scores and the cut */

/* numpy's pairwise sum of a contiguous float64 array (ndarray.sum): the same additions in the
 * same order (8 accumulators up to 128 items, halves above), so the same bits */
static double pairwise_sum(const double *a, Py_ssize_t n) {
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

/* score(n, x, width, w, b, tok, w2, b2, page_rel, cont, path, weight, out): Model.scores of a
 * model whose stage 1 is one linear layer over the dense matrix x (n x width) with weights w
 * (width) and intercept b, plus each block's token-weight sum tok (None: none), and whose stage
 * 2 (w2: None for none; 2 CONTEXT + 7 + page_rel weights, intercept b2) reads context_fill of
 * stage 1's probabilities (cont, weight: None or as context). The probabilities go into out
 * (n). Dot products in column order (not numpy's einsum order: equal to ~1e-15). */
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
    double *s1 = NULL, *ctx = NULL;
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
    int err = OK;
    PyThreadState *ts = PyEval_SaveThread();
    s1 = w2 ? PyMem_RawMalloc((size_t)n * sizeof(double)) : out;
    ctx = w2 ? PyMem_RawMalloc((size_t)(n * cw) * sizeof(double)) : NULL;
    if (!s1 || (w2 && !ctx)) { err = E_MEM; goto computed; }
    for (Py_ssize_t i = 0; i < n; i++) {
        double z = dot(x + i * width, w, width);
        z += b1;
        if (tok) z += tok[i];
        s1[i] = sigmoid(z);
    }
    if (w2) {
        err = context_fill(n, s1, cont, path, wt, page_rel, pairwise_sum(s1, n), ctx);
        if (err) goto computed;
        for (Py_ssize_t i = 0; i < n; i++) {
            out[i] = sigmoid(dot(ctx + i * cw, w2, cw) + b2);
        }
    }
computed:
    if (w2) PyMem_RawFree(s1);
    PyMem_RawFree(ctx);
    PyEval_RestoreThread(ts);
    if (!raise_err(err)) ret = Py_NewRef(Py_None);
done:
    release(&b);
    return ret;
}

/* select(scores, threshold, flags, code_bit, fallback_rel, out): extractor.select into out (n
 * bytes, 0/1): the blocks at or above the threshold, else those within fallback_rel of the best;
 * then a block whose flags have code_bit (inside a <pre>) between the first and the last kept
 * one. flags: None for no code rule. */
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
    const double *s = sv->buf;
    const int64_t *fl = NULL;
    if (of != Py_None && !(fl = get(&b, of, 8, n, 0, "flags"))) goto done;
    uint8_t *out = get(&b, oout, 1, n, 1, "out");
    if (!out) goto done;
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
    ret = Py_NewRef(Py_None);
done:
    release(&b);
    return ret;
}

/* ------------------------------------------------------------------ the rules after the cut */

/* the first buffer of b: a page's block mask (n bytes, 0/1), its length in n; NULL (error
 * set, nothing held) where it is not a contiguous buffer */
static const uint8_t *mask(bufs_t *b, PyObject *o, Py_ssize_t *n) {
    if (PyObject_GetBuffer(o, &b->v[0], PyBUF_C_CONTIGUOUS) < 0) return NULL;
    b->n = 1;
    *n = b->v[0].len;
    return b->v[0].buf;
}


/* Whether str t (of the ASCII letters' case) holds needle (lower-case ASCII letters other than
 * i and k: the only letters that a non-ASCII character lower-cases into, U+0130 and U+212A, so
 * that this is ``needle in t.lower()``) */
static int has_ascii(PyObject *t, const char *needle) {
    int kind = PyUnicode_KIND(t);
    const void *d = PyUnicode_DATA(t);
    Py_ssize_t n = PyUnicode_GET_LENGTH(t), m = (Py_ssize_t)strlen(needle);
    for (Py_ssize_t i = 0; i + m <= n; i++) {
        Py_ssize_t j = 0;
        for (; j < m; j++) {
            Py_UCS4 c = PyUnicode_READ(kind, d, i + j);
            if ((c >= 'A' && c <= 'Z' ? c + 32 : c) != (Py_UCS4)needle[j]) break;
        }
        if (j == m) return 1;
    }
    return 0;
}

/* Whether articles.is_label may hold for a block of text t (False only where it cannot: a
 * superset, the caller decides). lead: the characters stripped before a label's first three
 * (articles._LEAD); heads: the labels' first three characters (a set of str); markers: the
 * newsletter line's other markers (str, tested with ``in``). The first three characters after
 * the lead, where all are ASCII, must be a head; with a non-ASCII one among them, maybe. */
static int maybe_label(PyObject *t, double words, double short_words, Py_ssize_t short_chars,
                       PyObject *lead, PyObject *heads, PyObject *markers) {
    int kind = PyUnicode_KIND(t);
    const void *d = PyUnicode_DATA(t);
    Py_ssize_t n = PyUnicode_GET_LENGTH(t);
    if (words <= short_words && n < short_chars) {
        Py_ssize_t k = 0;
        while (k < n && PyUnicode_FindChar(lead, PyUnicode_READ(kind, d, k), 0,
                                           PyUnicode_GET_LENGTH(lead), 1) >= 0)
            k++;
        char head[4];
        int m = 0, ascii = 1;
        for (; m < 3 && k + m < n; m++) {
            Py_UCS4 c = PyUnicode_READ(kind, d, k + m);
            if (c > 127) { ascii = 0; break; }
            head[m] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
        }
        if (!ascii) return 1;
        PyObject *h = PyUnicode_FromStringAndSize(head, m);
        if (!h) return -1;
        int in = PySet_Contains(heads, h);
        Py_DECREF(h);
        if (in) return in;
    }
    if (has_ascii(t, "newsletter") || has_ascii(t, "suscr")) return 1;
    Py_ssize_t nm = PyList_GET_SIZE(markers);
    for (Py_ssize_t j = 0; j < nm; j++) {
        Py_ssize_t at = PyUnicode_Find(t, PyList_GET_ITEM(markers, j), 0, n, 1);
        if (at != -1) return at == -2 ? -1 : 1;
    }
    return 0;
}

/* tidy_plan(keep, counts, flags, texts, bylines, story_words, max_byline, max_label, figure_bit,
 * short_words, short_chars, lead, heads, markers): the kept blocks that articles.tidy's label
 * and byline rules are to read, in block order, each as 2 * index + edge (edge: a byline
 * candidate: before or after the story's paragraphs, or in a figure, and short enough; the
 * others of at most max_label words that may be labels: maybe_label). keep: n bytes (0/1);
 * counts: n x 3 float64 (characters, words, words in links: segment.Blocks.counts); flags: n
 * int64; texts: the blocks' str list; bylines: whether the byline rule runs (else no block is
 * an edge). */
static PyObject *tidy_plan(PyObject *self, PyObject *args) {
    PyObject *ok, *oc, *of, *texts, *lead, *heads, *markers;
    int by;
    double story, max_by, max_label, short_words;
    long long fig;
    Py_ssize_t short_chars;
    if (!PyArg_ParseTuple(args, "OOOO!pdddLdnUO!O!", &ok, &oc, &of, &PyList_Type, &texts, &by,
                          &story, &max_by, &max_label, &fig, &short_words, &short_chars, &lead,
                          &PyFrozenSet_Type, &heads, &PyList_Type, &markers))
        return NULL;
    bufs_t b = {.n = 0};
    PyObject *ret = NULL;
    Py_ssize_t n;
    const uint8_t *keep = mask(&b, ok, &n);
    if (!keep) return NULL;
    const double *cnt = get(&b, oc, 8, 3 * n, 0, "counts");
    const int64_t *fl = cnt ? get(&b, of, 8, n, 0, "flags") : NULL;
    if (!fl) goto done;
    if (PyList_GET_SIZE(texts) != n) { PyErr_SetString(PyExc_ValueError, "texts: n"); goto done; }
#define W(i) cnt[3 * (i) + 1]
    /* the story's span: from the first kept block of story_words words or more to the last
     * (the last itself stays an edge, as the reference's slice leaves it) */
    Py_ssize_t first = -1, last = -1;
    if (by)
        for (Py_ssize_t i = 0; i < n; i++)
            if (keep[i] && W(i) >= story) { if (first < 0) first = i; last = i; }
    if (!(ret = PyList_New(0))) goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!keep[i]) continue;
        int edge = by && (first < 0 || i < first || i >= last || (fl[i] & fig)) && W(i) <= max_by;
        if (!edge) {
            if (!(W(i) <= max_label)) continue;
            int maybe = maybe_label(PyList_GET_ITEM(texts, i), W(i), short_words, short_chars,
                                    lead, heads, markers);
            if (maybe < 0) { Py_CLEAR(ret); goto done; }
            if (!maybe) continue;
        }
        PyObject *v = PyLong_FromSsize_t(2 * i + edge);
        if (!v || PyList_Append(ret, v) < 0) { Py_XDECREF(v); Py_CLEAR(ret); goto done; }
        Py_DECREF(v);
    }
#undef W
done:
    release(&b);
    return ret;
}

typedef struct { int64_t key; Py_ssize_t at; } keyed_t;

static int by_key(const void *a, const void *b) {
    const keyed_t *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->at < y->at ? -1 : (x->at > y->at);
}

/* articles._units on out (n bytes): a table's cells (tag cell_a or cell_b, grouped by their
 * container at level 3) or a list's items (tag item, level 1) inside the kept span with mixed
 * decisions are kept whole where their mean score is at least cut, else dropped whole. The mean
 * as numpy's (pairwise sum / count). Returns OK or E_MEM. */
static int units(uint8_t *out, const double *s, const int64_t *tag, const int64_t *cont,
                 Py_ssize_t path, Py_ssize_t n, int64_t cell_a, int64_t cell_b, int64_t item,
                 double cut) {
    Py_ssize_t lo = -1, hi = -1, k = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        if (out[i]) { if (lo < 0) lo = i; hi = i; k++; }
    if (k < 3) return OK;
    int mixed = 0;
    for (Py_ssize_t i = lo; i <= hi && !mixed; i++)
        mixed = !out[i] && (tag[i] == cell_a || tag[i] == cell_b || tag[i] == item);
    if (!mixed) return OK;
    keyed_t *g = PyMem_RawMalloc((size_t)(hi - lo + 1) * sizeof(keyed_t));
    double *tmp = PyMem_RawMalloc((size_t)(hi - lo + 1) * sizeof(double));
    if (!g || !tmp) { PyMem_RawFree(g); PyMem_RawFree(tmp); return E_MEM; }
    for (int pass = 0; pass < 2; pass++) {
        Py_ssize_t m = 0, on = 0, level = pass == 0 ? 3 : 1;
        for (Py_ssize_t i = lo; i <= hi; i++) {
            int is = pass == 0 ? (tag[i] == cell_a || tag[i] == cell_b) : tag[i] == item;
            if (!is) continue;
            on += out[i];
            g[m].key = level < path ? cont[i * path + level] : 0;
            g[m++].at = i;
        }
        if (m < 2 || on == m || on == 0) continue;
        qsort(g, (size_t)m, sizeof(keyed_t), by_key);
        for (Py_ssize_t a = 0; a < m;) {
            Py_ssize_t z = a;
            while (z < m && g[z].key == g[a].key) z++;
            if (g[a].key != 0 && g[a].at > lo && g[z - 1].at < hi) {
                Py_ssize_t kept = 0;
                for (Py_ssize_t j = a; j < z; j++) kept += out[g[j].at];
                if (kept && kept < z - a) {
                    for (Py_ssize_t j = a; j < z; j++) tmp[j - a] = s[g[j].at];
                    uint8_t v = pairwise_sum(tmp, z - a) / (double)(z - a) >= cut;
                    for (Py_ssize_t j = a; j < z; j++) out[g[j].at] = v;
                }
            }
            a = z;
        }
    }
    PyMem_RawFree(g);
    PyMem_RawFree(tmp);
    return OK;
}

/* tidy_finish(keep, out, scores, tag, cont, path, flags, counts, texts, hidden_bit, cell_a,
 * cell_b, item, unit_cut, min_words, min_chars): articles.tidy's rules for an article after
 * the label, byline and comments rules: the tables and lists as units on out, then, where no
 * block of the cut's mask keep is hidden, the repeats rule (a kept block of min_words words or
 * min_chars characters, not a list item or table cell, whose text an earlier such block has,
 * is dropped). Returns True where some kept block is hidden: the caller then runs the repeats
 * and hidden rules itself (articles.py), else False. keep/out: n bytes; counts: n x 3 float64;
 * texts: the blocks' str list. */
static PyObject *tidy_finish(PyObject *self, PyObject *args) {
    PyObject *ok, *oo, *os, *ot, *oc, *of, *ocnt, *texts;
    Py_ssize_t path;
    long long hid_bit, cell_a, cell_b, item;
    double cut, min_words, min_chars;
    if (!PyArg_ParseTuple(args, "OOOOOnOOO!LLLLddd", &ok, &oo, &os, &ot, &oc, &path, &of, &ocnt,
                          &PyList_Type, &texts, &hid_bit, &cell_a, &cell_b, &item, &cut,
                          &min_words, &min_chars))
        return NULL;
    bufs_t b = {.n = 0};
    PyObject *ret = NULL;
    Py_ssize_t n;
    const uint8_t *keep = mask(&b, ok, &n);
    if (!keep) return NULL;
    uint8_t *out = get(&b, oo, 1, n, 1, "out");
    const double *s = out ? get(&b, os, 8, n, 0, "scores") : NULL;
    const int64_t *tag = s ? get(&b, ot, 8, n, 0, "tag") : NULL;
    const int64_t *cont = tag ? get(&b, oc, 8, n * path, 0, "cont") : NULL;
    const int64_t *fl = cont ? get(&b, of, 8, n, 0, "flags") : NULL;
    const double *cnt = fl ? get(&b, ocnt, 8, 3 * n, 0, "counts") : NULL;
    if (!cnt) goto done;
    if (PyList_GET_SIZE(texts) != n) { PyErr_SetString(PyExc_ValueError, "texts: n"); goto done; }
    if (raise_err(units(out, s, tag, cont, path, n, cell_a, cell_b, item, cut))) goto done;
    for (Py_ssize_t i = 0; i < n; i++)
        if (keep[i] && (fl[i] & hid_bit)) { ret = Py_NewRef(Py_True); goto done; }
    /* the repeats: an open-addressing table of the texts seen (their indices), by str hash */
    Py_ssize_t cap = 16;
    while (cap < 2 * n) cap *= 2;
    Py_ssize_t *slot = PyMem_Malloc((size_t)cap * sizeof(Py_ssize_t));
    if (!slot) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t j = 0; j < cap; j++) slot[j] = -1;
    int failed = 0;
    for (Py_ssize_t i = 0; i < n && !failed; i++) {
        if (!keep[i] || !out[i] || tag[i] == item || tag[i] == cell_a || tag[i] == cell_b) continue;
        if (!(cnt[3 * i + 1] >= min_words || cnt[3 * i] >= min_chars)) continue;
        PyObject *t = PyList_GET_ITEM(texts, i);
        Py_hash_t h = PyObject_Hash(t);
        if (h == -1) { failed = 1; break; }
        for (Py_ssize_t j = (Py_ssize_t)((size_t)h & (size_t)(cap - 1));; j = (j + 1) & (cap - 1)) {
            if (slot[j] < 0) { slot[j] = i; break; }
            int eq = PyObject_RichCompareBool(PyList_GET_ITEM(texts, slot[j]), t, Py_EQ);
            if (eq < 0) { failed = 1; break; }
            if (eq) { out[i] = 0; break; }
        }
    }
    PyMem_Free(slot);
    if (!failed) ret = Py_NewRef(Py_False);
done:
    release(&b);
    return ret;
}

/* ------------------------------------------------------------------ the kept text */

/* text(keep, texts, tag, flags, cont, path, pre_bit, tag_pre, cell_a, cell_b, max_cell, pre):
 * render.to_text of the kept blocks: paragraphs joined by a blank line, a table's cells (tag
 * cell_a or cell_b, of at most max_cell characters) a row per line (cells joined by " | ", rows
 * and tables by cont's levels 1 and 3), a code block (flags & pre_bit, or tag tag_pre) as
 * pre[i].strip("\n") where pre (a dict: block -> its text as written) has it. Returns None
 * where a code block is kept and pre is None (the caller makes pre and calls again). */
static PyObject *text_of(PyObject *self, PyObject *args) {
    PyObject *ok, *texts, *ot, *of, *oc, *pre;
    Py_ssize_t path, max_cell;
    long long pre_bit, tag_pre, cell_a, cell_b;
    if (!PyArg_ParseTuple(args, "OO!OOOnLLLLnO", &ok, &PyList_Type, &texts, &ot, &of, &oc, &path,
                          &pre_bit, &tag_pre, &cell_a, &cell_b, &max_cell, &pre))
        return NULL;
    bufs_t b = {.n = 0};
    PyObject *ret = NULL, *parts = NULL, *sep2 = NULL, *bar = NULL, *nl = NULL, *empty = NULL;
    Py_ssize_t n;
    const uint8_t *keep = mask(&b, ok, &n);
    if (!keep) return NULL;
    const int64_t *tag = get(&b, ot, 8, n, 0, "tag");
    const int64_t *fl = tag ? get(&b, of, 8, n, 0, "flags") : NULL;
    const int64_t *cont = fl ? get(&b, oc, 8, n * path, 0, "cont") : NULL;
    if (!cont) goto done;
    if (path < 4 || PyList_GET_SIZE(texts) != n) {
        PyErr_SetString(PyExc_ValueError, "texts of n blocks, path >= 4");
        goto done;
    }
    int code = 0, cells = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!keep[i]) continue;
        code |= (fl[i] & pre_bit) || tag[i] == tag_pre;
        cells |= tag[i] == cell_a || tag[i] == cell_b;
    }
    if (code && pre == Py_None) { ret = Py_NewRef(Py_None); goto done; }
    if (pre != Py_None && !PyDict_Check(pre)) { PyErr_SetString(PyExc_TypeError, "pre: a dict"); goto done; }
    if (!(parts = PyList_New(0)) || !(sep2 = PyUnicode_FromString("\n\n"))) goto done;
    if (!code && !cells) {
        for (Py_ssize_t i = 0; i < n; i++)
            if (keep[i] && PyList_Append(parts, PyList_GET_ITEM(texts, i)) < 0) goto done;
        ret = PyUnicode_Join(sep2, parts);
        goto done;
    }
    if (!(bar = PyUnicode_FromString(" | ")) || !(nl = PyUnicode_FromString("\n"))
            || !(empty = PyUnicode_FromString(""))) goto done;
    int64_t in_table = -1, row = -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!keep[i]) continue;
        PyObject *t = PyList_GET_ITEM(texts, i);
        int is_cell = tag[i] == cell_a || tag[i] == cell_b;
        if (is_cell && PyUnicode_GET_LENGTH(t) <= max_cell) {
            if (cont[i * path + 3] == in_table) {
                if (PyList_Append(parts, cont[i * path + 1] == row ? bar : nl) < 0) goto done;
            } else {
                if (PyList_GET_SIZE(parts) && PyList_Append(parts, sep2) < 0) goto done;
                in_table = cont[i * path + 3];
            }
            if (PyList_Append(parts, t) < 0) goto done;
            row = cont[i * path + 1];
            continue;
        }
        in_table = -1;
        if (PyList_GET_SIZE(parts) && PyList_Append(parts, sep2) < 0) goto done;
        int is_code = (fl[i] & pre_bit) || tag[i] == tag_pre;
        PyObject *raw = NULL;
        if (is_code) {
            PyObject *key = PyLong_FromSsize_t(i);
            if (!key) goto done;
            raw = PyDict_GetItemWithError(pre, key); /* borrowed */
            Py_DECREF(key);
            if (!raw && PyErr_Occurred()) goto done;
        }
        if (raw) {
            PyObject *stripped = PyObject_CallMethod(raw, "strip", "s", "\n");
            if (!stripped) goto done;
            int e = PyList_Append(parts, stripped);
            Py_DECREF(stripped);
            if (e < 0) goto done;
        } else if (PyList_Append(parts, t) < 0) goto done;
    }
    ret = PyUnicode_Join(empty, parts);
done:
    Py_XDECREF(parts);
    Py_XDECREF(sep2);
    Py_XDECREF(bar);
    Py_XDECREF(nl);
    Py_XDECREF(empty);
    release(&b);
    return ret;
}

static PyMethodDef methods[] = {
    {"dense_a", dense_a, METH_VARARGS, "st and the dom columns that need no transcendental"},
    {"dense_b", dense_b, METH_VARARGS, "CETR, the rest of dom, kind, from numpy's log1p/power/sums"},
    {"context", context, METH_VARARGS, "stage 2's context input (context.context_features)"},
    {"score", score, METH_VARARGS, "stage 1 and 2 probabilities of a page (Model.scores)"},
    {"select", select_blocks, METH_VARARGS, "the kept blocks at a cut (extractor.select)"},
    {"tidy_plan", tidy_plan, METH_VARARGS, "the blocks the label and byline rules read (articles.tidy)"},
    {"tidy_finish", tidy_finish, METH_VARARGS, "the units and repeats rules (articles.tidy)"},
    {"text", text_of, METH_VARARGS, "the kept blocks' plain text (render.to_text)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_dense", NULL, -1, methods};

PyMODINIT_FUNC PyInit__dense(void) { return PyModule_Create(&module); }
