/* The segmenter's walk in C, over Lexbor, the parser selectolax is built on.
 *
 * Why: a walk in Python spends ~45 % of a page's time in per-node attribute lookups and method
 * calls. This file is the walk (tests/oracles/walk_python.py, the same walk over selectolax's
 * node API, is the test oracle it is checked against block for block on every corpus page).
 *
 * How it reaches Lexbor, in one of two builds of this same file (setup.py picks one):
 *  - the default on Linux and macOS: selectolax's extension module exports Lexbor's C API,
 *    including the ``*_noi`` accessor functions Lexbor provides for bindings. They are looked up
 *    with dlsym in the already-loaded module, so no struct layout is assumed, nothing is linked
 *    at build time and the wheel stays small. If a symbol is missing (another selectolax build),
 *    import fails.
 *  - CE_FILTER_STATIC_LEXBOR (Windows, where selectolax's module exports none of Lexbor's
 *    functions; anywhere setup.py is given Lexbor's source): the Lexbor modules the HTML parse
 *    needs are compiled into this extension (with LEXBOR_STATIC) and ``L`` points at them.
 * Either way ``L`` holds the same functions and everything past bind() is the same code.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#ifndef CE_FILTER_STATIC_LEXBOR
#include <dlfcn.h>
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#endif

#include "_common.h"

typedef unsigned char lxb_char_t;
typedef uintptr_t tag_id_t;

static struct {
    void *(*doc_create)(void);
    unsigned int (*doc_parse)(void *doc, const lxb_char_t *html, size_t size);
    void *(*doc_destroy)(void *doc);
    void *(*doc_root)(void *dom_doc);
    void *(*first_child)(void *node);
    void *(*next)(void *node);
    void *(*parent)(void *node);
    tag_id_t (*tag_id)(void *node);
    const lxb_char_t *(*elem_class)(void *el, size_t *len);
    const lxb_char_t *(*elem_id)(void *el, size_t *len);
    lxb_char_t *(*text_content)(void *node, size_t *len);
    lxb_char_t *(*destroy_text)(void *dom_doc, lxb_char_t *text);
    const lxb_char_t *(*get_attr)(void *el, const lxb_char_t *name, size_t name_len, size_t *len);
    void *(*first_attr)(void *el);
    void *(*next_attr)(void *attr);
    void *(*class_attr)(void *el);
    void *(*id_attr)(void *el);
    _Bool (*has_attr)(void *el, const lxb_char_t *name, size_t name_len);
    void *(*create_element)(void *dom_doc, const lxb_char_t *name, size_t name_len, void *opt);
} L;

/* Lexbor's node and character-data structs as selectolax's lexbor.pxd declares them. They are
 * read directly only after probe_layout() has checked, on a parsed probe page, that every
 * field read this way equals what the accessor functions return; otherwise every read goes
 * through the functions (slower, layout-free). Direct reads skip a call per field and, for
 * text, a copy into (and a free from) the document's allocator. */
typedef struct node_s {
    void *events;
    uintptr_t local_name, prefix, ns;
    void *owner_document;
    struct node_s *next, *prev, *parent, *first_child, *last_child;
    void *user;
    int type;
} node_t;
typedef struct { node_t node; struct { lxb_char_t *data; size_t length; } data; } chardata_t;
static int direct = 0;

#define NEXT(n) (direct ? (void *)((node_t *)(n))->next : L.next(n))
#define FIRST_CHILD(n) (direct ? (void *)((node_t *)(n))->first_child : L.first_child(n))
#define PARENT(n) (direct ? (void *)((node_t *)(n))->parent : L.parent(n))
#define TAG_ID(n) (direct ? (tag_id_t)((node_t *)(n))->local_name : L.tag_id(n))

/* Tag kinds, set by configure() from segment.py's tag sets. */
enum { K_BLOCK = 1, K_SKIP = 2, K_NOATTR = 4, K_LIST = 8 };
#define NTAB 1024
static unsigned char kinds[NTAB];
static uint32_t flag_tab[NTAB];
static tag_id_t TAG_BR, TAG_TITLE, TAG_HEAD;
/* the elements the metadata reads (configure_head); 0 until configured */
static tag_id_t T_HTML, T_META, T_LINK, T_SCRIPT, T_TIME, T_A;
/* what the renderers need (segment(doc, extras=True)); configure_extras */
static tag_id_t T_LI, T_OL, T_IMG;
static uint32_t FLAG_PRE;
/* the flag of an element hidden from the reader and of all it holds (configure_extras) */
static uint32_t FLAG_HIDDEN;
static int max_by_items = 64, max_time_chars = 300;
static size_t max_item_text = 2000;
static uint32_t FLAG_A;
static int path_len = 10;
static int configured = 0;

#define TAG_TEXT 2
#define KIND(t) ((t) < NTAB ? kinds[(t)] : 0)
#define FLAGS(t) ((t) < NTAB ? flag_tab[(t)] : 0)

/* ---- growable buffers (Buf, buf_put: _common.h) ---- */
static int grow(void **p, size_t *cap, size_t need, size_t item) {
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 64;
    while (c < need) c *= 2;
    void *q = PyMem_RawRealloc(*p, c * item);
    if (!q) { if (PyGILState_Check()) PyErr_NoMemory(); return -1; }
    *p = q; *cap = c;
    return 0;
}

/* ---- Python's str.isspace / str.split() whitespace, on UTF-8 ---- */
static int is_py_space(uint32_t c) {
    if (c < 0x80) return c == 0x20 || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f);
    return c == 0x85 || c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
           c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000;
}

/* Byte length of the Python whitespace character at s[i], or 0 when s[i] starts anything
 * else. ASCII goes through a table; of the multi-byte characters only those led by C2, E1,
 * E2 or E3 can be whitespace, so other bytes are never decoded. */
static unsigned char ascii_space[128];

static void init_space(void) {
    for (int c = 0; c < 128; c++) ascii_space[c] = is_py_space((uint32_t)c);
}

static inline size_t space_at(const unsigned char *s, size_t n, size_t i) {
    unsigned char c = s[i];
    if (c < 0x80) return ascii_space[c];
    if (c == 0xc2) return (i + 1 < n && (s[i + 1] == 0x85 || s[i + 1] == 0xa0)) ? 2 : 0;
    if (c < 0xe1 || c > 0xe3 || i + 2 >= n) return 0;
    uint32_t v = ((uint32_t)(c & 0x0f) << 12) | ((uint32_t)(s[i + 1] & 0x3f) << 6) | (s[i + 2] & 0x3f);
    return ((s[i + 1] & 0xc0) == 0x80 && (s[i + 2] & 0xc0) == 0x80 && is_py_space(v)) ? 3 : 0;
}

static int all_space(const unsigned char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        size_t k = space_at(s, n, i);
        if (!k) return 0;
        i += k;
    }
    return 1;
}

/* Scripts written without spaces between words (CJK ideographs, kana, Thai, Lao, Khmer,
 * Myanmar, Tibetan, ...): each character is a word there. CJK and full-width punctuation end a
 * word and are none. The same ranges as ce_filter/read/words.py (CONTINUA_RANGES, SEPARATOR_RANGES).
 * Returns 1 for a continua character, 2 for a separator, 0 for anything else. */
static int word_class(uint32_t c) {
    if (c < 0x0e00) return 0;
    if (c <= 0x109f) return 1;  /* Thai, Lao, Tibetan, Myanmar */
    if (c < 0x3000) return (c >= 0x1780 && c <= 0x17ff) || (c >= 0x1980 && c <= 0x19ff) ||
                           (c >= 0x1a20 && c <= 0x1aaf);
    if (c <= 0x303f) return 2;
    if (c <= 0x312f) return c >= 0x3040;
    if (c < 0x3400) return (c >= 0x31a0 && c <= 0x31bf) || (c >= 0x31f0 && c <= 0x31ff);
    if (c <= 0x4dbf) return 1;
    if (c < 0x4e00) return 0;
    if (c <= 0x9fff) return 1;
    if (c < 0xf900) return (c >= 0xa9e0 && c <= 0xa9ff) || (c >= 0xaa60 && c <= 0xaa7f);
    if (c <= 0xfaff) return 1;
    if (c >= 0xff01 && c <= 0xff65)
        return (c <= 0xff0f || (c >= 0xff1a && c <= 0xff20) || (c >= 0xff3b && c <= 0xff40) ||
                c >= 0xff5b) ? 2 : 0;
    if (c >= 0xff66 && c <= 0xff9f) return 1;
    return c >= 0x20000 && c <= 0x323af;
}

/* The code point of the UTF-8 character at s[i] (0 for a two-byte one: none of those is a
 * continua character) and its byte length. The walk's text is valid UTF-8. */
static inline size_t utf8_at(const unsigned char *s, size_t n, size_t i, uint32_t *v) {
    unsigned char c = s[i];
    *v = 0;
    if (c < 0xe0) return (c >= 0xc0 && i + 1 < n) ? 2 : 1;
    if (c < 0xf0) {
        if (i + 2 >= n) return 1;
        *v = ((uint32_t)(c & 0x0f) << 12) | ((uint32_t)(s[i + 1] & 0x3f) << 6) | (s[i + 2] & 0x3f);
        return 3;
    }
    if (i + 3 >= n) return 1;
    *v = ((uint32_t)(c & 0x07) << 18) | ((uint32_t)(s[i + 1] & 0x3f) << 12) |
         ((uint32_t)(s[i + 2] & 0x3f) << 6) | (s[i + 3] & 0x3f);
    return 4;
}

/* ce_filter.read.words.count_words: len(s.split()) outside the continua scripts, one word per
 * character inside them. */
static size_t count_words(const unsigned char *s, size_t n) {
    size_t i = 0, words = 0, k;
    int in_word = 0;
    while (i < n) {
        unsigned char c = s[i];
        if (c < 0x80) {
            if (ascii_space[c]) in_word = 0;
            else if (!in_word) { words++; in_word = 1; }
            i++;
            continue;
        }
        if ((k = space_at(s, n, i))) { in_word = 0; i += k; continue; }
        uint32_t v;
        i += utf8_at(s, n, i, &v);
        int cls = word_class(v);
        if (cls == 1) { words++; in_word = 0; }
        else if (cls == 2) in_word = 0;
        else if (!in_word) { words++; in_word = 1; }
    }
    return words;
}

/* " ".join(s.split()) as UTF-8 in tmp (no Python object: the walk runs without the GIL). */
static int norm_into(const unsigned char *s, size_t n, Buf *tmp) {
    tmp->n = 0;
    size_t i = 0;
    while (i < n) {
        size_t k;
        while (i < n && (k = space_at(s, n, i))) i += k;  /* skip a whitespace run */
        if (i >= n) break;
        size_t start = i;
        while (i < n && !space_at(s, n, i)) i++;  /* a word (non-space bytes) */
        if (tmp->n && buf_put(tmp, " ", 1) < 0) return -1;
        if (buf_put(tmp, s + start, i - start) < 0) return -1;
    }
    return 0;
}

static PyObject *utf8_str(const char *p, size_t n) {
    return PyUnicode_DecodeUTF8(p ? p : "", (Py_ssize_t)n, "replace");
}


/* ---- the document capsule ---- */
/* Parsed documents are kept for the next pages (a few, of pages up to POOL_PAGE_MAX bytes):
 * creating and destroying a Lexbor document costs a fixed ~90 us a page, a third of a small
 * page's parse. Lexbor cleans a document it parses again, all but its quirks mode, which is
 * set back to no-quirks (as a new document starts) where probe_cmode found the field; without
 * it every page gets a new document. The pool is read and written with the GIL held. */
#define POOL_MAX 4
#define POOL_PAGE_MAX (1 << 20)
static void *pool[POOL_MAX];
static int n_pool = 0;
static size_t cmode_at = 0;  /* byte offset of lxb_dom_document_t.compat_mode; 0: no reuse */

static void *doc_take(void) {
    if (n_pool) {
        void *doc = pool[--n_pool];
        *(int *)((char *)doc + cmode_at) = 0;  /* LXB_DOM_DOCUMENT_CMODE_NO_QUIRKS */
        return doc;
    }
    return L.doc_create();
}

static void doc_give(void *doc, size_t size) {
    if (cmode_at && n_pool < POOL_MAX && size <= POOL_PAGE_MAX)
        pool[n_pool++] = doc;
    else
        L.doc_destroy(doc);
}

static void doc_free(PyObject *cap) {
    void *doc = PyCapsule_GetPointer(cap, "ce_filter.lexbor_doc");
    if (doc) doc_give(doc, (size_t)(uintptr_t)PyCapsule_GetContext(cap));
}

/* parse(html[, utf8]): ``utf8``, where given, is exactly html's UTF-8 (the page's own bytes,
 * valid UTF-8): parsed as they are, which spares encoding the text again (about a tenth of a
 * non-ASCII page's time). */
