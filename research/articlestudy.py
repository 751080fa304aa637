"""What the extractor keeps on article pages that the gold leaves out, sorted into categories by
transparent rules, from a block dump (``learn.oofdump``: out of fold, or a model run on corpora
it was never trained on).

    python -m research.articlestudy /tmp/art/kd/pages.jsonl.gz /tmp/art/ship/pages.jsonl.gz
    python -m research.articlestudy /tmp/art/ship/pages.jsonl.gz \\
        --against /tmp/art/leaves/pages.jsonl.gz

Article pages: every page of ``dragnet`` (train, or test where reported) and ``newspaper``, the
pages of type ``article`` elsewhere (wcxb-dev, magic-html). Groups: the corpus, with its CJK
pages (language zh/ja/ko, or a gold text mostly of CJK characters) apart.

False-positive tokens, with the metric's tokens (``labels.words``: lower-cased ``\\w+`` runs, a
CJK character each): the kept blocks take the gold's tokens as a multiset, the blocks most
covered by the gold first (so an article paragraph claims its words before a teaser that
repeats a few of them), each block in page order among equals; what a block cannot take is
its false-positive tokens. Their sum is the page's kept tokens minus its matched ones, as in
``evaluate.token_prf``.

The article's span: from the first to the last kept block of which at least half the tokens
are matched (the gold's run on the page); a block is ``before``, ``inside`` or ``after`` it.
A block most of whose tokens are matched is the article's own, and its few unmatched tokens
are "residue" (numbers, citation marks, words the gold spells otherwise). Each other block with
false-positive tokens gets the first category (CATEGORIES order) whose rule
holds: the rules read the block's text (regexes), its length, its link density (words inside
links / words, where the dump has it), its tag and ancestor flags, and its position.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ce_filter.read.segment import FLAG_NAMES, HEADINGS
from ce_filter.read.words import tokens as words

_FLAG = {n: 1 << i for i, n in enumerate(FLAG_NAMES)}
_CJK_LANGS = {"zh", "ja", "ko"}
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")

_MONTH = (r"(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?")
_DATE = re.compile(
    rf"\b{_MONTH}\s+\d{{1,2}}\b|\b\d{{1,2}}\s+{_MONTH}\b|\b(19|20)\d\d[-/.年]\d{{1,2}}"
    r"|\b\d{1,2}[/.]\d{1,2}[/.](19|20)?\d\d\b|\b\d+\s+(minutes?|hours?|days?|weeks?)\s+ago\b"
    r"|\b(updated|published|posted|last modified)\b|\d{1,2}:\d\d\s*(am|pm|[ap]\.m\.|gmt|utc|et|bst)?"
    r"|\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b|[年月日]\s*\d|发布|来源[:：]"
    r"|(分钟|分鐘|小时|小時|天|日|周)前|पहले",
    re.I)
_BYLINE = re.compile(
    r"(?i:^\s*(by|written by|posted by|words by|author|reporter|staff writer|correspondent|"
    r"editor)\b)|\b(by|By|BY|via)\s+[A-Z][a-z]+\s+[A-Z][a-z]+|作者|记者|编辑|责编|@\w+", re.M)
_CITE = re.compile(
    r"explore further|more information|journal reference|\bcitation\b|\bdoi\b|cite this"
    r"|provided by|\bsource:|retrieved from|\breferences?\b|this (story|article) (is|was) "
    r"(republished|reprinted|adapted)|contact the (author|writer)|for more on|related journal",
    re.I)
_SHARE = re.compile(
    r"\b(share|shares|shared|tweet|facebook|twitter|pinterest|linkedin|whatsapp|reddit|email|"
    r"e-mail|print|follow us|subscribe|newsletter|sign up|rss|google\+|copy link)\b|分享|关注",
    re.I)
_COMMENTS = re.compile(
    r"\b(comments?|reply|replies|disqus|log ?in to|sign ?in to|leave a|join the discussion|"
    r"commenting|moderat\w+|upvote|report abuse)\b|评论|留言", re.I)
_TICKER = re.compile(
    r"\b(breaking( news)?|trending|latest( news| headlines)?|top stories|top news|most (read|"
    r"popular|viewed|shared|emailed|commented)|just in|live( updates| blog)?|headlines|"
    r"what'?s hot|markets? data|stocks?)\b|\b[A-Z]{2,5}\s+[-+]?\d+(\.\d+)?%|热门|最新|排行|滚动",
    re.I)
_RELATED = re.compile(
    r"\b(related|read more|read next|more (from|stories|on this|news|articles|in)|you may also|"
    r"you might also|recommended|see also|further reading|also read|don'?t miss|popular|"
    r"previous|next (story|article|post)|also on|around the web|from the web|promoted stories|"
    r"more like this|keep reading|continue reading|baca juga|lihat juga|leia também|lesen sie "
    r"auch)\b|相关|推荐|延伸阅读|上一篇|下一篇|あわせて読みたい|関連記事", re.I)
_CAPTION = re.compile(
    r"\b(photo|photos|photograph|image|images|picture|credit|getty|reuters|ap photo|afp|"
    r"illustration|caption|pictured|file photo|video|gallery|slideshow|click to enlarge)\b|©|图片|图",
    re.I)
_AD = re.compile(r"\b(advertisement|advertising|sponsored|promoted|ad choices|adchoices|"
                 r"paid (content|post)|partner content)\b|广告", re.I)
_LEGAL = re.compile(r"copyright|all rights reserved|privacy|terms of (use|service)|cookies?\b|"
                    r"版权|免责", re.I)


@dataclass(frozen=True)
class BlockView:
    """One kept block with what the rules read."""

    text: str
    tokens: int
    fp: int
    pos: str  # before / inside / after the article's span
    link_density: float | None  # words in links / words; None where the dump has no link counts
    tag: int
    flags: int
    in_gold: float  # share of the block's token bigrams (or its token) that occur in the gold
    in_comments: float = 0.0  # the same share in the page's comment gold (dragnet), 0 without


def _short(b: BlockView, n: int) -> bool:
    return b.tokens <= n


def _linky(b: BlockView) -> bool:
    return b.link_density is not None and b.link_density >= 0.5


def _in(b: BlockView, *names: str) -> bool:
    return any(b.flags & _FLAG[n] for n in names)


# (name, rule): the first that holds names the block; the order goes from specific text marks
# to position-only fallbacks
CATEGORIES: list[tuple[str, Callable[[BlockView], bool]]] = [
    ("residue of matched blocks", lambda b: b.fp <= b.tokens / 2),
    ("user comments (corpus's comment gold)", lambda b: b.tokens >= 4 and b.in_comments >= 0.5),
    ("second copy of article text", lambda b: b.tokens >= 4 and b.in_gold >= 0.6),
    ("date / byline line", lambda b: _short(b, 30) and bool(_DATE.search(b.text) or _BYLINE.search(b.text))),
    ("explore further / citation", lambda b: _short(b, 80) and bool(_CITE.search(b.text))),
    ("ticker / breaking / most-read", lambda b: _short(b, 60) and bool(_TICKER.search(b.text))
     and b.pos != "inside"),
    ("related teaser", lambda b: (_short(b, 60) and bool(_RELATED.search(b.text)))
     or (b.pos == "after" and _linky(b))),
    ("share / social / subscribe", lambda b: _short(b, 40) and bool(_SHARE.search(b.text))),
    ("comments", lambda b: _short(b, 40) and bool(_COMMENTS.search(b.text)) and b.pos != "before"),
    ("caption / credit", lambda b: _in(b, "figure") or (_short(b, 60) and bool(_CAPTION.search(b.text)))),
    ("ad / promo", lambda b: _short(b, 40) and bool(_AD.search(b.text))),
    ("legal / footer", lambda b: _in(b, "footer") or (_short(b, 60) and bool(_LEGAL.search(b.text)))),
    ("navigation / link list before", lambda b: b.pos == "before" and (_linky(b) or _in(b, "nav", "header"))),
    ("heading outside the article", lambda b: b.pos != "inside" and (b.tag in HEADINGS or _in(b, "heading"))),
    ("link line inside the article", lambda b: b.pos == "inside" and _linky(b)),
    ("short fragment (≤ 3 tokens)", lambda b: _short(b, 3)),
    ("other before the article", lambda b: b.pos == "before"),
    ("other after the article", lambda b: b.pos == "after"),
    ("inside the article's span", lambda b: True),
]
CATEGORY_NAMES = [c[0] for c in CATEGORIES]


def categorise(b: BlockView) -> str:
    """The first category whose rule holds for ``b``."""
    for name, rule in CATEGORIES:
        if rule(b):
            return name
    return CATEGORIES[-1][0]


def is_article(rec: dict[str, Any]) -> bool:
    """Every page of dragnet (train or test) and newspaper (news and blog articles), pages
    typed ``article`` elsewhere."""
    corpus = str(rec.get("corpus") or "")
    return corpus == "newspaper" or corpus.split(" ")[0] == "dragnet" or rec.get("page_type") == "article"


def is_cjk(rec: dict[str, Any]) -> bool:
    """A page in Chinese, Japanese or Korean: by the corpus's language, else by a gold text of
    which most tokens are CJK characters."""
    lang = rec.get("lang") or ""
    if lang:
        return lang in _CJK_LANGS
    toks = words(rec.get("gold") or "")
    return bool(toks) and sum(bool(_CJK.match(t)) for t in toks) > len(toks) / 2


def group_of(rec: dict[str, Any]) -> str:
    return f"{rec['corpus']} (CJK)" if is_cjk(rec) else str(rec["corpus"])


def bigram_share(tokens: list[str], bigrams: set[tuple[str, str]], vocab: Counter[str]) -> float:
    """Share of ``tokens``' bigrams found in ``bigrams`` (a lone token: whether it is in
    ``vocab``)."""
    bi = list(zip(tokens, tokens[1:]))
    if bi:
        return sum(1 for x in bi if x in bigrams) / len(bi)
    return 1.0 if tokens and tokens[0] in vocab else 0.0


def _bigrams(text: str) -> tuple[set[tuple[str, str]], Counter[str]]:
    t = words(text)
    return set(zip(t, t[1:])), Counter(t)


def block_fp(texts: list[str], gold: str) -> tuple[list[int], list[int], list[float]]:
    """(tokens, false-positive tokens, share of token bigrams found in the gold) of each of
    ``texts`` (the kept blocks), by the allocation of the module's docstring."""
    gold_bi, gold_c = _bigrams(gold)
    toks = [words(t) for t in texts]
    n = [len(t) for t in toks]
    cover = []
    vocab = []
    for t in toks:
        c = Counter(t)
        cover.append(sum((c & gold_c).values()) / len(t) if t else 0.0)
        vocab.append(bigram_share(t, gold_bi, gold_c))
    left = Counter(gold_c)
    fp = [0] * len(texts)
    for i in sorted(range(len(texts)), key=lambda j: (-cover[j], j)):
        c = Counter(toks[i])
        took = c & left
        left -= took
        fp[i] = n[i] - sum(took.values())
    return n, fp, vocab


