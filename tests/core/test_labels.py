"""The LCS alignment is exact, and labels follow the >10%-matched rule."""

import random

import numpy as np

from ce_filter.learn.labels import block_labels, in_runs, lcs_align, lcs_match


def lcs_len(a, b):
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def test_alignment_is_a_longest_common_subsequence():
    rng = random.Random(7)
    for _ in range(300):
        a = [rng.choice("abcde") for _ in range(rng.randint(0, 40))]
        b = [rng.choice("abcde") for _ in range(rng.randint(0, 40))]
        al = lcs_align(a, b)
        pairs = [(j, int(i)) for j, i in enumerate(al) if i >= 0]
        assert all(a[j] == b[i] for j, i in pairs)
        assert all(i1 < i2 for (_, i1), (_, i2) in zip(pairs, pairs[1:]))  # increasing in gold
        assert len(pairs) == lcs_len(a, b)
        assert lcs_match(a, b).sum() == len(pairs)


def test_runs_drop_lone_borrowed_words():
    al = np.array([-1, 5, -1, 7, 8, -1])
    assert in_runs(al).tolist() == [False, False, False, True, True, False]


def test_block_labels():
    blocks = ["Home News Sports", "The quick brown fox jumps over the lazy dog", "Share this"]
    y, share = block_labels(blocks, "The quick brown fox jumps over the lazy dog.", runs=False)
    assert y.tolist() == [False, True, False]
    assert share[1] == 1.0


DESC = "This lamp gives a warm light for reading at night and folds flat for travel"
SPECS = "Specifications: weight 2 kg, width 30 cm, battery lasts ten hours"


def test_lines_pass_finds_gold_sections_in_another_order():
    """The gold lists the description first, the page the specifications first: one LCS keeps
    only one order; the per-line pass finds the other section too."""
    blocks = [SPECS, "Home Shop Cart Sign in", DESC, "Related lamps and more lamps"]
    gold = f"{DESC}\n\n{SPECS}"
    y, _ = block_labels(blocks, gold)
    assert y.tolist() == [False, False, True, False]
    y, share = block_labels(blocks, gold, lines=True)
    assert y.tolist() == [True, False, True, False] and share[0] == 1.0


def test_lines_pass_leaves_scattered_words_alone():
    """A gold line that is not on the page does not pull in boilerplate that shares a few of its
    words here and there (nor one copy of a two-word phrase in a long line)."""
    blocks = [DESC, "Weight loss tips", "Our free newsletter", "Free diet plans here"]
    gold = f"{DESC}\n\nfree diet program for weight loss and a healthy life"
    assert block_labels(blocks, gold, lines=True)[0].tolist() == [True, False, False, False]


def test_lines_pass_changes_nothing_when_the_order_agrees():
    blocks = ["Menu", DESC, SPECS, "Footer text"]
    gold = f"{DESC}\n{SPECS}"
    for runs in (True, False):
        a = block_labels(blocks, gold, runs=runs)
        b = block_labels(blocks, gold, runs=runs, lines=True)
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


def test_gold_lines_are_the_gold_words():
    from ce_filter.learn.labels import gold_lines, words

    text = "A title\n\n  para one, two.\nthree\n\n\n"
    toks, spans = gold_lines(text)
    assert toks == words(text) and spans == [(0, 2), (2, 5), (5, 6)]
