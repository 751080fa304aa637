/* The kept text in C (text: render.py's to_text; to_text_reference is the reference, which
 * render.py probes at first use): paragraphs, table rows and code blocks as written, joined. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_common.h"

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
    {"text", text_of, METH_VARARGS, "the kept blocks' plain text (render.to_text)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_render", NULL, -1, methods};

PyMODINIT_FUNC PyInit__render(void) { return PyModule_Create(&module); }
