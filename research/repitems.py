"""Repeated items as page signals for the page-kind model: groups of same-shaped siblings (a
listing's cards, a catalogue's entries, a thread's posts), in numpy (docs/research/REPEATED_ITEMS.md).

An *item* is the element ``level`` steps above a block (``Blocks.container_ids``), its *box*
the element one step further up; the items of one box whose first block has the same tag are
one group (same-shaped siblings). A group of at least ``MIN_ITEMS`` items is a repeated
structure. Per group: how many items, their share of the page's words, the share of their
words inside links, their mean words per item, the share of items with a heading block of
their own and with a price.

    python -m research.repitems kind ../shared/data/wcxb-dev   # page-kind model, grouped CV

Page signals (PAGE_NAMES): the figures of the group holding the most words (``ri_*``) and of
the group of the most items (``rm_*``), the share of the page's words in any group, the number
of groups, and per item of the largest group the share with a date and made of link text only.
Each set is added to the shipped page signals and scored by the page-kind model's own grouped
CV (learn.pagekind.train: C chosen on the folds, accuracy per kind and the confusion). The
block model's columns of the same groups are the product's (features.repitem, in C).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ce_filter.read.segment import HEADINGS, Blocks

LEVELS = (1, 2, 3)
MIN_ITEMS = 3
PAGE_NAMES = ("ri_items", "ri_share", "ri_link", "ri_words", "ri_head", "ri_price", "ri_all_share",
              "ri_groups", "rm_items", "rm_share", "rm_link", "rm_words", "rm_head", "rm_price", "rm_date",
              "rw_date", "rw_linkonly")
_MONTH = "(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)"
_DATE = re.compile(r"\b(?:19|20)\d\d-\d\d-\d\d\b|\b\d{1,2}[/.]\d{1,2}[/.](?:19|20)?\d\d\b"
                   rf"|\b{_MONTH}[a-z]*\.? \d{{1,2}}\b|\b\d{{1,2}} {_MONTH}"
                   r"|\b(?:ago|yesterday|today)\b", re.I)
_PRICE = re.compile(r"[$€£¥₹]\s?\d|\d[\d.,]*\s?(?:€|zł|kr|Kč|₽|USD|EUR|GBP)\b")
_HEAD = np.array(sorted(HEADINGS), dtype=np.int64)


def _groups(b: Blocks) -> list[dict[str, np.ndarray]]:
    """Per level: each block's group id (-1: none) and per group its figures."""
    n = len(b)
    cont = b.container_ids()
    cnt = b.counts()
    tok, link = cnt[:, 1], cnt[:, 2]
    tag = np.asarray(b.tag, dtype=np.int64)
    is_head = np.isin(tag, _HEAD)
    price = np.fromiter((bool(_PRICE.search(t)) for t in b.texts), dtype=bool, count=n)
    date = np.fromiter((bool(_DATE.search(t)) for t in b.texts), dtype=bool, count=n)
    linkonly = (link >= tok) & (tok > 0)
    out = []
    for lvl in LEVELS:
        item, box = cont[:, lvl], cont[:, lvl + 1]
        ok = (item > 0) & (box > 0)
        # the item's first block's tag: its shape
        _, first = np.unique(item, return_index=True)
        first_tag = dict(zip(item[first].tolist(), tag[first].tolist()))
        shape = np.array([first_tag[i] for i in item.tolist()], dtype=np.int64)
        key = np.where(ok, box * 4096 + shape, -1)
        gid = np.full(n, -1, dtype=np.int64)
        if ok.any():
            ukeys, inv = np.unique(key[ok], return_inverse=True)
            gid[ok] = inv
            ng = len(ukeys)
            # items per group: distinct (group, item)
            pair = np.unique(np.stack([gid[ok], item[ok]], axis=1), axis=0)
            n_items: np.ndarray = np.bincount(pair[:, 0], minlength=ng).astype(np.float64)
            words = np.bincount(gid[ok], weights=tok[ok], minlength=ng)
            lw = np.bincount(gid[ok], weights=link[ok], minlength=ng)
            # items with a heading / a price: per (group, item) any
            it_key = gid[ok] * (int(item.max()) + 1) + item[ok]
            uk, iinv = np.unique(it_key, return_inverse=True)
            hh = np.zeros(len(uk), dtype=bool)
            pp = np.zeros(len(uk), dtype=bool)
            dd = np.zeros(len(uk), dtype=bool)
            lo = np.zeros(len(uk), dtype=bool)
            np.logical_or.at(hh, iinv, is_head[ok])
            np.logical_or.at(pp, iinv, price[ok])
            np.logical_or.at(dd, iinv, date[ok])
            np.logical_or.at(lo, iinv, linkonly[ok])
            g_of = uk // (int(item.max()) + 1)
            heads = np.bincount(g_of, weights=hh, minlength=ng)
            prices = np.bincount(g_of, weights=pp, minlength=ng)
            dates = np.bincount(g_of, weights=dd, minlength=ng)
            los = np.bincount(g_of, weights=lo, minlength=ng)
        else:
            ng = 0
            n_items = words = lw = heads = prices = dates = los = np.zeros(0, dtype=np.float64)
        out.append({"gid": gid, "items": n_items, "words": words, "link": lw,
                    "heads": heads, "prices": prices, "dates": dates, "los": los, "is_head": is_head})
    return out


