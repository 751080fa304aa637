"""The rules after the cut through the C part (articles.tidy: one call of ce_filter.keep._articles's
tidy) give the Python oracle's mask (tests/oracles/tidy_python.py, ``tidy_reference``): the
probe page, random pages built to hit every rule (with subsets of the rules too), hidden copies,
and every corpus page through the shipped model."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ce_filter.keep import articles as A
from ce_filter.read.segment import FLAG_HIDDEN, PATH_LEN, Blocks, parse, segment
from tests.oracles.tidy_python import tidy_reference

from .corpus_pages import every_page

SHORT = ["Advertisement", "By Maria Lopez · Updated Nov 13, 2019", "Photo: Getty Images", "Share",
         "Sign up for our newsletter", "cell", "Yes", "March 3, 2020", "Anzeige", "Reuters",
         "Ähnliche Einträge", "Weiterlesen", "Kommentare (3)", "相关文章推荐", "Related Stories ▼",
         "Comment ça marche"]
LONG = ["The council voted on Tuesday to expand the riverside park by another forty acres today.",
        "Supporters said the new land would give families a place to walk, and critics disagreed.",
        "A paragraph said twice on the page, long enough to count as a repeat of the story."]


HEADS = sorted(A.TAG_HEADING)  # h1-h6


# class/id tokens of the shared containers 1-3 and of some openers: author boxes and not
BOX_TOKENS = [("author", "bio"), ("saboxplugin", "wrap"), ("author", "name"), ("entry", "content"),
              ("about", "autor")]


def _page(rnd: random.Random) -> Blocks:
    """Random blocks: paragraphs, short labels, bylines and tail titles, headings, list items and
    table cells under a few shared containers (some of them author boxes by their class/id
    tokens), repeated texts, hidden and figure blocks."""
    n = rnd.randrange(1, 40)
    texts, tags, flags, cont = [], [], [], []
    for i in range(n):
        t = rnd.choice(SHORT) if rnd.random() < 0.4 else rnd.choice(LONG)
        if rnd.random() < 0.2:
            t += f" {i}" * rnd.randrange(1, 30)  # unique, of any length
        texts.append(t)
        tags.append(rnd.choice([A.TAG_LI, A.TAG_TD, A.TAG_TH, 3, 3, 3, 5, *HEADS]))
        fl = A.FLAG_FIGURE if rnd.random() < 0.1 else 0
        if rnd.random() < 0.06:
            fl |= FLAG_HIDDEN
        flags.append(fl)
        c = [i + 100] + [rnd.choice([0, 1, 2, 3]) for _ in range(PATH_LEN - 1)]
        cont.append(tuple(c))
    b = Blocks(texts=texts, anchor_texts=[""] * n, n_tags=[1] * n, tag=tags, depth=[1] * n,
               flags=flags, container=cont, own_tokens=[()] * n, anc_tokens=[()] * n)
    named = {s: rnd.choice(BOX_TOKENS) for s in (1, 2, 3) if rnd.random() < 0.5}
    named |= {i + 100: rnd.choice(BOX_TOKENS) for i in range(n) if rnd.random() < 0.05}
    b.__dict__["_elem_tokens"] = named  # (as the Python walk leaves them: Blocks.pattern_flags)
    return b


# a page with what the rules branch on: a byline and a label before the story, a repeated
# paragraph, a table and a list of mixed decisions inside the kept span, a figure's credit, the
# tail's headings (spaced, unspaced) and prompt after the story, an author box after the story
PROBE = """<html><body><p>By Maria Lopez · Updated Nov 13, 2019</p><p>Advertisement</p>
<p>The first paragraph of the story has enough words to be the story's prose for the rule that
looks for it, and then some more words to be sure of it.</p><ul><li>one item of the list</li>
<li>another item</li><li>a third item here</li></ul><table><tr><td>cell one</td><td>cell two</td>
</tr><tr><td>cell three</td><td>cell four</td></tr></table><p>A paragraph said twice on the page,
long enough.</p><figure><figcaption>Photo: Getty Images</figcaption></figure><p>A paragraph said
twice on the page, long enough.</p><p>The last paragraph of the story has enough words to be the
story's prose for the rule that looks for it, and then some more words.</p>
<div class="author-bio"><p>Maria Lopez writes about parks.</p><p><a href="https://x.com/ml">X</a></p>
</div><p>Sign up for our newsletter</p><p>Weiterlesen</p><h2>Ähnliche Einträge</h2><ul><li><a href="/a">
Ein anderer Beitrag</a></li></ul><h3>相关文章推荐</h3><p>一篇文章</p><h2>Kommentare (2)</h2>
<p>Ein Kommentar</p></body></html>"""


def test_c_tidy_equals_the_reference_on_the_probe_page():
    blocks = segment(parse(PROBE))
    n = len(blocks)
    dropped = 0
    for k in range(4):
        scores = (np.arange(n) * (0.37 + 0.11 * k)) % 1.0
        keep = scores >= 0.15
        for kind in ("article", "forum", None):
            for by in (False, True):
                got = A.tidy(blocks, scores, keep, kind, bylines=by)
                assert np.array_equal(got, tidy_reference(blocks, scores, keep, kind, bylines=by))
                dropped += int((keep & ~got).sum())
    assert dropped > 50


def test_rules_outside_rules_are_refused():
    b = segment(parse(PROBE))
    with pytest.raises(ValueError, match="credits"):
        A.tidy(b, np.ones(len(b)), np.ones(len(b), dtype=bool), "article", rules=A.RULES | {"credits"})


def test_c_tidy_equals_the_reference_on_random_pages():
    rnd, sub = random.Random(7), random.Random(8)
    changed = tail = box = 0
    for _ in range(4000):
        b = _page(rnd)
        n = len(b)
        scores = np.array([rnd.random() for _ in range(n)])
        keep = scores >= rnd.choice([0.1, 0.3, 0.5])
        kind = rnd.choice(["article", "article", "forum", "product", None])
        by, cm = rnd.random() < 0.3, rnd.random() < 0.2
        got = A.tidy(b, scores, keep, kind, bylines=by, comments=cm)
        ref = tidy_reference(b, scores, keep, kind, bylines=by, comments=cm)
        assert np.array_equal(got, ref), (b.texts, scores, keep, kind, by, cm)
        rules = frozenset(r for r in sorted(A.RULES) if sub.random() < 0.5)  # a study's subset
        assert np.array_equal(A.tidy(b, scores, keep, kind, bylines=by, comments=cm, rules=rules),
                              tidy_reference(b, scores, keep, kind, bylines=by, comments=cm, rules=rules)
                              ), (b.texts, scores, keep, kind, by, cm, rules)
        assert np.array_equal(keep, scores >= scores[keep].min(initial=2.0))  # keep untouched
        changed += not np.array_equal(got, keep)
        if kind == "article" and not cm:
            tail += not np.array_equal(ref, tidy_reference(b, scores, keep, kind, bylines=by, comments=cm,
                                                           rules=A.RULES - {"tail"}))
            box += not np.array_equal(ref, tidy_reference(b, scores, keep, kind, bylines=by, comments=cm,
                                                          rules=A.RULES - {"authorbox"}))
    # the rules (the tail and the author box among them) do drop blocks here
    assert changed > 1000 and tail > 200 and box > 100, (changed, tail, box)


@pytest.mark.corpus
def test_c_tidy_equals_the_reference_on_every_corpus_page(data_dir):
    from ce_filter.api import Extractor

    ex = Extractor()
    pages, changed, differ = 0, 0, []
    for corpus, doc, html, b in every_page(data_dir):
        if not len(b):
            continue
        pages += 1
        kind, _ = ex.page_context(b, html, doc.url or None)
        scores = ex.model.block_scores(b, kind)
        keep = ex.decide(b, scores, kind)[0]
        name = ex.kind_name(kind)
        for by in (False, True):
            got = A.tidy(b, scores, keep, name, bylines=by)
            ref = tidy_reference(b, scores, keep, name, bylines=by)
            if not np.array_equal(got, ref):
                differ.append(f"{corpus}/{doc.id} bylines={by}")
            changed += not np.array_equal(got, keep)
    assert pages > 3000 and changed > 1000 and not differ, (pages, changed, differ[:10])


def test_c_tail_matches_as_the_reference_on_varied_spellings():
    """The C part's matching of the tail words (lower-casing, punctuation, white space, the
    unspaced scripts' slack) drops what the reference drops: headings made of the file's
    phrases in mixed case, with punctuation, odd white space and extra words around them."""
    rnd = random.Random(11)
    phrases = sorted(A.TAIL_SPACED)[:: 7] + list(A.TAIL_UNSPACED[:: 5])
    # (a block text holds no "\n": the walk normalises its white space, texts.TextColumn)
    around = ["", " ", ":", " (3)", " »", "\u00a0", "\u3000", "—", " ▼", "…", "x", " news", "İ", "ß",
              "\t\r", "ΣΧΌΛΙΑ", "1234567"]
    differ, dropped = [], 0
    for _ in range(600):
        head = rnd.choice(phrases)
        head = head.upper() if rnd.random() < 0.3 else head.title() if rnd.random() < 0.3 else head
        t = rnd.choice(around) + head + rnd.choice(around) + rnd.choice(around)
        texts = [LONG[0] + " " + LONG[1], t, "one line under it", t, LONG[2]]
        tags = [3, rnd.choice(HEADS + [3]), 3, 3, 3]
        n = len(texts)
        b = Blocks(texts=texts, anchor_texts=[""] * n, n_tags=[1] * n, tag=tags, depth=[1] * n,
                   flags=[0] * n, container=[tuple([i + 100] + [0] * (PATH_LEN - 1)) for i in range(n)],
                   own_tokens=[()] * n, anc_tokens=[()] * n)
        scores = np.full(n, 0.9)
        keep = np.ones(n, dtype=bool)
        keep[-1] = rnd.random() < 0.5  # the story ends at the first block or the last
        got = A.tidy(b, scores, keep, "article")
        ref = tidy_reference(b, scores, keep, "article")
        if not np.array_equal(got, ref):
            differ.append(t)
        dropped += not got.all()
    assert not differ and dropped > 200, (differ[:10], dropped)


def test_c_hidden_copies_as_the_reference():
    """The repeats and hidden rules' hidden copies (folded case, 5-token runs): hidden blocks
    before or after the story that are its paragraphs joined, in other case (ß and SS, final Σ,
    İ, ligatures, Cherokee), with words changed or added, or other text; and the hidden rule's
    share."""
    rnd = random.Random(5)
    paras = [LONG[0], LONG[1], "Straße und Fußgänger gingen über die Brücke, als ΟΔΥΣΣΕΑΣ kam, İstanbul ﬁne.",
             "ᏣᎳᎩ ᎦᏬᏂᎯᏍᏗ and ꮳꮃꭹ words, 東京の人々は朝早く起きて仕事に行きます and more words here."]
    variants = [str.upper, str.lower, str.casefold, lambda t: t, lambda t: t.replace("the", "a"),
                lambda t: t + " plus a few more words at the end of it"]
    grams = changed = 0
    for _ in range(1500):
        story = rnd.sample(paras, rnd.randrange(1, 5))
        hidden = [rnd.choice(variants)(" ".join(rnd.sample(story, rnd.randrange(1, len(story) + 1))))
                  for _ in range(rnd.randrange(1, 4))]
        texts = hidden[: rnd.randrange(0, len(hidden) + 1)]
        before = len(texts)
        texts = texts + story + hidden[before:]
        n = len(texts)
        flags = [FLAG_HIDDEN if not before <= i < before + len(story) else 0 for i in range(n)]
        if rnd.random() < 0.2:  # a hidden block inside the visible text
            flags[rnd.randrange(n)] ^= FLAG_HIDDEN
        b = Blocks(texts=texts, anchor_texts=[""] * n, n_tags=[1] * n, tag=[3] * n, depth=[1] * n,
                   flags=flags, container=[tuple([i + 100] + [0] * (PATH_LEN - 1)) for i in range(n)],
                   own_tokens=[()] * n, anc_tokens=[()] * n)
        scores = np.array([rnd.random() for _ in range(n)])
        keep = scores >= rnd.choice([0.0, 0.1, 0.5])
        rules = A.RULES if rnd.random() < 0.7 else A.RULES - {rnd.choice(["repeats", "hidden"])}
        got = A.tidy(b, scores, keep, "article", rules=rules)
        ref = tidy_reference(b, scores, keep, "article", rules=rules)
        assert np.array_equal(got, ref), (texts, flags, scores, keep, rules)
        changed += not np.array_equal(got, keep)
        # dropped by the runs of tokens: not a part of the visible text as it stands
        vis = "\n".join(t for t, f, k in zip(texts, flags, keep) if k and not f)
        grams += any(k and f and not g and t not in vis for t, f, k, g in zip(texts, flags, keep, got))
    assert changed > 500 and grams > 200, (changed, grams)
