"""The site memory: fingerprints, the bounded per-host memory, the order-free counts, and the
Extractor with and without a site stage."""

from __future__ import annotations

import pickle
import random
import subprocess
import sys
import tracemalloc

import numpy as np
import pytest

from ce_filter.api import Extractor
from ce_filter.score.blockmodel import Model, load_default
from ce_filter.score.site.memory import (
    SiteCounts,
    SiteMemory,
    count_pages,
    fingerprint,
    fingerprints,
    host_of,
    normalise,
)
from ce_filter.score.site.stage import COLUMNS, SiteStage, site_columns
from tests.oracles import site_numpy as oracle


def test_fingerprint_normalises_case_digits_space():
    assert normalise("  Posted  ON\t12 March 2019 ") == "posted on 0 march 0"
    assert fingerprint("Posted on 12 March 2019") == fingerprint("posted   on 3 MARCH 1999")
    assert fingerprint("Posted on 12 March") != fingerprint("Posted in 12 March")
    assert fingerprint("ab") == 0 and fingerprint("  1 ") == 0  # too short
    assert fingerprint("abc") != 0


def test_fingerprint_is_deterministic_across_processes():
    # not Python's salted hash(): another interpreter gives the same value
    code = ("from ce_filter.score.site.memory import fingerprint; "
            "print(fingerprint('Cookie notice: we use cookies'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONHASHSEED": "123"}).stdout.strip()
    assert int(out) == fingerprint("Cookie notice: we use cookies")


def test_host_key():
    assert host_of("https://WWW.Example.com:8080/a?b") == "example.com"
    assert host_of(None) == "" and host_of("/relative") == ""


def fp(*texts: str) -> np.ndarray:
    return fingerprints(list(texts))


def test_memory_counts_the_last_pages():
    m = SiteMemory(pages=2)
    page = fp("Home About Contact", "An article paragraph one", "x")
    k, n = m.seen("a.com", page)
    assert n == 0 and k.tolist() == [0, 0, 0]
    m.observe("a.com", fp("Home About Contact", "Another story entirely"))
    m.observe("a.com", fp("Home About Contact", "Home About Contact", "A third story"))
    k, n = m.seen("a.com", page)
    assert n == 2 and k.tolist() == [2, 0, 0]  # counted once per page; short block 0
    m.observe("a.com", fp("A fourth page without the menu"))  # the first page leaves the window
    k, n = m.seen("a.com", page)
    assert n == 2 and k.tolist() == [1, 0, 0]
    assert m.seen("b.com", page)[1] == 0  # hosts apart


def test_memory_ceiling_and_lru():
    m = SiteMemory(pages=50, max_entries=40)
    for h in range(10):
        for p in range(3):
            m.observe(f"h{h}.com", fp(f"menu of host {h}", f"story {p} of host {h} " + "w" * p))
        assert m.entries <= 40
        # the entry count is what the structures hold
        assert m.entries == sum(x.size() for x in m._hosts.values())
    assert m.seen("h0.com", fp("menu of host 0"))[1] == 0  # forgotten (least recently used)
    assert m.seen("h9.com", fp("menu of host 9"))[0].tolist() == [3]
    # one host alone over the ceiling keeps its newest pages
    m = SiteMemory(pages=50, max_entries=5)
    for p in range(5):
        m.observe("a.com", fp(*(f"block {p}-{i} " + "q" * i for i in range(2))))
    assert m.entries <= 5 and m.seen("a.com", fp("block 0-0 "))[1] >= 1


def test_memory_bytes_per_entry():
    """The docstring's figure: 65 bytes an entry where every fingerprint is distinct."""
    rng = np.random.default_rng(0)
    tracemalloc.start()
    m = SiteMemory(pages=50)
    for _ in range(50):
        m.observe("a.com", rng.integers(1, 2**63, size=400, dtype=np.uint64))
    size, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    per = size / m.entries
    assert 8 < per < 100, per


