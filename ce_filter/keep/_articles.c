/* The rules after the cut in C, a part of the pass after the walk (ce_filter/_pass.c includes
 * it: its page_scores runs tidy_core on the cut), in one call (tidy: articles.py's tidy; tests/oracles/
 * tidy_python.py is their Python oracle): the label and byline rules (their patterns matched here
 * on the texts' UTF-8), the comments rule, the tail rule (its words matched here), the author-box
 * rule (the class/id columns of both made by the walk's flag_columns), the tables and lists as
 * units, the repeats rule and the hidden copies (their case folded by Python's str methods) and
 * the hidden rule. The GIL is released but where a str method is called. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_common.h"
#include "_phrases.h"

/* ------------------------------------------------------------------ the label and byline lines */

/* The label and byline rules' matchers (their oracle, tests/oracles/tidy_python.py's is_label
 * and is_byline, is regular expressions over text.lower()): hand-written here on the text's code
 * points, lower-cased as str.lower does, with the classes of Python's re on str (\w is
 * Py_UNICODE_ISALNUM or "_", \s Py_UNICODE_ISSPACE, \d Py_UNICODE_ISDECIMAL, "." any but "\n":
 * CPython's own tables, so non-ASCII text reads as in re). Where a pattern may match in several
 * ways, every way is tried in the order re tries them, so that the date's span (which the rule
 * reads) is re's leftmost-first one. */

typedef uint32_t cp_t; /* a code point */

/* the words and limits the rules take from articles.py (configure_lines: once, at its import) */
typedef struct { cp_t *s; Py_ssize_t n; } cpword_t;
typedef struct { cpword_t *w; Py_ssize_t n; } cpwords_t;
static struct {
    int ready;
    cpwords_t labels, markers, dateline, credit;
    cpword_t lead, punct; /* (sets of characters) */
    double short_words, max_label, max_byline, max_credit;
    Py_ssize_t short_chars;
} CFG;

static int is_w(cp_t c) { return c == '_' || Py_UNICODE_ISALNUM((Py_UCS4)c); }
static int is_s(cp_t c) { return Py_UNICODE_ISSPACE((Py_UCS4)c); }
static int is_d(cp_t c) { return Py_UNICODE_ISDECIMAL((Py_UCS4)c); }

/* re's \b at i */
static int bnd(const cp_t *s, Py_ssize_t n, Py_ssize_t i) {
    return (i > 0 && is_w(s[i - 1])) != (i < n && is_w(s[i]));
}

/* the end of the ASCII literal a at i, or -1 */
static Py_ssize_t lit(const cp_t *s, Py_ssize_t n, Py_ssize_t i, const char *a) {
    for (; *a; a++, i++)
        if (i >= n || s[i] != (cp_t)(unsigned char)*a) return -1;
    return i;
}

/* the end of the word w at i, or -1 */
static Py_ssize_t litw(const cp_t *s, Py_ssize_t n, Py_ssize_t i, const cpword_t *w) {
    if (i + w->n > n) return -1;
    for (Py_ssize_t k = 0; k < w->n; k++)
        if (s[i + k] != w->s[k]) return -1;
    return i + w->n;
}

static int has_word(const cp_t *s, Py_ssize_t n, const cpword_t *w) {
    for (Py_ssize_t i = 0; i + w->n <= n; i++)
        if (litw(s, n, i, w) >= 0) return 1;
    return 0;
}

static int has_any(const cp_t *s, Py_ssize_t n, const cpwords_t *ws) {
    for (Py_ssize_t j = 0; j < ws->n; j++)
        if (has_word(s, n, &ws->w[j])) return 1;
    return 0;
}

static int has_lit(const cp_t *s, Py_ssize_t n, const char *a) {
    for (Py_ssize_t i = 0; i < n; i++)
        if (lit(s, n, i, a) >= 0) return 1;
    return 0;
}

/* whether c is one of the characters of w (_LEAD, _PUNCT_CHARS) */
static int in_chars(cp_t c, const cpword_t *w) {
    for (Py_ssize_t k = 0; k < w->n; k++)
        if (w->s[k] == c) return 1;
    return 0;
}

/* past the white space at i (\s*: what follows it in these patterns is never white space, so
 * re's greedy run is the only one that can match) */
static Py_ssize_t spaces(const cp_t *s, Py_ssize_t n, Py_ssize_t i) {
    while (i < n && is_s(s[i])) i++;
    return i;
}

/* whether k decimal digits stand at i */
static int digits(const cp_t *s, Py_ssize_t n, Py_ssize_t i, Py_ssize_t k) {
    if (i + k > n) return 0;
    for (Py_ssize_t j = 0; j < k; j++)
        if (!is_d(s[i + j])) return 0;
    return 1;
}

/* lower_utf8 (_phrases.h): UTF-8 to code points lower-cased as str.lower but for its one rule by
 * context, Σ as ς at a word's end (always σ): σ and ς are alike to \w, \s and the lengths, and
 * the one word of the rules with a σ ("διαφήμιση") has it before a letter, where str.lower
 * writes σ too. */

/* whether s is _norm(s) == w: s's characters of punct and runs of white space one space, none
 * at either end */
static int norm_is(const cp_t *s, Py_ssize_t n, const cpword_t *w) {
    Py_ssize_t k = 0;
    int gap = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        cp_t c = s[i];
        if (is_s(c) || in_chars(c, &CFG.punct)) { gap = 1; continue; }
        if (gap && k) { if (k >= w->n || w->s[k] != ' ') return 0; k++; }
        gap = 0;
        if (k >= w->n || w->s[k] != c) return 0;
        k++;
    }
    return k == w->n;
}

/* the tokens of s[a:b) that _norm(...).split() counts: runs of characters neither white space
 * nor of punct */
static Py_ssize_t norm_tokens(const cp_t *s, Py_ssize_t a, Py_ssize_t b) {
    Py_ssize_t k = 0;
    int in = 0;
    for (Py_ssize_t i = a; i < b; i++) {
        int sep = is_s(s[i]) || in_chars(s[i], &CFG.punct);
        if (!sep && !in) k++;
        in = !sep;
    }
    return k;
}

/* \bnewsletters?\b at i: its end, or -1 */
static Py_ssize_t newsletter_at(const cp_t *s, Py_ssize_t n, Py_ssize_t i) {
    Py_ssize_t e = bnd(s, n, i) ? lit(s, n, i, "newsletter") : -1;
    if (e < 0) return -1;
    if (e < n && s[e] == 's' && bnd(s, n, e + 1)) return e + 1;
    return bnd(s, n, e) ? e : -1;
}

/* articles' _NEWSLETTER.search(s) is not None:
 *   \b(?:sign(?:ing)?[ -]?up|subscribe|register|get|receive|join)\b.{0,60}\bnewsletters?\b
 *   |\bnewsletters?\b.{0,40}\b(?:sign[ -]?up|subscribe|inbox)\b
 *   |订阅|訂閱|newsletter abonnieren|inscrivez-vous|suscr[ií]bete */
