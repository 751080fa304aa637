/* The site memory's block hashes in C. sitememory.fingerprints (numpy over the page's bytes:
 * ~25 array passes) is the reference, and the values must be the same: the memory and the
 * shipped site stage were built on them. Integer arithmetic modulo 2**64 only, so one pass
 * over the bytes gives exactly what the prefix sums give.
 *
 * In: the UTF-8 of the page's block texts, case-folded, joined by NUL (sitememory does that in
 * Python). Per byte, as the reference: ASCII digits read as "0", ASCII whitespace as " "; a "0"
 * after a "0" goes, a " " after a " " or at a block's start goes (both against the byte before
 * it in the input, removed or not), then a " " at a block's end goes. Per block: the polynomial
 * hash sum((b + 1) * P**k) over its kept bytes (k from 0), xor its kept length times LEN,
 * through splitmix64's finaliser.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#define P 0x9E3779B97F4A7C15ULL
#define LEN 0xD6E8FEB86659FD93ULL
#define M1 0xBF58476D1CE4E5B9ULL
#define M2 0x94D049BB133111EBULL

static inline uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * M1;
    z = (z ^ (z >> 27)) * M2;
    return z ^ (z >> 31);
}

static inline uint8_t byte_class(uint8_t c) {
    if (c >= '0' && c <= '9') return '0';
    if (c >= 9 && c <= 13) return ' ';
    return c;
}

/* hashes(data, n, out, lengths): data (bytes: n blocks joined by NUL), out (n uint64: each
 * block's mixed hash), lengths (n int64: its kept bytes). A count of NULs other than n - 1 is
 * an error. */
static PyObject *hashes(PyObject *self, PyObject *args) {
    Py_buffer data, out, lens;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "y*nw*w*", &data, &n, &out, &lens)) return NULL;
    PyObject *ret = NULL;
    if (n < 1 || out.len < n * 8 || lens.len < n * 8 || out.itemsize != 8 || lens.itemsize != 8) {
        PyErr_SetString(PyExc_ValueError, "n >= 1 and out, lengths of n 8-byte items");
        goto done;
    }
    const uint8_t *s = data.buf;
    uint64_t *o = out.buf;
    int64_t *ln = lens.buf;
    Py_ssize_t seps = 0;
    for (Py_ssize_t i = 0; i < data.len; i++) seps += s[i] == 0;
    if (seps != n - 1) {
        PyErr_Format(PyExc_ValueError, "%zd separators for %zd blocks", seps, n);
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    Py_ssize_t block = 0;
    uint64_t h = 0, pw = 1;
    int64_t len = 0;
    int pending = 0; /* a kept space not yet hashed: it goes if the block ends next */
    uint8_t prev = 0;
    for (Py_ssize_t i = 0; i <= data.len; i++) {
        uint8_t c = i < data.len ? byte_class(s[i]) : 0;
        if (c == 0) { /* a block's end: a pending space goes */
            o[block] = mix(h ^ ((uint64_t)len * LEN));
            ln[block] = len;
            block++;
            h = 0, pw = 1, len = 0, pending = 0;
        } else if (!((c == '0' && prev == '0') || (c == ' ' && (prev == ' ' || prev == 0)))) {
            if (pending) {
                h += ((uint64_t)' ' + 1) * pw, pw *= P, len++;
                pending = 0;
            }
            if (c == ' ') pending = 1;
            else h += ((uint64_t)c + 1) * pw, pw *= P, len++;
        }
        prev = c;
    }
    Py_END_ALLOW_THREADS
    ret = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&data);
    PyBuffer_Release(&out);
    PyBuffer_Release(&lens);
    return ret;
}

static PyMethodDef methods[] = {
    {"hashes", hashes, METH_VARARGS, "each block's mixed hash and kept length (sitememory.fingerprints)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_hash", NULL, -1, methods};

PyMODINIT_FUNC PyInit__hash(void) { return PyModule_Create(&module); }
