"""The blocks' texts as one string (read/texts.py's TextColumn): a sequence of str like the list
it replaces; the C walk's column holds the Python walk's texts and counts, bytes that are not
UTF-8 read as "replace" reads them; the C parts that read the column's UTF-8 (the kept text,
the repeated texts) give what the str references give, in every script."""

from __future__ import annotations

import pickle
import random

import numpy as np
import pytest

from ce_filter.keep import render as R
from ce_filter.read import segment as S
from ce_filter.read.texts import TextColumn, column, pick
from ce_filter.score.features.dense import repeated
from tests.oracles import render_text as oracle
from tests.oracles import walk_python

WORDS = ["a", "bb", "été", "日本語", "😀", "x" * 30, "Ünïcödé", "ß", "İ", "\u00a0", "\u3000", "|"]


def _texts(rnd: random.Random, n: int) -> list[str]:
    return [" ".join(rnd.choice(WORDS) for _ in range(rnd.randrange(1, 5))) for _ in range(n)]


def test_a_column_reads_as_its_list() -> None:
    rnd = random.Random(1)
    for n in (0, 1, 2, 7, 300):
        ts = _texts(rnd, n)
        c = TextColumn.of(ts)
        assert len(c) == n and list(c) == ts and c == ts and c == TextColumn.of(ts)
        assert [c[i] for i in range(n)] == ts and [c[i - n] for i in range(n)] == ts
        assert c[1:4] == ts[1:4] and c[::-2] == ts[::-2]
        assert c.joined == "\n".join(ts) and len(c.starts) == n + 1
        assert c.utf8 == "\n".join(ts).encode()
        # the byte starts: where each text's UTF-8 begins
        assert [c.utf8[c.byte_starts[i]:c.byte_starts[i + 1] - 1].decode() for i in range(n)] == ts
        assert c.byte_starts[-1] == len(c.utf8) + 1
        assert pickle.loads(pickle.dumps(c)) == ts
        assert column(c) is c and column(ts) == c
        with pytest.raises(IndexError):
            c[n]
    assert TextColumn.of(["a"]) != ["b"] and TextColumn.of(["a"]) != ["a", "a"]
    with pytest.raises(ValueError):
        TextColumn.of(["two\nlines"])


def test_pick_gives_the_texts_at_indices_of_a_column_or_a_list() -> None:
    ts = ["a", "été", "日本", "", "z z"]
    for texts in (ts, TextColumn.of(ts)):
        assert pick(texts, [4, 0, 2, 2]) == ["z z", "a", "日本", "日本"] and pick(texts, []) == []
    assert pick(TextColumn.of(["x\ny", "", "q"], gap=0), [0, 2, 1]) == ["x\ny", "q", ""]


def test_a_column_without_separator_holds_any_text() -> None:
    ts = ["x\ny", "", "z", "\n", "é\n"]
    c = TextColumn.of(ts, gap=0)
    assert list(c) == ts and c[3] == "\n" and c[1] == "" and c.joined == "".join(ts)
    assert [c.utf8[c.byte_starts[i]:c.byte_starts[i + 1]].decode() for i in range(len(ts))] == ts
    assert TextColumn.of([], gap=0) == [] and list(TextColumn.of([], gap=0)) == []


PAGES = [
    "<p>Hello   wörld</p><div>日本語の<b>テキスト</b></div><p><a href=x>a\nlink</a> and 😀</p>",
    "<ul><li>one</li><li>two <a href=y>three</a></li></ul><table><tr><td>é</td><td>ü</td></tr></table>",
    "<p> </p><p>\u00a0x\u3000y\u2028z</p><pre>code\n  lines</pre>",
    "",
]


def test_the_c_walks_column_is_the_python_walks_list() -> None:
    rnd = random.Random(5)
    pages = PAGES + ["".join(f"<p>{' '.join(_texts(rnd, 3))}</p><div><a href=q>{rnd.choice(WORDS)}</a>"
                             f" {rnd.choice(WORDS)}</div>" for _ in range(rnd.randrange(1, 30)))
                     for _ in range(50)]
    for html in pages:
        b = S.segment(S.parse(html))
        ref = walk_python.walk(html)
        assert isinstance(b.texts, TextColumn) and isinstance(b.anchor_texts, TextColumn)
        assert b.texts == ref.texts and b.anchor_texts == ref.anchor_texts
        assert np.array_equal(b.counts(), ref.counts())
        assert b.text_column() is b.texts and ref.text_column() == b.texts
        assert b.texts.utf8 == ref.text_column().utf8
        assert np.array_equal(b.texts.byte_starts, ref.text_column().byte_starts)


def test_bytes_that_are_not_utf8_read_as_replace_reads_them() -> None:
    raw = b"<p>a\xffb \xe2\x82</p><p>ok \xc3\xa9</p><p><a href=x>l\xffk</a> \xf0\x9f</p>"
    b = S.segment(S.parse("x", raw))
    want = ["a\ufffdb \ufffd", "ok é", "l\ufffdk \ufffd"]
    assert list(b.texts) == want and list(b.anchor_texts) == ["", "", "l\ufffdk"]
    assert b.counts()[:, 0].tolist() == [len(t) for t in want]
    assert b.texts.utf8 == "\n".join(want).encode()


def test_the_repeated_texts_in_c_are_the_set_of_str() -> None:
    rnd = random.Random(2)
    for _ in range(300):
        ts = _texts(rnd, rnd.randrange(0, 40))
        seen: set[str] = set()
        want = []
        for t in ts:
            want.append(float(t in seen))
            seen.add(t)
        assert repeated(S.Blocks(texts=ts)).tolist() == want


def test_the_kept_text_counts_a_cells_characters_not_its_bytes() -> None:
    """A table cell of MAX_CELL_CHARS characters in a script of several bytes a character stays
    a cell (one more character and it is a paragraph), as the str reference counts them."""
    m = R.MAX_CELL_CHARS
    for cell in ("é" * m, "é" * (m + 1), "😀" * m, "a" * m, "a" * (m + 1)):
        html = f"<table><tr><td>{cell}</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>"
        b = S.segment(S.parse(html), extras=True)
        keep = np.ones(len(b), dtype=bool)
        got = R.to_text(b, keep)
        assert got == oracle.to_text(b, keep, R.Extras())
        assert (" | b" in got) == (len(cell) <= m)
