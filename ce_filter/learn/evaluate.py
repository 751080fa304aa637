"""The project's metric: per page, bag-of-words overlap of extracted and gold tokens; then means
(the Dragnet paper's, CETR's positional word overlap, is ``positional.positional_prf``).
Beside it, where the corpus has them, the snippet rates and every figure per page type, per
language (where a corpus has more than one), per site (where a corpus is a few sites of many
pages each) and per capture year.

Tokens are lower-cased ``\\w+`` runs, and every character of the scripts written without spaces
(CJK, Thai, Khmer, …) is a token of its own (``ce_filter.read.words.tokens``): a ``\\w+`` run there
is a whole sentence, and one wrong character would cost the whole of it."""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, TypedDict

from ..progress import progress
from .corpus import Doc
from .labels import words

if TYPE_CHECKING:
    from ..extractor import Extractor


def token_prf(pred: str, gold: str) -> tuple[float, float, float]:
    """Precision, recall, F1 of the multiset of word tokens. Empty vs empty counts as perfect."""
    p_tok, g_tok = Counter(words(pred)), Counter(words(gold))
    n_p, n_g = sum(p_tok.values()), sum(g_tok.values())
    if n_p == 0 and n_g == 0:
        return 1.0, 1.0, 1.0
    if n_p == 0 or n_g == 0:
        return 0.0, 0.0, 0.0
    inter = sum((p_tok & g_tok).values())
    p, r = inter / n_p, inter / n_g
    return p, r, (2 * p * r / (p + r) if inter else 0.0)


def _norm(text: str) -> str:
    return " ".join(text.split())


def snippet_hits(pred: str, must_have: Iterable[str], must_not_have: Iterable[str]
                 ) -> tuple[int, int, int, int]:
    """(must-have snippets found, must-have snippets, must-not-have snippets absent,
    must-not-have snippets). A snippet is found when its text, with every run of white space
    made one space, is a substring of the output treated the same way (case-sensitive; snippets
    are cut mid-word, so no word boundaries). Empty snippets do not count."""
    out = _norm(pred)
    have = [q for q in map(_norm, must_have) if q]
    not_have = [q for q in map(_norm, must_not_have) if q]
    return (sum(q in out for q in have), len(have), sum(q not in out for q in not_have),
            len(not_have))


@dataclass(frozen=True)
class PageResult:
    """One page's figures."""

    p: float
    r: float
    f: float
    empty: bool
    page_type: str = ""
    snippets: tuple[int, int, int, int] = (0, 0, 0, 0)  # snippet_hits
    id: str = ""
    lang: str = ""
    site: str = ""
    year: str = ""
    kind: str = ""  # the page kind the extractor estimated (out of fold in ``evaluate --cv``)


# as_dict's keys of the breakdowns
Breakdown = Literal["by_type", "by_lang", "by_site", "by_year"]


class ScoreFigures(TypedDict, total=False):
    """Score.as_dict: the score's figures (rounded), and its breakdowns' (by page type;
    language, site, year where Score.breakdowns shows them), each group's without breakdowns."""

    name: str
    pages: int
    precision: float
    recall: float
    f1_of_means: float
    mean_f1: float
    empty: int
    ms_per_page: float
    must_have: float | None
    must_not_have: float | None
    by_type: dict[str, ScoreFigures]
    by_lang: dict[str, ScoreFigures]
    by_site: dict[str, ScoreFigures]
    by_year: dict[str, ScoreFigures]