static PyObject *py_parse(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs < 1 || nargs > 2 || !PyUnicode_Check(args[0])
            || (nargs == 2 && args[1] != Py_None && !PyBytes_Check(args[1]))) {
        PyErr_SetString(PyExc_TypeError, "parse() takes a str and optionally its UTF-8 bytes");
        return NULL;
    }
    PyObject *arg = args[0], *enc = NULL;
    Py_ssize_t n;
    const char *s;
    if (nargs == 2 && args[1] != Py_None) {
        s = PyBytes_AS_STRING(args[1]);
        n = PyBytes_GET_SIZE(args[1]);
    } else
        s = PyUnicode_AsUTF8AndSize(arg, &n);
    if (!s) {  /* lone surrogates: drop them, as selectolax does (errors="ignore") */
        PyErr_Clear();
        enc = PyUnicode_AsEncodedString(arg, "utf-8", "ignore");
        if (!enc) return NULL;
        s = PyBytes_AS_STRING(enc);
        n = PyBytes_GET_SIZE(enc);
    }
    void *doc = doc_take();
    if (!doc) { Py_XDECREF(enc); return PyErr_NoMemory(); }
    unsigned int status;
    Py_BEGIN_ALLOW_THREADS
    status = L.doc_parse(doc, (const lxb_char_t *)s, (size_t)n);
    Py_END_ALLOW_THREADS
    Py_XDECREF(enc);
    if (status != 0) {
        L.doc_destroy(doc);
        PyErr_Format(PyExc_ValueError, "lexbor could not parse the page (status %u)", status);
        return NULL;
    }
    PyObject *cap = PyCapsule_New(doc, "ce_filter.lexbor_doc", doc_free);
    if (!cap || PyCapsule_SetContext(cap, (void *)(uintptr_t)n) < 0) {
        Py_XDECREF(cap);  /* (its destructor gives the document back) */
        if (!cap) L.doc_destroy(doc);
        return NULL;
    }
    return cap;
}

/* A text node's characters: read in place (direct), or copied out (*owned: free it with
 * L.destroy_text). */
static lxb_char_t *text_of(void *node, size_t *len, lxb_char_t **owned) {
    if (direct) {
        *len = ((chardata_t *)node)->data.length;
        return ((chardata_t *)node)->data.data;
    }
    return *owned = L.text_content(node, len);
}

/* ---- the walk ---- */
/* The walk runs without the GIL (other threads run Python meanwhile): it touches only the
 * Lexbor document of this call and its own buffers, and writes what becomes Python objects
 * (block texts, the title, the metadata items, the renderers' extras) as UTF-8 spans of one
 * arena; build() makes the objects afterwards, with the GIL, in the same order. */
typedef struct { tag_id_t tid; uint32_t flags; int64_t serial; } Entry;
#define NB_INT 5
/* Lexbor gives a tag it does not know an id that is an address (another one per process):
 * blocks record one fixed id for all of them, as segment.py does. */
#define TAG_LIMIT 0x10000
#define UNKNOWN_TAG 0xffff

typedef struct { size_t off, len; } Span;
/* a metadata item (segment.head_items' tuples): its kind and up to five string fields */
enum { IT_LANG, IT_META, IT_LINK, IT_LD, IT_TIME, IT_BY };
static const char *const item_kind[] = {"lang", "meta", "link", "ld", "time", "by"};
static const int item_fields[] = {1, 2, 2, 1, 4, 5};
typedef struct { int kind; Span f[5]; } Item;
/* a renderer extra: a code block's raw text (pre), a numbered list item (ordered), a link,
 * an image */
enum { EX_PRE, EX_ORDERED, EX_LINK, EX_IMAGE };
typedef struct { int kind; size_t at; Span a, b; } Extra;

typedef struct {
    void *dom_doc;
    Buf cur, anc, tmp;
    int has_text;
    long cur_tags;
    Py_ssize_t anc_pieces;
    Entry opener;
    Entry *stack; size_t sp, stack_cap;
    /* per element, by serial (1-based): parent serial and node (NULL: no attributes) */
    int64_t *parent; void **enode; size_t n_el, el_cap, enode_cap;
    /* per block */
    Buf ar;  /* the arena every span points into */
    Span *b_txt; size_t txt_cap;  /* 2 per block: text, anchor text */
    int64_t *b_int; size_t n_b, b_cap;  /* NB_INT per block: n_tags, tag, depth, flags, opener */
    double *b_cnt; size_t cnt_cap;  /* 3 per block: characters, words, words in links */
    Span title;
    Item *items; size_t n_items, items_cap;  /* what the metadata reads */
    int extras;  /* Blocks.extras wanted */
    Extra *ex; size_t n_ex, ex_cap;
    int n_by;
    Buf item;
    Buf blob;  /* the packed elements (pack_all) */
} W;

/* bytes into the arena */
static int ar_put(W *w, const void *s, size_t n, Span *out) {
    out->off = w->ar.n;
    out->len = n;
    return n ? buf_put(&w->ar, s, n) : 0;
}

static int add_extra(W *w, int kind, size_t at, const void *a, size_t an, const void *b, size_t bn) {
    if (grow((void **)&w->ex, &w->ex_cap, w->n_ex + 1, sizeof(Extra)) < 0) return -1;
    Extra *e = &w->ex[w->n_ex];
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->at = at;
    if (ar_put(w, a, an, &e->a) < 0 || ar_put(w, b, bn, &e->b) < 0) return -1;
    w->n_ex++;
    return 0;
}

/* segment_tree's extras at a flush: a code block's raw text (always: the kept text writes it,
 * code_column), whether a list item is numbered (with extras) */
static int flush_extras(W *w) {
    if ((w->opener.flags & FLAG_PRE) && add_extra(w, EX_PRE, w->n_b, w->cur.p, w->cur.n, NULL, 0) < 0)
        return -1;
    if (w->extras && w->opener.tid == T_LI) {
        for (size_t j = w->sp; j-- > 0;) {
            tag_id_t t = w->stack[j].tid;
            if (KIND(t) & K_LIST) {
                if (t == T_OL && add_extra(w, EX_ORDERED, w->n_b, NULL, 0, NULL, 0) < 0) return -1;
                break;
            }
        }
    }
    return 0;
}

static int flush(W *w) {
    if (w->has_text) {
        if (norm_into((unsigned char *)w->cur.p, w->cur.n, &w->tmp) < 0) return -1;
        if (w->tmp.n > 0) {  /* the str of non-empty UTF-8 is never empty ("replace") */
            if (grow((void **)&w->b_txt, &w->txt_cap, (w->n_b + 1) * 2, sizeof(Span)) < 0 ||
                grow((void **)&w->b_int, &w->b_cap, (w->n_b + 1) * NB_INT, sizeof(int64_t)) < 0 ||
                grow((void **)&w->b_cnt, &w->cnt_cap, (w->n_b + 1) * 3, sizeof(double)) < 0 ||
                ar_put(w, w->tmp.p, w->tmp.n, &w->b_txt[w->n_b * 2]) < 0 ||
                ar_put(w, w->anc.p, w->anc.n, &w->b_txt[w->n_b * 2 + 1]) < 0)
                return -1;
            if (flush_extras(w) < 0) return -1;
            int64_t *r = w->b_int + w->n_b * NB_INT;
            r[0] = w->cur_tags;
            r[1] = (int64_t)w->opener.tid;
            r[2] = (int64_t)w->sp;
            r[3] = w->opener.flags;
            r[4] = w->opener.serial;
            double *c = w->b_cnt + w->n_b * 3;
            c[0] = 0;  /* the str's length: set by build() */
            c[1] = (double)count_words((unsigned char *)w->tmp.p, w->tmp.n);
            c[2] = (double)count_words((unsigned char *)w->anc.p, w->anc.n);
            w->n_b++;
        }
    }
    w->cur.n = 0;
    w->anc.n = 0;
    w->anc_pieces = 0;
    w->has_text = 0;
    w->cur_tags = 0;
    return 0;
}

static int set_title(W *w, void *node) {
    size_t len = 0;
    lxb_char_t *s = L.text_content(node, &len);
    int r = norm_into(s ? s : (const unsigned char *)"", s ? len : 0, &w->tmp);
    if (s) L.destroy_text(w->dom_doc, s);
    return r < 0 ? -1 : ar_put(w, w->tmp.p, w->tmp.n, &w->title);
}

static int title_empty(W *w) { return w->title.len == 0; }

/* ---- what the metadata reads: segment.head_items is the reference ---- */

/* ASCII-case-insensitive "w occurs in s" (w lower-case). */
static int has_ci(const lxb_char_t *s, size_t n, const char *w) {
    size_t k = strlen(w);
    for (size_t i = 0; i + k <= n; i++) {
        size_t j = 0;
        while (j < k) {
            unsigned char c = s[i + j];
            if (c >= 'A' && c <= 'Z') c = (unsigned char)(c + 32);
            if (c != (unsigned char)w[j]) break;
            j++;
        }
        if (j == k) return 1;
    }
    return 0;
}

/* ASCII-case-insensitive "author" or "byline" occurs in s (for every class and id: the
 * candidates' first letters are found with memchr, which scans many bytes at a time). */
static int has_by_word(const lxb_char_t *s, size_t n) {
    static const char first[4] = {'a', 'A', 'b', 'B'};
    if (n < 6) return 0;
    for (int k = 0; k < 4; k++) {
        const char *word = k < 2 ? "author" : "byline";
        const lxb_char_t *p = s, *end = s + n - 5;
        while (p < end && (p = memchr(p, first[k], (size_t)(end - p))) != NULL) {
            if (has_ci(p, 6, word)) return 1;
            p++;
        }
    }
    return 0;
}

/* Whether the element has an attribute besides class and id (most have none: then its
 * itemprop need not be looked up). */
static int other_attrs(void *el) {
    void *c = L.class_attr(el), *i = L.id_attr(el);
    for (void *a = L.first_attr(el); a; a = L.next_attr(a))
        if (a != c && a != i) return 1;
    return 0;
}

typedef struct { const lxb_char_t *p; size_t n; } Str;

static Str attr(void *el, const char *name) {
    Str r = {NULL, 0};
    r.p = L.get_attr(el, (const lxb_char_t *)name, strlen(name), &r.n);
    if (!r.p) r.n = 0;
    return r;
}

/* Whether `s` holds `word`, then optional ASCII white space, ':', white space and `val`
 * (ASCII case-insensitive): "display: none" in a style attribute. */
