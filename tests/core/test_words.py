"""Words in scripts written without spaces: the C walk and the Python count agree, every
character of CJK / Thai / Khmer … is a word, and the metric's tokens split them the same way."""

import numpy as np
import pytest

from ce_filter.learn.evaluate import token_prf
from ce_filter.learn.labels import words
from ce_filter.read import segment as S
from ce_filter.read.words import CONTINUA_RANGES, SEPARATOR_RANGES, count_words, tokens

CASES = [
    ("plain words here", 3),
    ("", 0),
    ("中文的句子，很长。", 7),  # 7 ideographs; full-width comma and full stop are no words
    ("中文abc字", 4),
    ("Hello 世界!", 4),  # "Hello", 世, 界 and the "!" run after them
    ("日本語のテキスト", 8),
    ("ภาษาไทย", 7),
    ("한국어 문장", 2),  # Hangul is written with spaces
    ("𠀀𠀁", 2),  # CJK extension B, four-byte UTF-8
    ("「引用」", 2),
    ("a\u3000b", 2),  # ideographic space
]


@pytest.mark.parametrize("text,n", CASES)
def test_count_words(text, n):
    assert count_words(text) == n


def test_ascii_count_is_whitespace_split():
    s = " a  bb\tc\n d "
    assert count_words(s) == len(s.split())


def test_c_walk_counts_words_as_python():
    edge = "".join(chr(a) + chr(b) + "x" for a, b in CONTINUA_RANGES + SEPARATOR_RANGES)
    edge += "".join(chr(a - 1) + chr(b + 1) + " " for a, b in CONTINUA_RANGES + SEPARATOR_RANGES)
    texts = [t for t, _ in CASES if t] + [edge]
    html = "".join(f"<p>{t} <a href=x>{t}</a></p>" for t in texts)
    b = S.segment(S.parse(html))
    fresh = S.Blocks(b.texts, b.anchor_texts)
    assert np.array_equal(b.counts(), fresh.counts())
    assert b.counts()[:, 1].tolist() == [2 * count_words(t) for t in texts]


def test_tokens_split_cjk_per_character():
    assert tokens("新华社北京电 Hello, World_2") == ["新", "华", "社", "北", "京", "电", "hello",
                                                    "world_2"]
    assert words("東京タワー") == ["東", "京", "タ", "ワ", "ー"]
    assert tokens("ไทย") == ["ไ", "ท", "ย"]


def test_metric_sees_errors_inside_a_cjk_sentence():
    """One wrong character of a sentence costs one token, not the whole sentence."""
    p, r, f = token_prf("今天天气很好我们去公园", "今天天气很好我们去公园吧")
    assert p == 1.0 and 0.9 < r < 1.0
