"""The Table 2 study's parts: the positional metric, the paper's IC features, X-CEX's rule and
the heading lexicon study."""

from __future__ import annotations

import numpy as np

from ce_filter.learn.evaluate import token_prf
from ce_filter.learn.positional import lcs_length, positional_prf

PAGE = ("<html><body><div id='main-nav' class='menu top'><a href='/'>Home</a> <a>News</a></div>"
        "<div class='post entry_content'><p>First paragraph of the article <span class='x-y'>"
        "here</span>.</p><p class='alt'>Second one.</p></div>"
        "<h2>You may like</h2><ul><li>Other story</li></ul></body></html>")


def test_positional_counts_words_by_position() -> None:
    # the bag matches the boilerplate "the" for the missing content one; position does not
    gold = "the cat sat on the mat"
    pred = "the menu home the cat sat on mat"
    p_bag = token_prf(pred, gold)
    p_pos = positional_prf(pred, gold)
    assert lcs_length(pred.split(), gold.split()) == 5
    assert p_pos[0] == 5 / 8 and p_pos[1] == 5 / 6
    assert p_bag[0] == 6 / 8 and p_bag[2] > p_pos[2]
    # order counts: the same words in another order share one word by position
    assert positional_prf("b a", "a b")[2] == 0.5
    assert positional_prf("", "") == (1.0, 1.0, 1.0)
    assert positional_prf("x", "") == (0.0, 0.0, 0.0)


def test_positional_is_never_above_the_bag() -> None:
    rng = np.random.default_rng(0)
    vocab = "a b c d e f".split()
    for _ in range(200):
        pred = " ".join(rng.choice(vocab, rng.integers(0, 12)))
        gold = " ".join(rng.choice(vocab, rng.integers(0, 12)))
        assert positional_prf(pred, gold)[2] <= token_prf(pred, gold)[2] + 1e-12


def test_paper_ic_tokens_accumulate_over_the_block() -> None:
    from ce_filter.read.segment import parse, segment
    from research.paperic import paper_rule, paper_tokens, segment_paper

    assert paper_tokens("post entry_content", "main-nav") == [
        "id:main", "id:nav", "class:post", "class:entry", "class:content"]
    b = segment_paper(PAGE)
    assert b.texts == segment(parse(PAGE)).texts
    toks = dict(zip(b.texts, b.own_tokens))
    # the block's own tag and the elements inside it, id and class apart
    assert toks["Home News"] == ("id:main", "id:nav", "class:menu", "class:top")
    assert toks["First paragraph of the article here."] == ("class:x", "class:y")
    assert toks["Second one."] == ("class:alt",)
    # the floor is per class: a token on 2 of 3 content blocks and none of 97 others is kept
    rows = [("class:a",), ("class:a",), ()] + [("class:b",)] * 97
    y = np.array([1, 1, 1] + [0] * 97)
    assert paper_rule(rows, y) == ["class:a", "class:b"]


def test_dragnet_blocks_run_on_after_a_block_closes() -> None:
    from research.paperic import segment_paper

    page = "<html><body><div class=a><p id=b>one</p>tail <i class=c>text</i></div><p>next</p></body></html>"
    assert segment_paper(page).texts == ["one", "tail text", "next"]
    b = segment_paper(page, runs_on=True)
    assert b.texts == ["one tail text", "next"]
    assert b.own_tokens[0] == ("id:b", "class:c")


def test_xcex_similarity_and_hamming() -> None:
    from research.xcex import _popcount, simhashes

    x = np.array([0, 1, 3, 0xFFFFFFFFFFFFFFFF], dtype=np.uint64)
    assert _popcount(x).tolist() == [0, 1, 2, 64]
    a, b, c = simhashes(["the same words here", "the same words here", "nothing alike at all"])
    assert a == b and _popcount(np.array([a ^ c], dtype=np.uint64))[0] > 3


def test_heading_lexicon_study_builds_the_shipped_regex() -> None:
    from research.headingstudy import ADOPTED, CANDIDATES, PREVIOUS, lexicon, resolve
    from tests.oracles.headings_regex import BOILER_HEADING

    assert lexicon(resolve("shipped")).pattern == BOILER_HEADING.pattern
    assert set(ADOPTED) <= set(CANDIDATES) and set(resolve("shipped")) == set(PREVIOUS + ADOPTED)
    words = resolve("all")
    assert set(CANDIDATES) <= set(words) and words[:len(PREVIOUS)] == PREVIOUS
    assert lexicon(words).search("you may like") and not lexicon(("notes",)).search("footnotes")
