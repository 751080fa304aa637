/* The byte test of ce_filter/read/mojibake.py (suspect): does the page hold UTF-8 text that was
 * decoded as Latin-1 or cp1252 and encoded as UTF-8 again? memchr finds each 0xC3 (rare in
 * most pages), so the test costs a few microseconds where a regular expression costs tens. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

typedef unsigned char uc;

/* c3 [82-b4] (a lead byte's character: Â..ô), then a continuation byte's character:
 * c2 [80-bf] (U+0080..U+00BF), c5 (Œ œ Š š Ÿ Ž ž), c6 92 (ƒ), cb (ˆ ˜), e2 80/82/84 (cp1252's
 * punctuation, €, ™). Same rule as mojibake._SUSPECT. */
static int hit(const uc *p, const uc *end) {
    if (end - p < 3 || p[1] < 0x82 || p[1] > 0xb4) return 0;
    uc a = p[2];
    if (a == 0xc5 || a == 0xcb) return 1;
    if (end - p < 4) return 0;
    uc b = p[3];
    if (a == 0xc2) return b >= 0x80 && b <= 0xbf;
    if (a == 0xc6) return b == 0x92;
    if (a == 0xe2) return b == 0x80 || b == 0x82 || b == 0x84;
    return 0;
}

static PyObject *suspect(PyObject *self, PyObject *arg) {
    Py_buffer buf;
    if (PyObject_GetBuffer(arg, &buf, PyBUF_SIMPLE) < 0) return NULL;
    const uc *p = buf.buf, *end = p + buf.len;
    int found = 0;
    Py_BEGIN_ALLOW_THREADS
    while ((p = memchr(p, 0xc3, (size_t)(end - p))) != NULL) {
        if (hit(p, end)) { found = 1; break; }
        p++;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&buf);
    return PyBool_FromLong(found);
}

static PyMethodDef methods[] = {
    {"suspect", suspect, METH_O, "suspect(data) -> bool; see mojibake.py."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_mojibake", NULL, -1, methods};

PyMODINIT_FUNC PyInit__mojibake(void) { return PyModule_Create(&module); }