static int newsletter_line(const cp_t *s, Py_ssize_t n) {
    static const char *verbs[] = {"signing up", "signing-up", "signingup", "sign up", "sign-up",
                                  "signup", "subscribe", "register", "get", "receive", "join"};
    static const char *after[] = {"sign up", "sign-up", "signup", "subscribe", "inbox"};
    static const cp_t sub_hans[] = {0x8BA2, 0x9605}, sub_hant[] = {0x8A02, 0x95B1};
    static const cpword_t subs[] = {{(cp_t *)sub_hans, 2}, {(cp_t *)sub_hant, 2}};
    for (Py_ssize_t i = 0; i < n; i++) {
        if (litw(s, n, i, &subs[0]) >= 0 || litw(s, n, i, &subs[1]) >= 0
            || lit(s, n, i, "newsletter abonnieren") >= 0 || lit(s, n, i, "inscrivez-vous") >= 0)
            return 1;
        Py_ssize_t e = lit(s, n, i, "suscr");
        if (e >= 0 && e < n && (s[e] == 'i' || s[e] == 0xED) && lit(s, n, e + 1, "bete") >= 0) return 1;
        if (!bnd(s, n, i)) continue;
        for (size_t v = 0; v < sizeof verbs / sizeof *verbs; v++) {
            e = lit(s, n, i, verbs[v]);
            if (e < 0 || !bnd(s, n, e)) continue;
            for (Py_ssize_t b = e; b <= e + 60 && b < n; b++) {  /* .{0,60} */
                if (newsletter_at(s, n, b) >= 0) return 1;
                if (s[b] == '\n') break;
            }
        }
        e = newsletter_at(s, n, i);
        if (e < 0) continue;
        for (Py_ssize_t b = e; b <= e + 40 && b < n; b++) {  /* .{0,40} */
            if (bnd(s, n, b))
                for (size_t v = 0; v < sizeof after / sizeof *after; v++) {
                    Py_ssize_t z = lit(s, n, b, after[v]);
                    if (z >= 0 && bnd(s, n, z)) return 1;
                }
            if (s[b] == '\n') break;
        }
    }
    return 0;
}

/* is_label (the oracle's) on the lower-cased text s of a block of w words */
static int label_line(const cp_t *s, Py_ssize_t n, double w) {
    if (w > CFG.max_label) return 0;
    if (w <= CFG.short_words && n < CFG.short_chars) {
        /* low.lstrip(_LEAD)[:3] in (label[:3] for each label), then _norm(low) in the labels */
        Py_ssize_t k = 0;
        while (k < n && in_chars(s[k], &CFG.lead)) k++;
        Py_ssize_t h = n - k < 3 ? n - k : 3;
        int head = 0;
        for (Py_ssize_t j = 0; j < CFG.labels.n && !head; j++) {
            const cpword_t *l = &CFG.labels.w[j];
            head = (l->n < 3 ? l->n : 3) == h && memcmp(l->s, s + k, (size_t)h * sizeof(cp_t)) == 0;
        }
        if (head)
            for (Py_ssize_t j = 0; j < CFG.labels.n; j++)
                if (norm_is(s, n, &CFG.labels.w[j])) return 1;
    }
    return (has_lit(s, n, "newsletter") || has_lit(s, n, "suscr") || has_any(s, n, &CFG.markers))
           && newsletter_line(s, n);
}

/* articles' _BY_START.match(s) is not None:
 *   \s*(?:written\s+|posted\s+|words\s+|story\s+|text\s+|report(?:ed|ing)\s+)?by(?:\s*[:\-]\s*|\s+)\S */
static int by_start(const cp_t *s, Py_ssize_t n) {
    static const char *pre[] = {"written", "posted", "words", "story", "text", "reported", "reporting"};
    Py_ssize_t i = spaces(s, n, 0), e = lit(s, n, i, "by");
    for (size_t v = 0; v < sizeof pre / sizeof *pre && e < 0; v++) {
        Py_ssize_t a = lit(s, n, i, pre[v]);
        if (a < 0) continue;
        Py_ssize_t b = spaces(s, n, a);
        if (b > a) e = lit(s, n, b, "by");
    }
    if (e < 0) return 0;
    Py_ssize_t r = spaces(s, n, e);
    if (r > e && r < n) return 1;                      /* \s+\S */
    return r < n && (s[r] == ':' || s[r] == '-') && spaces(s, n, r + 1) < n;  /* \s*[:\-]\s*\S */
}

/* \s*(?:by|:|credit) at i */
static int by_colon_credit(const cp_t *s, Py_ssize_t n, Py_ssize_t i) {
    i = spaces(s, n, i);
    return lit(s, n, i, "by") >= 0 || lit(s, n, i, ":") >= 0 || lit(s, n, i, "credit") >= 0;
}

/* the end of a \s+ at i (at least one), or -1 */
static Py_ssize_t spaces1(const cp_t *s, Py_ssize_t n, Py_ssize_t i) {
    Py_ssize_t e = spaces(s, n, i);
    return e > i ? e : -1;
}

/* a literal a at i followed by \b: its end, or -1 */
static Py_ssize_t lit_b(const cp_t *s, Py_ssize_t n, Py_ssize_t i, const char *a) {
    Py_ssize_t e = i < 0 ? -1 : lit(s, n, i, a);
    return e >= 0 && bnd(s, n, e) ? e : -1;
}

/* articles' _CREDIT.search(s) is not None:
 *   getty\s*images|\breuters\b|associated\s+press|\bap\s+photo\b|\bafp\b|shutterstock|istock
 *   |\bepa\b|\bphoto(?:graph)?(?:s)?\s*(?:by|:|credit)|\bimage\s*(?:by|:|credit)|\bcredit\s*:
 *   |\bpicture\s*:|\bfile\s+photo\b|\bcourtesy\s+(?:of\s+)?\w|©|\(c\)\s*\d{4}|/\s*ap\b
 *   |\bpa\s+(?:wire|images)\b */
static int credit_line(const cp_t *s, Py_ssize_t n) {
    static const char *photo[] = {"photographs", "photograph", "photos", "photo"};
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t e;
        if (s[i] == 0xA9) return 1;  /* © */
        if ((e = lit(s, n, i, "getty")) >= 0 && lit(s, n, spaces(s, n, e), "images") >= 0) return 1;
        if ((e = lit(s, n, i, "associated")) >= 0 && (e = spaces1(s, n, e)) >= 0
            && lit(s, n, e, "press") >= 0) return 1;
        if (lit(s, n, i, "shutterstock") >= 0 || lit(s, n, i, "istock") >= 0) return 1;
        if ((e = lit(s, n, i, "(c)")) >= 0 && digits(s, n, spaces(s, n, e), 4)) return 1;
        if (s[i] == '/' && lit_b(s, n, spaces(s, n, i + 1), "ap") >= 0) return 1;
        if (!bnd(s, n, i)) continue;
        if (lit_b(s, n, i, "reuters") >= 0 || lit_b(s, n, i, "afp") >= 0 || lit_b(s, n, i, "epa") >= 0)
            return 1;
        if ((e = lit(s, n, i, "ap")) >= 0 && (e = spaces1(s, n, e)) >= 0
            && lit_b(s, n, e, "photo") >= 0) return 1;
        for (size_t v = 0; v < sizeof photo / sizeof *photo; v++)
            if ((e = lit(s, n, i, photo[v])) >= 0 && by_colon_credit(s, n, e)) return 1;
        if ((e = lit(s, n, i, "image")) >= 0 && by_colon_credit(s, n, e)) return 1;
        if ((e = lit(s, n, i, "credit")) >= 0 && lit(s, n, spaces(s, n, e), ":") >= 0) return 1;
        if ((e = lit(s, n, i, "picture")) >= 0 && lit(s, n, spaces(s, n, e), ":") >= 0) return 1;
        if ((e = lit(s, n, i, "file")) >= 0 && (e = spaces1(s, n, e)) >= 0
            && lit_b(s, n, e, "photo") >= 0) return 1;
        if ((e = lit(s, n, i, "courtesy")) >= 0 && (e = spaces1(s, n, e)) >= 0 && e < n && is_w(s[e]))
            return 1;  /* (of\s+)?\w: "of" is \w itself */
        if ((e = lit(s, n, i, "pa")) >= 0 && (e = spaces1(s, n, e)) >= 0
            && (lit_b(s, n, e, "wire") >= 0 || lit_b(s, n, e, "images") >= 0)) return 1;
    }
    return 0;
}

