"""When the page kind is stated: only where the page-kind model can read the page.

The model (pagekind.py) reads word counts and a few English words per kind, and was fitted on
wcxb-dev, whose pages have at least 127 words for 99 in 100 of them. Two kinds of page lie
outside what it can tell, and on them its answer is a guess however sure it says it is
(docs/OUTPUT.md, "Page kind"):

- a page with fewer than ``MIN_WORDS`` words in all its blocks (a fragment, ``<p>hi</p>``);
- a page written without spaces between words (Chinese, Japanese, Thai, Lao, Khmer, Burmese):
  its "words" are whole sentences, and the kind estimated on zh-finance's and magic-html's
  Chinese and Japanese articles was right for 23 % of them, 4 % of those it gave 0.9 or more.

There ``page_type`` and ``page_type_prob`` are null. The estimate itself still sets the
page's probability cut and the thin-page rule, as on every page: this decides only what the
record states.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

MIN_WORDS = 100
# The scripts written without spaces between words: kana, CJK ideographs (and their extension A
# and compatibility forms), Thai, Lao, Burmese, Khmer
_UNSPACED = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
                       "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff]")
SAMPLE_CHARS = 400  # characters of the page's text read for its script
UNSPACED_SHARE = 1 / 3  # of the sample's non-space characters


def unspaced(text: str) -> bool:
    """The text's first SAMPLE_CHARS characters are mostly (UNSPACED_SHARE of the non-space
    ones) in a script written without spaces between words."""
    sample = text[:SAMPLE_CHARS]
    if sample.isascii():
        return False
    chars = len(sample) - sum(sample.count(c) for c in " \n\t")
    return chars > 0 and len(_UNSPACED.findall(sample)) >= chars * UNSPACED_SHARE


def kind_stated(words: int, text: str, block_texts: Sequence[str] = ()) -> bool:
    """Whether the record states the page kind: at least MIN_WORDS words in the page's blocks
    (``words``), and its kept ``text`` (where it is empty, its first blocks') not written
    without spaces."""
    if words < MIN_WORDS:
        return False
    if not text:
        text = "\n".join(block_texts[:40])
    return not unspaced(text)