def page_signals(b: Blocks) -> np.ndarray:
    x = np.zeros(len(PAGE_NAMES))
    n = len(b)
    if n == 0:
        return x
    total = max(float(b.counts()[:, 1].sum()), 1.0)
    best = None
    most = None
    in_any = np.zeros(n, dtype=bool)
    n_groups = 0
    for g in _groups(b):
        rep = g["items"] >= MIN_ITEMS
        n_groups += int(rep.sum())
        if rep.any():
            in_any |= (g["gid"] >= 0) & rep[np.maximum(g["gid"], 0)]
            j = int(np.argmax(np.where(rep, g["words"], -1.0)))
            if best is None or g["words"][j] > best[0]["words"][best[1]]:
                best = (g, j)
            j2 = int(np.argmax(np.where(rep, g["items"], -1.0)))
            if most is None or g["items"][j2] > most[0]["items"][most[1]]:
                most = (g, j2)
    if best is not None:
        g, j = best
        it = g["items"][j]
        x[:6] = (np.log1p(it), g["words"][j] / total, g["link"][j] / max(g["words"][j], 1.0),
                 np.log1p(g["words"][j] / it), g["heads"][j] / it, g["prices"][j] / it)
    x[6] = float(b.counts()[in_any, 1].sum()) / total
    x[7] = np.log1p(n_groups)
    if most is not None:
        g, j = most
        it = g["items"][j]
        x[8:15] = (np.log1p(it), g["words"][j] / total, g["link"][j] / max(g["words"][j], 1.0),
                   np.log1p(g["words"][j] / it), g["heads"][j] / it, g["prices"][j] / it, g["dates"][j] / it)
    if best is not None:
        g, j = best
        it = g["items"][j]
        x[15:17] = (g["dates"][j] / it, g["los"][j] / it)
    return x


def kind_rows(corpora: list[str], extra: Callable[[Blocks, str], np.ndarray], cache: Path
              ) -> tuple[np.ndarray, np.ndarray, list[str], list[str]]:
    """The typed pages of ``corpora``: (the shipped page signals, ``extra``'s signals of each
    page from its blocks and its HTML, its page type, its site), read once and kept in
    ``cache`` (an .npz)."""
    from ce_filter.learn.corpus import Spec, site_of
    from ce_filter.read.page import read
    from ce_filter.score.pagekind import KINDS
    from ce_filter.score.pagekind import page_signals as base_signals

    if cache.exists():
        z = np.load(cache, allow_pickle=True)
        return z["xb"], z["xe"], list(z["ys"]), list(z["gs"])
    xbl, xel, ys, gs = [], [], [], []
    for s in corpora:
        for d in Spec.parse(s).load():
            if d.page_type not in KINDS:
                continue
            page = read(d.html)
            if page.blocks is None:
                continue
            xbl.append(base_signals(page.blocks, page.text, d.url or None))
            xel.append(extra(page.blocks, page.text))
            ys.append(d.page_type)
            gs.append(d.domain or site_of(d.html) or d.id)
    xb, xe = np.vstack(xbl), np.vstack(xel)
    np.savez(cache, xb=xb, xe=xe, ys=np.array(ys), gs=np.array(gs))
    return xb, xe, ys, gs


def report_sets(sets: dict[str, np.ndarray], ys: list[str], gs: list[str]) -> None:
    """The page-kind model's grouped CV (learn.pagekind.train) on each signal set: C, accuracy,
    recall by kind and the confusion."""
    from ce_filter.learn.pagekind import train
    from ce_filter.score.pagekind import KINDS

    for name, x in sets.items():
        model, _ = train(x, ys, gs, log=False)
        cv = model.meta["cv"]
        print(name, "C", model.meta["C"], "accuracy", cv["accuracy"], cv["by_kind"])
        conf = np.array(cv["confusion"])
        print("  confusion rows=type:", KINDS)
        for k, r in zip(KINDS, conf):
            print(f"  {k:14s}", r.tolist())


def _kind(corpora: list[str], cache: Path) -> None:
    xb, xr, ys, gs = kind_rows(corpora, lambda blocks, html: page_signals(blocks), cache)
    report_sets({"base": xb, "+ri8": np.hstack([xb, xr[:, :8]]), "+all": np.hstack([xb, xr]),
                 "+rm": np.hstack([xb, xr[:, 8:15]]),
                 "+ri6+dates": np.hstack([xb, xr[:, [0, 1, 2, 3, 4, 5, 15, 16]]]),
                 "+rm+dates": np.hstack([xb, xr[:, 8:17]])}, ys, gs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m research.repitems", description=__doc__)
    ap.add_argument("what", choices=("kind",))
    ap.add_argument("corpus", nargs="+")
    ap.add_argument("--cache", default="/tmp/repitems_kind.npz")
    a = ap.parse_args(argv)
    _kind(a.corpus, Path(a.cache))
    return 0


if __name__ == "__main__":
    sys.exit(main())