/* _MONTH's ends at i in re's order (jan(?:uary)?: "january" before "jan"; then \.? taken before
 * not): up to 6 ends into e, their count */
static int month_ends(const cp_t *s, Py_ssize_t n, Py_ssize_t i, Py_ssize_t *e) {
    static const char *months[][3] = {
        {"january", "jan", 0}, {"february", "feb", 0}, {"march", "mar", 0}, {"april", "apr", 0},
        {"may", 0, 0}, {"june", "jun", 0}, {"july", "jul", 0}, {"august", "aug", 0},
        {"september", "sept", "sep"}, {"october", "oct", 0}, {"november", "nov", 0},
        {"december", "dec", 0}};
    int k = 0;
    for (int m = 0; m < 12; m++)
        for (int v = 0; v < 3 && months[m][v]; v++) {
            Py_ssize_t z = lit(s, n, i, months[m][v]);
            if (z < 0) continue;
            if (z < n && s[z] == '.') e[k++] = z + 1;
            e[k++] = z;
        }
    return k;
}

/* \d{1,2} at i in re's order: the ends into e (two at most), their count */
static int d12(const cp_t *s, Py_ssize_t n, Py_ssize_t i, Py_ssize_t *e) {
    int k = 0;
    if (digits(s, n, i, 2)) e[k++] = i + 2;
    if (digits(s, n, i, 1)) e[k++] = i + 1;
    return k;
}

/* (?:st|nd|rd|th)? at i in re's order: the ends into e, their count */
static int ordinal(const cp_t *s, Py_ssize_t n, Py_ssize_t i, Py_ssize_t *e) {
    int k = 0;
    if (lit(s, n, i, "st") >= 0 || lit(s, n, i, "nd") >= 0 || lit(s, n, i, "rd") >= 0
        || lit(s, n, i, "th") >= 0) e[k++] = i + 2;
    e[k++] = i;
    return k;
}

/* ,?\s+\d{4}\b at i: its end, or -1 */
static Py_ssize_t comma_year(const cp_t *s, Py_ssize_t n, Py_ssize_t i) {
    for (int c = i < n && s[i] == ','; c >= 0; c--) {
        Py_ssize_t w = spaces1(s, n, i + c);
        if (w >= 0 && digits(s, n, w, 4) && bnd(s, n, w + 4)) return w + 4;
    }
    return -1;
}

/* the end of articles' _DATE matching at i (its first branch that does, in re's order), or -1:
 *   {M}\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}\b | \d{1,2}(?:st|nd|rd|th)?\s+{M},?\s+\d{4}\b
 *   | \d{4}-\d{2}-\d{2}\b | \d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b | \d{1,2}:\d{2}\s*(?:[ap]\.?m\.?)?
 *   | \d{4}年\d{1,2}月\d{1,2}日 | \d+\s+(?:minutes?|hours?|days?|weeks?)\s+ago\b */
static Py_ssize_t date_at(const cp_t *s, Py_ssize_t n, Py_ssize_t i) {
    Py_ssize_t m[8], a[2], b[2], c[2], o[2];
    int nm = month_ends(s, n, i, m), na, nb, nc, no;
    for (int x = 0; x < nm; x++) {
        Py_ssize_t r = spaces1(s, n, m[x]);
        if (r < 0) continue;
        na = d12(s, n, r, a);
        for (int y = 0; y < na; y++) {
            no = ordinal(s, n, a[y], o);
            for (int z = 0; z < no; z++) {
                Py_ssize_t e = comma_year(s, n, o[z]);
                if (e >= 0) return e;
            }
        }
    }
    if (!is_d(s[i])) return -1;
    na = d12(s, n, i, a);
    for (int y = 0; y < na; y++) {
        no = ordinal(s, n, a[y], o);
        for (int z = 0; z < no; z++) {
            Py_ssize_t r = spaces1(s, n, o[z]);
            if (r < 0) continue;
            nm = month_ends(s, n, r, m);
            for (int x = 0; x < nm; x++) {
                Py_ssize_t e = comma_year(s, n, m[x]);
                if (e >= 0) return e;
            }
        }
    }
    if (digits(s, n, i, 4) && lit(s, n, i + 4, "-") >= 0 && digits(s, n, i + 5, 2)
        && lit(s, n, i + 7, "-") >= 0 && digits(s, n, i + 8, 2) && bnd(s, n, i + 10))
        return i + 10;
    for (int y = 0; y < na; y++) {
        if (a[y] >= n || (s[a[y]] != '/' && s[a[y]] != '.')) continue;
        nb = d12(s, n, a[y] + 1, b);
        for (int z = 0; z < nb; z++) {
            if (b[z] >= n || (s[b[z]] != '/' && s[b[z]] != '.')) continue;
            for (Py_ssize_t k = 4; k >= 2; k--)
                if (digits(s, n, b[z] + 1, k) && bnd(s, n, b[z] + 1 + k)) return b[z] + 1 + k;
        }
    }
    for (int y = 0; y < na; y++) {
        if (lit(s, n, a[y], ":") < 0 || !digits(s, n, a[y] + 1, 2)) continue;
        Py_ssize_t r = spaces(s, n, a[y] + 3), e = r;
        if (r < n && (s[r] == 'a' || s[r] == 'p')) {  /* (?:[ap]\.?m\.?)? */
            Py_ssize_t q = r + 1;
            if (q < n && s[q] == '.' && q + 1 < n && s[q + 1] == 'm') q++;
            if (q < n && s[q] == 'm') e = q + 1 < n && s[q + 1] == '.' ? q + 2 : q + 1;
        }
        return e;
    }
    if (digits(s, n, i, 4) && i + 4 < n && s[i + 4] == 0x5E74) {  /* 年 */
        nb = d12(s, n, i + 5, b);
        for (int y = 0; y < nb; y++) {
            if (b[y] >= n || s[b[y]] != 0x6708) continue;  /* 月 */
            nc = d12(s, n, b[y] + 1, c);
            for (int z = 0; z < nc; z++)
                if (c[z] < n && s[c[z]] == 0x65E5) return c[z] + 1;  /* 日 */
        }
    }
    Py_ssize_t d = i;
    while (d < n && is_d(s[d])) d++;
    Py_ssize_t r = spaces1(s, n, d);
    if (r >= 0) {
        static const char *units[] = {"minutes", "minute", "hours", "hour", "days", "day", "weeks", "week"};
        for (size_t v = 0; v < sizeof units / sizeof *units; v++) {
            Py_ssize_t e = lit(s, n, r, units[v]);
            if (e >= 0 && (e = spaces1(s, n, e)) >= 0 && (e = lit_b(s, n, e, "ago")) >= 0) return e;
        }
    }
    return -1;
}

/* is_byline (the oracle's, without the other languages' credit lines) on the lower-cased text s of
 * a block of w words */
static int byline_line(const cp_t *s, Py_ssize_t n, double w) {
    if (w > CFG.max_byline || n == 0 || has_lit(s, n, "(@")) return 0;  /* "(@": a quoted post */
    if (w <= CFG.max_credit && (by_start(s, n) || (has_any(s, n, &CFG.credit) && credit_line(s, n))))
        return 1;
    for (Py_ssize_t i = 0; i < n; i++) {  /* the date re finds first */
        Py_ssize_t e = date_at(s, n, i);
        if (e < 0) continue;
        /* with what marks a dateline, or little more than the date */
        return has_any(s, n, &CFG.dateline) || norm_tokens(s, 0, i) + norm_tokens(s, e, n) <= 3;
    }
    return 0;
}