def test_counts_leave_the_page_out_and_ignore_order():
    pages = [("a.com", ["Menu menu menu", f"story number {'x' * i}", "Footer text"]) for i in range(4)]
    pages += [("b.com", ["Only page of b", "Footer text"])]
    c1 = count_pages(pages)
    shuffled = pages[:]
    random.Random(1).shuffle(shuffled)
    c2 = SiteCounts()
    c2.merge(count_pages(shuffled[:2]))
    c2.merge(count_pages(shuffled[2:]))
    for host, texts in pages:
        k1, n1 = c1.seen(host, fingerprints(texts))
        k2, n2 = c2.seen(host, fingerprints(texts))
        assert n1 == n2 and k1.tolist() == k2.tolist()
    k, n = c1.seen("a.com", fingerprints(pages[0][1]))
    assert n == 3 and k.tolist() == [3, 0, 3]
    assert c1.seen("b.com", fingerprints(pages[-1][1]))[1] == 0  # its only page: no memory


def test_site_columns():
    scores = np.array([0.9, 0.1, 0.5])
    fps = np.array([5, 6, 0], dtype=np.uint64)
    x = site_columns(scores, fps, np.array([0.0, 4.0, 0.0]), 4)
    assert x.shape == (3, len(COLUMNS))
    assert x[:, 1].tolist() == [0.0, 1.0, 0.0]  # share
    assert x[:, 2].tolist() == [1.0, 0.0, 1.0]  # neighbours' mean share (fingerprinted ones)
    assert x[:, 3].tolist() == [1.0, 0.0, 0.0]  # unique
    assert x[:, 4].tolist() == [0.0, 0.0, 1.0]  # short


MENU = "<nav><ul><li><a href='/'>Home</a></li><li><a href='/news'>News and stories</a></li></ul></nav>"
FOOT = "<footer><p>Copyright 2024 Example Media, all rights reserved. Privacy policy.</p></footer>"


TOPICS = ["harbour", "market", "library", "bridge", "school", "garden"]


def page(i: int) -> str:
    # pages differ in words (digits are one mark in a fingerprint)
    body = " ".join(f"Sentence {j} of article {i} tells a different part of the {TOPICS[i]} story."
                    for j in range(12))
    return f"<html><body>{MENU}<article><h1>Title {i}</h1><p>{body}</p></article>{FOOT}</body></html>"


def stage_model(strength: float) -> Model:
    """The shipped model with a hand-set site stage: identity on the logit, minus
    ``strength`` times the share (no fitted figures in a test)."""
    m = Model.from_json(load_default().to_json())
    m.site = SiteStage(np.array([1.0, -strength, 0, 0, 0, 0]), 0.0)
    return m


def test_first_page_unchanged_and_no_stage_unchanged():
    plain = Extractor()
    with_mem = Extractor(site_memory=SiteMemory())
    r0, r1 = plain.extract(page(0), "https://example.com/0"), with_mem.extract(page(0), "https://example.com/0")
    assert r0.text == r1.text and r0.blocks == r1.blocks
    # the shipped content model without a shipped stage for it: later pages unchanged too
    if with_mem.site_stage is None:
        for i in range(1, 4):
            a = plain.extract(page(i), f"https://example.com/{i}")
            b = with_mem.extract(page(i), f"https://example.com/{i}")
            assert a.blocks == b.blocks


def test_stage_moves_repeated_blocks_only_after_the_first_page():
    ex = Extractor(stage_model(30.0), site_memory=SiteMemory())
    first = ex.extract(page(0), "https://example.com/0")
    assert first.blocks == Extractor().extract(page(0), "https://example.com/0").blocks
    second = ex.extract(page(1), "https://example.com/1")
    scores = {b.text: b.score for b in second.blocks}
    assert scores[[t for t in scores if t.startswith("Copyright")][0]] < 1e-6
    assert any(t.startswith("Sentence 0 of article 1") for t in second.text.split("\n"))
    assert "Copyright" not in second.text
    # another host starts afresh
    other = ex.extract(page(1), "https://other.org/1")
    assert other.blocks == Extractor().extract(page(1), "https://other.org/1").blocks


def test_model_site_section_round_trip_and_errors():
    m = stage_model(2.0)
    back = Model.from_json(m.to_json())
    assert back.site is not None and back.site.coef.tolist() == m.site.coef.tolist()
    assert "site" not in load_default().to_json()  # no section, no key: the file keeps its bytes
    bad = m.to_json()
    bad["site"]["coef"] = [1.0]
    from ce_filter.score.blockmodel import ModelError
    with pytest.raises(ModelError):
        Model.from_json(bad)