static int has_decl(const lxb_char_t *s, size_t n, const char *word, const char *val) {
    size_t wl = strlen(word), vl = strlen(val);
    for (size_t i = 0; i + wl <= n; i++) {
        size_t k = 0;
        while (k < wl && (s[i + k] | 0x20) == word[k]) k++;
        if (k < wl) continue;
        size_t j = i + wl;
        while (j < n && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r' || s[j] == '\f')) j++;
        if (j >= n || s[j] != ':') continue;
        j++;
        while (j < n && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r' || s[j] == '\f')) j++;
        k = 0;
        while (k < vl && j + k < n && (s[j + k] | 0x20) == val[k]) k++;
        if (k == vl) return 1;
    }
    return 0;
}

/* Whether an element is hidden from the reader by its own attributes (segment.is_hidden):
 * `hidden`, aria-hidden="true", or a style saying display:none or visibility:hidden. Read on
 * the layout tags only (what hides a block's text is a box, not an inline element). */
static int is_hidden(void *el) {
    if (!FLAG_HIDDEN || !other_attrs(el)) return 0;
    if (L.has_attr(el, (const lxb_char_t *)"hidden", 6)) return 1;
    Str a = attr(el, "aria-hidden");
    if (a.n) {
        const lxb_char_t *p = a.p, *e = a.p + a.n;
        while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f')) p++;
        while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r' || e[-1] == '\f')) e--;
        if (e - p == 4 && (p[0] | 0x20) == 't' && (p[1] | 0x20) == 'r' && (p[2] | 0x20) == 'u'
                && (p[3] | 0x20) == 'e')
            return 1;
    }
    Str st = attr(el, "style");
    return st.n && (has_decl(st.p, st.n, "display", "none") || has_decl(st.p, st.n, "visibility", "hidden"));
}

/* The node after `node` in document order below `root`; NULL past root's last descendant. */
static void *next_under(void *node, void *root) {
    void *c = FIRST_CHILD(node);
    if (c) return c;
    while (node && node != root) {
        void *nx = NEXT(node);
        if (nx) return nx;
        node = PARENT(node);
    }
    return NULL;
}

/* The text of the descendant text nodes of node, gathered into w->item; 1 when it is over
 * `limit` bytes (0: no limit), -1 on error. */
static int gather_text(W *w, void *root, size_t limit) {
    w->item.n = 0;
    void *node = FIRST_CHILD(root);
    while (node && node != root) {
        if (TAG_ID(node) == TAG_TEXT) {
            size_t len = 0;
            lxb_char_t *owned = NULL, *t = text_of(node, &len, &owned);
            int over = limit && w->item.n + len > limit;
            int r = (!over && t && len) ? buf_put(&w->item, t, len) : 0;
            if (owned) L.destroy_text(w->dom_doc, owned);
            if (r < 0) return -1;
            if (over) return 1;
        }
        node = next_under(node, root);
    }
    return 0;
}

/* segment._short_text, into the arena */
static int short_text(W *w, void *node, Span *out) {
    int r = gather_text(w, node, max_item_text);
    if (r < 0) return -1;
    if (r == 1) return ar_put(w, NULL, 0, out);
    if (norm_into((unsigned char *)w->item.p, w->item.n, &w->tmp) < 0) return -1;
    return ar_put(w, w->tmp.p, w->tmp.n, out);
}

/* A new item of `kind` (its fields are filled by the caller), or NULL when out of memory. */
static Item *add_item(W *w, int kind) {
    if (grow((void **)&w->items, &w->items_cap, w->n_items + 1, sizeof(Item)) < 0) return NULL;
    Item *it = &w->items[w->n_items++];
    memset(it, 0, sizeof *it);
    it->kind = kind;
    return it;
}

/* An item of `kind` whose fields are the attribute values vals[0..n-1], or NULL. */
static Item *add_attrs(W *w, int kind, const Str *vals, int n) {
    Item *it = add_item(w, kind);
    if (!it) return NULL;
    for (int k = 0; k < n; k++)
        if (ar_put(w, vals[k].p, vals[k].n, &it->f[k]) < 0) return NULL;
    return it;
}

/* segment.head_items */
static int collect(W *w, void *node, tag_id_t tid, int body) {
    if (!T_META) return 0;
    Str rel = {NULL, 0};
    if (tid == T_META) {
        Str key = attr(node, "property");
        if (!key.n) key = attr(node, "name");
        if (!key.n) key = attr(node, "itemprop");
        if (!key.n) key = attr(node, "http-equiv");
        Str v[2] = {key, attr(node, "content")};
        if (key.n && v[1].n && !add_attrs(w, IT_META, v, 2)) return -1;
    } else if (tid == T_LINK || tid == T_A) {
        rel = attr(node, "rel");
        if (rel.n && (has_ci(rel.p, rel.n, "canonical") || has_ci(rel.p, rel.n, "author"))) {
            Str v[2] = {rel, attr(node, "href")};
            if (v[1].n && !add_attrs(w, IT_LINK, v, 2)) return -1;
        }
    } else if (tid == T_SCRIPT) {
        Str type = attr(node, "type");
        if (type.n && has_ci(type.p, type.n, "ld+json")) {
            if (gather_text(w, node, 0) < 0) return -1;
            Item *it = add_item(w, IT_LD);
            if (!it || ar_put(w, w->item.p, w->item.n, &it->f[0]) < 0) return -1;
        }
    } else if (tid == T_TIME) {
        Str v[3] = {attr(node, "datetime"), attr(node, "itemprop"), attr(node, "class")};
        Item *it = add_attrs(w, IT_TIME, v, 3);
        if (!it) return -1;
        size_t at = (size_t)(it - w->items);
        Span t;
        if (short_text(w, node, &t) < 0) return -1;
        w->items[at].f[3] = t;  /* (the items may have moved: short_text does not add any) */
    }
    if (body && w->n_by < max_by_items) {
        Str cls = {NULL, 0}, idv = {NULL, 0};
        cls.p = L.elem_class(node, &cls.n);
        if (!cls.p) cls.n = 0;
        idv.p = L.elem_id(node, &idv.n);
        if (!idv.p) idv.n = 0;
        Str prop = {NULL, 0};
        if (other_attrs(node)) prop = attr(node, "itemprop");
        if (has_by_word(cls.p, cls.n) || has_by_word(idv.p, idv.n) ||
            has_ci(rel.p, rel.n, "author") || has_ci(prop.p, prop.n, "author")) {
            w->n_by++;
            Str v[4] = {cls, idv, rel, prop};
            Item *it = add_attrs(w, IT_BY, v, 4);
            if (!it) return -1;
            size_t at = (size_t)(it - w->items);
            Span t;
            if (short_text(w, node, &t) < 0) return -1;
            w->items[at].f[4] = t;
        }
    }
    return 0;
}

/* segment._render_items */
static int render_item(W *w, void *node, tag_id_t tid) {
    size_t nb = w->n_b;
    if (tid == T_A) {
        Str href = attr(node, "href");
        if (!href.n) return 0;
        if (gather_text(w, node, 0) < 0) return -1;
        if (norm_into((unsigned char *)w->item.p, w->item.n, &w->tmp) < 0) return -1;
        return add_extra(w, EX_LINK, nb, w->tmp.p, w->tmp.n, href.p, href.n);
    }
    Str src = attr(node, "src");
    if (!src.n) src = attr(node, "data-src");
    Str alt = attr(node, "alt");
    if (norm_into(alt.p ? alt.p : (const lxb_char_t *)"", alt.n, &w->tmp) < 0) return -1;
    if (!src.n && !w->tmp.n) return 0;
    return add_extra(w, EX_IMAGE, w->has_text ? nb : (nb ? nb - 1 : 0), w->tmp.p, w->tmp.n, src.p, src.n);
}

/* The <head>: the text of its first <title> (when none was seen yet) and its items. */
static int walk_head(W *w, void *head) {
    int titled = !title_empty(w);
    void *node = FIRST_CHILD(head);
    while (node && node != head) {
        tag_id_t tid = TAG_ID(node);
        if (tid == TAG_TITLE) {
            if (!titled) {
                if (set_title(w, node) < 0) return -1;
                titled = 1;
            }
        } else if (tid > 5 && collect(w, node, tid, 0) < 0) {
            return -1;
        }
        node = next_under(node, head);
    }
    return 0;
}

static int walk(W *w, void *root, long *n_nodes) {
    void *node = root;
    int br_run = 0;
    while (node) {
        (*n_nodes)++;
        tag_id_t tid = TAG_ID(node);
        int descend = 0;
        if (tid == TAG_TEXT) {
            size_t len = 0;
            lxb_char_t *owned = NULL, *s = text_of(node, &len, &owned);
            if (s && len) {
                int r = buf_put(&w->cur, s, len);
                if (r == 0 && !all_space(s, len)) {
                    w->has_text = 1;
                    br_run = 0;
                    if (w->sp && (w->stack[w->sp - 1].flags & FLAG_A)) {
                        if (w->anc_pieces++ && buf_put(&w->anc, " ", 1) < 0) r = -1;
                        if (r == 0) r = buf_put(&w->anc, s, len);
                    }
                }
                if (r < 0) {
                    if (owned) L.destroy_text(w->dom_doc, owned);
                    return -1;
                }
            }
            if (owned) L.destroy_text(w->dom_doc, owned);
        } else if (tid == TAG_BR) {
            br_run++;
            w->cur_tags++;
            if (br_run >= 2) {
                if (flush(w) < 0) return -1;
                if (w->sp) w->opener = w->stack[w->sp - 1];
                br_run = 0;
            } else if (buf_put(&w->cur, " ", 1) < 0) {
                return -1;
            }
        } else if (KIND(tid) & K_SKIP) {
            if (tid == TAG_HEAD) {
                if (walk_head(w, node) < 0) return -1;
            } else if (tid > 5 && collect(w, node, tid, 1) < 0) {
                return -1;
            }
        } else if (tid > 5) {  /* 0-5: undef, EOF, text, document, comment, doctype */
            if (tid == TAG_TITLE) {
                if (title_empty(w) && set_title(w, node) < 0) return -1;
            } else {
                if (collect(w, node, tid, 1) < 0) return -1;
                if (w->extras && (tid == T_A || tid == T_IMG) && T_IMG && render_item(w, node, tid) < 0)
                    return -1;
                size_t s = ++w->n_el;
                if (grow((void **)&w->parent, &w->el_cap, s + 1, sizeof(int64_t)) < 0 ||
                    grow((void **)&w->enode, &w->enode_cap, s + 1, sizeof(void *)) < 0 ||
                    grow((void **)&w->stack, &w->stack_cap, w->sp + 1, sizeof(Entry)) < 0)
                    return -1;
                Entry *top = w->sp ? &w->stack[w->sp - 1] : NULL;
                w->parent[s] = top ? top->serial : 0;
                w->enode[s] = (KIND(tid) & K_NOATTR) ? NULL : node;
                uint32_t fl = (top ? top->flags : 0) | FLAGS(tid);
                if (!(fl & FLAG_HIDDEN) && (KIND(tid) & K_BLOCK) && is_hidden(node)) fl |= FLAG_HIDDEN;
                Entry e = {tid < TAG_LIMIT ? tid : UNKNOWN_TAG, fl, (int64_t)s};
                if (KIND(tid) & K_BLOCK) {
                    if (w->cur.n && flush(w) < 0) return -1;
                    w->cur_tags = 0;
                    w->opener = e;
                    br_run = 0;
                }
                w->stack[w->sp++] = e;
                w->cur_tags++;
                descend = 1;
            }
        }
        if (descend) {
            void *child = FIRST_CHILD(node);
            if (child) { node = child; continue; }
            int block = KIND(tid) & K_BLOCK;
            if (block) {  /* an empty block tag still separates blocks */
                if (w->cur.n && flush(w) < 0) return -1;
                w->cur_tags = 0;
            }
            w->sp--;
            if (block && w->sp) w->opener = w->stack[w->sp - 1];
        }
        for (;;) {
            void *nx = NEXT(node);
            if (nx) { node = nx; break; }
            if (!w->sp) { node = NULL; break; }
            node = PARENT(node);
            if (KIND(w->stack[w->sp - 1].tid) & K_BLOCK) {
                if (w->cur.n && flush(w) < 0) return -1;
                w->cur_tags = 0;
                w->sp--;
                if (w->sp) w->opener = w->stack[w->sp - 1];
            } else {
                w->sp--;
            }
        }
    }
    return flush(w);
}

/* The outputs segment.py turns into a Blocks. The class/id of the elements that open a block
 * or are ancestors of one go out packed (see pack_elem), not as Python objects: the serving
 * path only sums their tokens' weights (ic_sums), and Python unpacks them (elem_list) only
 * when it asks for the token tuples themselves (training, tests). */
typedef struct { int64_t serial, parent; uint32_t clen, ilen; } ElemHead;

static int pack_elem(Buf *b, int64_t s, int64_t parent, void *node) {
    size_t cl = 0, il = 0;
    const lxb_char_t *c = NULL, *i = NULL;
    if (node) {
        c = L.elem_class(node, &cl);
        i = L.elem_id(node, &il);
    }
    if (!c) cl = 0;
    if (!i) il = 0;
    ElemHead h = {s, parent, (uint32_t)cl, (uint32_t)il};
    if (cl > UINT32_MAX || il > UINT32_MAX) return -2;  /* class/id too long */
    if (buf_put(b, &h, sizeof h) < 0) return -1;
    if (cl && buf_put(b, c, cl) < 0) return -1;
    if (il && buf_put(b, i, il) < 0) return -1;
    return 0;
}

/* The packed elements (into w->blob, without the GIL): those that open a block or are
 * ancestors of one. -1: out of memory, -2: a class/id too long. */
static int pack_all(W *w) {
    unsigned char *need = PyMem_RawCalloc(w->n_el + 1, 1);
    if (!need) return -1;
    for (size_t i = 0; i < w->n_b; i++)
        for (int64_t s = w->b_int[i * NB_INT + 4]; s && !need[s]; s = w->parent[s]) need[s] = 1;
    /* header: record count, largest serial; then the records in serial order (parents first) */
    int64_t head[2] = {0, (int64_t)w->n_el};
    int r = buf_put(&w->blob, head, sizeof head);
    for (size_t s = 1; r == 0 && s <= w->n_el; s++) {
        if (!need[s]) continue;
        r = pack_elem(&w->blob, (int64_t)s, w->parent[s], w->enode[s]);
        head[0]++;
    }
    if (r == 0) memcpy(w->blob.p, head, sizeof head);
    PyMem_RawFree(need);
    return r;
}

static PyObject *span_str(W *w, Span sp) { return utf8_str(w->ar.p + sp.off, sp.len); }

/* The metadata items as segment.head_items' tuples, in the walk's order. */
static PyObject *build_head(W *w) {
    PyObject *head = PyList_New((Py_ssize_t)w->n_items);
    if (!head) return NULL;
    for (size_t i = 0; i < w->n_items; i++) {
        const Item *it = &w->items[i];
        int nf = item_fields[it->kind];
        PyObject *t = PyTuple_New(nf + 1);
        if (!t) { Py_DECREF(head); return NULL; }
        PyList_SET_ITEM(head, (Py_ssize_t)i, t);
        PyObject *k = PyUnicode_FromString(item_kind[it->kind]);
        if (!k) { Py_DECREF(head); return NULL; }
        PyTuple_SET_ITEM(t, 0, k);
        for (int f = 0; f < nf; f++) {
            PyObject *v = span_str(w, it->f[f]);
            if (v && it->kind == IT_TIME && f == 3 && PyUnicode_GET_LENGTH(v) > max_time_chars)
                Py_SETREF(v, PyUnicode_Substring(v, 0, max_time_chars));
            if (!v) { Py_DECREF(head); return NULL; }
            PyTuple_SET_ITEM(t, f + 1, v);
        }
    }
    return head;
}

/* Blocks.extras: ({block: raw code text}, [numbered list items], [(block, text, href)],
 * [(block, alt, src)]) */
static PyObject *build_extras(W *w) {
    PyObject *pre = PyDict_New(), *ordered = PyList_New(0), *links = PyList_New(0), *images = PyList_New(0);
    int bad = !pre || !ordered || !links || !images;
    for (size_t i = 0; !bad && i < w->n_ex; i++) {
        const Extra *e = &w->ex[i];
        PyObject *k = PyLong_FromSize_t(e->at), *v = NULL;
        if (!k) { bad = 1; break; }
        if (e->kind == EX_PRE) {
            v = span_str(w, e->a);
            bad = !v || PyDict_SetItem(pre, k, v) < 0;
        } else if (e->kind == EX_ORDERED) {
            bad = PyList_Append(ordered, k) < 0;
        } else {
            PyObject *a = span_str(w, e->a), *b = span_str(w, e->b);
            v = (a && b) ? PyTuple_Pack(3, k, a, b) : NULL;
            Py_XDECREF(a);
            Py_XDECREF(b);
            bad = !v || PyList_Append(e->kind == EX_LINK ? links : images, v) < 0;
        }
        Py_DECREF(k);
        Py_XDECREF(v);
    }
    PyObject *out = bad ? NULL : PyTuple_Pack(4, pre, ordered, links, images);
    Py_XDECREF(pre);
    Py_XDECREF(ordered);
    Py_XDECREF(links);
    Py_XDECREF(images);
    return out;
}

/* The column of the spans k of each block (0: the texts, 1: the anchor texts): texts.TextColumn's
 * parts (the text as one str, its starts in characters, its UTF-8, its starts in bytes; each
 * block's characters into chars[i * 3] where chars is not NULL), the spans joined by "\n"
 * (gap 1) or by nothing (gap 0). A span that is not valid UTF-8 is read as
 * bytes.decode("utf-8", "replace") reads it. */
static PyObject *column(W *w, int k, int gap, double *chars) {
    size_t nb = w->n_b;
    PyObject *fixed = NULL, *u = NULL, *str = NULL, *cs = NULL, *bs = NULL, *out = NULL;
    /* the spans' bytes: the arena's, or (where some span is not valid UTF-8) each span's str's */
    const char **src = PyMem_Malloc((nb + 1) * sizeof(char *));
    size_t *len = PyMem_Malloc((nb + 1) * sizeof(size_t));
    if (!src || !len) { PyErr_NoMemory(); goto done; }
    size_t total = 0;
    for (size_t i = 0; i < nb; i++) {
        Span sp = w->b_txt[2 * i + k];
        src[i] = w->ar.p + sp.off;
        len[i] = sp.len;
        total += sp.len + (size_t)gap;
    }
    for (int pass = 0; pass < 2; pass++) {
        size_t n_u = nb ? total - (size_t)gap : 0;
        if (!(u = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)n_u))) goto done;
        char *p = PyBytes_AS_STRING(u);
        size_t at = 0;
        for (size_t i = 0; i < nb; i++) {
            if (len[i]) memcpy(p + at, src[i], len[i]);
            at += len[i];
            if (gap && i + 1 < nb) p[at] = '\n';
            at += (size_t)gap;
        }
        str = PyUnicode_DecodeUTF8(p, (Py_ssize_t)n_u, "strict");
        if (str || pass || !PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) break;
        /* some span is not valid UTF-8: each span's str ("replace"), then its UTF-8 */
        PyErr_Clear();
        Py_CLEAR(u);
        if (!(fixed = PyList_New((Py_ssize_t)nb))) goto done;
        total = 0;
        for (size_t i = 0; i < nb; i++) {
            PyObject *t = utf8_str(src[i], len[i]);
            Py_ssize_t m;
            const char *q = t ? PyUnicode_AsUTF8AndSize(t, &m) : NULL;
            if (!q) { Py_XDECREF(t); goto done; }
            PyList_SET_ITEM(fixed, (Py_ssize_t)i, t);
            src[i] = q;
            len[i] = (size_t)m;
            total += (size_t)m + (size_t)gap;
        }
    }
    if (!str) goto done;
    cs = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)((nb + 1) * sizeof(int64_t)));
    bs = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)((nb + 1) * sizeof(int64_t)));
    if (!cs || !bs) goto done;
    int64_t *c = (int64_t *)PyBytes_AS_STRING(cs), *b = (int64_t *)PyBytes_AS_STRING(bs);
    int64_t at = 0, ch = 0;
    for (size_t i = 0; i < nb; i++) {
        c[i] = ch;
        b[i] = at;
        int64_t m = 0;  /* characters: the bytes that start one (valid UTF-8) */
        for (size_t j = 0; j < len[i]; j++) m += ((unsigned char)src[i][j] & 0xc0) != 0x80;
        if (chars) chars[i * 3] = (double)m;
        ch += m + gap;
        at += (int64_t)len[i] + gap;
    }
    c[nb] = nb ? ch : gap;
    b[nb] = nb ? at : gap;
    out = PyTuple_Pack(4, str, cs, u, bs);