static void words_free(cpwords_t *ws) {
    for (Py_ssize_t j = 0; j < ws->n; j++) PyMem_Free(ws->w[j].s);
    PyMem_Free(ws->w);
    ws->w = NULL;
    ws->n = 0;
}

static int word_get(PyObject *o, cpword_t *w) {
    if (!PyUnicode_Check(o)) { PyErr_SetString(PyExc_TypeError, "words: str"); return -1; }
    Py_UCS4 *u = PyUnicode_AsUCS4Copy(o);
    if (!u) return -1;
    w->s = (cp_t *)u;
    w->n = PyUnicode_GET_LENGTH(o);
    return 0;
}

static int words_get(PyObject *seq, cpwords_t *ws) {
    PyObject *f = PySequence_Fast(seq, "words: a sequence of str");
    if (!f) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(f);
    ws->w = PyMem_Calloc((size_t)(n ? n : 1), sizeof(cpword_t));
    ws->n = 0;
    int r = ws->w ? 0 : (PyErr_NoMemory(), -1);
    for (Py_ssize_t j = 0; j < n && r == 0; j++)
        if ((r = word_get(PySequence_Fast_GET_ITEM(f, j), &ws->w[j])) == 0) ws->n++;
    Py_DECREF(f);
    return r;
}

/* configure_lines(labels, lead, punct, markers, dateline_words, credit_words, short_label_words,
 * short_label_chars, max_label_words, max_byline_words, max_credit_words): the words and limits
 * of the label and byline rules (articles.py's, at its import; a later call replaces them).
 * labels: the whole-block labels (AD_LABELS); lead: the characters stripped before a label's
 * first three; punct: the characters _norm reads as spaces; markers, dateline_words and
 * credit_words: the substrings that let the newsletter, dateline and credit patterns be read. */
static PyObject *configure_lines(PyObject *self, PyObject *args) {
    PyObject *labels, *lead, *punct, *markers, *dateline, *credit;
    double short_words, max_label, max_byline, max_credit;
    Py_ssize_t short_chars;
    if (!PyArg_ParseTuple(args, "OUUOOOdnddd", &labels, &lead, &punct, &markers, &dateline, &credit,
                          &short_words, &short_chars, &max_label, &max_byline, &max_credit))
        return NULL;
    if (CFG.ready) {
        words_free(&CFG.labels); words_free(&CFG.markers); words_free(&CFG.dateline);
        words_free(&CFG.credit); PyMem_Free(CFG.lead.s); PyMem_Free(CFG.punct.s);
        CFG.ready = 0;
    }
    memset(&CFG, 0, sizeof CFG);
    if (words_get(labels, &CFG.labels) < 0 || word_get(lead, &CFG.lead) < 0
        || word_get(punct, &CFG.punct) < 0 || words_get(markers, &CFG.markers) < 0
        || words_get(dateline, &CFG.dateline) < 0 || words_get(credit, &CFG.credit) < 0) {
        words_free(&CFG.labels); words_free(&CFG.markers); words_free(&CFG.dateline);
        words_free(&CFG.credit); PyMem_Free(CFG.lead.s); PyMem_Free(CFG.punct.s);
        memset(&CFG, 0, sizeof CFG);
        return NULL;
    }
    CFG.short_words = short_words;
    CFG.short_chars = short_chars;
    CFG.max_label = max_label;
    CFG.max_byline = max_byline;
    CFG.max_credit = max_credit;
    CFG.ready = 1;
    Py_RETURN_NONE;
}

static int not_ready(void) {
    if (CFG.ready) return 0;
    PyErr_SetString(PyExc_RuntimeError, "_articles.configure_lines has not run");
    return 1;
}

/* text i lower-cased into *buf (grown as needed; *cap code points): its length, or -1 where the
 * memory is not there */
static Py_ssize_t lower_text(const texts_t *T, Py_ssize_t i, cp_t **buf, Py_ssize_t *cap) {
    Py_ssize_t len;
    const char *p = text_at(T, i, &len);
    if (len > *cap) {
        cp_t *b = PyMem_RawRealloc(*buf, (size_t)(len ? len : 1) * sizeof(cp_t));
        if (!b) return -1;
        *buf = b;
        *cap = len;
    }
    return lower_utf8((const unsigned char *)p, len, *buf);
}

/* the label and byline rules on out: a kept block that is a label (labels: whether the rule
 * runs), or one that is a byline, dateline or credit and an edge (by: whether that rule runs;
 * an edge: before or after the story's paragraphs, from the first kept block of story words
 * or more to the last, the last itself an edge as the reference's slice leaves it, or in a
 * figure; and of at most max_byline words). No Python: runs without the GIL. */
static int lines(const uint8_t *keep, uint8_t *out, const double *cnt, const int64_t *fl,
                 const texts_t *T, Py_ssize_t n, int labels, int by, double story, int64_t fig) {
    Py_ssize_t first = -1, last = -1, cap = 0;
    cp_t *buf = NULL;
    if (by)
        for (Py_ssize_t i = 0; i < n; i++)
            if (keep[i] && cnt[3 * i + 1] >= story) { if (first < 0) first = i; last = i; }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!keep[i]) continue;
        double w = cnt[3 * i + 1];
        int edge = by && (first < 0 || i < first || i >= last || (fl[i] & fig)) && w <= CFG.max_byline;
        if (!edge && !(labels && w <= CFG.max_label)) continue;
        Py_ssize_t m = lower_text(T, i, &buf, &cap);
        if (m < 0) { PyMem_RawFree(buf); return E_MEM; }
        if ((labels && label_line(buf, m, w)) || (edge && byline_line(buf, m, w))) out[i] = 0;
    }
    PyMem_RawFree(buf);
    return OK;
}

/* line_kinds(texts (two arguments), words): by block, 1 where its text is a label (is_label), 2
 * where a byline, dateline or credit (is_byline), of a block of words[i] words: the matchers
 * alone, on every block (for the tests). */
static PyObject *line_kinds(PyObject *self, PyObject *args) {
    PyObject *ou, *oat, *ow;
    if (!PyArg_ParseTuple(args, "OOO", &ou, &oat, &ow)) return NULL;
    if (not_ready()) return NULL;
    bufs_t b = {.n = 0};
    PyObject *ret = NULL;
    Py_buffer *v = &b.v[0];
    if (PyObject_GetBuffer(ow, v, PyBUF_C_CONTIGUOUS) < 0) return NULL;
    b.n = 1;
    if (v->itemsize != 8) { PyErr_SetString(PyExc_ValueError, "words: float64"); goto done; }
    Py_ssize_t n = v->len / 8, cap = 0;
    const double *w = v->buf;
    texts_t T;
    if (texts_get(&b, ou, oat, n, &T) < 0) goto done;
    if (!(ret = PyBytes_FromStringAndSize(NULL, n))) goto done;
    char *r = PyBytes_AS_STRING(ret);
    cp_t *buf = NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t m = lower_text(&T, i, &buf, &cap);
        if (m < 0) { Py_CLEAR(ret); PyErr_NoMemory(); break; }
        r[i] = (char)(label_line(buf, m, w[i]) | byline_line(buf, m, w[i]) << 1);
    }
    PyMem_RawFree(buf);
done:
    release(&b);
    return ret;
}

/* lower(utf8): the matchers' lower-casing of the UTF-8 text (str.lower but for the final Σ;
 * for the tests) */
