"""Out-of-fold block probabilities, dumped once for studies of what is decided after the cut.

    python -m research.oofdump ../shared/data/dragnet:train ../shared/data/cleaneval-dev \
        ../shared/data/wcxb-dev --config best+kind+pn.5+w1+shop05+ic30+thin --out /tmp/kd

The folds are those of ``evaluate --cv`` (crossval.site_groups / assign_folds: 5 folds grouped
by site). Each fold's model is trained on the other folds' pages and saved as
``OUT/fold<k>.json`` (a later run with the same OUT reuses it rather than training again); then
every held-out page is extracted by the real Extractor with its fold's model, and what a
decoding over the block probabilities needs is written, one JSON object a page, to
``OUT/pages.jsonl.gz``: the page's corpus, type, site and fold, its kind probabilities and cut,
each block's probability, kept flag, text, tag, depth, flags, word count, signature group
(features.context.signature_groups) and container serials, the page's JSON-LD scripts, its
gold text and the F1 of the real extraction. JSON, never pickle: the file is data.

``--model PATH`` (or ``default``) skips the folds: for corpora the model was never trained on,
every page is extracted by that model; ``--site-memory`` then feeds them grouped by site through
one Extractor(site_memory=SiteMemory()).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any

import numpy as np

from ce_filter.api import Extractor
from ce_filter.learn.corpus import Doc
from ce_filter.learn.crossval import assign_folds, load_docs, site_groups
from ce_filter.learn.evaluate import token_prf
from ce_filter.read.segment import Blocks
from ce_filter.score.features.context import signature_groups
from ce_filter.score.site.memory import SiteMemory


class CapturingExtractor(Extractor):
    """An Extractor that remembers what ``keep`` saw on the last page (blocks, probabilities,
    kind probabilities, kept mask, reason, cut): the dump records the real extractor's inputs
    to the decision, not a re-implementation of them."""

    last: dict[str, Any] | None = None

    def keep(self, blocks: Blocks, scores: np.ndarray, kind: np.ndarray | None, page_chars: int,
             *, seen: np.ndarray | None = None, cut: np.ndarray | None = None
             ) -> tuple[np.ndarray, str]:
        keep, reason = super().keep(blocks, scores, kind, page_chars, seen=seen, cut=cut)
        self.last = {"blocks": blocks, "scores": scores, "kind": kind, "keep": keep,
                     "reason": reason, "cut": self.cut(kind), "page_chars": page_chars}
        return keep, reason


def fold_models(docs: list[Doc], fold: np.ndarray, labels: list[str], config: str, out: str,
                folds: int) -> list[str]:
    """The path of each fold's model, trained (and saved) where OUT does not hold it yet."""
    from ce_filter.learn.configs import CONFIGS
    from ce_filter.learn.fit import data_digest, prepare, train

    paths = [os.path.join(out, f"fold{k}.json") for k in range(folds)]
    if all(os.path.exists(p) for p in paths):
        return paths
    cfg = replace(CONFIGS[config], log=True)
    pages = prepare(docs, rule=cfg.label_rule)
    fold_of_id = {d.id: int(f) for d, f in zip(docs, fold)}
    for k, path in enumerate(paths):
        if os.path.exists(path):
            continue
        print(f"oofdump: fold {k + 1}/{folds}: training", file=sys.stderr, flush=True)
        part = [p for p in pages if fold_of_id[p.id] != k]
        desc = {"corpora": labels, "pages": len(part), "labels_digest": data_digest(part),
                "target": "content", "config": config, "cv_fold": f"{k + 1}/{folds}"}
        train(part, cfg, name="content", data_desc=desc).save(path + ".part")
        os.replace(path + ".part", path)
    return paths


