/* The pre-parse cost scan of ce_filter/read/precheck.py in C (that file's ``_scan_py`` is the
 * reference: same rules, same numbers; tests compare the two on corpus and hostile pages).
 *
 * Why: Lexbor's tree construction is super-linear on some shapes (deep nesting, thousands of
 * attributes on one element, unclosed formatting tags re-created at every block), and the
 * parse is one C call nothing can interrupt. This scan reads the raw bytes once, with a
 * simplified model of the tree builder, and counts what those costs grow with; it stops as
 * soon as a count passes its cap, so its own cost is bounded too. It must cost nothing that
 * shows on normal pages: memchr hops between tags, and per tag only its name and attributes
 * are read.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned char uc;

enum {
    F_VOID = 1, F_RAW = 2, F_SIBLING = 4, F_BOUNDARY = 8, F_FMT = 16, F_UNIQUE = 32,
    F_MARKER = 64, F_BLOCKISH = 128, F_PLAINTEXT = 256, F_SELECT = 512, F_OPTION = 1024,
    F_SELCLOSE = 2048
};

/* name lists: must match precheck.py */
static const char *NAMES[][2] = {
    {"void", "area base br col embed hr img input keygen link meta param source track wbr basefont "
             "bgsound frame image"},
    {"raw", "script style textarea title xmp iframe noembed noframes noscript"},
    {"sibling", "p li dd dt option optgroup tr td th tbody thead tfoot rb rt rp rtc caption colgroup"},
    {"boundary", "html table template applet object marquee caption td th button ul ol"},
    {"fmt", "a b big code em font i nobr s small strike strong tt u"},
    {"unique", "a nobr"},
    {"marker", "td th caption applet object marquee template"},
    {"blockish", "address article aside blockquote center details dialog dir div dl fieldset "
                 "figcaption figure footer header hgroup main menu nav ol p search section summary "
                 "ul h1 h2 h3 h4 h5 h6 pre listing form li dd dt plaintext table hr xmp html body "
                 "head frameset caption col colgroup tbody thead tfoot tr td th template title meta "
                 "link style script base noscript"},
    {"plaintext", "plaintext"},
    {"select", "select"},
    {"option", "option"},
    {"selclose", "input keygen textarea caption table tbody tfoot thead tr td th template"},
};
static const int NAME_FLAGS[] = {F_VOID, F_RAW, F_SIBLING, F_BOUNDARY, F_FMT, F_UNIQUE, F_MARKER,
                                 F_BLOCKISH, F_PLAINTEXT, F_SELECT, F_OPTION, F_SELCLOSE};

/* known names (all at most 16 bytes): packed lowercase bytes -> flags, in a small
 * open-addressing table (looked up once per tag) */
typedef struct { uint64_t lo, hi; Py_ssize_t len; int flags; } known_t;
#define KNOWN_SLOTS 512
static known_t known[KNOWN_SLOTS];

static inline uc low(uc c) { return (c >= 'A' && c <= 'Z') ? (uc)(c + 32) : c; }
#define AAA_WEIGHT 128  /* see precheck.py */
#define MAX_SELECT_OPTIONS 1000  /* precheck.Limits.max_select_options */

/* byte classes */
enum { C_WS = 1, C_SLASH = 2, C_GT = 4, C_EQ = 8, C_QUOTE = 16, C_NUL = 32 };
static uc CL[256];
static inline int is_ws(uc c) { return CL[c] & C_WS; }
static inline int is_alpha(uc c) { return (c | 32) >= 'a' && (c | 32) <= 'z'; }

/* ``len`` <= 8 bytes at p, little-endian; ``avail``: bytes readable from p */
static inline uint64_t load_le(const uc *p, Py_ssize_t len, Py_ssize_t avail) {
    uint64_t x = 0;
    if (avail >= 8) {
        memcpy(&x, p, 8);
        return len >= 8 ? x : x & ((1ull << (8 * len)) - 1);
    }
    for (Py_ssize_t i = 0; i < len; i++) x |= (uint64_t)p[i] << (8 * i);
    return x;
}

/* ASCII upper case to lower case in all 8 bytes at once */
static inline uint64_t lower8(uint64_t x) {
    const uint64_t h = 0x8080808080808080ull;
    uint64_t m = x & ~h;                                        /* low 7 bits of each byte */
    uint64_t up = (m + 0x3f3f3f3f3f3f3f3full) & ~(m + 0x2525252525252525ull) & ~x & h;
    return x | (up >> 2);                                       /* 'A'..'Z' get 0x20 */
}