done:
    PyMem_Free(src);
    PyMem_Free(len);
    Py_XDECREF(fixed);
    Py_XDECREF(u);
    Py_XDECREF(str);
    Py_XDECREF(cs);
    Py_XDECREF(bs);
    return out;
}

/* whether n bytes are valid UTF-8 (no overlong form, surrogate or code point past U+10FFFF) */
static int utf8_valid(const unsigned char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        if (c < 0x80) { i++; continue; }
        size_t k = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc2 ? 1 : 0;
        if (!k || c > 0xf4 || n - i <= k) return 0;
        for (size_t j = 1; j <= k; j++) if ((s[i + j] & 0xc0) != 0x80) return 0;
        if ((c == 0xe0 && s[i + 1] < 0xa0) || (c == 0xed && s[i + 1] > 0x9f) ||
            (c == 0xf0 && s[i + 1] < 0x90) || (c == 0xf4 && s[i + 1] > 0x8f))
            return 0;
        i += k + 1;
    }
    return 1;
}

/* The code blocks' raw text as a column (Blocks.code_column): (their UTF-8, one after the other,
 * a span that is not valid UTF-8 as its "replace" str's; nb + 1 int64 starts: block i's text is
 * [starts[i], starts[i + 1]), empty for a block that is not code), or None on a page without. */
static PyObject *code_column(W *w) {
    size_t nb = w->n_b, total = 0, n_pre = 0;
    for (size_t i = 0; i < w->n_ex; i++)
        if (w->ex[i].kind == EX_PRE) { total += w->ex[i].a.len; n_pre++; }
    if (!n_pre) return Py_NewRef(Py_None);
    Buf u = {NULL, 0, 0};
    PyObject *starts = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)((nb + 1) * sizeof(int64_t)));
    PyObject *bytes = NULL, *out = NULL;
    if (!starts) return NULL;
    int64_t *st = (int64_t *)PyBytes_AS_STRING(starts);
    size_t b = 0;
    for (size_t i = 0; i < w->n_ex; i++) {
        const Extra *e = &w->ex[i];
        if (e->kind != EX_PRE) continue;
        for (; b <= e->at && b < nb; b++) st[b] = (int64_t)u.n;
        const char *p = w->ar.p + e->a.off;
        int bad;
        if (utf8_valid((const unsigned char *)p, e->a.len)) {
            bad = buf_put(&u, p, e->a.len) < 0;
        } else {
            PyObject *t = span_str(w, e->a);
            Py_ssize_t m;
            const char *q = t ? PyUnicode_AsUTF8AndSize(t, &m) : NULL;
            bad = !q || buf_put(&u, q, (size_t)m) < 0;
            Py_XDECREF(t);
        }
        if (bad) goto done;
    }
    for (; b <= nb; b++) st[b] = (int64_t)u.n;
    if ((bytes = PyBytes_FromStringAndSize(u.p ? u.p : "", (Py_ssize_t)u.n)))
        out = PyTuple_Pack(2, bytes, starts);
done:
    if (!out && !PyErr_Occurred()) PyErr_NoMemory();
    PyMem_RawFree(u.p);
    Py_XDECREF(bytes);
    Py_DECREF(starts);
    return out;
}

static PyObject *result(W *w, long n_nodes) {
    size_t nb = w->n_b, P = (size_t)path_len;
    PyObject *texts = column(w, 0, 1, w->b_cnt);
    PyObject *anchors = texts ? column(w, 1, 0, NULL) : NULL;
    if (!anchors) {
        Py_XDECREF(texts);
        return NULL;
    }
    /* n_tags, tag, depth, flags: one column after the other, each nb int64 */
    PyObject *ints = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(nb * 4 * sizeof(int64_t)));
    PyObject *openers = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(nb * sizeof(int64_t)));
    PyObject *paths = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(nb * P * sizeof(int64_t)));
    PyObject *counts = PyBytes_FromStringAndSize(w->b_cnt ? (const char *)w->b_cnt : "",
                                                 (Py_ssize_t)(nb * 3 * sizeof(double)));
    PyObject *elems = NULL, *title = NULL, *items = NULL;
    PyObject *out = NULL;
    if (!ints || !openers || !paths || !counts) goto done;
    int64_t *pp = (int64_t *)PyBytes_AS_STRING(paths);
    int64_t *op = (int64_t *)PyBytes_AS_STRING(openers);
    int64_t *ip = (int64_t *)PyBytes_AS_STRING(ints);
    for (size_t i = 0; i < nb; i++) {
        int64_t *r = w->b_int + i * NB_INT;
        for (size_t k = 0; k < 4; k++) ip[k * nb + i] = r[k];
        op[i] = r[4];
        int64_t s = r[4];
        for (size_t k = 0; k < P; k++) {
            pp[i * P + k] = s;
            s = s ? w->parent[s] : 0;
        }
    }
    elems = PyBytes_FromStringAndSize(w->blob.p, (Py_ssize_t)w->blob.n);
    if (!elems) goto done;
    title = span_str(w, w->title);
    items = title ? build_head(w) : NULL;
    PyObject *ex = !items ? NULL : w->extras ? build_extras(w) : Py_NewRef(Py_None);
    PyObject *code = ex ? code_column(w) : NULL;
    if (!code) { Py_XDECREF(ex); goto done; }
    out = Py_BuildValue("(OOOOOOOOlONN)", texts, anchors, ints, openers, paths, counts, elems,
                        title, n_nodes, items, ex, code);
done:
    Py_DECREF(texts);
    Py_DECREF(anchors);
    Py_XDECREF(title);
    Py_XDECREF(items);
    Py_XDECREF(ints);
    Py_XDECREF(openers);
    Py_XDECREF(paths);
    Py_XDECREF(counts);
    Py_XDECREF(elems);
    return out;
}

/* ---- the packed elements ---- */
typedef struct {
    const char *base;
    size_t n;
    int64_t n_rec, max_serial;
} Packed;

static int packed_open(Py_buffer *b, Packed *p) {
    p->base = b->buf;
    p->n = (size_t)b->len;
    int64_t head[2];
    if (p->n < sizeof head) goto bad;
    memcpy(head, p->base, sizeof head);
    p->n_rec = head[0];
    p->max_serial = head[1];
    if (p->n_rec < 0 || p->max_serial < 0 || p->n_rec > p->max_serial) goto bad;
    return 0;
bad:
    PyErr_SetString(PyExc_ValueError, "not a packed element list");
    return -1;
}

/* The record at *off (advanced past it); -1 when the bytes run out or do not add up. */
static int packed_next(const Packed *p, size_t *off, ElemHead *h, const char **cls, const char **idv) {
    if (*off + sizeof *h > p->n) return -1;
    memcpy(h, p->base + *off, sizeof *h);
    size_t at = *off + sizeof *h;
    if (h->clen > p->n - at || h->ilen > p->n - at - h->clen || h->serial < 1 ||
        h->serial > p->max_serial || h->parent < 0 || h->parent >= h->serial) return -1;
    *cls = p->base + at;
    *idv = *cls + h->clen;
    *off = at + h->clen + h->ilen;
    return 0;
}

static PyObject *str_or_none(const char *s, size_t n) {
    if (!n) Py_RETURN_NONE;
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)n, "replace");
}

/* elem_list(packed) -> [(serial, parent serial, class or None, id or None)], parents first */
static PyObject *py_elem_list(PyObject *self, PyObject *arg) {
    Py_buffer b;
    if (PyObject_GetBuffer(arg, &b, PyBUF_SIMPLE) < 0) return NULL;
    Packed p;
    PyObject *out = NULL, *list = NULL;
    if (packed_open(&b, &p) < 0 || !(list = PyList_New(0))) goto done;
    size_t off = 2 * sizeof(int64_t);
    for (int64_t r = 0; r < p.n_rec; r++) {
        ElemHead h;
        const char *c, *i;
        if (packed_next(&p, &off, &h, &c, &i) < 0) {
            PyErr_SetString(PyExc_ValueError, "packed element list is cut short");
            goto done;
        }
        PyObject *cs = str_or_none(c, h.clen), *is = cs ? str_or_none(i, h.ilen) : NULL;
        PyObject *t = is ? Py_BuildValue("(LLNN)", (long long)h.serial, (long long)h.parent, cs, is) : NULL;
        if (!t) { Py_XDECREF(cs); Py_XDECREF(is); goto done; }
        int bad = PyList_Append(list, t) < 0;
        Py_DECREF(t);
        if (bad) goto done;
    }
    out = Py_NewRef(list);
done:
    Py_XDECREF(list);
    PyBuffer_Release(&b);
    return out;
}

