/* The kept text in C, a part of the pass after the walk (ce_filter/_pass.c includes it; text:
 * render.py's to_text; its oracle is tests/oracles/render_text.py): paragraphs, table rows and
 * code blocks as written, joined. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_common.h"

/* ------------------------------------------------------------------ the kept text */

/* characters in n bytes of UTF-8 */
static Py_ssize_t n_chars(const char *s, Py_ssize_t n) {
    Py_ssize_t m = 0;
    for (Py_ssize_t i = 0; i < n; i++) m += ((unsigned char)s[i] & 0xc0) != 0x80;
    return m;
}

/* how the kept text is written (text's constants) */
typedef struct { Py_ssize_t path, max_cell; long long pre_bit, tag_pre, cell_a, cell_b; } text_form_t;

/* whether a kept block is a code block (flags & pre_bit, or tag tag_pre) */
static int kept_code(const uint8_t *keep, const int64_t *tag, const int64_t *fl, Py_ssize_t n,
                     const text_form_t *f) {
    for (Py_ssize_t i = 0; i < n; i++)
        if (keep[i] && ((fl[i] & f->pre_bit) || tag[i] == f->tag_pre)) return 1;
    return 0;
}

/* the code blocks' raw text (Blocks.code_column: the UTF-8 u, block i's [at[i], at[i + 1]));
 * u NULL: none given */
typedef struct { const char *u; const int64_t *at; } code_t;

/* The kept text into o as UTF-8 (text's rules); a code block (flags & pre_bit) as its raw text
 * with its leading and trailing line breaks stripped: code's where given (no Python), else
 * pre[i].strip("\n") where pre (a dict, or NULL: none) has it, which needs the GIL. -1 on an
 * error (set where the GIL is held: pre; else out of memory, E_MEM for the caller). */
static int text_write(Buf *o, const uint8_t *keep, const texts_t *T, const int64_t *tag,
                      const int64_t *fl, const int64_t *cont, Py_ssize_t n, const text_form_t *f,
                      const code_t *code, PyObject *pre) {
    Py_ssize_t path = f->path, max_cell = f->max_cell;
    int64_t in_table = -1, row = -1;
    int any = 0;  /* a block written already */
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!keep[i]) continue;
        Py_ssize_t len;
        const char *t = text_at(T, i, &len);
        int is_cell = tag[i] == f->cell_a || tag[i] == f->cell_b;
        if (is_cell && (len <= max_cell || n_chars(t, len) <= max_cell)) {
            const char *sep = any ? "\n\n" : "";
            if (cont[i * path + 3] == in_table) sep = cont[i * path + 1] == row ? " | " : "\n";
            else in_table = cont[i * path + 3];
            if (buf_put(o, sep, strlen(sep)) < 0 || buf_put(o, t, (size_t)len) < 0) return -1;
            row = cont[i * path + 1];
            any = 1;
            continue;
        }
        in_table = -1;
        if (any && buf_put(o, "\n\n", 2) < 0) return -1;
        any = 1;
        int is_code = (fl[i] & f->pre_bit) || tag[i] == f->tag_pre;
        if (is_code && code->u && (fl[i] & f->pre_bit)) {
            const char *c = code->u + code->at[i];
            size_t m = (size_t)(code->at[i + 1] - code->at[i]);
            while (m && *c == '\n') c++, m--;
            while (m && c[m - 1] == '\n') m--;
            if (buf_put(o, c, m) < 0) return -1;
            continue;
        }
        PyObject *raw = NULL;
        if (is_code && pre) {
            PyObject *key = PyLong_FromSsize_t(i);
            if (!key) return -1;
            raw = PyDict_GetItemWithError(pre, key); /* borrowed */
            Py_DECREF(key);
            if (!raw && PyErr_Occurred()) return -1;
        }
        if (raw) {
            PyObject *stripped = PyObject_CallMethod(raw, "strip", "s", "\n");
            PyObject *u = stripped ? PyUnicode_AsEncodedString(stripped, "utf-8", "surrogatepass") : NULL;
            Py_XDECREF(stripped);
            if (!u) return -1;
            int e = buf_put(o, PyBytes_AS_STRING(u), (size_t)PyBytes_GET_SIZE(u));
            Py_DECREF(u);
            if (e < 0) return -1;
        } else if (buf_put(o, t, (size_t)len) < 0) return -1;
    }
    return 0;
}