def test_extractor_with_memory_pickles():
    ex = Extractor(stage_model(1.0), site_memory=SiteMemory(pages=3))
    ex.extract(page(0), "https://example.com/0")
    back = pickle.loads(pickle.dumps(ex))
    assert back.site_memory.seen("example.com", fp("Home"))[1] == 1
    with pytest.raises(TypeError):
        Extractor(site_memory=42)


def test_shipped_stage_is_tied_to_the_shipped_model():
    from ce_filter.score.site.stage import shipped_stage

    assert shipped_stage(load_default().digest) is not None
    assert shipped_stage("000000000000") is None
    other = Model.from_json(load_default().to_json())
    other.threshold = 0.3  # another model file: another digest, no shipped stage
    assert Extractor(other, site_memory=SiteMemory()).site_stage is None


def test_fit_logistic_recovers_weights():
    from ce_filter.learn.sitefit import fit_logistic

    rng = np.random.default_rng(0)
    x = rng.normal(size=(20000, 2))
    y = (rng.random(20000) < 1 / (1 + np.exp(-(1.5 * x[:, 0] - 2 * x[:, 1] + 0.5)))).astype(float)
    coef, b = fit_logistic(x, y, np.ones(len(y)))
    assert np.allclose(coef, [1.5, -2.0], atol=0.1) and abs(b - 0.5) < 0.1


def test_page_fingerprints_equal_one_at_a_time():
    texts = ["Straße 12 ist  HIER", "ab", "", "a\x00b and more", "Ünïcode   ２３ digits 45", "x" * 50]
    assert fingerprints(texts).tolist() == [fingerprint(t) for t in texts]
    assert fingerprints(texts[:3]).tolist() == [fingerprint(t) for t in texts[:3]]  # no NUL
    assert fingerprints([]).tolist() == []


def test_a_url_seen_again_is_one_page():
    m = SiteMemory()
    page_fps = fp("Home About Contact", "The article's own paragraph")
    m.observe("a.com", page_fps, "http://a.com/1")
    m.observe("a.com", fp("Home About Contact", "Changed since"), "http://a.com/1")  # again
    assert m.seen("a.com", fp("Home About Contact", "A third page"))[1] == 1
    c = SiteCounts()
    for url in ("http://a.com/1", "http://a.com/1", "http://a.com/2"):
        c.add("a.com", page_fps if url.endswith("1") else fp("Home About Contact", "Another"), url)
    k, n = c.seen("a.com", page_fps)
    assert n == 1 and k.tolist() == [1, 0]
    c.prune()
    assert c.seen("a.com", page_fps)[0].tolist() == [1, 0]


def test_explain_shows_the_site_terms():
    from ce_filter.explain import explain, render_view

    ex = Extractor(stage_model(30.0), site_memory=SiteMemory())
    d0 = explain(page(0), "https://example.com/0", extractor=ex)
    assert d0["site_pages"] == 0 and all(not b["terms_site"] for b in d0["blocks"])
    d1 = explain(page(1), "https://example.com/1", extractor=ex)
    assert d1["site_pages"] == 1
    foot = next(b for b in d1["blocks"] if b["text"].startswith("Copyright"))
    assert not foot["kept"] and foot["score"] < 1e-6
    share = next(t for t in foot["terms_site"] if t[0].startswith("site: share of"))
    assert share[1] == 1.0 and share[2] == -30.0
    assert "site stage (the host's 1 other pages)" in render_view(d1)


def test_the_same_page_under_another_url_is_no_evidence():
    """ "/" and "/index.html": a page's twin must not make its article look site-wide."""
    home = fp("Home About Contact", "Harbour town reopens its lighthouse on Saturday")
    other = fp("Home About Contact", "A story about the fish market")
    m = SiteMemory()
    m.observe("a.com", home, "http://a.com/")
    m.observe("a.com", other, "http://a.com/fish")
    m.observe("a.com", home, "http://a.com/index.html")  # not remembered twice
    k, n = m.seen("a.com", home)
    assert n == 1 and k.tolist() == [1, 0]  # the menu on the other page; the article nowhere
    c = SiteCounts()
    for url, f in (("http://a.com/", home), ("http://a.com/fish", other), ("http://a.com/index.html", home)):
        c.add("a.com", f, url)
    c.prune()
    k, n = c.seen("a.com", home)
    assert n == 1 and k.tolist() == [1, 0]
    ex = Extractor(stage_model(30.0), site_memory=SiteMemory())
    a = ex.extract(page(0), "https://example.com/")
    b = ex.extract(page(0), "https://example.com/index.html")
    assert a.text == b.text and "Sentence 0 of article 0" in b.text