static PyObject *lower(PyObject *self, PyObject *args) {
    const char *p;
    Py_ssize_t len;
    if (!PyArg_ParseTuple(args, "y#", &p, &len)) return NULL;
    cp_t *buf = PyMem_Malloc((size_t)(len ? len : 1) * sizeof(cp_t));
    if (!buf) return PyErr_NoMemory();
    Py_ssize_t m = lower_utf8((const unsigned char *)p, len, buf);
    PyObject *r = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf, m);
    PyMem_Free(buf);
    return r;
}

/* The limits and words of the other rules (configure_rules: once, at articles.py's import) */
static struct {
    int ready;
    double story, min_story, max_box, unit_cut, min_words, min_chars, cover, hidden_cut, share;
    int64_t fig, hidden, cell_a, cell_b, item;
    Py_ssize_t path, gram, author_levels, slack, max_tail, nlevels;
    uint8_t *levels;            /* the heading level by tag id */
    cpwords_t spaced, unspaced;   /* the tail words */
} RC;

/* the oracle's tail_match of text i: 0, 1 (it starts with a spaced phrase, at a word's end) or
 * 2 (it is one, or holds an unspaced one with at most slack characters more), on
 * _norm(text.lower()) as the label matchers lower-case it (buf: their buffer). (Σ at a word's end
 * is σ here, ς in str.lower: no tail word holds either, so no match turns on it.) No Python. */
static int tail_match(const texts_t *T, Py_ssize_t i, cp_t **buf, Py_ssize_t *cap) {
    Py_ssize_t len, chars = 0;
    const char *p = text_at(T, i, &len);
    if (len > 16 * RC.max_tail) return 0;  /* over 4 * max_tail characters (4 bytes at most each) */
    for (Py_ssize_t k = 0; k < len; k++) chars += (p[k] & 0xC0) != 0x80;
    if (chars > 4 * RC.max_tail) return 0;
    Py_ssize_t m = lower_text(T, i, buf, cap), n = 0;
    if (m < 0) return -1;
    cp_t *s = *buf;
    int gap = 0;
    for (Py_ssize_t j = 0; j < m; j++) {  /* _norm, in place */
        cp_t c = s[j];
        if (is_s(c) || in_chars(c, &CFG.punct)) { gap = 1; continue; }
        if (gap && n) s[n++] = ' ';
        gap = 0;
        s[n++] = c;
    }
    if (n == 0 || n > RC.max_tail) return 0;
    int r = 0;
    for (Py_ssize_t j = 0; j < RC.spaced.n; j++) {
        const cpword_t *w = &RC.spaced.w[j];
        if (w->n > n || memcmp(w->s, s, (size_t)w->n * sizeof(cp_t))) continue;
        if (w->n == n) return 2;
        if (s[w->n] == ' ') r = 1;
    }
    if (r) return 1;
    for (Py_ssize_t j = 0; j < RC.unspaced.n; j++)
        if (n <= RC.unspaced.w[j].n + RC.slack && has_word(s, n, &RC.unspaced.w[j])) return 2;
    return 0;
}

/* the tail rule on out: after the last block of keep of story words or more, a heading
 * (levels[tag]: 1-6) whose text tail_match-es drops the blocks up to the next heading of its
 * level or above, itself among them; another kept block of at most max_label words that is a
 * title or prompt (tail_match 2) is dropped (the oracle's _tail). No Python: E_MEM or OK. */
static int tail_rule(const uint8_t *keep, uint8_t *out, const double *cnt, const int64_t *tag,
                     const texts_t *T, Py_ssize_t n) {
    Py_ssize_t last = -1, cap = 0;
    cp_t *buf = NULL;
#define LEVEL(i) (tag[i] >= 0 && tag[i] < RC.nlevels ? RC.levels[tag[i]] : 0)
    for (Py_ssize_t i = 0; i < n; i++)
        if (keep[i] && cnt[3 * i + 1] >= RC.story) last = i;
    int err = 0;
    for (Py_ssize_t i = last + 1; last >= 0 && i < n && !err;) {
        int level = LEVEL(i);
        if (level) {
            int m = tail_match(T, i, &buf, &cap);
            err = m < 0;
            if (m > 0) {
                Py_ssize_t j = i + 1;
                while (j < n && !(LEVEL(j) > 0 && LEVEL(j) <= level)) j++;
                memset(out + i, 0, (size_t)(j - i));
                i = j;
                continue;
            }
        } else if (out[i] && cnt[3 * i + 1] <= CFG.max_label) {
            int m = tail_match(T, i, &buf, &cap);
            err = m < 0;
            if (m == 2) out[i] = 0;
        }
        i++;
    }
#undef LEVEL
    PyMem_RawFree(buf);
    return err ? E_MEM : OK;
}

/* the author-box rule on out (the oracle's _drop_author_box): a block is in a box where its
 * opener or one of its author_levels nearest ancestors has, by its class/id tokens (cols: n x
 * width float64, Blocks.pattern_columns of AUTHOR_PATTERNS: 3 bits a level), "author" beside a
 * what (bits 0 and 1) or both in one token (bit 2). After the last block of keep of story words
 * or more that is not in a box, where the kept words outside boxes up to it are min_story or
 * more, the blocks of out in a box of at most max_box words are dropped. No Python. */
static int box_at(const double *cols, Py_ssize_t width, Py_ssize_t i) {
    for (Py_ssize_t l = 0; l <= RC.author_levels; l++) {
        const double *c = cols + i * width + 3 * l;
        if ((c[0] > 0 && c[1] > 0) || c[2] > 0) return 1;
    }
    return 0;
}

static void author_rule(const uint8_t *keep, uint8_t *out, const double *cnt, const double *cols,
                        Py_ssize_t width, Py_ssize_t n) {
    Py_ssize_t end = -1, any = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int in = box_at(cols, width, i);
        any |= in;
        if (keep[i] && !in && cnt[3 * i + 1] >= RC.story) end = i;
    }
    if (!any || end < 0) return;
    double words = 0; /* (whole numbers: any order of the sum is exact) */
    for (Py_ssize_t i = 0; i <= end; i++)
        if (keep[i] && !box_at(cols, width, i)) words += cnt[3 * i + 1];
    if (words < RC.min_story) return;
    for (Py_ssize_t i = end + 1; i < n; i++)
        if (out[i] && box_at(cols, width, i) && cnt[3 * i + 1] <= RC.max_box) out[i] = 0;
}

/* the comments rule on out (the oracle's _drop_comments): the kept blocks in a reader-comments
 * container (cols: n x 2 float64, Blocks.pattern_columns of COMMENT_PATTERNS: the opener's own
 * tokens, its ancestors') are dropped where the kept blocks before the first such one have
 * min_story words or more. No Python. */
static void comments_rule(uint8_t *out, const double *cnt, const double *cols, Py_ssize_t n) {
    double before = 0;
    Py_ssize_t first = -1;
    for (Py_ssize_t i = 0; i < n && first < 0; i++) {
        if (!out[i]) continue;
        if (cols[2 * i] > 0 || cols[2 * i + 1] > 0) first = i;
        else before += cnt[3 * i + 1];
    }
    if (first < 0 || before < RC.min_story) return;
    for (Py_ssize_t i = first; i < n; i++)
        if (out[i] && (cols[2 * i] > 0 || cols[2 * i + 1] > 0)) out[i] = 0;
}

typedef struct { int64_t key; Py_ssize_t at; } keyed_t;

static int by_key(const void *a, const void *b) {
    const keyed_t *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->at < y->at ? -1 : (x->at > y->at);
}