/* ---- class/id token weights ----
 * A vocabulary (a model's token list, in its column order) with one weight per token, in an
 * open-addressing hash table. Tokens are what segment.name_tokens makes: [a-z0-9]+. */
typedef struct { const char *tok; size_t len; int idx; } Slot;
typedef struct {
    Slot *slots;
    size_t mask;
    int n;
    double *w;
    char *text;
} Vocab;

/* A 64-bit hash of a byte string, a word at a time. */
static uint64_t hash_bytes(const char *s, size_t n) {
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
    for (size_t i = 0; i < n; i += 8) {
        uint64_t w = 0;
        memcpy(&w, s + i, n - i < 8 ? n - i : 8);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
    }
    return h ^ (h >> 29);
}

/* The index of token s (of hash_bytes h) in the vocabulary, or -1. */
static int vocab_find(const Vocab *v, const char *s, size_t n, uint64_t h) {
    for (size_t k = h & v->mask;; k = (k + 1) & v->mask) {
        const Slot *sl = &v->slots[k];
        if (!sl->tok) return -1;
        if (sl->len == n && memcmp(sl->tok, s, n) == 0) return sl->idx;
    }
}

static void vocab_free(PyObject *cap) {
    Vocab *v = PyCapsule_GetPointer(cap, "ce_filter.vocab");
    if (!v) return;
    PyMem_RawFree(v->slots);
    PyMem_RawFree(v->w);
    PyMem_RawFree(v->text);
    PyMem_RawFree(v);
}

/* vocab_table(tokens: list[str], weights: list[float]) -> capsule */
static PyObject *py_vocab_table(PyObject *self, PyObject *args) {
    PyObject *toks, *ws;
    if (!PyArg_ParseTuple(args, "O!O!", &PyList_Type, &toks, &PyList_Type, &ws)) return NULL;
    Py_ssize_t n = PyList_GET_SIZE(toks);
    if (PyList_GET_SIZE(ws) != n) {
        PyErr_SetString(PyExc_ValueError, "one weight per token");
        return NULL;
    }
    size_t cap = 8, total = 0;
    while (cap < 2 * (size_t)n + 1) cap *= 2;
    Vocab *v = PyMem_RawCalloc(1, sizeof *v);
    if (!v) return PyErr_NoMemory();
    v->n = (int)n;
    v->mask = cap - 1;
    v->slots = PyMem_RawCalloc(cap, sizeof(Slot));
    v->w = PyMem_RawCalloc((size_t)n + 1, sizeof(double));
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t len;
        if (!PyUnicode_Check(PyList_GET_ITEM(toks, i)) ||
            !PyUnicode_AsUTF8AndSize(PyList_GET_ITEM(toks, i), &len)) goto fail;
        total += (size_t)len;
    }
    v->text = PyMem_RawMalloc(total + 1);
    if (!v->slots || !v->w || !v->text) { PyErr_NoMemory(); goto fail; }
    char *at = v->text;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t len;
        const char *s = PyUnicode_AsUTF8AndSize(PyList_GET_ITEM(toks, i), &len);
        double w = PyFloat_AsDouble(PyList_GET_ITEM(ws, i));
        if (w == -1.0 && PyErr_Occurred()) goto fail;
        memcpy(at, s, (size_t)len);
        v->w[i] = w;
        /* a repeated token takes its last index, as the {token: index} dict of the list does */
        size_t k = hash_bytes(at, (size_t)len) & v->mask;
        while (v->slots[k].tok && !(v->slots[k].len == (size_t)len && memcmp(v->slots[k].tok, at, (size_t)len) == 0))
            k = (k + 1) & v->mask;
        v->slots[k] = (Slot){at, (size_t)len, (int)i};
        at += len;
    }
    PyObject *c = PyCapsule_New(v, "ce_filter.vocab", vocab_free);
    if (c) return c;
fail:
    PyMem_RawFree(v->slots);
    PyMem_RawFree(v->w);
    PyMem_RawFree(v->text);
    PyMem_RawFree(v);
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "tokens must be str");
    return NULL;
}

static void set_bit(uint64_t *bits, int i) { bits[i >> 6] |= 1ULL << (i & 63); }

typedef int (*token_fn)(const char *tok, size_t len, void *ctx);

/* Characters by class for the tokeniser (0: a separator), and whether a token ends before a
 * character of class c that follows one of class p: at a separator, between a lower-case
 * letter and an upper-case one, between a letter and a digit. */
enum { C_SEP, C_LOWER, C_UPPER, C_DIGIT };
static unsigned char char_class[256];
static const unsigned char cut_at[4][4] = {
    {1, 0, 0, 0}, {1, 0, 1, 1}, {1, 0, 0, 1}, {1, 0, 0, 0},
};

static void init_chars(void) {
    for (int c = 0; c < 256; c++)
        char_class[c] = c >= 'a' && c <= 'z' ? C_LOWER : c >= 'A' && c <= 'Z' ? C_UPPER
                      : c >= '0' && c <= '9' ? C_DIGIT : C_SEP;
}

static int all_ascii(const char *s, size_t n) {
    uint64_t acc = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        acc |= w;
    }
    for (; i < n; i++) acc |= (unsigned char)s[i];
    return !(acc & 0x8080808080808080ULL);
}

/* Call fn on each token of one class or id value (stopping at the first error fn returns).
 * ASCII values are tokenised here exactly as segment.name_tokens does (a cut between a
 * lower-case letter and an upper-case one or a digit, every other character than [A-Za-z0-9]
 * a separator, tokens of 2-29 characters that are not all digits); others (rare: str.lower()
 * may turn them ASCII) go through ``tokenizer``, which is name_tokens itself. Repeated tokens
 * may be passed more than once. */
static int for_tokens(const char *s, size_t n, PyObject *tokenizer, token_fn fn, void *ctx) {
    if (!all_ascii(s, n)) {
        PyObject *str = PyUnicode_DecodeUTF8(s, (Py_ssize_t)n, "replace");
        PyObject *t = str ? PyObject_CallOneArg(tokenizer, str) : NULL;
        Py_XDECREF(str);
        if (!t) return -1;
        PyObject *seq = PySequence_Fast(t, "the tokenizer returns a sequence");
        Py_DECREF(t);
        if (!seq) return -1;
        for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(seq); k++) {
            Py_ssize_t len;
            const char *u = PyUnicode_AsUTF8AndSize(PySequence_Fast_GET_ITEM(seq, k), &len);
            if (!u || fn(u, (size_t)len, ctx) < 0) { Py_DECREF(seq); return -1; }
        }
        Py_DECREF(seq);
        return 0;
    }
    const unsigned char *u = (const unsigned char *)s;
    char tok[32];
    size_t len = 0;
    int digits = 1;
    unsigned p = C_SEP;
    for (size_t i = 0; i <= n; i++) {
        unsigned char c = i < n ? u[i] : ' ';
        unsigned k = char_class[c];
        if (len && cut_at[p][k]) {
            if (!digits && len > 1 && len < 30 && fn(tok, len, ctx) < 0) return -1;
            len = 0;
            digits = 1;
        }
        if (k) {
            if (len < sizeof tok) tok[len] = (char)(k == C_UPPER ? c + 32 : c);
            len++;
            digits &= k == C_DIGIT;
        }
        p = k;
    }
    return 0;
}

/* The index of the lowest set bit of b (b != 0): the compiler's instruction where it has one
 * (GCC and Clang: __builtin_ctzll; MSVC on 64-bit targets: _BitScanForward64), else a loop. */
static inline size_t lowest_bit(uint64_t b) {
#if defined(__GNUC__) || defined(__clang__)
    return (size_t)__builtin_ctzll(b);
#elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_ARM64))
    unsigned long i;
    _BitScanForward64(&i, b);
    return (size_t)i;
#else
    size_t i = 0;
    for (; !(b & 1); b >>= 1) i++;
    return i;
#endif
}

static double bits_sum(const Vocab *v, const uint64_t *bits, size_t nw) {
    double s = 0.0;  /* in column order, as features.tokens.token_weight_sums adds them */
    for (size_t k = 0; k < nw; k++)
        for (uint64_t b = bits[k]; b; b &= b - 1) s += v->w[k * 64 + lowest_bit(b)];
    return s;
}

/* ---- the page's class/id tokens ----
 * The packed elements' class and id values tokenised once per page: each distinct token gets
 * an id, each element (record) the ids of its tokens. The weight sums (ic_sums) and the
 * pattern flags (flag_columns) then look each distinct token up once per call, not each
 * element's tokens in each call. */
typedef struct {
    size_t n_rec, max_serial, n_tok;
    int32_t *rec_of;  /* serial -> record (1-based; 0: not packed), max_serial + 1 */
    int32_t *par;     /* record -> its parent's record (0: none), n_rec + 1 */
    uint32_t *first;  /* record r's token ids: ids[first[r] .. first[r + 1]), n_rec + 2 */
    int32_t *ids;
    uint32_t *toff, *tlen;  /* token k's text: text[toff[k] .. toff[k] + tlen[k]) */
    uint64_t *thash;        /* and its hash_bytes */
    char *text;
} PageTokens;

static void page_tokens_free_ptr(PageTokens *t) {
    if (!t) return;
    PyMem_RawFree(t->rec_of);
    PyMem_RawFree(t->par);
    PyMem_RawFree(t->first);
    PyMem_RawFree(t->ids);
    PyMem_RawFree(t->toff);
    PyMem_RawFree(t->tlen);
    PyMem_RawFree(t->thash);
    PyMem_RawFree(t->text);
    PyMem_RawFree(t);
}

static void page_tokens_free(PyObject *cap) {
    page_tokens_free_ptr(PyCapsule_GetPointer(cap, "ce_filter.page_tokens"));
}

/* An open-addressing table of entry numbers + 1 (0: empty) over entries whose hashes it keeps
 * (to grow without hashing again); the caller compares the keys. */
typedef struct { int32_t *slot; size_t mask, n, cap; uint64_t *hash; } Index;

static int index_init(Index *x) {
    x->mask = 63;
    x->slot = PyMem_RawCalloc(x->mask + 1, sizeof *x->slot);
    if (!x->slot) { if (PyGILState_Check()) PyErr_NoMemory(); return -1; }
    return 0;
}

/* Entry x->n, of hash h, into the empty slot j the lookup ended at. */
static int index_add(Index *x, size_t j, uint64_t h) {
    if (x->n >= INT32_MAX - 1) {
        if (PyGILState_Check()) PyErr_SetString(PyExc_ValueError, "too many class/id tokens");
        return -1;
    }
    if (grow((void **)&x->hash, &x->cap, x->n + 1, sizeof *x->hash) < 0) return -1;
    x->hash[x->n] = h;
    x->slot[j] = (int32_t)++x->n;
    if (2 * x->n <= x->mask) return 0;
    size_t cap = (x->mask + 1) * 2;
    int32_t *s = PyMem_RawCalloc(cap, sizeof *s);
    if (!s) { if (PyGILState_Check()) PyErr_NoMemory(); return -1; }
    for (size_t k = 0; k < x->n; k++) {
        size_t i = x->hash[k] & (cap - 1);
        while (s[i]) i = (i + 1) & (cap - 1);
        s[i] = (int32_t)k + 1;
    }
    PyMem_RawFree(x->slot);
    x->slot = s;
    x->mask = cap - 1;
    return 0;
}

static void index_free(Index *x) {
    PyMem_RawFree(x->slot);
    PyMem_RawFree(x->hash);
}

/* While building: the distinct tokens (toks), and the distinct class/id values (vals) with
 * the token ids each gave (vids[vfirst[v] .. vfirst[v + 1])): a page repeats its class
 * values, and a repeated one is not tokenised again. */
typedef struct {
    PageTokens *t;
    Buf text;
    Index toks, vals;
    int32_t *seen;  /* by token id: the last record that listed it (one id per record) */
    size_t cap_seen, cap_ids, n_ids;
    int32_t rec;
    const char **vtext;
    size_t *vlen;
    uint32_t *vfirst;
    int32_t *vids;
    size_t cap_v, cap_vids, n_vids;
} TokBuild;

/* Token id ``id`` for the record being built, once. */
static int tb_list(TokBuild *b, int32_t id) {
    if (b->seen[id] == b->rec) return 0;
    b->seen[id] = b->rec;
    if (grow((void **)&b->t->ids, &b->cap_ids, b->n_ids + 1, sizeof *b->t->ids) < 0) return -1;
    b->t->ids[b->n_ids++] = id;
    return 0;
}