def page_blocks(rec: dict[str, Any], keep: Iterable[int] | None = None, comments: str = ""
                ) -> list[tuple[int, BlockView]]:
    """(block index, view) of each kept block of a dumped page (``keep``: another kept mask;
    ``comments``: the page's comment gold, where the corpus has one)."""
    if not rec.get("blocks"):
        return []
    mask = np.asarray(rec["keep"] if keep is None else list(keep), dtype=bool)
    idx = np.flatnonzero(mask).tolist()
    texts = [rec["text"][i] for i in idx]
    n, fp, vocab = block_fp(texts, rec.get("gold") or "")
    matched = [k for k, i in enumerate(idx) if n[k] and fp[k] <= n[k] / 2]
    lo = idx[matched[0]] if matched else None
    hi = idx[matched[-1]] if matched else None
    com = _bigrams(comments) if comments else None
    links = rec.get("links")
    words_ = rec.get("words")
    out = []
    for k, i in enumerate(idx):
        pos = ("inside" if lo is None or lo <= i <= hi
               else "before" if i < lo else "after")
        ld = None
        if links is not None and words_ is not None:
            ld = float(links[i]) / max(float(words_[i]), 1.0)
        inc = bigram_share(words(texts[k]), *com) if com and fp[k] else 0.0
        out.append((i, BlockView(rec["text"][i], n[k], fp[k], pos, ld, int(rec["tag"][i]),
                                 int(rec["flags"][i]), vocab[k], inc)))
    return out


