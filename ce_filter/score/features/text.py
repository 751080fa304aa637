"""The "text" group: what the block's characters and words look like (sentence ends, commas,
digits, capitals, stop words, words of the page title). Off in the shipped models: it does
not pay for itself on CV (docs/research/ABLATION.md)."""

from __future__ import annotations

import numpy as np

from ...read.segment import Blocks

STOPWORDS = frozenset(
    "the a an of to in and or is are was were be been it its that this with for on as at by from "
    "he she they we you i his her their our not but have has had will would can could which who "
    "what when there than then so if do does did no into about more also after over said".split()
)

# Character classes counted per block in one bincount: 0 other, 1 space, 2 sentence end,
# 3 comma, 4 digit, 5 ASCII upper case. Codes past 127 count as "other".
_N_CLS = 6
_CLS = np.zeros(129, dtype=np.int64)
_CLS[32] = 1
_CLS[[46, 33, 63]] = 2
_CLS[44] = 3
_CLS[48:58] = 4
_CLS[65:91] = 5


def _char_class_counts(codes: np.ndarray, n_chr: np.ndarray) -> np.ndarray:
    """(blocks x classes) counts; blocks are joined with one separator char each."""
    n = len(n_chr)
    owner = np.repeat(np.arange(n), n_chr.astype(np.int64) + 1)[: len(codes)]
    cls = _CLS[np.minimum(codes, 128)]
    return np.bincount(owner * _N_CLS + cls, minlength=n * _N_CLS).reshape(n, _N_CLS).astype(np.float64)


def text_columns(b: Blocks, n_chr: np.ndarray, n_tok: np.ndarray) -> tuple[list[str], list[np.ndarray]]:
    texts = b.texts
    n = len(texts)
    joined = "\n".join(texts)
    codes = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    starts = np.zeros(n, dtype=np.int64)
    if n > 1:
        starts[1:] = np.cumsum(n_chr[:-1] + 1).astype(np.int64)
    cc = _char_class_counts(codes, n_chr)
    period, comma, digit, upper = cc[:, 2], cc[:, 3], cc[:, 4], cc[:, 5]
    last = codes[np.maximum(starts + n_chr.astype(np.int64) - 1, 0)] if n else codes[:0]
    ends = np.isin(last, (46, 33, 63, 34, 8221)).astype(np.float64)
    words = joined.lower().split()
    owner = np.repeat(np.arange(n), n_tok.astype(np.int64)) if n else np.zeros(0, np.int64)
    if len(owner) != len(words):  # non-space whitespace inside a block (rare): recount
        counts = [len(t.split()) for t in texts]
        owner = np.repeat(np.arange(n), counts)
    stop = np.fromiter(map(STOPWORDS.__contains__, words), dtype=np.float64, count=len(words))
    tset = set(b.title.lower().split())
    in_title = np.fromiter(map(tset.__contains__, words), dtype=np.float64, count=len(words))
    stop_r = np.bincount(owner, weights=stop, minlength=n) / n_tok
    title_r = np.bincount(owner, weights=in_title, minlength=n) / n_tok
    return (["sent_per_tok", "comma_per_tok", "digit_ratio", "upper_ratio", "ends_sentence",
             "stop_ratio", "title_ratio"],
            [period / n_tok, comma / n_tok, digit / np.maximum(n_chr, 1), upper / np.maximum(n_chr, 1),
             ends, stop_r, title_r])