/* One token of the value being tokenised (a token_fn). */
static int tb_token(const char *tok, size_t len, void *ctx) {
    TokBuild *b = ctx;
    PageTokens *t = b->t;
    uint64_t h = hash_bytes(tok, len);
    size_t j = h & b->toks.mask;
    int32_t id = -1;
    for (; b->toks.slot[j]; j = (j + 1) & b->toks.mask) {
        int32_t k = b->toks.slot[j] - 1;
        if (t->tlen[k] == len && memcmp(b->text.p + t->toff[k], tok, len) == 0) { id = k; break; }
    }
    if (id < 0) {
        size_t k = b->toks.n, c = b->cap_seen;
        if (len > UINT32_MAX || b->text.n > UINT32_MAX - len) {
            if (PyGILState_Check()) PyErr_SetString(PyExc_ValueError, "too many class/id tokens");
            return -1;
        }
        if (grow((void **)&t->toff, &c, k + 1, sizeof *t->toff) < 0) return -1;
        c = b->cap_seen;
        if (grow((void **)&t->tlen, &c, k + 1, sizeof *t->tlen) < 0) return -1;
        c = b->cap_seen;
        if (grow((void **)&b->seen, &c, k + 1, sizeof *b->seen) < 0) return -1;
        b->cap_seen = c;
        t->toff[k] = (uint32_t)b->text.n;
        t->tlen[k] = (uint32_t)len;
        b->seen[k] = 0;
        if (buf_put(&b->text, tok, len) < 0 || index_add(&b->toks, j, h) < 0) return -1;
        t->n_tok = b->toks.n;
        id = (int32_t)k;
    }
    if (grow((void **)&b->vids, &b->cap_vids, b->n_vids + 1, sizeof *b->vids) < 0) return -1;
    b->vids[b->n_vids++] = id;
    return tb_list(b, id);
}

/* The tokens of one class or id value (s stays valid while building: it is in the packed
 * bytes) for the record being built. */
static int tb_value(TokBuild *b, const char *s, size_t n, PyObject *tokenizer) {
    uint64_t h = hash_bytes(s, n);
    size_t j = h & b->vals.mask;
    for (; b->vals.slot[j]; j = (j + 1) & b->vals.mask) {
        size_t v = (size_t)b->vals.slot[j] - 1;
        if (b->vlen[v] == n && memcmp(b->vtext[v], s, n) == 0) {
            for (uint32_t q = b->vfirst[v]; q < b->vfirst[v + 1]; q++)
                if (tb_list(b, b->vids[q]) < 0) return -1;
            return 0;
        }
    }
    size_t v = b->vals.n, c = b->cap_v;
    if (b->n_vids > UINT32_MAX - n) {
        if (PyGILState_Check()) PyErr_SetString(PyExc_ValueError, "too many class/id tokens");
        return -1;
    }
    if (grow((void **)&b->vtext, &c, v + 2, sizeof *b->vtext) < 0) return -1;
    c = b->cap_v;
    if (grow((void **)&b->vlen, &c, v + 2, sizeof *b->vlen) < 0) return -1;
    c = b->cap_v;
    if (grow((void **)&b->vfirst, &c, v + 2, sizeof *b->vfirst) < 0) return -1;
    b->cap_v = c;
    b->vtext[v] = s;
    b->vlen[v] = n;
    b->vfirst[v] = (uint32_t)b->n_vids;
    if (for_tokens(s, n, tokenizer, tb_token, b) < 0) return -1;
    b->vfirst[v + 1] = (uint32_t)b->n_vids;
    return index_add(&b->vals, j, h);  /* j: still the empty slot (vals did not change) */
}

/* page_tokens(packed, tokenizer) -> capsule: segment()'s packed elements, tokenised once */
static PyObject *py_page_tokens(PyObject *self, PyObject *args) {
    Py_buffer pb;
    PyObject *tokenizer;
    if (!PyArg_ParseTuple(args, "y*O", &pb, &tokenizer)) return NULL;
    PyObject *out = NULL;
    Packed p;
    TokBuild b = {0};
    PageTokens *t = PyMem_RawCalloc(1, sizeof *t);
    if (!t) { PyErr_NoMemory(); goto done; }
    if (packed_open(&pb, &p) < 0) goto done;
    size_t R = (size_t)p.n_rec;
    t->n_rec = R;
    t->max_serial = (size_t)p.max_serial;
    t->rec_of = PyMem_RawCalloc(t->max_serial + 1, sizeof *t->rec_of);
    t->par = PyMem_RawCalloc(R + 1, sizeof *t->par);
    t->first = PyMem_RawCalloc(R + 2, sizeof *t->first);
    b.t = t;
    if (!t->rec_of || !t->par || !t->first) { PyErr_NoMemory(); goto done; }
    if (index_init(&b.toks) < 0 || index_init(&b.vals) < 0) goto done;
    /* where every class and id is ASCII (most pages) the tokenizer is never called: the
     * records are then tokenised without the GIL (the packed bytes are held by pb) */
    int ascii = 1, err = 0;
    size_t off = 2 * sizeof(int64_t);
    for (size_t r = 1; r <= R && ascii; r++) {
        ElemHead h;
        const char *c, *i;
        if (packed_next(&p, &off, &h, &c, &i) < 0) break;  /* (reported below) */
        ascii = all_ascii(c, h.clen) && all_ascii(i, h.ilen);
    }
    PyThreadState *ts = ascii ? PyEval_SaveThread() : NULL;
    off = 2 * sizeof(int64_t);
    for (size_t r = 1; r <= R; r++) {  /* record r (1-based; 0 = no element) */
        ElemHead h;
        const char *c, *i;
        if (packed_next(&p, &off, &h, &c, &i) < 0) { err = 1; break; }
        if (b.n_ids > UINT32_MAX - h.clen - h.ilen) { err = 2; break; }
        t->rec_of[h.serial] = (int32_t)r;
        t->par[r] = t->rec_of[h.parent];
        t->first[r] = (uint32_t)b.n_ids;
        b.rec = (int32_t)r;
        if ((h.clen && tb_value(&b, c, h.clen, tokenizer) < 0) ||
            (h.ilen && tb_value(&b, i, h.ilen, tokenizer) < 0)) { err = 3; break; }
    }
    if (ts) PyEval_RestoreThread(ts);
    if (err == 1) PyErr_SetString(PyExc_ValueError, "packed element list is cut short");
    if (err == 2) PyErr_SetString(PyExc_ValueError, "too many class/id tokens");
    if (err == 3 && !PyErr_Occurred())  /* (an error met without the GIL) */
        PyErr_SetString(PyExc_MemoryError, "class/id tokens: out of memory, or too many tokens");
    if (err) goto done;
    t->first[R + 1] = (uint32_t)b.n_ids;
    t->text = b.text.p;
    b.text.p = NULL;
    t->thash = b.toks.hash;
    b.toks.hash = NULL;
    out = PyCapsule_New(t, "ce_filter.page_tokens", page_tokens_free);
    if (out) t = NULL;
done:
    PyBuffer_Release(&pb);
    page_tokens_free_ptr(t);
    PyMem_RawFree(b.text.p);
    index_free(&b.toks);
    index_free(&b.vals);
    PyMem_RawFree(b.seen);
    PyMem_RawFree(b.vtext);
    PyMem_RawFree(b.vlen);
    PyMem_RawFree(b.vfirst);
    PyMem_RawFree(b.vids);
    return out;
}

/* The capsule's PageTokens and the openers (int64 serials) as a record per block. */
static PageTokens *page_tokens_of(PyObject *cap) {
    return PyCapsule_GetPointer(cap, "ce_filter.page_tokens");
}

static int32_t opener_rec(const PageTokens *t, int64_t s) {
    return (s > 0 && (size_t)s <= t->max_serial) ? t->rec_of[s] : 0;
}

/* The summed weights of the vocabulary tokens of each of nb blocks' opener (openers: their
 * serials; anc 0) or of its ancestors (anc 1) into o, each token counted once, added in column
 * order. No Python (the tokens and the vocabulary do not change); -1 when out of memory.
 * ic_sums' core, and the C API other parts call (SEGMENT_API). */
static int ic_fill(const void *tokens, const void *vocab, const int64_t *openers, size_t nb,
                   int anc, double *o) {
    const PageTokens *t = tokens;
    const Vocab *v = vocab;
    int32_t *fb = NULL;
    uint64_t *bits = NULL;
    double *fsum = NULL;
    unsigned char *summed = NULL;
    size_t nw = ((size_t)v->n + 63) / 64 + 1, R = t->n_rec;
    int32_t *vidx = PyMem_RawMalloc((t->n_tok + 1) * sizeof *vidx);
    double *sum = PyMem_RawCalloc(R + 1, sizeof *sum);
    int any = 0, nomem = 0;
    if (!vidx || !sum) { nomem = 1; goto computed; }
    for (size_t k = 0; k < t->n_tok; k++) {
        vidx[k] = vocab_find(v, t->text + t->toff[k], t->tlen[k], t->thash[k]);
        any |= vidx[k] >= 0;
    }
    if (any && !anc) {
        bits = PyMem_RawCalloc(nw, sizeof *bits);
        if (!bits) { nomem = 1; goto computed; }
        for (size_t r = 1; r <= R; r++) {
            int hit = 0;
            for (uint32_t j = t->first[r]; j < t->first[r + 1]; j++) {
                int32_t i = vidx[t->ids[j]];
                if (i >= 0) { set_bit(bits, i); hit = 1; }
            }
            if (hit) {
                sum[r] = bits_sum(v, bits, nw);
                memset(bits, 0, nw * sizeof *bits);
            }
        }
    } else if (any) {
        /* bits + q * nw: the tokens of an element and its ancestors, in slot q = fb[r] (0: none;
         * an element that adds no vocabulary token shares its parent's slot), summed once
         * (summed[q]); slots are filled by copying, so only slot 0 is cleared */
        bits = PyMem_RawMalloc((R + 1) * nw * sizeof *bits);
        fb = PyMem_RawCalloc(R + 1, sizeof *fb);
        fsum = PyMem_RawCalloc(R + 1, sizeof *fsum);
        summed = PyMem_RawCalloc(R + 1, 1);
        if (!bits || !fb || !fsum || !summed) { nomem = 1; goto computed; }
        memset(bits, 0, nw * sizeof *bits);
        summed[0] = 1;  /* no tokens: 0.0 */
        int32_t slots = 1;
        for (size_t r = 1; r <= R; r++) {
            int32_t q = fb[t->par[r]];
            if (!summed[q]) {
                fsum[q] = bits_sum(v, bits + (size_t)q * nw, nw);
                summed[q] = 1;
            }
            sum[r] = fsum[q];
            fb[r] = q;
            for (uint32_t j = t->first[r]; j < t->first[r + 1]; j++) {
                int32_t i = vidx[t->ids[j]];
                if (i < 0) continue;
                if (fb[r] == q) {
                    fb[r] = slots++;
                    memcpy(bits + (size_t)fb[r] * nw, bits + (size_t)q * nw, nw * sizeof *bits);
                }
                set_bit(bits + (size_t)fb[r] * nw, i);
            }
        }
    }
    for (size_t k = 0; k < nb; k++) o[k] = sum[opener_rec(t, openers[k])];
computed:
    PyMem_RawFree(vidx);
    PyMem_RawFree(fb);
    PyMem_RawFree(bits);
    PyMem_RawFree(sum);
    PyMem_RawFree(fsum);
    PyMem_RawFree(summed);
    return nomem ? -1 : 0;
}

/* ic_sums(page_tokens, openers, vocab, ancestors) -> bytes of float64, one per block: ic_fill */
static PyObject *py_ic_sums(PyObject *self, PyObject *args) {
    Py_buffer ob;
    PyObject *tcap, *vcap;
    int anc;
    if (!PyArg_ParseTuple(args, "Oy*Op", &tcap, &ob, &vcap, &anc)) return NULL;
    PyObject *out = NULL;
    const PageTokens *t = page_tokens_of(tcap);
    const Vocab *v = t ? PyCapsule_GetPointer(vcap, "ce_filter.vocab") : NULL;
    size_t nb = (size_t)ob.len / sizeof(int64_t);
    if (v && (out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(nb * sizeof(double))))) {
        int bad;
        /* the page's tokens and the vocabulary do not change: summed without the GIL */
        Py_BEGIN_ALLOW_THREADS
        bad = ic_fill(t, v, ob.buf, nb, anc, (double *)PyBytes_AS_STRING(out));
        Py_END_ALLOW_THREADS
        if (bad) { Py_CLEAR(out); PyErr_NoMemory(); }
    }
    PyBuffer_Release(&ob);
    return out;
}

/* ---- class/id token patterns ----
 * Flags per element from literal patterns over its class/id tokens (features.RX: readability's
 * class/id regexes in token form): a token sets a flag bit when it contains, equals or ends
 * with one of that flag's patterns. */
enum { P_CONTAINS = 0, P_EQUALS = 1, P_ENDS = 2 };
typedef struct {
    int n;
    const char **pat;
    size_t *plen;
    unsigned char *kind;
    uint32_t *bit;
    uint64_t *chars;  /* the pattern's characters as a charmask() */
    char *text;
    struct MatchMemo *memo;  /* MEMO tokens' flags, by hash: pages share their class names */
    PyThread_type_lock lock; /* the memo's: flag_columns runs without the GIL */
} Matcher;