def page_record(d: Doc, label: str, k: int, ex: CapturingExtractor, site: str | None = None
                ) -> dict[str, Any]:
    """One page's line of the dump (see the module's docstring); ``site``: the page's key in
    the extractor's site memory (where it has one)."""
    ex.last = None
    try:
        text = ex.extract(d.html, url=d.url or None, site=site).text
    except Exception:  # scored as empty, as evaluate does
        text = ""
    rec: dict[str, Any] = {"id": d.id, "corpus": label, "page_type": d.page_type,
                           "site": d.domain, "lang": d.lang, "fold": k, "gold": d.gold,
                           "f1": token_prf(text, d.gold)[2]}
    cap = ex.last
    if cap is None:  # decoding failed or no blocks: nothing to decide over
        rec["blocks"] = 0
        return rec
    b: Blocks = cap["blocks"]
    kind = cap["kind"]
    rec.update({
        "blocks": len(b), "reason": cap["reason"], "cut": float(cap["cut"]),
        "page_chars": int(cap["page_chars"]),
        "kind": None if kind is None else [round(float(x), 6) for x in kind],
        "score": [round(float(x), 6) for x in cap["scores"]],
        "keep": np.asarray(cap["keep"], dtype=np.int64).tolist(),
        "text": list(b.texts),
        "tag": np.asarray(b.tag, dtype=np.int64).tolist(),
        "depth": np.asarray(b.depth, dtype=np.int64).tolist(),
        "flags": np.asarray(b.flags, dtype=np.int64).tolist(),
        "words": b.token_counts().astype(np.int64).tolist(),
        "links": b.counts()[:, 2].astype(np.int64).tolist(),  # words inside links
        "sig": signature_groups(b).tolist(),
        "cont": b.container_ids().tolist(),
        "jsonld": [it[1] for it in b.head if it and it[0] == "ld"],
    })
    return rec


def held_out(docs: list[Doc], labels: list[str], model: str, site_memory: bool, out: str) -> int:
    """The dump of pages a model was not trained on, every page by that one model (fold -1);
    with ``site_memory`` the pages go grouped by site in a fixed order through one
    Extractor(site_memory=SiteMemory()), so each page sees its site's earlier pages."""
    ex = CapturingExtractor(None if model == "default" else model,
                            site_memory=SiteMemory() if site_memory else None)
    order = list(range(len(docs)))
    if site_memory:
        order.sort(key=lambda i: (docs[i].domain, docs[i].id))
    return write_dump(out, (page_record(docs[i], labels[i], -1, ex,
                                        (docs[i].domain or None) if site_memory else None)
                            for i in order))


def write_dump(out: str, records: Iterable[dict[str, Any]]) -> int:
    """``records`` as OUT/pages.jsonl.gz, a JSON object a line (written aside, then moved in
    place: a dump that is there is whole)."""
    dump = os.path.join(out, "pages.jsonl.gz")
    n = 0
    with gzip.open(dump + ".part", "wt", encoding="utf-8") as f:
        for rec in records:
            f.write(json.dumps(rec, ensure_ascii=False))
            f.write("\n")
            n += 1
    os.replace(dump + ".part", dump)
    print(f"oofdump: {n} pages -> {dump}", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m research.oofdump", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus", nargs="+")
    ap.add_argument("--config", default="best+kind+pn.5+w1+shop05+ic30+thin")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--cv-seed", type=int, default=None,
                    help="another fold assignment (crossval.assign_folds), as evaluate --cv-seed")
    ap.add_argument("--out", required=True, help="directory for the fold models and the dump")
    ap.add_argument("--model", default=None,
                    help="no folds: every page extracted by this model file ('default': the "
                         "shipped one), for corpora it was not trained on (fold -1 in the dump)")
    ap.add_argument("--site-memory", action="store_true",
                    help="with --model: pages fed grouped by site (sorted by site, then id) to "
                         "one Extractor(site_memory=SiteMemory()), the first page of each site alone")
    a = ap.parse_args(argv)
    from ce_filter.learn.configs import CONFIGS

    if a.config not in CONFIGS:
        print(f"unknown config {a.config!r}", file=sys.stderr)
        return 2
    if a.site_memory and a.model is None:
        print("--site-memory needs --model", file=sys.stderr)
        return 2
    os.makedirs(a.out, exist_ok=True)
    labels, docs, corpus_of = load_docs(a.corpus)
    if a.model is not None:
        return held_out(docs, [labels[c] for c in corpus_of], a.model, a.site_memory, a.out)
    fold = assign_folds(site_groups(docs), a.folds, a.cv_seed)
    paths = fold_models(docs, fold, labels, a.config, a.out, a.folds)

    def records() -> Iterator[dict[str, Any]]:
        for k, path in enumerate(paths):
            ex = CapturingExtractor(path)
            print(f"oofdump: fold {k + 1}/{a.folds}: extracting", file=sys.stderr, flush=True)
            for d, fk, ck in zip(docs, fold, corpus_of):
                if fk == k:
                    yield page_record(d, labels[ck], k, ex)

    return write_dump(a.out, records())


if __name__ == "__main__":
    raise SystemExit(main())