/* the oracle's _units on out (n bytes): a table's cells (tag cell_a or cell_b, grouped by their
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

/* articles._RULE_BITS */
enum {
    RULE_LABELS = 1 << 0, RULE_BYLINES = 1 << 1, RULE_COMMENTS = 1 << 2, RULE_TAIL = 1 << 3,
    RULE_AUTHORBOX = 1 << 4, RULE_UNITS = 1 << 5, RULE_REPEATS = 1 << 6, RULE_HIDDEN = 1 << 7
};

/* ------------------------------------------------------------------ hidden copies */

/* A text's tokens as the oracle's _grams reads them (words.tokens of text.casefold(): one \w
 * character of the continua scripts, or a run of other \w characters), each with a hash. */
typedef struct { const Py_UCS4 *s; Py_ssize_t *at, *len; uint64_t *h; Py_ssize_t n; } toks_t;

/* words.CONTINUA_RANGES (the scripts written without spaces) */
static int continua(Py_UCS4 c) {
    static const Py_UCS4 r[][2] = {
        {0x0E00, 0x0FFF}, {0x1000, 0x109F}, {0x1780, 0x17FF}, {0x1980, 0x19FF}, {0x1A20, 0x1AAF},
        {0x3040, 0x312F}, {0x31A0, 0x31BF}, {0x31F0, 0x31FF}, {0x3400, 0x4DBF}, {0x4E00, 0x9FFF},
        {0xA9E0, 0xA9FF}, {0xAA60, 0xAA7F}, {0xF900, 0xFAFF}, {0xFF66, 0xFF9F}, {0x20000, 0x323AF}};
    for (size_t k = 0; k < sizeof r / sizeof *r; k++)
        if (c >= r[k][0] && c <= r[k][1]) return 1;
    return 0;
}

static void toks_free(toks_t *t) {
    PyMem_Free(t->at); PyMem_Free(t->len); PyMem_Free(t->h);
    t->at = t->len = NULL; t->h = NULL;
}

/* the tokens of the n code points s (-1: no memory, error set) */
static int toks_of(const Py_UCS4 *s, Py_ssize_t n, toks_t *t) {
    t->s = s; t->n = 0;
    t->at = PyMem_Malloc((size_t)(n + 1) * sizeof(Py_ssize_t));
    t->len = PyMem_Malloc((size_t)(n + 1) * sizeof(Py_ssize_t));
    t->h = PyMem_Malloc((size_t)(n + 1) * sizeof(uint64_t));
    if (!t->at || !t->len || !t->h) { toks_free(t); PyErr_NoMemory(); return -1; }
    for (Py_ssize_t i = 0; i < n;) {
        if (!is_w(s[i])) { i++; continue; }
        Py_ssize_t j = i + 1;
        if (!continua(s[i]))
            while (j < n && is_w(s[j]) && !continua(s[j])) j++;
        uint64_t h = 1469598103934665603ull;
        for (Py_ssize_t k = i; k < j; k++) h = (h ^ s[k]) * 1099511628211ull;
        t->at[t->n] = i; t->len[t->n] = j - i; t->h[t->n++] = h;
        i = j;
    }
    return 0;
}

static uint64_t gram_hash(const toks_t *t, Py_ssize_t k, Py_ssize_t g) {
    uint64_t h = 0;
    for (Py_ssize_t j = 0; j < g; j++) h = (h ^ t->h[k + j]) * 0x100000001b3ull + (uint64_t)j;
    return h;
}

static int gram_eq(const toks_t *a, Py_ssize_t i, const toks_t *b, Py_ssize_t j, Py_ssize_t g) {
    for (Py_ssize_t k = 0; k < g; k++) {
        Py_ssize_t n = a->len[i + k];
        if (n != b->len[j + k] || a->h[i + k] != b->h[j + k]
            || memcmp(a->s + a->at[i + k], b->s + b->at[j + k], (size_t)n * sizeof(Py_UCS4)))
            return 0;
    }
    return 1;
}

/* a set of the g-grams of toks (by their first token), open addressing */
typedef struct { const toks_t *t; Py_ssize_t *slot, cap, g; } grams_t;

static int grams_init(grams_t *G, const toks_t *t, Py_ssize_t g) {
    G->t = t; G->g = g; G->cap = 16;
    while (G->cap < 2 * (t->n + 1)) G->cap *= 2;
    G->slot = PyMem_Malloc((size_t)G->cap * sizeof(Py_ssize_t));
    if (!G->slot) { PyErr_NoMemory(); return -1; }
    for (Py_ssize_t j = 0; j < G->cap; j++) G->slot[j] = -1;
    return 0;
}

/* whether gram k of t is in G; added (where add) when it is not */
static int grams_has(grams_t *G, const toks_t *t, Py_ssize_t k, int add) {
    for (Py_ssize_t j = (Py_ssize_t)(gram_hash(t, k, G->g) & (uint64_t)(G->cap - 1));;
         j = (j + 1) & (G->cap - 1)) {
        if (G->slot[j] < 0) { if (add) G->slot[j] = k; return 0; }
        if (gram_eq(G->t, G->slot[j], t, k, G->g)) return 1;
    }
}

/* str.casefold().lower() of text i, or of the texts idx[0..m) joined by "\n" (idx NULL: text i
 * alone) as UCS4 (PyMem_Free it); NULL on an error (set). Python's own methods: the oracle's
 * _grams reads tokens(text.casefold()), which lower-cases again. */
static Py_UCS4 *folded(const texts_t *T, Py_ssize_t i, const Py_ssize_t *idx, Py_ssize_t m,
                       Py_ssize_t *len, PyObject **str) {
    PyObject *t;
    if (idx) {
        Buf b = {0};
        int err = 0;
        for (Py_ssize_t k = 0; k < m && !err; k++) {
            Py_ssize_t l;
            const char *p = text_at(T, idx[k], &l);
            err = (k && buf_put(&b, "\n", 1) < 0) || buf_put(&b, p, (size_t)l) < 0;
        }
        t = err ? NULL : PyUnicode_DecodeUTF8(b.p ? b.p : "", (Py_ssize_t)b.n, "surrogatepass");
        PyMem_RawFree(b.p);
    } else {
        t = text_str(T, i);
    }
    if (!t) return NULL;
    PyObject *f = PyObject_CallMethod(t, "casefold", NULL);
    PyObject *low = f ? PyObject_CallMethod(f, "lower", NULL) : NULL;
    Py_XDECREF(f);
    Py_UCS4 *u = low ? PyUnicode_AsUCS4Copy(low) : NULL;
    if (u) *len = PyUnicode_GET_LENGTH(low);
    Py_XDECREF(low);
    if (u && str) *str = t;
    else Py_DECREF(t);
    return u;
}

/* The repeats rule on the visible blocks: a kept visible block (of min_words words or min_chars
 * characters, not a list item or table cell) whose text an earlier such block has is dropped;
 * seen: their texts (initialised here; free it). No Python: E_MEM or OK. */
static int visible_repeats(const uint8_t *keep, uint8_t *out, const double *cnt, const int64_t *fl,
                           const int64_t *tag, const texts_t *T, Py_ssize_t n, text_set_t *seen) {
    if (text_set_init(seen, n) < 0) return E_MEM;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!keep[i] || !out[i] || (fl[i] & RC.hidden)) continue;
        if (tag[i] == RC.item || tag[i] == RC.cell_a || tag[i] == RC.cell_b) continue;
        if (!(cnt[3 * i + 1] >= RC.min_words || cnt[3 * i] >= RC.min_chars)) continue;
        if (text_set_add(seen, T, i)) out[i] = 0;
    }
    return OK;
}