@dataclass
class GroupStats:
    """False-positive tokens of one group of pages, by category."""

    pages: int = 0
    kept: int = 0
    fp: int = 0
    gold: int = 0
    f1: list[float] = field(default_factory=list)
    page_p: list[float] = field(default_factory=list)  # per page: 1 - FP tokens / kept tokens
    page_r: list[float] = field(default_factory=list)  # per page: matched tokens / gold tokens
    by_cat: Counter[str] = field(default_factory=Counter)
    # per category, the sum over pages of its FP tokens / the page's kept tokens: divided by
    # the pages, what it costs the mean page precision
    cost: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    pages_by_cat: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[tuple[int, str, str]]] = field(default_factory=lambda: defaultdict(list))

    @property
    def precision(self) -> float:
        return 1 - self.fp / self.kept if self.kept else 1.0

    @property
    def recall(self) -> float:
        return (self.kept - self.fp) / self.gold if self.gold else 1.0


def study(records: Iterable[dict[str, Any]], comments: Callable[[str], str] | None = None
          ) -> dict[str, GroupStats]:
    """The article pages of ``records`` by group, with their false-positive tokens by category
    (token precision and recall over the group: kept and matched tokens summed; and the means
    of the pages' own). ``comments``: a page's comment gold by its id."""
    out: dict[str, GroupStats] = defaultdict(GroupStats)
    for rec in records:
        if not is_article(rec):
            continue
        g = out[group_of(rec)]
        g.pages += 1
        g.f1.append(float(rec.get("f1", 0.0)))
        n_gold = len(words(rec.get("gold") or ""))
        g.gold += n_gold
        touched = set()
        kept = fp = 0
        page_cat: Counter[str] = Counter()
        for _, b in page_blocks(rec, comments=comments(rec["id"]) if comments else ""):
            g.kept += b.tokens
            kept += b.tokens
            fp += b.fp
            if not b.fp:
                continue
            g.fp += b.fp
            c = categorise(b)
            g.by_cat[c] += b.fp
            page_cat[c] += b.fp
            touched.add(c)
            g.examples[c].append((b.fp, rec["id"], b.text))
        for c in touched:
            g.pages_by_cat[c] += 1
            g.cost[c] += page_cat[c] / kept
        g.page_p.append(1 - fp / kept if kept else float(n_gold == 0))
        g.page_r.append((kept - fp) / n_gold if n_gold else float(kept == 0))
    return dict(sorted(out.items()))