/* the code column argument (None, or Blocks.code_column's (bytes, n + 1 int64 starts)) into c;
 * 0, or -1 (error set) */
static int code_get(PyObject *o, bufs_t *b, Py_ssize_t n, code_t *c) {
    c->u = NULL, c->at = NULL;
    if (o == Py_None) return 0;
    PyObject *ou, *oat;
    if (!PyTuple_Check(o) || !PyArg_ParseTuple(o, "OO", &ou, &oat)) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "code: (bytes, starts)");
        return -1;
    }
    const char *u = get(b, ou, 1, 0, 0, "code");
    Py_ssize_t nu = u ? b->v[b->n - 1].len : 0;
    const int64_t *at = u ? get(b, oat, 8, n + 1, 0, "code starts") : NULL;
    if (!at) return -1;
    for (Py_ssize_t i = 0; i < n; i++)
        if (at[i] < 0 || at[i] > at[i + 1] || at[i + 1] > nu) {
            PyErr_SetString(PyExc_ValueError, "code starts: not within the code");
            return -1;
        }
    c->u = u, c->at = at;
    return 0;
}

/* text(keep, utf8, starts, tag, flags, cont, path, pre_bit, tag_pre, cell_a, cell_b, max_cell,
 * code, pre): render.to_text of the kept blocks (their texts: texts.TextColumn.c_args): paragraphs
 * joined by a blank line, a table's cells (tag cell_a or cell_b, of at most max_cell
 * characters) a row per line (cells joined by " | ", rows and tables by cont's levels 1 and 3),
 * a code block (flags & pre_bit, or tag tag_pre) as pre[i].strip("\n") where pre (a dict: block
 * -> its text as written) has it, or code (code_get's) gives it. Written as UTF-8 from the texts'
 * bytes, decoded once. Returns None where a code block is kept and code and pre are None (the
 * caller makes pre and calls again). */
static PyObject *text_of(PyObject *self, PyObject *args) {
    PyObject *ok, *ou, *oat, *ot, *of, *oc, *ocode, *pre;
    text_form_t f;
    if (!PyArg_ParseTuple(args, "OOOOOOnLLLLnOO", &ok, &ou, &oat, &ot, &of, &oc, &f.path,
                          &f.pre_bit, &f.tag_pre, &f.cell_a, &f.cell_b, &f.max_cell, &ocode, &pre))
        return NULL;
    bufs_t b = {.n = 0};
    Buf o = {NULL, 0, 0};  /* the text, UTF-8 */
    PyObject *ret = NULL;
    Py_ssize_t n;
    const uint8_t *keep = mask(&b, ok, &n);
    if (!keep) return NULL;
    texts_t T;
    if (texts_get(&b, ou, oat, n, &T) < 0) goto done;
    const int64_t *tag = get(&b, ot, 8, n, 0, "tag");
    const int64_t *fl = tag ? get(&b, of, 8, n, 0, "flags") : NULL;
    const int64_t *cont = fl ? get(&b, oc, 8, n * f.path, 0, "cont") : NULL;
    code_t code;
    if (!cont || code_get(ocode, &b, n, &code) < 0) goto done;
    if (f.path < 4) {
        PyErr_SetString(PyExc_ValueError, "path >= 4");
        goto done;
    }
    if (!code.u && kept_code(keep, tag, fl, n, &f) && pre == Py_None) { ret = Py_NewRef(Py_None); goto done; }
    if (pre != Py_None && !PyDict_Check(pre)) { PyErr_SetString(PyExc_TypeError, "pre: a dict"); goto done; }
    if (text_write(&o, keep, &T, tag, fl, cont, n, &f, &code, pre == Py_None ? NULL : pre) < 0) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto done;
    }
    ret = PyUnicode_DecodeUTF8(o.p ? o.p : "", (Py_ssize_t)o.n, "surrogatepass");
done:
    PyMem_RawFree(o.p);
    release(&b);
    return ret;
}

/* the part's functions, in the module of the pass after the walk (ce_filter/_pass.c) */
#define RENDER_METHODS \
    {"text", text_of, METH_VARARGS, "the kept blocks' plain text (render.to_text)"},