/* The repeats and hidden rules of an article on out (the oracle's _hidden_rules): a visible kept
 * block (big: of min_words words or min_chars characters, not a list item or table cell) whose
 * text an earlier one has is dropped; where some kept block is hidden, a big hidden one before
 * or after the visible kept text that is part of that text, or an earlier hidden one's, or whose
 * gram-token runs stand there for cover of them, is dropped too; then (the hidden rule) where the
 * kept hidden words are at most share of the visible ones, a hidden block under hidden_cut.
 * Python's str methods fold the hidden texts' case (the GIL held there); -1 on an error. */
static int hidden_rules(const uint8_t *keep, uint8_t *out, const double *s, const double *cnt,
                        const int64_t *fl, const int64_t *tag, const texts_t *T, Py_ssize_t n,
                        long rules) {
#define HID(i) ((fl[i] & RC.hidden) != 0)
#define BIG(i) ((cnt[3 * (i) + 1] >= RC.min_words || cnt[3 * (i)] >= RC.min_chars) \
                && ((tag[i] != RC.item && tag[i] != RC.cell_a && tag[i] != RC.cell_b) || HID(i)))
    int any_hidden = 0, ret = -1;
    for (Py_ssize_t i = 0; i < n && !any_hidden; i++) any_hidden = keep[i] && HID(i);
    if (rules & RULE_REPEATS) {
        text_set_t seen;
        if (raise_err(visible_repeats(keep, out, cnt, fl, tag, T, n, &seen))) return -1;
        Py_ssize_t *vis = NULL, nv = 0;
        toks_t J = {0}, H = {0};
        grams_t GJ = {0}, GH = {0};
        Py_UCS4 *ju = NULL;
        PyObject *joined = NULL;
        if (!any_hidden) goto repeats_done;
        if (!(vis = PyMem_Malloc((size_t)(n + 1) * sizeof(Py_ssize_t)))) { PyErr_NoMemory(); goto repeats_done; }
        for (Py_ssize_t i = 0; i < n; i++)
            if (keep[i] && !HID(i) && out[i]) vis[nv++] = i;
        for (Py_ssize_t i = 0; i < n; i++) {
            /* a hidden copy stands outside the visible text (a tab panel between its paragraphs
             * is part of it) */
            if (!keep[i] || !HID(i) || !BIG(i) || (nv && i >= vis[0] && i <= vis[nv - 1]) || !out[i])
                continue;
            if (!joined) {
                Py_ssize_t jl;
                if (!(ju = folded(T, 0, vis, nv, &jl, &joined))) goto repeats_done;
                if (toks_of(ju, jl, &J) < 0) goto repeats_done;
            }
            PyObject *t = text_str(T, i);
            if (!t) goto repeats_done;
            Py_ssize_t at = PyUnicode_Find(joined, t, 0, PyUnicode_GET_LENGTH(joined), 1);
            Py_DECREF(t);
            if (at == -2) goto repeats_done;
            if (at >= 0 || text_set_add(&seen, T, i)) { out[i] = 0; continue; }
            if (!GJ.slot) {
                if (grams_init(&GJ, &J, RC.gram) < 0) goto repeats_done;
                for (Py_ssize_t k = 0; k + RC.gram <= J.n; k++) grams_has(&GJ, &J, k, 1);
            }
            Py_ssize_t hl;
            Py_UCS4 *hu = folded(T, i, NULL, 0, &hl, NULL);
            if (!hu) goto repeats_done;
            if (toks_of(hu, hl, &H) < 0 || grams_init(&GH, &H, RC.gram) < 0) {
                PyMem_Free(hu); toks_free(&H); goto repeats_done;
            }
            Py_ssize_t distinct = 0, common = 0;
            for (Py_ssize_t k = 0; k + RC.gram <= H.n; k++)
                if (!grams_has(&GH, &H, k, 1)) { distinct++; common += grams_has(&GJ, &H, k, 0); }
            if (distinct && (double)common >= RC.cover * (double)distinct) out[i] = 0;
            PyMem_Free(GH.slot); GH.slot = NULL;
            toks_free(&H);
            PyMem_Free(hu);
        }
        ret = 0;
    repeats_done:
        text_set_free(&seen);
        PyMem_Free(vis);
        PyMem_Free(GJ.slot);
        toks_free(&J);
        PyMem_Free(ju);
        Py_XDECREF(joined);
        if (ret < 0) return -1;
    }
    if ((rules & RULE_HIDDEN) && any_hidden) {
        /* where the hidden text is a small part of what is kept (a page whose story is all
         * hidden until a script shows it keeps it) */
        double hid = 0, vis = 0; /* (whole numbers: exact in any order) */
        for (Py_ssize_t i = 0; i < n; i++)
            if (keep[i] && out[i]) { if (HID(i)) hid += cnt[3 * i + 1]; else vis += cnt[3 * i + 1]; }
        if (hid <= RC.share * vis)
            for (Py_ssize_t i = 0; i < n; i++)
                if (keep[i] && out[i] && HID(i) && s[i] < RC.hidden_cut) out[i] = 0;
    }
#undef BIG
#undef HID
    return 0;
}

/* ------------------------------------------------------------------ the rules */

/* The label, byline and comments rules (no Python) */
static int first_rules(const uint8_t *keep, uint8_t *out, const double *cnt, const int64_t *fl,
                       const texts_t *T, Py_ssize_t n, long rules, int article, int comment_kind,
                       int bylines, int comments, const double *ccols) {
    int labels = (rules & RULE_LABELS) != 0, by = article && !bylines && (rules & RULE_BYLINES);
    if ((labels || by) && lines(keep, out, cnt, fl, T, n, labels, by, RC.story, RC.fig) != OK)
        return E_MEM;
    if (comment_kind && !comments && (rules & RULE_COMMENTS) && ccols) comments_rule(out, cnt, ccols, n);
    return OK;
}

/* a page as the rules read it (tidy's arguments): keep/out n bytes (0/1), scores n, counts
 * n x 3, flags and tag n, cont n x path, the texts, the comment columns (n x 2) and the author
 * columns (n x aw) or NULL, the page's kind as the rules read it and the options */
typedef struct {
    Py_ssize_t n, aw;
    const uint8_t *keep;
    uint8_t *out;
    const double *s, *cnt, *ccols, *acols;
    const int64_t *fl, *tag, *cont;
    const texts_t *T;
    int article, comment_kind, bylines, comments;
    long rules;
} tidy_page_t;

/* The rules but the hidden copies' on p->out, in their order, without Python (call it without
 * the GIL): E_MEM or OK; *hidden: a kept block is hidden, so that hidden_rules is still to run
 * on an article (with the GIL: tidy_rest). */
static int tidy_core(const tidy_page_t *p, int *hidden) {
    const uint8_t *keep = p->keep;
    uint8_t *out = p->out;
    Py_ssize_t n = p->n;
    long rules = p->rules;
    int article = p->article, comments = p->comments;
    int err = first_rules(keep, out, p->cnt, p->fl, p->T, n, rules, article, p->comment_kind,
                          p->bylines, comments, p->ccols);
    if (!err && article && !comments && (rules & RULE_TAIL)) err = tail_rule(keep, out, p->cnt, p->tag, p->T, n);
    if (!err && article && !comments && !p->bylines && (rules & RULE_AUTHORBOX) && p->acols)
        author_rule(keep, out, p->cnt, p->acols, p->aw, n);
    if (!err)
        err = article && (rules & RULE_UNITS)
              ? units(out, p->s, p->tag, p->cont, RC.path, n, RC.cell_a, RC.cell_b, RC.item, RC.unit_cut) : OK;
    *hidden = 0;
    for (Py_ssize_t i = 0; i < n && !*hidden; i++) *hidden = keep[i] && (p->fl[i] & RC.hidden);
    if (article && !err && !*hidden && (rules & RULE_REPEATS)) {  /* no hidden block: no Python */
        text_set_t seen;
        if (!(err = visible_repeats(keep, out, p->cnt, p->fl, p->tag, p->T, n, &seen))) text_set_free(&seen);
    }
    return err;
}

