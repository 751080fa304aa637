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