@dataclass
class Score:
    name: str = ""
    pages: list[PageResult] = field(default_factory=list)
    seconds: float = 0.0

    def add(self, pred: str, gold: str, doc: Doc | None = None) -> None:
        p, r, f = token_prf(pred, gold)
        hits = snippet_hits(pred, doc.must_have, doc.must_not_have) if doc else (0, 0, 0, 0)
        self.pages.append(PageResult(p, r, f, not pred.strip(), doc.page_type if doc else "", hits,
                                     doc.id if doc else "", doc.lang if doc else "",
                                     doc.domain if doc else "", doc.year if doc else ""))

    def extend(self, other: Score) -> None:
        """Add another score's pages (the folds of an out-of-fold run)."""
        self.pages.extend(other.pages)
        self.seconds += other.seconds

    def by_type(self) -> dict[str, Score]:
        """One score per page type, in PAGE_TYPES order then by name (empty without types)."""
        return self.by("page_type")

    def by(self, attr: str) -> dict[str, Score]:
        """One score per value of a page attribute (page_type, lang, site, year) that pages
        have; page types in PAGE_TYPES order, the others sorted."""
        keys = {getattr(r, attr) for r in self.pages} - {""}
        order = sorted(keys, key=_type_order if attr == "page_type" else None)
        share = self.seconds / max(self.n, 1)
        out = {}
        for k in order:
            sub = [r for r in self.pages if getattr(r, attr) == k]
            out[k] = Score(k, sub, share * len(sub))
        return out

    def breakdowns(self) -> dict[str, dict[str, Score]]:
        """The groups a table shows under the corpus's row: page types; languages where the
        corpus has more than one; sites where it is a few sites of many pages each (at most
        MAX_SITES sites, at least SITE_PAGES pages each on average); capture years where it has
        more than one."""
        out = {"page_type": self.by("page_type")}
        for attr in ("lang", "site", "year"):
            by = self.by(attr)
            if len(by) < 2:
                continue
            with_site = sum(v.n for v in by.values())  # pages without a site do not count
            if attr == "site" and (len(by) > MAX_SITES or with_site < SITE_PAGES * len(by)):
                continue
            out[attr] = by
        return {k: v for k, v in out.items() if v}

    @property
    def n(self) -> int:
        return len(self.pages)

    @property
    def empty(self) -> int:
        return sum(r.empty for r in self.pages)

    @property
    def must_have_rate(self) -> float | None:
        """Share of all must-have snippets (over the pages) found in the output; None when the
        pages have none."""
        total = sum(r.snippets[1] for r in self.pages)
        return sum(r.snippets[0] for r in self.pages) / total if total else None

    @property
    def must_not_have_rate(self) -> float | None:
        """Share of all must-not-have snippets absent from the output; None when there are none."""
        total = sum(r.snippets[3] for r in self.pages)
        return sum(r.snippets[2] for r in self.pages) / total if total else None

    @property
    def precision(self) -> float:
        return sum(r.p for r in self.pages) / max(self.n, 1)

    @property
    def recall(self) -> float:
        return sum(r.r for r in self.pages) / max(self.n, 1)

    @property
    def f1_of_means(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def mean_f1(self) -> float:
        return sum(r.f for r in self.pages) / max(self.n, 1)

    def as_dict(self, types: bool = True) -> ScoreFigures:
        d: ScoreFigures = {
            "name": self.name, "pages": self.n, "precision": round(self.precision, 4),
            "recall": round(self.recall, 4), "f1_of_means": round(self.f1_of_means, 4),
            "mean_f1": round(self.mean_f1, 4), "empty": self.empty,
            "ms_per_page": round(1000 * self.seconds / max(self.n, 1), 3),
            "must_have": _round(self.must_have_rate), "must_not_have": _round(self.must_not_have_rate)}
        if types:
            for attr, by in self.breakdowns().items():
                d[_BY_KEY[attr]] = {k: v.as_dict(types=False) for k, v in by.items()}
        return d


# as_dict's key of each breakdown
_BY_KEY: dict[str, Breakdown] = {"page_type": "by_type", "lang": "by_lang", "site": "by_site",
                                 "year": "by_year"}
# a corpus is reported per site when it has at most this many sites, with at least this many
# pages each on average (zh-finance: 10 sites, big5: 9; the training corpora have hundreds)
MAX_SITES = 20
SITE_PAGES = 10


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


# The page types of wcxb-dev, in the order tables show them.
PAGE_TYPES = ("article", "documentation", "service", "forum", "collection", "listing", "product")


def _type_order(t: str) -> tuple[int, str]:
    return (PAGE_TYPES.index(t) if t in PAGE_TYPES else len(PAGE_TYPES), t)


def text_fn(ex: Extractor) -> Callable[[bytes, str | None], str]:
    """``ex.extract(html, url=url).text`` as a function (binds ``ex`` now, not when a loop
    ends)."""
    def run(h: bytes, url: str | None = None) -> str:
        return str(ex.extract(h, url=url).text)

    return run


def evaluate(fn: Callable[[bytes, str | None], str], docs: Iterable[Doc], *,
             comments: bool = False, name: str = "", total: int | None = None, log: bool = False
             ) -> Score:
    """Run ``fn(html_bytes, url) -> text`` over docs (url: the page's address where the corpus
    has one, else None: a crawler knows it, and the page-kind estimate reads it); exceptions
    count as empty output. ``log`` shows progress over the ``total`` pages on stderr."""
    s = Score(name)
    for d in progress(docs, f"evaluate {name}".strip(), total=total, enabled=log):
        t0 = time.perf_counter()
        try:
            text = fn(d.html, d.url or None) or ""
        except Exception:  # a peer that crashes on a page scores zero there
            text = ""
        s.seconds += time.perf_counter() - t0
        s.add(text, d.target(comments), d)
    return s


HEADER = ("| corpus | pages | precision | recall | F1 (of means) | mean F1 | empty | "
          "must-have found | must-not-have absent |")
RULE = "|---|---|---|---|---|---|---|---|---|"


def _rate(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


def row(corpus: str, s: Score) -> str:
    return (f"| {corpus} | {s.n} | {s.precision:.3f} | {s.recall:.3f} | {s.f1_of_means:.3f} | "
            f"{s.mean_f1:.3f} | {s.empty} | {_rate(s.must_have_rate)} | "
            f"{_rate(s.must_not_have_rate)} |")


def rows(corpus: str, s: Score) -> list[str]:
    """The corpus's row, then one per page type ("wcxb-dev: forum") where it has them, per
    language ("magic-html: zh"), site ("big5: bbc.com") and year ("big5: 2005") where
    ``Score.breakdowns`` shows them."""
    return [row(corpus, s)] + [row(f"{corpus}: {k}", v) for by in s.breakdowns().values()
                               for k, v in by.items()]


def table(scores: list[tuple[str, Score]]) -> str:
    """The markdown table of (corpus label, score) pairs, with their page-type rows."""
    return "\n".join([HEADER, RULE] + [r for label, s in scores for r in rows(label, s)])


def evaluate_command(a: argparse.Namespace) -> int:
    """``ce-filter evaluate`` without ``--cv``: the metric on each corpus, per page type where it
    has them (``--cv``, out of fold, is learn/crossval.py's ``cv_command``)."""
    from ..options import ExtractOptions
    from .corpus import Spec

    if getattr(a, "pages", None):
        print("--pages: with --cv only", file=sys.stderr)
        return 2
    ex = ExtractOptions.from_args(a).extractor()
    print(HEADER)
    print(RULE)
    for corpus in map(Spec.parse, a.corpus):  # a row as soon as a corpus is done
        s = evaluate(text_fn(ex), corpus.load(), comments=a.comments, name=corpus.label,
                     total=corpus.size(), log=True)
        print("\n".join(rows(corpus.label, s)), flush=True)
    return 0
