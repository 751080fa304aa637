/* The site memory's block hashes in C (memory.py): the block hashes (hashes) and the page's
 * block fingerprints from its texts (block_fingerprints: the case folding, Unicode spaces and
 * UTF-8 done here too). memory.fingerprints (numpy over the page's bytes: ~25 array passes) is
 * the reference, and the values must be the same: the memory and the shipped site stage were
 * built on them. Integer arithmetic modulo 2**64 only, so one pass over the bytes gives exactly
 * what the prefix sums give. memory.py probes it at first use.
 *
 * In: the UTF-8 of the page's block texts, case-folded, joined by NUL (memory does that in
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

/* ------------------------------------------------------------------ from the texts */

/* CPython's case-folding table is in its C API up to 3.12 (internal from 3.13: there the
 * module has no block_fingerprints and memory does the folding in Python) */
#if PY_VERSION_HEX < 0x030D0000
#define HAVE_FOLD 1

#define MAX_CHARS 4096 /* memory.MAX_CHARS */
#define MIN_BYTES 3    /* memory.MIN_BYTES */
#define LINK_BITS 0x9E3779B97F4A7C15ULL /* memory.LINK_BITS */

/* the hash's state over one block's bytes (hashes' loop, one byte at a time) */
typedef struct { uint64_t h, pw; int64_t len; int pending; uint8_t prev; } hstate_t;

static inline void feed(hstate_t *st, uint8_t raw) {
    uint8_t c = byte_class(raw), prev = st->prev;
    if (!((c == '0' && prev == '0') || (c == ' ' && (prev == ' ' || prev == 0)))) {
        if (st->pending) {
            st->h += ((uint64_t)' ' + 1) * st->pw, st->pw *= P, st->len++;
            st->pending = 0;
        }
        if (c == ' ') st->pending = 1;
        else st->h += ((uint64_t)c + 1) * st->pw, st->pw *= P, st->len++;
    }
    st->prev = c;
}

/* a code point's UTF-8 bytes (surrogates as three bytes, as "surrogatepass") into the hash */
static inline void feed_utf8(hstate_t *st, Py_UCS4 c) {
    if (c < 0x80) feed(st, (uint8_t)c);
    else if (c < 0x800) { feed(st, 0xC0 | (c >> 6)); feed(st, 0x80 | (c & 0x3F)); }
    else if (c < 0x10000) {
        feed(st, 0xE0 | (c >> 12)); feed(st, 0x80 | ((c >> 6) & 0x3F)); feed(st, 0x80 | (c & 0x3F));
    } else {
        feed(st, 0xF0 | (c >> 18)); feed(st, 0x80 | ((c >> 12) & 0x3F));
        feed(st, 0x80 | ((c >> 6) & 0x3F)); feed(st, 0x80 | (c & 0x3F));
    }
}

static inline int is_uspace(Py_UCS4 c) { /* memory._USPACES */
    return c == 0xA0 || c == 0x3000 || c == 0x2002 || c == 0x2003 || c == 0x2009 || c == 0x202F
           || c == 0x205F || c == 0x1680;
}

/* block_fingerprints(joined, starts, anchor_starts, out): memory.block_fingerprints of a page's
 * n blocks into out (n uint64), from the texts themselves (texts.TextColumn: joined, the blocks'
 * texts joined by "\n", and the n + 1 character starts; anchor_starts the anchor texts' column's
 * n + 1 starts, only their lengths read): each block's first MAX_CHARS characters (a NUL read as
 * a space) case-folded as str.casefold (CPython's own table), the Unicode spaces of _USPACES as
 * " ", as UTF-8 through the hash of ``hashes``; a cut block's whole length mixed in, a
 * fingerprint of 0 made 1, one of fewer than MIN_BYTES kept bytes 0, and a link block's (anchor
 * text at least half of the text) bits flipped by LINK_BITS. */
static PyObject *block_fingerprints(PyObject *self, PyObject *args) {
    PyObject *joined;
    Py_buffer at, an, out;
    if (!PyArg_ParseTuple(args, "Uy*y*w*", &joined, &at, &an, &out)) return NULL;
    PyObject *ret = NULL;
    Py_ssize_t n = at.len / 8 - 1, total = PyUnicode_GET_LENGTH(joined);
    const int64_t *s = at.buf, *a = an.buf;
    int bad = n < 0 || an.len != at.len || out.itemsize != 8 || out.len < n * 8;
    if (!bad) bad = s[0] != (n ? 0 : 1) || s[n] != total + 1 || a[0] < 0;
    for (Py_ssize_t i = 0; i < n && !bad; i++) bad = s[i + 1] < s[i] + 1 || a[i + 1] < a[i];
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "the starts of n texts and anchor texts, out of n uint64");
        goto done;
    }
    uint64_t *o = out.buf;
    int kind = PyUnicode_KIND(joined);
    const void *d = PyUnicode_DATA(joined);
    /* str is immutable, and the caller holds it */
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t len = (Py_ssize_t)(s[i + 1] - s[i] - 1), cut = len < MAX_CHARS ? len : MAX_CHARS;
        hstate_t st = {0, 1, 0, 0, 0};
        for (Py_ssize_t k = 0; k < cut; k++) {
            Py_UCS4 c = PyUnicode_READ(kind, d, s[i] + k);
            if (c < 0x80) {
                if (c == 0) c = ' ';
                else if (c >= 'A' && c <= 'Z') c += 32;
                feed(&st, (uint8_t)c);
                continue;
            }
            Py_UCS4 f[3];
            int m = _PyUnicode_ToFoldedFull(c, f);
            for (int j = 0; j < m; j++) feed_utf8(&st, is_uspace(f[j]) ? ' ' : (f[j] ? f[j] : ' '));
        }
        uint64_t v = mix(st.h ^ ((uint64_t)st.len * LEN));
        if (len > MAX_CHARS) v = mix(v ^ ((uint64_t)len * M1));
        if (v == 0) v = 1;
        if (st.len < MIN_BYTES) v = 0;
        int64_t link = a[i + 1] - a[i];
        if (v != 0 && link > 0 && 2 * link >= len) {
            v ^= LINK_BITS;
            if (v == 0) v = 1;
        }
        o[i] = v;
    }
    Py_END_ALLOW_THREADS
    ret = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&at);
    PyBuffer_Release(&an);
    PyBuffer_Release(&out);
    return ret;
}
#endif

static PyMethodDef methods[] = {
    {"hashes", hashes, METH_VARARGS, "each block's mixed hash and kept length (memory.fingerprints)"},
#ifdef HAVE_FOLD
    {"block_fingerprints", block_fingerprints, METH_VARARGS, "memory.block_fingerprints from the texts"},
#endif
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_memory", NULL, -1, methods};

PyMODINIT_FUNC PyInit__memory(void) { return PyModule_Create(&module); }