def test_a_headline_linked_elsewhere_is_not_the_article_headline():
    from ce_filter.read.segment import parse, segment
    from ce_filter.score.site.memory import block_fingerprints

    front = segment(parse("<ul><li><a href='/a'>Old market hall to become a library</a></li></ul>"
                          "<footer><p>Copyright Example Media</p></footer>"))
    story = segment(parse("<h1>Old market hall to become a library</h1>"
                          "<footer><p>Copyright Example Media</p></footer>"))
    f, s = block_fingerprints(front), block_fingerprints(story)
    assert f[0] != s[0] and f[0] != 0  # a link there, the headline here
    assert f[1] == s[1]  # the same footer text
    assert s[0] == fingerprint("Old market hall to become a library")


def test_fingerprints_depend_on_the_normalised_text_only():
    texts = ["  Posted ON 12 March ", "Straße", "首页 新闻", "x", "Menu\tHome  About", "\u3000全角\u3000"]
    fps = fingerprints(texts)
    assert fps.tolist() == [fingerprint(normalise(t)) for t in texts]  # normalise then hash: same
    assert fps.tolist() == fingerprints(texts[::-1]).tolist()[::-1]  # not where the block sits
    assert fps[3] == 0 and fps[2] != 0  # "x" under 3 bytes; two CJK words well over
    rng = np.random.default_rng(1)
    words = ["alpha", "beta", "gamma", "delta", "news", "home", "about", "contact", "more"]
    many = sorted({" ".join(rng.choice(words, size=int(rng.integers(2, 7)))) for _ in range(3000)})
    assert len(set(fingerprints(many).tolist())) == len(many)  # no collision among them


