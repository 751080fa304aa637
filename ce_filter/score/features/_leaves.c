/* The tree-leaf walk in C. features/leaves.py's Trees.leaves (numpy, every (block, tree) pair
 * one level a step) is the reference: the leaves must be the same, and a tree is a few
 * comparisons, so the numpy walk's cost is its ~6 array calls a level, not the arithmetic.
 * Here each block walks each tree to its leaf in one loop: a block goes left where
 * x[feature] <= threshold, or where x[feature] is NaN and the node says missing_left (a NaN
 * compares false: right otherwise), exactly the reference's test.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>

/* leaves(x, n, width, feat, thr, child, miss, leaf, roots, n_nodes, depth, out)
 *
 * x (n x width float64), feat (n_nodes intp: the input column; 0 on a leaf), thr (n_nodes
 * float64), child (2 n_nodes intp: node k's right at 2k, its left at 2k + 1; a leaf points at
 * itself), miss (n_nodes bool), leaf (n_nodes intp: the leaf column, -1 on an inner node),
 * roots (T intp), depth (the deepest tree's), out (n x T intp): each block's leaf column in
 * each tree; a walk that has not reached a leaf after depth steps is an error. Every index is
 * checked against its array before the walk (the arrays come from Trees, already checked; this
 * keeps a wrong call an error, not a read out of bounds). */
static PyObject *leaves(PyObject *self, PyObject *args) {
    Py_buffer bx, bfeat, bthr, bchild, bmiss, bleaf, broots, bout;
    Py_ssize_t n, width, n_nodes, depth;
    if (!PyArg_ParseTuple(args, "y*nny*y*y*y*y*y*nnw*", &bx, &n, &width, &bfeat, &bthr, &bchild,
                          &bmiss, &bleaf, &broots, &n_nodes, &depth, &bout))
        return NULL;
    PyObject *ret = NULL;
    const Py_ssize_t z = (Py_ssize_t)sizeof(Py_ssize_t);
    Py_ssize_t t_count = broots.len / z;
    /* each buffer at least as long as its count says (the arrays are C-contiguous: y*, w*) */
    if (n < 0 || width < 0 || n_nodes < 1 || depth < 0 || bx.len < 8 * n * width
        || bfeat.len < z * n_nodes || bthr.len < 8 * n_nodes || bchild.len < 2 * z * n_nodes
        || bmiss.len < n_nodes || bleaf.len < z * n_nodes || bout.len < z * n * t_count) {
        PyErr_SetString(PyExc_ValueError, "an array shorter than its count");
        goto done;
    }
    const double *x = bx.buf, *thr = bthr.buf;
    const Py_ssize_t *feat = bfeat.buf, *child = bchild.buf, *leaf = bleaf.buf, *roots = broots.buf;
    const uint8_t *miss = bmiss.buf;
    Py_ssize_t *out = bout.buf;
    for (Py_ssize_t k = 0; k < n_nodes; k++) {
        int is_leaf = leaf[k] >= 0;
        if (feat[k] < 0 || feat[k] >= width || child[2 * k] < 0 || child[2 * k] >= n_nodes
            || child[2 * k + 1] < 0 || child[2 * k + 1] >= n_nodes
            || (is_leaf && (child[2 * k] != k || child[2 * k + 1] != k))
            || (!is_leaf && (child[2 * k] <= k || child[2 * k + 1] <= k))) {
            PyErr_Format(PyExc_ValueError, "node %zd: index out of range", k);
            goto done;
        }
    }
    for (Py_ssize_t t = 0; t < t_count; t++) {
        if (roots[t] < 0 || roots[t] >= n_nodes) {
            PyErr_Format(PyExc_ValueError, "root %zd out of range", t);
            goto done;
        }
    }
    int short_walk = 0;
    Py_BEGIN_ALLOW_THREADS
    /* branch-free: depth steps whatever the tree (a leaf points at itself), so the only branches
     * are the loops' own, which the CPU predicts; and level by level over all the trees of a
     * block, so the trees' walks are independent chains of loads the CPU runs side by side
     * (one tree at a time, each step waits for the last one's load) */
    for (Py_ssize_t i = 0; i < n; i++) {
        const double *row = x + i * width;
        Py_ssize_t *k = out + i * t_count;
        for (Py_ssize_t t = 0; t < t_count; t++) k[t] = roots[t];
        for (Py_ssize_t d = 0; d < depth; d++) {
            for (Py_ssize_t t = 0; t < t_count; t++) {
                Py_ssize_t j = k[t];
                double v = row[feat[j]];
                k[t] = child[2 * j + ((v <= thr[j]) | (isnan(v) & miss[j]))];
            }
        }
        for (Py_ssize_t t = 0; t < t_count; t++) {
            short_walk |= leaf[k[t]] < 0;
            k[t] = leaf[k[t]];
        }
    }
    Py_END_ALLOW_THREADS
    if (short_walk) {
        PyErr_SetString(PyExc_ValueError, "a walk of depth steps ended on an inner node");
        goto done;
    }
    ret = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&bx);
    PyBuffer_Release(&bfeat);
    PyBuffer_Release(&bthr);
    PyBuffer_Release(&bchild);
    PyBuffer_Release(&bmiss);
    PyBuffer_Release(&bleaf);
    PyBuffer_Release(&broots);
    PyBuffer_Release(&bout);
    return ret;
}

static PyMethodDef methods[] = {
    {"leaves", leaves, METH_VARARGS, "each block's leaf column in each tree (leaves.Trees.leaves)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_leaves", NULL, -1, methods};

PyMODINIT_FUNC PyInit__leaves(void) { return PyModule_Create(&module); }