/* the first 16 bytes of a name, lowercased, packed */
static inline void pack(const uc *s, Py_ssize_t len, Py_ssize_t avail, uint64_t *lo, uint64_t *hi) {
    *lo = lower8(load_le(s, len < 8 ? len : 8, avail));
    *hi = len > 8 ? lower8(load_le(s + 8, len < 16 ? len - 8 : 8, avail - 8)) : 0;
}

static inline size_t slot(uint64_t lo, uint64_t hi, Py_ssize_t len) {
    return (size_t)(((lo ^ (hi * 31) ^ (uint64_t)len) * 0x9E3779B97F4A7C15ull) >> 55) & (KNOWN_SLOTS - 1);
}

static int flags_of(uint64_t lo, uint64_t hi, Py_ssize_t len) {
    if (len > 16) return 0;
    for (size_t i = slot(lo, hi, len);; i = (i + 1) & (KNOWN_SLOTS - 1)) {
        if (known[i].len == 0) return 0;
        if (known[i].lo == lo && known[i].hi == hi && known[i].len == len) return known[i].flags;
    }
}

static void add_known(const char *name, size_t len, int flag) {
    uint64_t lo, hi;
    pack((const uc *)name, (Py_ssize_t)len, (Py_ssize_t)len, &lo, &hi);
    for (size_t i = slot(lo, hi, (Py_ssize_t)len);; i = (i + 1) & (KNOWN_SLOTS - 1)) {
        if (known[i].len == 0) {
            known[i].lo = lo; known[i].hi = hi; known[i].len = (Py_ssize_t)len; known[i].flags = flag;
            return;
        }
        if (known[i].lo == lo && known[i].hi == hi && known[i].len == (Py_ssize_t)len) {
            known[i].flags |= flag;
            return;
        }
    }
}

static void init_known(void) {
    CL[' '] = CL['\n'] = CL['\t'] = CL['\r'] = CL['\f'] = C_WS;
    CL['/'] = C_SLASH; CL['>'] = C_GT; CL['='] = C_EQ; CL['"'] = CL['\''] = C_QUOTE;
    CL[0] = C_NUL;
    for (size_t k = 0; k < sizeof(NAMES) / sizeof(NAMES[0]); k++) {
        const char *s = NAMES[k][1];
        while (*s) {
            while (*s == ' ') s++;
            const char *e = s;
            while (*e && *e != ' ') e++;
            if (e > s) add_known(s, (size_t)(e - s), NAME_FLAGS[k]);
            s = e;
        }
    }
}

/* An element name: where it is in the page, packed for quick comparison. */
typedef struct { const uc *p; Py_ssize_t len; uint64_t lo, hi; int flags; } name_t;

static inline int same_name(const name_t *a, const name_t *b) {
    if (a->lo != b->lo || a->hi != b->hi || a->len != b->len) return 0;
    for (Py_ssize_t i = 16; i < a->len; i++)
        if (low(a->p[i]) != low(b->p[i])) return 0;
    return 1;
}

/* An entry of the list of active formatting elements (marker: a cell/caption/... boundary). */
typedef struct { name_t name; const uc *attrs; Py_ssize_t alen; Py_ssize_t pos; int marker; } entry_t;

typedef struct {
    name_t *stack; Py_ssize_t depth, stack_cap;
    entry_t *fl; Py_ssize_t nfl, fl_cap, att;
    long long tags, attrs_max, attr_work, depth_max, depth_work, clones;
    int sel_open; long long sel_opts, opts_max, calmed;
} state_t;

static int grow(void **arr, Py_ssize_t *cap, Py_ssize_t need, size_t size) {
    if (need <= *cap) return 0;
    Py_ssize_t n = *cap ? *cap * 2 : 256;
    while (n < need) n *= 2;
    void *p = realloc(*arr, (size_t)n * size);
    if (!p) return -1;
    *arr = p; *cap = n;
    return 0;
}

static int push(state_t *s, const name_t *nm) {
    if (grow((void **)&s->stack, &s->stack_cap, s->depth + 1, sizeof(name_t))) return -1;
    s->stack[s->depth++] = *nm;
    if (s->depth > s->depth_max) s->depth_max = s->depth;
    return 0;
}