def test_a_long_block_is_fingerprinted_by_its_start_and_length():
    from ce_filter.score.site.memory import MAX_CHARS

    head = "word " * (MAX_CHARS // 5 + 10)
    a, b = head + "tail one", head + "tail two"  # same start, same length: the same block here
    c = head + "tail one and more"  # same start, longer
    fa, fb, fc = fingerprints([a, b, c]).tolist()
    assert fa == fb and fa != fc and fa != fingerprint(a[:MAX_CHARS])
    assert fingerprint(a) == fa  # a page at a time or one block: the same
    five_mb = "word " * 1_050_000  # a 5 MB paragraph costs what its first MAX_CHARS do
    assert fingerprint(five_mb) == fingerprint(five_mb[:MAX_CHARS] + "x" * (len(five_mb) - MAX_CHARS))


def test_the_c_hashes_equal_the_numpy_reference():
    from ce_filter.score.site import memory as sitememory

    rng = np.random.default_rng(3)
    alphabet = list("ab Z09 \t\n\r\x0b\x0c.-") + ["ß", "首", "\u3000", "\xa0", "É"]
    for _ in range(300):  # pages of random blocks: runs of digits and spaces, edges, empties
        texts = ["".join(rng.choice(alphabet, size=int(rng.integers(0, 12))))
                 for _ in range(int(rng.integers(1, 9)))]
        data = sitememory._SEP.join(texts).casefold().encode("utf-8")
        out, kept = sitememory.c_hashes(data, len(texts))
        ref = oracle.hashes(data, len(texts))
        assert out.tolist() == ref[0].tolist() and kept.tolist() == ref[1].tolist(), texts
    with pytest.raises(ValueError):  # the separators must match the blocks
        sitememory.c_hashes(b"a\x00b", 3)


def _c_module():
    from ce_filter.score.site import memory as sitememory

    return sitememory


def test_the_c_block_fingerprints_equal_the_reference():
    """block_fingerprints in one C call from the texts (CPython's case folding, the Unicode
    spaces, UTF-8 with surrogates, cut blocks, links) equals the joined, folded, encoded text
    through the numpy hashes."""
    from ce_filter.read.segment import Blocks

    sitememory = _c_module()
    rng = np.random.default_rng(11)
    # (no "\n": the walk's texts hold none, texts.TextColumn)
    alphabet = (list("ab Z09 \t\r\x0b\x0c.-\x00AQ") + ["ß", "首", "\u3000", "\xa0", "É", "ﬁ", "İ", "Σ",
                "ᾈ", "\U0001f600", "\ud800", "\u2009", "ǅ", "K"])
    for _ in range(400):
        texts = ["".join(rng.choice(alphabet, size=int(rng.integers(0, 14))))
                 for _ in range(int(rng.integers(1, 9)))]
        if rng.random() < 0.1:
            texts.append("Ab1 " * int(rng.integers(1000, 1100)))  # past MAX_CHARS
        anchors = [t[: int(rng.integers(0, len(t) + 1))] if rng.random() < 0.5 else "" for t in texts]
        got = sitememory.block_fingerprints(Blocks(texts=texts, anchor_texts=anchors))
        ref = sitememory.folded_fingerprints(texts, anchors, oracle.hashes)
        assert got.dtype == ref.dtype and got.tolist() == ref.tolist(), (texts, anchors)


@pytest.mark.corpus
def test_the_c_block_fingerprints_equal_the_reference_on_every_corpus_page(data_dir):
    from .corpus_pages import every_page

    sitememory = _c_module()
    pages, differ = 0, []
    for corpus, doc, _html, b in every_page(data_dir):
        pages += 1
        got = sitememory.block_fingerprints(b)
        if got.tolist() != sitememory.folded_fingerprints(b.texts, b.anchor_texts, oracle.hashes).tolist():
            differ.append(f"{corpus}/{doc.id}")
    assert pages > 3000 and not differ, differ[:10]


def test_the_c_stage_equals_the_reference():

    rng = np.random.default_rng(8)
    st = load_default("content").site or SiteStage(rng.normal(size=len(COLUMNS)), -0.2)
    for _ in range(500):
        m = int(rng.integers(1, 60))
        scores = rng.random(m) ** rng.choice([0.5, 1, 4])
        scores[rng.random(m) < 0.05] = rng.choice([0.0, 1.0])
        fps = (rng.integers(0, 3, size=m) * rng.integers(1, 2**62, size=m)).astype(np.uint64)
        n = int(rng.integers(1, 30))
        k = rng.integers(0, n + 1, size=m).astype(np.float64) * (fps != 0)
        got, ref = st.apply(scores, fps, k, n), oracle.stage_apply(st, scores, fps, k, n)
        assert np.allclose(got, ref, rtol=0, atol=1e-12), np.abs(got - ref).max()


@pytest.mark.corpus
def test_the_c_stage_keeps_the_references_blocks_on_every_corpus_page(data_dir):
    """Every corpus page through the shipped site stage, its corpus's pages counted by host:
    the C stage's probabilities within 1e-12 of the reference's and on the same side of the
    page's cut."""
    from ce_filter.learn.corpus import load_corpus
    from ce_filter.score.site import stage as S
    from ce_filter.score.site.memory import block_fingerprints

    ex = Extractor()
    st = ex.model.site or S.shipped_stage(ex.model.digest)
    assert st is not None
    pages = differ = 0
    for corpus in sorted(p for p in data_dir.iterdir() if (p / "html").is_dir()):
        seen: list = []
        counts = SiteCounts()
        for doc in load_corpus(corpus):
            p = ex.page(doc.html, doc.url or None)
            if p.blocks is None or not len(p.blocks) or p.scores is None:
                continue
            host = host_of(doc.url) or corpus.name
            fps = block_fingerprints(p.blocks)
            counts.add(host, fps, doc.id)
            seen.append((host, fps, ex.model.block_scores(p.blocks, p.kind), ex.cut(p.kind)))
        for host, fps, scores, cut in seen:
            k, n = counts.seen(host, fps)
            if n <= 0:
                continue
            pages += 1
            got, ref = st.apply(scores, fps, k, n), oracle.stage_apply(st, scores, fps, k, n)
            if not (np.allclose(got, ref, rtol=0, atol=1e-12) and np.array_equal(got >= cut, ref >= cut)):
                differ += 1
    assert pages > 2000 and differ == 0, (pages, differ)