/* what tidy_core left to do (with the GIL): the repeats and hidden rules of an article with a
 * kept hidden block; -1 on an error (set) */
static int tidy_rest(const tidy_page_t *p, int hidden) {
    if (!p->article || !hidden) return 0;
    return hidden_rules(p->keep, p->out, p->s, p->cnt, p->fl, p->tag, p->T, p->n, p->rules);
}

/* tidy(keep, out, scores, counts, flags, tag, cont, texts (two arguments), comment_cols,
 * author_cols, article, comment_kind, bylines, comments, rules): articles.tidy's rules on out,
 * in their order (the labels, bylines, comments, tail, author-box, units, repeats and hidden
 * rules; rules: the bitmask of those in force, articles._RULE_BITS). keep/out: n bytes (0/1);
 * scores: n float64; counts: n x 3 float64; flags, tag: n int64; cont: n x path int64;
 * comment_cols: None or n x 2 float64, author_cols: None or n x width float64
 * (Blocks.pattern_columns of COMMENT_PATTERNS and AUTHOR_PATTERNS; None: no block can be in one);
 * article: the page reads as an article; comment_kind: its kind is one whose comments go;
 * bylines, comments: Extractor options (keep them). The GIL is released but for the hidden
 * copies' case folding, which uses Python's str methods. */
static PyObject *tidy(PyObject *self, PyObject *args) {
    PyObject *ok, *oo, *os, *ocnt, *of, *ot, *oc, *ou, *oat, *occ, *oac;
    tidy_page_t p = {0};
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOppppl", &ok, &oo, &os, &ocnt, &of, &ot, &oc, &ou, &oat,
                          &occ, &oac, &p.article, &p.comment_kind, &p.bylines, &p.comments, &p.rules))
        return NULL;
    if (not_ready()) return NULL;
    if (!RC.ready) { PyErr_SetString(PyExc_RuntimeError, "_articles.configure_rules has not run"); return NULL; }
    bufs_t b = {.n = 0};
    PyObject *ret = NULL;
    Py_ssize_t n;
    const uint8_t *keep = mask(&b, ok, &n);
    if (!keep) return NULL;
    p.n = n;
    p.keep = keep;
    p.out = get(&b, oo, 1, n, 1, "out");
    p.s = p.out ? get(&b, os, 8, n, 0, "scores") : NULL;
    p.cnt = p.s ? get(&b, ocnt, 8, 3 * n, 0, "counts") : NULL;
    p.fl = p.cnt ? get(&b, of, 8, n, 0, "flags") : NULL;
    p.tag = p.fl ? get(&b, ot, 8, n, 0, "tag") : NULL;
    p.cont = p.tag ? get(&b, oc, 8, n * RC.path, 0, "cont") : NULL;
    texts_t T;
    p.T = &T;
    if (!p.cont || texts_get(&b, ou, oat, n, &T) < 0) goto done;
    if (occ != Py_None && !(p.ccols = get(&b, occ, 8, 2 * n, 0, "comment columns"))) goto done;
    if (oac != Py_None) {
        p.aw = 3 * (RC.author_levels + 1);
        if (!(p.acols = get(&b, oac, 8, p.aw * n, 0, "author columns"))) goto done;
        p.aw = n ? (Py_ssize_t)(b.v[b.n - 1].len / 8 / n) : p.aw;  /* (its row: the levels, the ancestors) */
    }
    int err, hidden = 0;
    Py_BEGIN_ALLOW_THREADS
    err = tidy_core(&p, &hidden);
    Py_END_ALLOW_THREADS
    if (raise_err(err) || tidy_rest(&p, hidden) < 0) goto done;
    ret = Py_NewRef(Py_None);
done:
    release(&b);
    return ret;
}

/* configure_rules(story_words, figure_bit, hidden_bit, cell_a, cell_b, item, path, unit_cut,
 * min_repeat_words, min_repeat_chars, gram, repeat_cover, hidden_cut, hidden_share,
 * min_story_words, max_box_words, author_levels, levels, tail_spaced, tail_unspaced, tail_slack,
 * max_tail_chars): the limits and words of the rules but the label and byline ones (articles.py's,
 * at its import). levels: the heading level by tag id (bytes); tail_spaced: frozenset of str,
 * tail_unspaced: tuple of str (the tail words). */
static PyObject *configure_rules(PyObject *self, PyObject *args) {
    PyObject *levels, *spaced, *unspaced;
    double story, unit_cut, min_words, min_chars, cover, hidden_cut, share, min_story, max_box;
    long long fig, hid, cell_a, cell_b, item;
    Py_ssize_t path, gram, author_levels, slack, max_tail;
    if (!PyArg_ParseTuple(args, "dLLLLLndddndddddnSO!O!nn", &story, &fig, &hid, &cell_a, &cell_b,
                          &item, &path, &unit_cut, &min_words, &min_chars, &gram, &cover,
                          &hidden_cut, &share, &min_story, &max_box, &author_levels, &levels,
                          &PyFrozenSet_Type, &spaced, &PyTuple_Type, &unspaced, &slack, &max_tail))
        return NULL;
    if (gram < 1 || path < 1) { PyErr_SetString(PyExc_ValueError, "gram and path: 1 or more"); return NULL; }
    cpwords_t sp = {0}, un = {0};
    Py_ssize_t nlv = PyBytes_GET_SIZE(levels);
    uint8_t *lv = PyMem_Malloc((size_t)(nlv ? nlv : 1));
    if (!lv || words_get(spaced, &sp) < 0 || words_get(unspaced, &un) < 0) {
        if (!lv) PyErr_NoMemory();
        PyMem_Free(lv); words_free(&sp); words_free(&un);
        return NULL;
    }
    memcpy(lv, PyBytes_AS_STRING(levels), (size_t)nlv);
    PyMem_Free(RC.levels); words_free(&RC.spaced); words_free(&RC.unspaced);
    RC.levels = lv; RC.nlevels = nlv; RC.spaced = sp; RC.unspaced = un;
    RC.story = story; RC.fig = fig; RC.hidden = hid; RC.cell_a = cell_a; RC.cell_b = cell_b;
    RC.item = item; RC.path = path; RC.unit_cut = unit_cut; RC.min_words = min_words;
    RC.min_chars = min_chars; RC.gram = gram; RC.cover = cover; RC.hidden_cut = hidden_cut;
    RC.share = share; RC.min_story = min_story; RC.max_box = max_box;
    RC.author_levels = author_levels; RC.slack = slack; RC.max_tail = max_tail;
    RC.ready = 1;
    Py_RETURN_NONE;
}

/* the part's functions, in the module of the pass after the walk (ce_filter/_pass.c) */
#define ARTICLES_METHODS \
    {"configure_lines", configure_lines, METH_VARARGS, "the words and limits of the label and byline rules"}, \
    {"configure_rules", configure_rules, METH_VARARGS, "the limits and words of the other rules"}, \
    {"tidy", tidy, METH_VARARGS, "the rules after the cut (articles.tidy)"}, \
    {"line_kinds", line_kinds, METH_VARARGS, "labels and bylines by block, the matchers alone (tests)"}, \
    {"lower", lower, METH_VARARGS, "the matchers' lower-casing (tests)"},