static int reconstruct(state_t *s) {
    if (s->att >= s->nfl) return 0;
    for (Py_ssize_t j = s->att; j < s->nfl; j++) {
        s->fl[j].pos = s->depth;
        if (push(s, &s->fl[j].name)) return -1;
    }
    s->clones += s->nfl - s->att;
    s->att = s->nfl;
    return 0;
}

static void truncate_to(state_t *s, Py_ssize_t k) {
    Py_ssize_t j = s->att - 1;
    while (j >= 0 && s->fl[j].pos >= k) {
        s->depth_work++;
        if (s->fl[j].marker) s->nfl = j;
        else s->fl[j].pos = -1;
        j--;
    }
    s->att = j + 1;
    if (s->depth > k) s->depth = k;
}

static Py_ssize_t last_in_list(state_t *s, const name_t *nm) {
    for (Py_ssize_t j = s->nfl - 1; j >= 0; j--) {
        s->depth_work++;
        if (s->fl[j].marker) return -1;
        if (same_name(&s->fl[j].name, nm)) return j;
    }
    return -1;
}

static void del_entry(state_t *s, Py_ssize_t j) {
    memmove(&s->fl[j], &s->fl[j + 1], (size_t)(s->nfl - j - 1) * sizeof(entry_t));
    s->nfl--;
    if (s->att > j) s->att--;
}

static void drop_entry(state_t *s, Py_ssize_t j) {
    if (s->fl[j].pos >= 0) truncate_to(s, s->fl[j].pos);
    del_entry(s, j);
    if (s->att > s->nfl) s->att = s->nfl;
}

static const uc *find_byte(const uc *p, const uc *end, uc c) {
    const uc *r = memchr(p, c, (size_t)(end - p));
    return r ? r : end;
}

/* The page is a bytes object, so *end == 0: loops stop there without a bounds check, and a
 * NUL inside the page (an ordinary byte to the tokenizer) is stepped over. */
static inline const uc *span_not(const uc *j, const uc *end, int mask) {  /* to the first byte in mask */
    for (;;) {
        while (!(CL[*j] & (mask | C_NUL))) j++;
        if (*j != 0 || j >= end) return j;
        j++;
    }
}

static inline const uc *span_in(const uc *j, int mask) {  /* past the bytes in mask */
    while (CL[*j] & mask) j++;
    return j;
}

/* the start of "</name" + (ws | / | > | end), case-insensitive; ``end`` when there is none */
static const uc *raw_end(const uc *p, const uc *end, const name_t *nm) {
    for (;;) {
        p = find_byte(p, end, '<');
        if (p >= end) return end;
        if (p + 1 < end && p[1] == '/' && end - (p + 2) >= nm->len) {
            Py_ssize_t i = 0;
            while (i < nm->len && low(p[2 + i]) == low(nm->p[i])) i++;
            if (i == nm->len) {
                const uc *q = p + 2 + nm->len;
                if (q >= end || is_ws(*q) || *q == '/' || *q == '>') return p;
            }
        }
        p++;
    }
}

/* Which cap a count has passed (precheck.py's OVER_* numbers), or 0. Checked every
 * CHECK_EVERY tags (and at the end): the scan's own cost stays bounded, for less work per tag. */
#define CHECK_EVERY 16
static int over_cap(const state_t *s, const long long *caps) {
    if (s->attr_work > caps[1]) return 2;
    if (s->depth_work > caps[2]) return 3;
    if (s->clones > caps[3]) return 4;
    if (s->tags > caps[0]) return 1;
    return 0;
}

