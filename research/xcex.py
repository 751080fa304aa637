"""X-CEX's cross-page rule as a site-memory variant, against the exact-hash site memory.

    python -m research.xcex [--data ../shared/data] [--corpora big5,zh-finance,cleanportaleval]
                            [--json OUT.json]

X-CEX judges a block by the blocks of the site's other pages: two blocks are alike when

    0.3 x structure/style similarity + 0.7 x word cosine >= TAU,

and a block is noise when a block alike is on at least IBDF (20 %) of the site's other pages
(an inverse block-document frequency cut). Its faster variant compares 64-bit SimHash
fingerprints of the blocks' words: alike when their Hamming distance is at most HAMMING bits.

Here, per block: structure/style = 0.5 x [same opening tag and same ancestor-tag flags] +
0.5 x Jaccard of the class/id tokens of the block's element and its ancestors; word cosine
over the blocks' word counts (``labels.words``). TAU and HAMMING were set before the run (0.8,
3 of 64 bits, the usual near-duplicate cuts) and not tuned on these corpora.

Variants, each on every page with all the other pages of its site (order-free, as ``ce-filter
warc`` counts them; a site's single page is left alone):

- ``model``: the shipped model alone;
- ``exact``: the shipped site stage on the exact-hash counts (``site.memory``, ``site.stage``);
- ``xcex``: the model's cut, minus the blocks X-CEX calls noise;
- ``hamming``: the same with the SimHash rule;
- ``exact+xcex`` / ``exact+hamming``: the site stage, then minus the noise blocks.

Every page goes through the extractor's cut and thin-page rule and is scored with the project's
metric (``evaluate.token_prf``). The cost is the time of each rule's cross-page part per page
(the blocks' vectors, the comparison and the counts), not of the extraction.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ce_filter.api import Extractor
from ce_filter.learn.labels import words
from ce_filter.learn.sitefit import SitePage, page_f1, read_pages
from ce_filter.score.site.memory import SiteCounts, block_fingerprints
from ce_filter.score.site.stage import shipped_stage

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
TAU = 0.8
IBDF = 0.2
HAMMING = 3
W_STRUCT, W_WORDS = 0.3, 0.7


def _vocab_matrix(rows: list[list[str]], index: dict[str, int], normalise: bool) -> sp.csr_array:
    r: list[int] = []
    c: list[int] = []
    v: list[float] = []
    for i, toks in enumerate(rows):
        counts: dict[int, float] = defaultdict(float)
        for t in toks:
            counts[index.setdefault(t, len(index))] += 1.0
        if not counts:
            continue
        vals = np.array(list(counts.values()))
        if normalise:
            vals = vals / np.sqrt((vals * vals).sum())
        else:
            vals = np.ones_like(vals)
        r.extend([i] * len(counts))
        c.extend(counts)
        v.extend(vals.tolist())
    return sp.csr_array((v, (r, c)), shape=(len(rows), max(len(index), 1)))


class SiteBlocks:
    """A site's pages' block vectors, for the X-CEX similarity."""

    def __init__(self, pages: list[SitePage]) -> None:
        wi: dict[str, int] = {}
        ci: dict[str, int] = {}
        self.page = np.concatenate([np.full(len(p.blocks), i) for i, p in enumerate(pages)])
        texts = [t for p in pages for t in p.blocks.texts]
        self.w = _vocab_matrix([words(t) for t in texts], wi, True)
        toks = [list(set(a) | set(b)) for p in pages
                for a, b in zip(p.blocks.own_tokens, p.blocks.anc_tokens)]
        self.c = _vocab_matrix(toks, ci, False)
        self.c_n = np.asarray(self.c.sum(axis=1)).ravel()
        self.w = sp.csr_array(self.w, shape=(self.w.shape[0], max(len(wi), 1)))
        self.c = sp.csr_array(self.c, shape=(self.c.shape[0], max(len(ci), 1)))
        tag = np.concatenate([np.asarray(p.blocks.tag, dtype=np.int64) for p in pages])
        flags = np.concatenate([np.asarray(p.blocks.flags, dtype=np.int64) for p in pages])
        self.shape_key = tag * (1 << 32) + flags
        self.starts = np.concatenate(([0], np.cumsum([len(p.blocks) for p in pages])))
        self.n_pages = len(pages)
        self.simhash = np.concatenate([simhashes(p.blocks.texts) for p in pages])

    def noise(self, i: int) -> np.ndarray:
        """X-CEX's verdict on page i's blocks: alike (>= TAU) a block on >= IBDF of the others."""
        a, b = self.starts[i], self.starts[i + 1]
        others = np.flatnonzero(self.page != i)
        if b == a or not len(others):
            return np.zeros(b - a, dtype=bool)
        cos = (self.w[a:b] @ self.w[others].T).toarray()
        inter = (self.c[a:b] @ self.c[others].T).toarray()
        union = self.c_n[a:b, None] + self.c_n[None, others] - inter
        jac = np.where(union > 0, inter / np.maximum(union, 1), 1.0)
        same = self.shape_key[a:b, None] == self.shape_key[None, others]
        sim = W_WORDS * cos + W_STRUCT * (0.5 * same + 0.5 * jac)
        return self._pages_frac(sim >= TAU, others, i) >= IBDF

    def noise_hamming(self, i: int) -> np.ndarray:
        """The SimHash variant: a block within HAMMING bits on >= IBDF of the other pages."""
        a, b = self.starts[i], self.starts[i + 1]
        others = np.flatnonzero(self.page != i)
        if b == a or not len(others):
            return np.zeros(b - a, dtype=bool)
        x = self.simhash[a:b, None] ^ self.simhash[None, others]
        dist = _popcount(x)
        return self._pages_frac(dist <= HAMMING, others, i) >= IBDF

    def _pages_frac(self, alike: np.ndarray, others: np.ndarray, i: int) -> np.ndarray:
        """Per row, on which share of the other pages a column is True."""
        pg = self.page[others]
        cuts = np.flatnonzero(np.diff(pg)) + 1
        starts = np.concatenate(([0], cuts))
        per_page = np.logical_or.reduceat(alike, starts, axis=1)
        return per_page.sum(axis=1) / max(self.n_pages - 1, 1)


_M = [np.uint64(0x5555555555555555), np.uint64(0x3333333333333333),
      np.uint64(0x0F0F0F0F0F0F0F0F), np.uint64(0x0101010101010101)]


def _popcount(x: np.ndarray) -> np.ndarray:
    x = x - ((x >> np.uint64(1)) & _M[0])
    x = (x & _M[1]) + ((x >> np.uint64(2)) & _M[1])
    x = (x + (x >> np.uint64(4))) & _M[2]
    return (x * _M[3]) >> np.uint64(56)


def _word_hash(w: str) -> int:
    h = 1469598103934665603
    for ch in w.encode("utf-8"):
        h = ((h ^ ch) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


_HASHES: dict[str, int] = {}
_BITS = np.uint64(1) << np.arange(64, dtype=np.uint64)


def simhashes(texts: Sequence[str]) -> np.ndarray:
    """64-bit SimHash of each text's words (word counts as weights); 0 for a text without words."""
    out = np.zeros(len(texts), dtype=np.uint64)
    for i, t in enumerate(texts):
        toks = words(t)
        if not toks:
            continue
        hs = np.array([_HASHES.setdefault(w, _word_hash(w)) for w in toks], dtype=np.uint64)
        bits = (hs[:, None] & _BITS[None, :]) != 0
        v = (2 * bits.astype(np.int64) - 1).sum(axis=0)
        out[i] = np.uint64(int(((v > 0).astype(np.uint64) * _BITS).sum()))
    return out


