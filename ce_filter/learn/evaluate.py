"""The paper's metric: per page, bag-of-words overlap of extracted and gold tokens; then means."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from .corpus import Doc
from .labels import words


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


@dataclass
class Score:
    name: str = ""
    n: int = 0
    empty: int = 0
    p: list[float] = field(default_factory=list)
    r: list[float] = field(default_factory=list)
    f: list[float] = field(default_factory=list)
    seconds: float = 0.0

    def add(self, pred: str, gold: str) -> None:
        p, r, f = token_prf(pred, gold)
        self.n += 1
        self.empty += not pred.strip()
        self.p.append(p)
        self.r.append(r)
        self.f.append(f)

    @property
    def precision(self) -> float:
        return sum(self.p) / max(self.n, 1)

    @property
    def recall(self) -> float:
        return sum(self.r) / max(self.n, 1)

    @property
    def f1_of_means(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def mean_f1(self) -> float:
        return sum(self.f) / max(self.n, 1)

    def as_dict(self) -> dict[str, float | int | str]:
        return {"name": self.name, "pages": self.n, "precision": round(self.precision, 4),
                "recall": round(self.recall, 4), "f1_of_means": round(self.f1_of_means, 4),
                "mean_f1": round(self.mean_f1, 4), "empty": self.empty,
                "ms_per_page": round(1000 * self.seconds / max(self.n, 1), 3)}


def evaluate(fn: Callable[[bytes], str], docs: Iterable[Doc], *, comments: bool = False,
             name: str = "") -> Score:
    """Run ``fn(html_bytes) -> text`` over docs; exceptions count as empty output."""
    s = Score(name)
    for d in docs:
        t0 = time.perf_counter()
        try:
            text = fn(d.html) or ""
        except Exception:  # a peer that crashes on a page scores zero there
            text = ""
        s.seconds += time.perf_counter() - t0
        s.add(text, d.target(comments))
    return s


HEADER = "| corpus | pages | precision | recall | F1 (of means) | mean F1 | empty |"


def row(corpus: str, s: Score) -> str:
    return (f"| {corpus} | {s.n} | {s.precision:.3f} | {s.recall:.3f} | {s.f1_of_means:.3f} | "
            f"{s.mean_f1:.3f} | {s.empty} |")