#define MEMO 4096
struct MatchMemo { char tok[30]; unsigned char len; uint32_t flags; };

/* A set of characters as bits ([a-z] 0-25, [0-9] 26-35, anything else 36): a pattern can
 * only match inside a token that has all of its characters. */
static uint64_t charmask(const char *s, size_t n) {
    uint64_t m = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        m |= 1ULL << (c >= 'a' && c <= 'z' ? c - 'a' : c >= '0' && c <= '9' ? 26 + c - '0' : 36);
    }
    return m;
}

static void matcher_free_ptr(Matcher *m) {
    if (!m) return;
    PyMem_RawFree(m->pat);
    PyMem_RawFree(m->plen);
    PyMem_RawFree(m->kind);
    PyMem_RawFree(m->bit);
    PyMem_RawFree(m->chars);
    PyMem_RawFree(m->text);
    PyMem_RawFree(m->memo);
    if (m->lock) PyThread_free_lock(m->lock);
    PyMem_RawFree(m);
}

static void matcher_free(PyObject *cap) {
    matcher_free_ptr(PyCapsule_GetPointer(cap, "ce_filter.matcher"));
}

/* token_matcher(patterns: list[tuple[int, int, str]]) -> capsule; (flag bit 0-31, kind, text) */
static PyObject *py_token_matcher(PyObject *self, PyObject *arg) {
    if (!PyList_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "token_matcher() takes a list of (bit, kind, pattern)");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(arg);
    Matcher *m = PyMem_RawCalloc(1, sizeof *m);
    if (!m) return PyErr_NoMemory();
    m->n = (int)n;
    m->pat = PyMem_RawCalloc((size_t)n + 1, sizeof(char *));
    m->plen = PyMem_RawCalloc((size_t)n + 1, sizeof(size_t));
    m->kind = PyMem_RawCalloc((size_t)n + 1, 1);
    m->bit = PyMem_RawCalloc((size_t)n + 1, sizeof(uint32_t));
    m->chars = PyMem_RawCalloc((size_t)n + 1, sizeof(uint64_t));
    size_t total = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int bit, kind;
        const char *t;
        Py_ssize_t len;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(arg, i), "iis#", &bit, &kind, &t, &len)) goto fail;
        if (bit < 0 || bit > 31 || kind < P_CONTAINS || kind > P_ENDS || len < 1) {
            PyErr_SetString(PyExc_ValueError, "pattern: bit 0-31, kind 0-2, non-empty text");
            goto fail;
        }
        total += (size_t)len;
    }
    m->text = PyMem_RawMalloc(total + 1);
    m->memo = PyMem_RawCalloc(MEMO, sizeof *m->memo);
    m->lock = PyThread_allocate_lock();
    if (!m->memo || !m->lock || !m->pat || !m->plen || !m->kind || !m->bit || !m->chars || !m->text) { PyErr_NoMemory(); goto fail; }
    char *at = m->text;
    for (Py_ssize_t i = 0; i < n; i++) {
        int bit, kind;
        const char *t;
        Py_ssize_t len;
        PyArg_ParseTuple(PyList_GET_ITEM(arg, i), "iis#", &bit, &kind, &t, &len);
        memcpy(at, t, (size_t)len);
        m->pat[i] = at;
        m->plen[i] = (size_t)len;
        m->kind[i] = (unsigned char)kind;
        m->bit[i] = 1u << bit;
        m->chars[i] = charmask(t, (size_t)len);
        at += len;
    }
    PyObject *cap = PyCapsule_New(m, "ce_filter.matcher", matcher_free);
    if (cap) return cap;
fail:
    matcher_free_ptr(m);
    return NULL;
}

static int contains(const char *s, size_t n, const char *p, size_t k) {
    if (k > n) return 0;
    for (size_t i = 0; i + k <= n; i++)
        if (s[i] == p[0] && memcmp(s + i, p, k) == 0) return 1;
    return 0;
}

static uint32_t token_flags(const Matcher *m, const char *tok, size_t len) {
    uint32_t flags = 0;
    uint64_t have = charmask(tok, len);
    for (int i = 0; i < m->n; i++) {
        if ((flags & m->bit[i]) || (m->chars[i] & ~have)) continue;
        size_t k = m->plen[i];
        int hit = m->kind[i] == P_EQUALS ? (len == k && memcmp(tok, m->pat[i], k) == 0)
                : m->kind[i] == P_ENDS ? (len >= k && memcmp(tok + len - k, m->pat[i], k) == 0)
                : contains(tok, len, m->pat[i], k);
        if (hit) flags |= m->bit[i];
    }
    return flags;
}

/* token_flags through the matcher's memo (one slot per hash; a token that is not there, or
 * too long for it, is matched and takes the slot). */
static uint32_t memo_flags(Matcher *m, const char *tok, size_t len, uint64_t h) {
    if (len >= sizeof m->memo->tok) return token_flags(m, tok, len);
    struct MatchMemo *e = &m->memo[h & (MEMO - 1)];
    if (e->len != len || memcmp(e->tok, tok, len) != 0) {
        memcpy(e->tok, tok, len);
        e->len = (unsigned char)len;
        e->flags = token_flags(m, tok, len);
    }
    return e->flags;
}

/* The flag columns of nb blocks (openers: their int64 serials) into o (nb rows of (levels + 2) *
 * n_bits float64): for the opener and each of its ``levels`` nearest ancestors, n_bits 0/1
 * flags of its own tokens; then n_bits flags of all its ancestors together. Without the GIL
 * (the matcher's memo under its lock); -1 when out of memory. flag_columns' core, and the C API
 * other parts call (SEGMENT_API: the pass makes the rules' columns where it needs them). */
static int flag_fill(const void *tokens, void *matcher, const int64_t *op, size_t nb, int levels,
                     int n_bits, double *o) {
    const PageTokens *t = tokens;
    Matcher *m = matcher;
    size_t R = t->n_rec, width = (size_t)(levels + 2) * (size_t)n_bits;
    uint32_t *tf = PyMem_RawMalloc((t->n_tok + 1) * sizeof *tf);
    uint32_t *own = PyMem_RawCalloc(2 * (R + 1), sizeof *own);  /* by record: own flags, then ancestors' */
    if (!tf || !own) {
        PyMem_RawFree(tf);
        PyMem_RawFree(own);
        return -1;
    }
    uint32_t *anc = own + R + 1;
    PyThread_acquire_lock(m->lock, WAIT_LOCK);
    for (size_t k = 0; k < t->n_tok; k++) tf[k] = memo_flags(m, t->text + t->toff[k], t->tlen[k], t->thash[k]);
    PyThread_release_lock(m->lock);
    for (size_t r = 1; r <= R; r++) {  /* parents come first */
        uint32_t f = 0;
        for (uint32_t j = t->first[r]; j < t->first[r + 1]; j++) f |= tf[t->ids[j]];
        own[r] = f;
        int32_t p = t->par[r];
        anc[r] = p ? (anc[p] | own[p]) : 0;
    }
    for (size_t b = 0; b < nb; b++, o += width) {
        int32_t r = opener_rec(t, op[b]);
        uint32_t a = anc[r];
        for (int lvl = 0; lvl <= levels; lvl++) {
            uint32_t f = own[r];
            for (int k = 0; k < n_bits; k++) o[lvl * n_bits + k] = (double)((f >> k) & 1u);
            r = t->par[r];
        }
        for (int k = 0; k < n_bits; k++) o[(levels + 1) * n_bits + k] = (double)((a >> k) & 1u);
    }
    PyMem_RawFree(tf);
    PyMem_RawFree(own);
    return 0;
}

/* flag_columns(page_tokens, openers, matcher, levels, n_bits) -> bytes of float64, one row
 * per block (flag_fill). The same matrix as Blocks.pattern_columns builds from
 * Blocks.pattern_flags, without the Python steps. */
static PyObject *py_flag_columns(PyObject *self, PyObject *args) {
    Py_buffer ob;
    PyObject *tcap, *mcap;
    int levels, n_bits;
    if (!PyArg_ParseTuple(args, "Oy*Oii", &tcap, &ob, &mcap, &levels, &n_bits)) return NULL;
    PyObject *out = NULL;
    const PageTokens *t = page_tokens_of(tcap);
    Matcher *m = t ? PyCapsule_GetPointer(mcap, "ce_filter.matcher") : NULL;
    if (!t || !m) goto done;
    if (levels < 0 || n_bits < 1 || n_bits > 32) {
        PyErr_SetString(PyExc_ValueError, "levels >= 0 and 1 <= n_bits <= 32");
        goto done;
    }
    size_t nb = (size_t)ob.len / sizeof(int64_t), width = (size_t)(levels + 2) * (size_t)n_bits;
    out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(nb * width * sizeof(double)));
    if (!out) goto done;
    int bad;
    /* the capsules (held by the caller's arguments) and the output stay alive */
    Py_BEGIN_ALLOW_THREADS
    bad = flag_fill(t, m, ob.buf, nb, levels, n_bits, (double *)PyBytes_AS_STRING(out));
    Py_END_ALLOW_THREADS
    if (bad) { Py_CLEAR(out); PyErr_NoMemory(); }
done:
    PyBuffer_Release(&ob);
    return out;
}

static PyObject *py_segment(PyObject *self, PyObject *args) {
    PyObject *cap;
    int extras = 0;
    if (!PyArg_ParseTuple(args, "O|p", &cap, &extras)) return NULL;
    if (!configured) {
        PyErr_SetString(PyExc_RuntimeError, "configure() first");
        return NULL;
    }
    void *doc = PyCapsule_GetPointer(cap, "ce_filter.lexbor_doc");
    if (!doc) return NULL;
    W w;
    memset(&w, 0, sizeof w);
    w.dom_doc = doc;  /* lxb_html_document_t starts with its lxb_dom_document_t */
    w.extras = extras;
    PyObject *out = NULL;
    long n_nodes = 0;
    int bad = 0;
    /* the capsule (held by the caller's argument) keeps the document alive; nothing else
     * touches it meanwhile (one parse per page), so the walk runs without the GIL */
    Py_BEGIN_ALLOW_THREADS
    void *root = L.doc_root(doc);
    if (root && T_HTML && TAG_ID(root) == T_HTML) {
        Str lang = attr(root, "lang");
        bad = lang.n && !add_attrs(&w, IT_LANG, &lang, 1);
    }
    if (!bad && root) bad = walk(&w, root, &n_nodes) < 0;
    if (!bad) {
        int r = pack_all(&w);
        bad = r == -2 ? 2 : r < 0;  /* 2: a class/id too long; 1: out of memory */
    }
    Py_END_ALLOW_THREADS
    if (bad == 2)
        PyErr_SetString(PyExc_ValueError, "class/id too long");
    else if (bad)
        PyErr_NoMemory();  /* the walk fails only where memory runs out */
    else
        out = result(&w, n_nodes);
    PyMem_RawFree(w.item.p);
    PyMem_RawFree(w.ar.p);
    PyMem_RawFree(w.b_txt);
    PyMem_RawFree(w.items);
    PyMem_RawFree(w.ex);
    PyMem_RawFree(w.blob.p);
    PyMem_RawFree(w.cur.p);
    PyMem_RawFree(w.anc.p);
    PyMem_RawFree(w.tmp.p);
    PyMem_RawFree(w.stack);
    PyMem_RawFree(w.parent);
    PyMem_RawFree(w.enode);
    PyMem_RawFree(w.b_int);
    PyMem_RawFree(w.b_cnt);
    return out;
}

/* configure(kinds: bytes, flags: bytes of uint32, br, title, head, flag_a, path_len) */
static PyObject *py_configure(PyObject *self, PyObject *args) {
    Py_buffer k, f;
    unsigned long long br, title, head;
    unsigned int fa;
    int pl;
    if (!PyArg_ParseTuple(args, "y*y*KKKIi", &k, &f, &br, &title, &head, &fa, &pl)) return NULL;
    if (k.len > NTAB || f.len > (Py_ssize_t)(NTAB * sizeof(uint32_t)) || pl < 1) {
        PyBuffer_Release(&k);
        PyBuffer_Release(&f);
        PyErr_SetString(PyExc_ValueError, "tag tables too large");
        return NULL;
    }
    memset(kinds, 0, sizeof kinds);
    memset(flag_tab, 0, sizeof flag_tab);
    memcpy(kinds, k.buf, (size_t)k.len);
    memcpy(flag_tab, f.buf, (size_t)f.len);
    PyBuffer_Release(&k);
    PyBuffer_Release(&f);
    TAG_BR = (tag_id_t)br;
    TAG_TITLE = (tag_id_t)title;
    TAG_HEAD = (tag_id_t)head;
    FLAG_A = fa;
    path_len = pl;
    configured = 1;
    Py_RETURN_NONE;
}