def run(data: Path, corpora: list[str], log: bool = True) -> dict[str, dict]:
    ex = Extractor()
    stage = shipped_stage(ex.model.digest)
    if stage is None:
        raise SystemExit("no site stage shipped for the shipped model")
    out: dict[str, dict] = {}
    for name in corpora:
        t0 = time.time()
        pages = read_pages([str(data / name)], ex)
        if log:
            print(f"{name}: {len(pages)} pages read ({time.time() - t0:.0f}s)", file=sys.stderr, flush=True)
        by_site: dict[str, list[int]] = defaultdict(list)
        for i, p in enumerate(pages):
            by_site[p.host].append(i)
        f = {v: np.zeros(len(pages)) for v in ("model", "exact", "xcex", "hamming", "exact+xcex",
                                                "exact+hamming")}
        cost = {"exact": 0.0, "xcex": 0.0, "hamming": 0.0}
        dropped = {"xcex": 0, "hamming": 0, "xcex_content": 0, "hamming_content": 0, "blocks": 0}
        t_e = time.perf_counter()
        for p in pages:  # the fingerprints (read_pages made them; timed again here)
            block_fingerprints(p.blocks)
        counts = SiteCounts()
        for p in pages:
            counts.add(p.host, p.fps)
        seen = [counts.seen(p.host, p.fps) for p in pages]
        cost["exact"] += time.perf_counter() - t_e
        for idx in by_site.values():
            t1 = time.perf_counter()
            sb = SiteBlocks([pages[i] for i in idx])
            t_build = time.perf_counter() - t1
            for j, i in enumerate(idx):
                p = pages[i]
                k, n = seen[i]
                t2 = time.perf_counter()
                s_exact = stage.apply(p.scores, p.fps, k, n)
                cost["exact"] += time.perf_counter() - t2
                t3 = time.perf_counter()
                nx = sb.noise(j)
                cost["xcex"] += time.perf_counter() - t3 + t_build / len(idx)
                t4 = time.perf_counter()
                nh = sb.noise_hamming(j)
                cost["hamming"] += time.perf_counter() - t4 + t_build / len(idx)
                dropped["blocks"] += len(p.y)
                dropped["xcex"] += int(nx.sum())
                dropped["hamming"] += int(nh.sum())
                dropped["xcex_content"] += int((nx & p.y.astype(bool)).sum())
                dropped["hamming_content"] += int((nh & p.y.astype(bool)).sum())
                f["model"][i] = page_f1(ex, p, p.scores)
                f["exact"][i] = page_f1(ex, p, s_exact) if n > 0 else f["model"][i]
                f["xcex"][i] = page_f1(ex, p, np.where(nx, 0.0, p.scores))
                f["hamming"][i] = page_f1(ex, p, np.where(nh, 0.0, p.scores))
                f["exact+xcex"][i] = page_f1(ex, p, np.where(nx, 0.0, s_exact))
                f["exact+hamming"][i] = page_f1(ex, p, np.where(nh, 0.0, s_exact))
        res = {"pages": len(pages), "mean_f1": {v: float(a.mean()) for v, a in f.items()},
               "ms_per_page": {v: 1000 * c / max(len(pages), 1) for v, c in cost.items()},
               "dropped": dropped,
               "sites": {s: {v: float(f[v][idx].mean()) for v in f} | {"pages": len(idx)}
                         for s, idx in sorted(by_site.items())}}
        out[name] = res
        if log:
            means = ", ".join(f"{v} {x:.4f}" for v, x in res["mean_f1"].items())  # type: ignore[attr-defined]
            print(f"{name}: {means}; ms/page {res['ms_per_page']} ({time.time() - t0:.0f}s)",
                  file=sys.stderr, flush=True)
    return out