def _excerpt(text: str, n: int = 90) -> str:
    t = " ".join(text.split()).replace("|", "/")
    return t if len(t) <= n else t[: n - 1] + "…"


def examples(g: GroupStats, cat: str, k: int = 3) -> list[tuple[str, str]]:
    """Up to ``k`` (page id, excerpt) of ``cat``, one a page: a fixed pseudo-random draw (by a
    hash of page and text), so the examples show the category's usual blocks rather than its
    largest ones."""
    seen: set[str] = set()
    out = []
    draw = sorted(g.examples.get(cat, []),
                  key=lambda e: hashlib.blake2b(f"{e[1]}\0{e[2]}".encode(), digest_size=8).digest())
    for _, pid, text in draw:
        if pid in seen:
            continue
        seen.add(pid)
        out.append((pid, _excerpt(text)))
        if len(out) == k:
            break
    return out


def table(stats: dict[str, GroupStats]) -> str:
    """Markdown: per group, pages, mean page F1, precision and recall, and for each category
    what it costs the mean page precision (points), its share of the false-positive tokens and
    the pages it touches."""
    groups = list(stats)
    head = "| category: precision points / share of FP tokens (pages) | " + " | ".join(groups) + " |"
    lines = [head, "|---" * (len(groups) + 1) + "|"]
    lines.append("| pages | " + " | ".join(str(stats[g].pages) for g in groups) + " |")
    lines.append("| mean page F1 | " + " | ".join(f"{np.mean(stats[g].f1):.4f}" for g in groups) + " |")
    lines.append("| mean page precision / recall | " + " | ".join(
        f"{np.mean(stats[g].page_p):.3f} / {np.mean(stats[g].page_r):.3f}" for g in groups) + " |")
    lines.append("| token precision / recall | " + " | ".join(
        f"{stats[g].precision:.3f} / {stats[g].recall:.3f}" for g in groups) + " |")
    lines.append("| FP tokens (share of kept) | " + " | ".join(
        f"{stats[g].fp} ({stats[g].fp / max(stats[g].kept, 1):.1%})" for g in groups) + " |")
    for c in CATEGORY_NAMES:
        if not any(stats[g].by_cat[c] for g in groups):
            continue
        cells = []
        for g in groups:
            s = stats[g]
            cells.append(f"{100 * s.cost[c] / max(s.pages, 1):.2f} / {s.by_cat[c] / max(s.fp, 1):.0%}"
                         f" ({s.pages_by_cat[c]})" if s.by_cat[c] else "–")
        lines.append(f"| {c} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def examples_md(stats: dict[str, GroupStats], k: int = 3) -> str:
    """Up to ``k`` examples per category over all groups (``examples``)."""
    allg = GroupStats()
    for s in stats.values():
        for c, blocks in s.examples.items():
            allg.examples[c].extend(blocks)
    lines = []
    for c in CATEGORY_NAMES:
        ex = examples(allg, c, k)
        if ex:
            lines.append(f"- **{c}**: " + "; ".join(f"`{pid}` “{t}”" for pid, t in ex))
    return "\n".join(lines)


def compare(base: dict[str, GroupStats], alt: dict[str, GroupStats]) -> str:
    """Markdown: per group present in both (columns), mean page F1, precision and recall, and
    each category's precision points (``table``) in ``base`` → in ``alt``; a category ``alt``
    closes goes down."""
    groups = [g for g in base if g in alt]
    lines = ["| precision points: base → other | " + " | ".join(groups) + " |",
             "|---" * (len(groups) + 1) + "|"]

    def row(name: str, cell: Callable[[GroupStats, GroupStats], str]) -> None:
        lines.append(f"| {name} | " + " | ".join(cell(base[g], alt[g]) for g in groups) + " |")

    row("pages", lambda b, a: f"{b.pages}" if b.pages == a.pages else f"{b.pages} / {a.pages}")
    row("mean page F1", lambda b, a: f"{np.mean(b.f1):.4f} → {np.mean(a.f1):.4f} "
                                     f"({np.mean(a.f1) - np.mean(b.f1):+.4f})")
    row("mean page precision", lambda b, a: f"{np.mean(b.page_p):.3f} → {np.mean(a.page_p):.3f}")
    row("mean page recall", lambda b, a: f"{np.mean(b.page_r):.3f} → {np.mean(a.page_r):.3f}")
    for c in CATEGORY_NAMES:
        if not any(base[g].by_cat[c] or alt[g].by_cat[c] for g in groups):
            continue

        def pts(b: GroupStats, a: GroupStats, c: str = c) -> str:
            pb, pa = 100 * b.cost[c] / max(b.pages, 1), 100 * a.cost[c] / max(a.pages, 1)
            return f"{pb:.2f} → {pa:.2f}" if b.by_cat[c] or a.by_cat[c] else "–"
        row(c, pts)
    return "\n".join(lines)


SCORE_ROWS = ("other after the article", "inside the article's span",
              "user comments (corpus's comment gold)", "second copy of article text", "related teaser",
              "caption / credit", "date / byline line")


def score_table(records: Iterable[dict[str, Any]], comments: Callable[[str], str] | None = None
                ) -> str:
    """Markdown: how sure the model is of what it keeps on the article pages: the tokens of
    the blocks without a false positive, all false-positive tokens and those of the larger
    categories, with the share of them in blocks scored at least 0.7 and at least 0.9."""
    acc: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for rec in records:
        if not is_article(rec):
            continue
        for i, b in page_blocks(rec, comments=comments(rec["id"]) if comments else ""):
            s = float(rec["score"][i])
            if b.fp:
                c = categorise(b)
                rows, n = ["all FP tokens"] + ([c] if c in SCORE_ROWS else []), b.fp
            else:
                rows, n = ["matched blocks (no FP token)"], b.tokens
            for r in rows:
                acc[r][0] += n
                acc[r][1] += n * (s >= 0.7)
                acc[r][2] += n * (s >= 0.9)
    lines = ["| blocks | tokens | score ≥ 0.7 | score ≥ 0.9 |", "|---|---|---|---|"]
    for r in ("matched blocks (no FP token)", "all FP tokens", *SCORE_ROWS):
        if r in acc and acc[r][0]:
            t, a7, a9 = acc[r]
            lines.append(f"| {r} | {int(t)} | {a7 / t:.0%} | {a9 / t:.0%} |")
    return "\n".join(lines)


def site_bootstrap(base: Iterable[dict[str, Any]], alt: Iterable[dict[str, Any]], draws: int,
                   seed: int = 0) -> str:
    """Markdown: per corpus and per page type of ``base``'s pages found in ``alt`` (by id),
    the mean paired difference of the real extraction's F1 (alt − base), and its 95 % interval
    from ``draws`` bootstrap draws of the sites (a page without a site is its own), so pages of
    one site move together."""
    other = {r["id"]: float(r.get("f1", 0.0)) for r in alt}
    groups: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in base:
        if r["id"] not in other:
            continue
        d = other[r["id"]] - float(r.get("f1", 0.0))
        site = r.get("site") or r["id"]
        groups[str(r["corpus"])][site].append(d)
        if r.get("page_type"):
            groups[f"{r['corpus']}: {r['page_type']}"][site].append(d)
    rng = np.random.default_rng(seed)
    lines = ["| pages | sites | mean F1 difference (other − base) | 95 % site-bootstrap interval |",
             "|---|---|---|---|"]
    lines[0] = "| group " + lines[0]
    lines[1] = "|---" + lines[1]
    for g in sorted(groups):
        sums = np.array([sum(v) for v in groups[g].values()])
        counts = np.array([len(v) for v in groups[g].values()])
        pick = rng.integers(0, len(sums), size=(draws, len(sums)))
        means = sums[pick].sum(1) / counts[pick].sum(1)
        lo, hi = np.percentile(means, [2.5, 97.5])
        lines.append(f"| {g} | {counts.sum()} | {len(sums)} | {sums.sum() / counts.sum():+.4f} | "
                     f"{lo:+.4f} … {hi:+.4f} |")
    return "\n".join(lines)


def read_dump(paths: Iterable[str]) -> Iterator[dict[str, Any]]:
    """The records of oofdump files (gzipped JSON lines)."""
    for p in paths:
        with gzip.open(p, "rt", encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    yield json.loads(line)


def comment_reader(folder: str) -> Callable[[str], str]:
    """A page's comment gold by its dump id (``corpus/ID`` -> ``folder/ID.txt``; '' where
    there is none)."""
    from pathlib import Path

    root = Path(folder)

    def read(pid: str) -> str:
        p = root / (pid.split("/", 1)[-1] + ".txt")
        return p.read_text(encoding="utf-8", errors="replace") if p.exists() else ""
    return read


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m research.articlestudy", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dump", nargs="+", help="oofdump pages.jsonl.gz files")
    ap.add_argument("--against", nargs="+", default=None,
                    help="dumps of another run over the same pages: the table of what it closes")
    ap.add_argument("--examples", type=int, default=3)
    ap.add_argument("--scores", action="store_true",
                    help="the table of how sure the model is of the tokens it keeps wrongly")
    ap.add_argument("--bootstrap", type=int, default=0, metavar="N",
                    help="with --against: the paired F1 difference of every page (all types) "
                         "per corpus and type, with a 95%% interval from N draws of the sites")
    ap.add_argument("--comments", default=None,
                    help="a corpus's comment gold folder (dragnet/comments): page CORPUS/ID "
                         "reads DIR/ID.txt")
    a = ap.parse_args(argv)
    com = comment_reader(a.comments) if a.comments else None
    try:
        base = study(read_dump(a.dump), com)
    except (OSError, ValueError, KeyError) as e:
        print(f"articlestudy: cannot read the dump: {e}", file=sys.stderr)
        return 2
    if not base:
        print("articlestudy: no article pages in the dump", file=sys.stderr)
        return 1
    if a.scores:
        print(score_table(read_dump(a.dump), com))
        return 0
    if a.against:
        print(compare(base, study(read_dump(a.against), com)))
        if a.bootstrap > 0:
            print()
            print(site_bootstrap(read_dump(a.dump), read_dump(a.against), a.bootstrap))
        return 0
    print(table(base))
    print()
    print(examples_md(base, a.examples))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