/* configure_head(html, meta, link, script, time, a, max_by_items, max_time_chars, max_item_text) */
static PyObject *py_configure_head(PyObject *self, PyObject *args) {
    unsigned long long h, m, l, sc, t, a;
    int mb, mt;
    Py_ssize_t mi;
    if (!PyArg_ParseTuple(args, "KKKKKKiin", &h, &m, &l, &sc, &t, &a, &mb, &mt, &mi)) return NULL;
    if (mb < 0 || mt < 0 || mi < 0) {
        PyErr_SetString(PyExc_ValueError, "negative limit");
        return NULL;
    }
    T_HTML = (tag_id_t)h; T_META = (tag_id_t)m; T_LINK = (tag_id_t)l;
    T_SCRIPT = (tag_id_t)sc; T_TIME = (tag_id_t)t; T_A = (tag_id_t)a;
    max_by_items = mb; max_time_chars = mt; max_item_text = (size_t)mi;
    Py_RETURN_NONE;
}

/* configure_extras(li, ol, img, flag_pre, flag_hidden) */
static PyObject *py_configure_extras(PyObject *self, PyObject *args) {
    unsigned long long li, ol, img;
    unsigned int fp, fh;
    if (!PyArg_ParseTuple(args, "KKKII", &li, &ol, &img, &fp, &fh)) return NULL;
    T_LI = (tag_id_t)li; T_OL = (tag_id_t)ol; T_IMG = (tag_id_t)img; FLAG_PRE = fp; FLAG_HIDDEN = fh;
    Py_RETURN_NONE;
}

/* Direct reads are switched on only if they agree with the accessor functions on every node
 * of a probe page (elements, text, comments, a doctype, a deep branch). */
static void probe_layout(void) {
    static const char page[] =
        "<!doctype html><html><head><title>t</title></head><body class=a id=b><!-- c -->"
        "<div><p>one <b>two</b> three</p><ul><li>x</li><li>y\xc2\xa0z</li></ul></div>"
        "<x-custom>q</x-custom><table><tr><td>cell</td></tr></table>tail</body></html>";
    void *doc = L.doc_create();
    if (!doc) return;
    int ok = L.doc_parse(doc, (const lxb_char_t *)page, sizeof page - 1) == 0;
    void *node = ok ? L.doc_root(doc) : NULL;
    int seen_text = 0;
    ok = ok && node != NULL;
    while (ok && node) {
        node_t *n = node;
        ok = (void *)n->next == L.next(node) && (void *)n->first_child == L.first_child(node) &&
             (void *)n->parent == L.parent(node) && (tag_id_t)n->local_name == L.tag_id(node);
        if (ok && L.tag_id(node) == TAG_TEXT) {
            size_t len = 0;
            lxb_char_t *t = L.text_content(node, &len);
            chardata_t *c = node;
            ok = t && c->data.length == len && c->data.data && memcmp(c->data.data, t, len) == 0;
            if (t) L.destroy_text(doc, t);
            seen_text++;
        }
        void *c = L.first_child(node);
        if (c) { node = c; continue; }
        while (node) {
            void *nx = L.next(node);
            if (nx) { node = nx; break; }
            node = L.parent(node);
        }
    }
    L.doc_destroy(doc);
    direct = ok && seen_text >= 8;
}

/* Where lxb_dom_document_t keeps its quirks mode (right after its node), checked on three
 * pages whose modes the HTML standard fixes: no doctype (quirks, 1), the HTML5 doctype
 * (no-quirks, 0), HTML 4.01 Transitional with a system id (limited quirks, 2). */
static void probe_cmode(void) {
    static const char *pages[3] = {
        "<p>x",
        "<!DOCTYPE html><p>x",
        "<!DOCTYPE html PUBLIC \"-//W3C//DTD HTML 4.01 Transitional//EN\" "
        "\"http://www.w3.org/TR/html4/loose.dtd\"><p>x"};
    static const int want[3] = {1, 0, 2};
    size_t at = sizeof(node_t);
    int ok = 1;
    for (int i = 0; i < 3 && ok; i++) {
        void *doc = L.doc_create();
        if (!doc) return;
        ok = L.doc_parse(doc, (const lxb_char_t *)pages[i], strlen(pages[i])) == 0 &&
             *(int *)((char *)doc + at) == want[i];
        L.doc_destroy(doc);
    }
    cmode_at = ok ? at : 0;
}

static PyObject *py_direct(PyObject *self, PyObject *noarg) { return PyBool_FromLong(direct); }

static PyObject *py_reuse(PyObject *self, PyObject *noarg) { return PyBool_FromLong(cmode_at != 0); }

/* tag_id(name): the id the bound Lexbor gives an element of that name, as selectolax's
 * create_node(name).tag_id does (segment.py's tag tables come from here: the ids are those of the
 * Lexbor that parses, whichever build this is). */
static PyObject *py_tag_id(PyObject *self, PyObject *arg) {
    Py_ssize_t n;
    const char *name = PyUnicode_AsUTF8AndSize(arg, &n);
    if (!name) return NULL;
    void *doc = L.doc_create();
    if (!doc) return PyErr_NoMemory();
    void *el = L.doc_parse(doc, (const lxb_char_t *)"", 0) == 0
                   ? L.create_element(doc, (const lxb_char_t *)name, (size_t)n, NULL) : NULL;
    tag_id_t t = el ? L.tag_id(el) : 0;
    L.doc_destroy(doc);
    if (!el) return PyErr_Format(PyExc_ValueError, "Lexbor made no element <%s>", name);
    return PyLong_FromUnsignedLongLong((unsigned long long)t);
}

static PyMethodDef methods[] = {
    {"tag_id", py_tag_id, METH_O, "The id Lexbor gives an element of this name."},
    {"configure", py_configure, METH_VARARGS, "Set the tag tables (from segment.py)."},
    {"configure_head", py_configure_head, METH_VARARGS, "Set the elements the metadata reads."},
    {"configure_extras", py_configure_extras, METH_VARARGS, "Set the elements the renderers read."},
    {"parse", (PyCFunction)(void (*)(void))py_parse, METH_FASTCALL,
     "parse(html, utf8=None): parse a str (or its UTF-8 bytes) with Lexbor; returns a document capsule."},
    {"segment", py_segment, METH_VARARGS, "Walk a parsed document once; returns the raw block columns."},
    {"direct", py_direct, METH_NOARGS, "Whether node fields are read directly (see probe_layout)."},
    {"reuse", py_reuse, METH_NOARGS, "Whether parsed documents are reused (see probe_cmode)."},
    {"elem_list", py_elem_list, METH_O, "Unpack segment()'s packed elements."},
    {"vocab_table", py_vocab_table, METH_VARARGS, "A token list and its weights, for ic_sums."},
    {"page_tokens", py_page_tokens, METH_VARARGS, "Tokenise segment()'s packed elements once."},
    {"ic_sums", py_ic_sums, METH_VARARGS, "Per block, the summed weights of its class/id tokens."},
    {"token_matcher", py_token_matcher, METH_O, "Literal class/id token patterns, for flag_columns."},
    {"flag_columns", py_flag_columns, METH_VARARGS, "Pattern flags per block, as feature columns."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "_segment", NULL, -1, methods};

#ifdef CE_FILTER_STATIC_LEXBOR
/* Lexbor's functions, linked into this module: declared with the types of ``L``'s fields (its
 * headers' types, Lexbor's structs seen as void *; the same calls on every ABI), so that each
 * assignment below is checked against the field it fills. */
void *lxb_html_document_create(void);
unsigned int lxb_html_document_parse(void *doc, const lxb_char_t *html, size_t size);
void *lxb_html_document_destroy(void *doc);
void *lxb_dom_document_root(void *dom_doc);
void *lxb_dom_node_first_child_noi(void *node);
void *lxb_dom_node_next_noi(void *node);
void *lxb_dom_node_parent_noi(void *node);
tag_id_t lxb_dom_node_tag_id_noi(void *node);
const lxb_char_t *lxb_dom_element_class_noi(void *el, size_t *len);
const lxb_char_t *lxb_dom_element_id_noi(void *el, size_t *len);
lxb_char_t *lxb_dom_node_text_content(void *node, size_t *len);
lxb_char_t *lxb_dom_document_destroy_text_noi(void *dom_doc, lxb_char_t *text);
const lxb_char_t *lxb_dom_element_get_attribute(void *el, const lxb_char_t *name, size_t name_len,
                                                size_t *len);
void *lxb_dom_element_first_attribute_noi(void *el);
void *lxb_dom_element_next_attribute_noi(void *attr);
void *lxb_dom_element_class_attribute_noi(void *el);
void *lxb_dom_element_id_attribute_noi(void *el);
_Bool lxb_dom_element_has_attribute(void *el, const lxb_char_t *name, size_t name_len);
void *lxb_dom_document_create_element(void *dom_doc, const lxb_char_t *name, size_t name_len,
                                      void *opt);

static int bind(void) {
    L.doc_create = lxb_html_document_create;
    L.doc_parse = lxb_html_document_parse;
    L.doc_destroy = lxb_html_document_destroy;
    L.doc_root = lxb_dom_document_root;
    L.first_child = lxb_dom_node_first_child_noi;
    L.next = lxb_dom_node_next_noi;
    L.parent = lxb_dom_node_parent_noi;
    L.tag_id = lxb_dom_node_tag_id_noi;
    L.elem_class = lxb_dom_element_class_noi;
    L.elem_id = lxb_dom_element_id_noi;
    L.text_content = lxb_dom_node_text_content;
    L.destroy_text = lxb_dom_document_destroy_text_noi;
    L.get_attr = lxb_dom_element_get_attribute;
    L.first_attr = lxb_dom_element_first_attribute_noi;
    L.next_attr = lxb_dom_element_next_attribute_noi;
    L.class_attr = lxb_dom_element_class_attribute_noi;
    L.id_attr = lxb_dom_element_id_attribute_noi;
    L.has_attr = lxb_dom_element_has_attribute;
    L.create_element = lxb_dom_document_create_element;
    return 0;
}

#define LEXBOR_BOUND "linked"
#else
static int bind(void *h) {
#define SYM(field, name) if (!(*(void **)&L.field = dlsym(h, name))) { \
        PyErr_Format(PyExc_ImportError, "selectolax's Lexbor lacks %s", name); return -1; }
    SYM(doc_create, "lxb_html_document_create")
    SYM(doc_parse, "lxb_html_document_parse")
    SYM(doc_destroy, "lxb_html_document_destroy")
    SYM(doc_root, "lxb_dom_document_root")
    SYM(first_child, "lxb_dom_node_first_child_noi")
    SYM(next, "lxb_dom_node_next_noi")
    SYM(parent, "lxb_dom_node_parent_noi")
    SYM(tag_id, "lxb_dom_node_tag_id_noi")
    SYM(elem_class, "lxb_dom_element_class_noi")
    SYM(elem_id, "lxb_dom_element_id_noi")
    SYM(text_content, "lxb_dom_node_text_content")
    SYM(destroy_text, "lxb_dom_document_destroy_text_noi")
    SYM(get_attr, "lxb_dom_element_get_attribute")
    SYM(first_attr, "lxb_dom_element_first_attribute_noi")
    SYM(next_attr, "lxb_dom_element_next_attribute_noi")
    SYM(class_attr, "lxb_dom_element_class_attribute_noi")
    SYM(id_attr, "lxb_dom_element_id_attribute_noi")
    SYM(has_attr, "lxb_dom_element_has_attribute")
    SYM(create_element, "lxb_dom_document_create_element")
#undef SYM
    return 0;
}

#define LEXBOR_BOUND "selectolax"
#endif

PyMODINIT_FUNC PyInit__segment(void) {
#ifdef CE_FILTER_STATIC_LEXBOR
    if (bind()) return NULL;
#else
    PyObject *lx = PyImport_ImportModule("selectolax.lexbor");
    if (!lx) return NULL;
    PyObject *file = PyObject_GetAttrString(lx, "__file__");
    Py_DECREF(lx);
    if (!file) return NULL;
    const char *path = PyUnicode_AsUTF8(file);
    void *h = path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : NULL;
    Py_DECREF(file);
    if (!h) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ImportError, "cannot reach selectolax's Lexbor");
        return NULL;
    }
    int bad = bind(h);
    dlclose(h);  /* NOLOAD handle: the module stays loaded by Python */
    if (bad) return NULL;
#endif
    init_space();
    init_chars();
    if (!getenv("CE_FILTER_WALK_NO_DIRECT")) probe_layout();
    if (!getenv("CE_FILTER_WALK_NO_REUSE")) probe_cmode();
    PyObject *mod = PyModule_Create(&moddef);
    static segment_api_t api = {flag_fill, ic_fill, "ce_filter.page_tokens", "ce_filter.matcher",
                                "ce_filter.vocab"};
    PyObject *cap = mod ? PyCapsule_New(&api, SEGMENT_API, NULL) : NULL;
    if (!cap || PyModule_AddObjectRef(mod, "C_API", cap) < 0 ||
        PyModule_AddStringConstant(mod, "LEXBOR", LEXBOR_BOUND) < 0)
        Py_CLEAR(mod);
    Py_XDECREF(cap);
    return mod;
}