static PyObject *scan(PyObject *self, PyObject *args) {
    PyObject *page;
    long long max_tags, max_attr_work, max_depth_work, max_clones, max_options = MAX_SELECT_OPTIONS;
    if (!PyArg_ParseTuple(args, "SLLLL|L", &page, &max_tags, &max_attr_work, &max_depth_work,
                          &max_clones, &max_options))
        return NULL;
    uc *calm = NULL;  /* the page with a select's options past max_options renamed (made on the first) */
    const uc *data = (const uc *)PyBytes_AS_STRING(page), *i = data;
    Py_ssize_t n = PyBytes_GET_SIZE(page);
    const uc *end = data + n;  /* *end == 0 */
    state_t s;
    memset(&s, 0, sizeof s);
    int over = 0, oom = 0;
    Py_ssize_t stop;
    const uc *last = end;  /* the last tag read */
    unsigned tick = 0;
    long long caps[4] = {max_tags, max_attr_work, max_depth_work, max_clones};

    Py_BEGIN_ALLOW_THREADS
    for (;;) {
        const uc *lt = find_byte(i, end, '<');
        if (lt >= end) break;
        if (lt > i && s.att < s.nfl && reconstruct(&s)) { oom = 1; break; }
        int is_end;
        const uc *ns;
        uc c1 = lt + 1 < end ? lt[1] : 0;
        if (c1 == '/' && lt + 2 < end && is_alpha(lt[2])) { is_end = 1; ns = lt + 2; }
        else if (lt + 1 < end && is_alpha(c1)) { is_end = 0; ns = lt + 1; }
        else if (c1 == '!') {
            if (lt + 3 < end && lt[2] == '-' && lt[3] == '-') {
                const uc *q = lt + 2;
                for (;;) {
                    q = find_byte(q, end, '>');
                    if (q >= end) { i = end; break; }
                    if (q - 2 >= lt + 2 && q[-1] == '-' && q[-2] == '-') { i = q + 1; break; }
                    q++;
                }
            } else {
                const uc *q = lt + 2 <= end ? find_byte(lt + 2, end, '>') : end;
                i = q < end ? q + 1 : end;
            }
            continue;
        } else if (c1 == '?' || c1 == '/') {
            const uc *q = lt + 2 <= end ? find_byte(lt + 2, end, '>') : end;
            i = q < end ? q + 1 : end;
            continue;
        } else {
            i = lt + 1;
            if (reconstruct(&s)) { oom = 1; break; }
            continue;
        }
        const uc *ne = span_not(ns, end, C_WS | C_SLASH | C_GT);
        name_t nm;
        nm.p = ns; nm.len = ne - ns;
        pack(ns, nm.len, end - ns, &nm.lo, &nm.hi);
        nm.flags = flags_of(nm.lo, nm.hi, nm.len);
        /* attributes */
        const uc *j = ne;
        long long na = 0;
        for (;;) {
            j = span_in(j, C_WS | C_SLASH);
            if (j >= end) break;
            if (*j == '>') { j++; break; }
            j = span_not(j + 1, end, C_WS | C_SLASH | C_GT | C_EQ);
            na++;
            const uc *k = span_in(j, C_WS);
            if (*k == '=' && k < end) {
                k = span_in(k + 1, C_WS);
                if (CL[*k] & C_QUOTE) {
                    const uc *q = find_byte(k + 1, end, *k);
                    j = q < end ? q + 1 : end;
                } else {
                    j = span_not(k, end, C_WS | C_GT);
                }
            }
        }
        const uc *attrs_end = j;
        i = j;
        /* Lexbor inserts each <option> of a <select> at a cost that grows with the options
         * before it (50,000: seconds). Past max_options in one select, an option start tag is
         * renamed <source> (same length): in a select Lexbor ignores it (its text goes to the
         * select, which never becomes text); anywhere else it is a void element, so a wrong
         * guess of the model nests nothing. The select is open from its start tag to its end
         * tag, another select, or a tag that would close it (or that the model does not follow
         * into: table parts, template): closing early only renames fewer. */
        if (nm.flags & (F_SELECT | F_OPTION | F_SELCLOSE)) {
            if (is_end || !(nm.flags & F_OPTION)) {
                if (nm.flags & F_SELCLOSE || (nm.flags & F_SELECT && (is_end || s.sel_open))) s.sel_open = 0;
                else if (nm.flags & F_SELECT) { s.sel_open = 1; s.sel_opts = 0; }
            } else if (s.sel_open) {
                if (++s.sel_opts > s.opts_max) s.opts_max = s.sel_opts;
                if (s.sel_opts > max_options) {
                    if (!calm) {
                        calm = malloc((size_t)n + 1);
                        if (!calm) { oom = 1; break; }
                        memcpy(calm, data, (size_t)n + 1);
                    }
                    memcpy(calm + (ns - data), "source", 6);
                    s.calmed++;
                }
            }
        }
        if (is_end) {
            if (nm.flags & F_FMT) {
                Py_ssize_t k = last_in_list(&s, &nm);
                if (k >= 0) {
                    /* not the current node and a block above it: the adoption agency's loops
                     * move and clone nodes, each step a stack search (~100x a scope-check step) */
                    for (Py_ssize_t p = s.fl[k].pos + 1; s.fl[k].pos >= 0 && p < s.depth; p++) {
                        s.depth_work++;
                        if (s.stack[p].flags & F_BLOCKISH) { s.depth_work += AAA_WEIGHT * s.depth; break; }
                    }
                    drop_entry(&s, k);
                    goto check;
                }
            }
            if (nm.flags & F_VOID) goto check;
            for (Py_ssize_t p = s.depth - 1; p >= 0; p--) {  /* a stray end tag walks them all */
                s.depth_work++;
                if (same_name(&s.stack[p], &nm)) { truncate_to(&s, p); break; }
            }
            goto check;
        }
        s.depth_work += s.depth;  /* the scope checks of a start tag */
        s.tags++;
        s.attr_work += na * na;
        if (na > s.attrs_max) s.attrs_max = na;
        if (!(nm.flags & F_BLOCKISH) && reconstruct(&s)) { oom = 1; break; }
        if (nm.flags & F_VOID) goto check;
        if (nm.flags & F_SIBLING) {
            for (Py_ssize_t p = s.depth - 1; p >= 0; p--) {
                s.depth_work++;
                if (same_name(&s.stack[p], &nm)) { truncate_to(&s, p); break; }
                if (s.stack[p].flags & F_BOUNDARY) break;
            }
        }
        if (nm.flags & F_FMT) {
            if (nm.flags & F_UNIQUE) {
                Py_ssize_t k = last_in_list(&s, &nm);
                if (k >= 0) drop_entry(&s, k);
            }
            if (reconstruct(&s)) { oom = 1; break; }
            /* Noah's ark: at most three identical entries after the last marker */
            Py_ssize_t same = 0, earliest = -1;
            Py_ssize_t alen = attrs_end - ne;
            for (Py_ssize_t k = s.nfl - 1; k >= 0 && !s.fl[k].marker; k--) {
                s.depth_work++;
                if (same_name(&s.fl[k].name, &nm) && s.fl[k].alen == alen &&
                    memcmp(s.fl[k].attrs, ne, (size_t)alen) == 0) {
                    same++;
                    earliest = k;
                }
            }
            if (same >= 3) { del_entry(&s, earliest); s.att = s.nfl; }
            if (grow((void **)&s.fl, &s.fl_cap, s.nfl + 1, sizeof(entry_t))) { oom = 1; break; }
            entry_t *e = &s.fl[s.nfl++];
            e->name = nm; e->attrs = ne; e->alen = alen; e->pos = s.depth; e->marker = 0;
            s.att = s.nfl;
        } else if (nm.flags & F_MARKER) {
            if (grow((void **)&s.fl, &s.fl_cap, s.nfl + 1, sizeof(entry_t))) { oom = 1; break; }
            entry_t *e = &s.fl[s.nfl++];
            memset(e, 0, sizeof *e);
            e->pos = s.depth; e->marker = 1;
            s.att = s.nfl;
        }
        if (push(&s, &nm)) { oom = 1; break; }
        if (nm.flags & F_RAW) i = raw_end(i, end, &nm);
        else if (nm.flags & F_PLAINTEXT) i = end;
    check:
        last = lt;
        if ((++tick & (CHECK_EVERY - 1)) == 0 && (over = over_cap(&s, caps)) != 0) break;
    }
    if (!over && !oom && (over = over_cap(&s, caps)) == 0) last = end;
    stop = last - data;
    Py_END_ALLOW_THREADS
    free(s.stack);
    free(s.fl);
    if (oom) { free(calm); return PyErr_NoMemory(); }
    PyObject *calmed = calm ? PyBytes_FromStringAndSize((const char *)calm, n) : Py_NewRef(Py_None);
    free(calm);
    if (!calmed) return NULL;
    return Py_BuildValue("LLLLLLniLLN", s.tags, s.attrs_max, s.attr_work, s.depth_max, s.depth_work,
                         s.clones, stop, over, s.opts_max, s.calmed, calmed);
}

static PyMethodDef methods[] = {
    {"scan", scan, METH_VARARGS,
     "scan(data, max_tags, max_attr_work, max_depth_work, max_clones) -> (tags, attrs_max, "
     "attr_work, depth_max, depth_work, clones, stop, over); see precheck.py."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_precheck", NULL, -1, methods};

PyMODINIT_FUNC PyInit__precheck(void) {
    init_known();
    return PyModule_Create(&module);
}