def render(res: dict[str, dict]) -> str:
    vs = ("model", "exact", "xcex", "hamming", "exact+xcex", "exact+hamming")
    lines = ["| corpus | pages | " + " | ".join(vs) + " | ms a page: exact / X-CEX / SimHash |",
             "|---|---|" + "---|" * len(vs) + "---|"]
    for name, r in res.items():
        m = r["ms_per_page"]
        lines.append(f"| {name} | {r['pages']} | " + " | ".join(f"{r['mean_f1'][v]:.4f}" for v in vs)
                     + f" | {m['exact']:.2f} / {m['xcex']:.2f} / {m['hamming']:.2f} |")
    lines.append("")
    lines.append("| corpus | blocks | X-CEX noise (of them content) | SimHash noise (of them content) |")
    lines.append("|---|---|---|---|")
    for name, r in res.items():
        d = r["dropped"]
        lines.append(f"| {name} | {d['blocks']} | {d['xcex']} ({d['xcex_content']}) | "
                     f"{d['hamming']} ({d['hamming_content']}) |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m research.xcex", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(DATA))
    ap.add_argument("--corpora", default="big5,zh-finance,cleanportaleval")
    ap.add_argument("--json", default=None)
    ap.add_argument("--render", default=None, help="only render this --json file")
    a = ap.parse_args(argv)
    if a.render:
        res = json.loads(Path(a.render).read_text())
    else:
        res = run(Path(a.data), a.corpora.split(","))
        if a.json:
            Path(a.json).write_text(json.dumps(res, indent=1))
    print(render(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
