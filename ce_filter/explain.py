"""Why each block was kept or dropped: ``ce-filter explain PAGE -o view.html``.

A block's score is a logistic regression over its features (stage 1), optionally smoothed by
a second one over the stage-1 scores around it (stage 2). Both are linear before the sigmoid,
so a block's log-odds are exactly the intercept plus one term per feature:
``coef * (value - mean) / scale``, i.e. how far the feature stands from the average training
block, times its weight. The view lists the terms that pushed each block most; the absent
class/id tokens, each a tiny term, are summed into one line so the rest reads clearly.

The page is self-contained HTML: the page's text is escaped, the data travel as JSON in a
``<script type="application/json">``, and a slider moves the threshold in the browser (no
server, nothing fetched).
"""

from __future__ import annotations

import html as _html
import json
from dataclasses import dataclass, field
from typing import Any, TypedDict, cast

import numpy as np

from .api import FALLBACK_REL, THIN_REASON, Extraction, Extractor, code_blocks, select
from .keep.kindrules import SPAN_FILL
from .read.page import Page
from .read.segment import Blocks
from .score.blockmodel import Model, sigmoid
from .score.features import CONTEXT, TOKEN_PREFIXES, feature_names, page_features, stage2_inputs
from .score.features.context import stage2_columns

TOP = 5  # terms shown per block and stage
# The view lists at most MAX_BLOCKS blocks with their terms, and at most MAX_TEXT characters of
# their text in all (a block's text cut short is marked): a page of 40,000 paragraphs would be
# a view of 50 MB otherwise. The rest is counted in a note; the scores are the whole page's.
MAX_BLOCKS = 2000
MAX_TEXT = 1 << 20
_ROWS = 4096  # blocks whose terms are computed at once (the full matrix of a large page is big)


@dataclass
class Term:
    name: str
    value: float  # the feature's value on this block
    contribution: float  # its term in the log-odds


@dataclass
class BlockWhy:
    text: str
    score: float  # final probability
    stage1: float  # stage-1 probability (== score without stage 2)
    kept: bool
    code: bool = False  # inside a <pre>: kept too between the first and the last kept block
    stage1_terms: list[Term] = field(default_factory=list)
    stage2_terms: list[Term] = field(default_factory=list)
    site_terms: list[Term] = field(default_factory=list)  # the site stage's (site/stage.py)
    group: str = ""  # set where the page-kind decoding kept or dropped it with its group


# stage 2's signature-group columns (context.SIGNATURE_COLUMNS), as explain shows them
SIGNATURE_NAMES = ["mean stage-1 score of the blocks alike (signature group)",
                   "log size of the signature group", "signature group mean where it repeats"]


def stage2_names(page_rel: bool) -> list[str]:
    """Names of stage 2's inputs, in context_features' column order."""
    from .score.features import CONTAINER_LEVELS

    names = [f"stage-1 score of block {k:+d}" if k else "stage-1 score of this block"
             for k in range(-CONTEXT, CONTEXT + 1)]
    names += ["mean stage-1 score within 5 blocks", "mean stage-1 score within 15 blocks",
              "page mean stage-1 score"]
    names += [f"mean stage-1 score under ancestor {lvl}" for lvl in CONTAINER_LEVELS]
    if page_rel:
        names.append("stage-1 score / page best")
    return names


def _terms(coef: np.ndarray, mean: np.ndarray, scale: np.ndarray, x: np.ndarray
           ) -> np.ndarray:
    """Per block and feature, the feature's term in the log-odds."""
    return coef * (x - mean) / scale


def explain_blocks(model: Model, blocks: Blocks, threshold: float, top: int = TOP,
                   kind: np.ndarray | None = None, style: np.ndarray | None = None,
                   limit: int | None = None) -> tuple[list[BlockWhy], np.ndarray]:
    """Every block with its score and its strongest terms (the first ``limit`` blocks only,
    when given); also the final scores of all blocks. ``kind``, ``style``: the page-kind and
    page-style probabilities (Model.block_scores)."""
    n = len(blocks)
    if n == 0:
        return [], np.zeros(0)
    shown_n = n if limit is None else min(n, max(limit, 0))
    x = model.stage1_matrix(page_features(blocks, model.spec, kind, style))
    names = feature_names(model.spec)
    # tree-leaf columns (Model.trees) after the features, each named by its path; like the
    # class/id tokens, the leaves a block is not in are summed into the one "absent" line
    is_tok = np.array([nm.startswith(TOKEN_PREFIXES) for nm in names]
                      + [True] * (x.shape[1] - len(names)), dtype=bool)
    if model.trees is not None:
        names = names + model.trees.paths()
    s1 = model.stage1
    z1 = np.empty(n)
    absent_sum = np.empty(n)
    shown1 = np.empty((shown_n, x.shape[1]))
    for a in range(0, n, _ROWS):  # the terms of a row at a time, not the whole page's matrix
        xb = x[a:a + _ROWS]
        t1 = _terms(s1.coef, s1.mean, s1.scale, xb)
        z1[a:a + len(xb)] = s1.intercept + t1.sum(axis=1)
        absent_tok = is_tok[None, :] & (xb == 0)
        absent_sum[a:a + len(xb)] = np.where(absent_tok, t1, 0.0).sum(axis=1)
        if a < shown_n:
            k = min(len(xb), shown_n - a)
            shown1[a:a + k] = np.where(absent_tok, 0.0, t1)[:k]
    p1 = sigmoid(z1)
    if model.stage2 is not None:
        ins = stage2_inputs(blocks)
        c = model.context_columns(p1, *ins, model.signature_groups(blocks))
        names2 = stage2_names(model.stage2_page_rel) + [
            f"mean stage-1 score under ancestor {lvl}" for lvl in model.stage2_deep] + (
            SIGNATURE_NAMES if model.stage2_sig else [])
        if model.stage2_kind is not None or model.stage2_style is not None:
            c = model.kind_context(c, kind, style)
            short = stage2_columns(model.stage2_page_rel)
            own = list(names2)
            for cols, m, what in ((model.stage2_kind, model.pagekind, "P({})"),
                                  (model.stage2_style, model.pagestyle, "P(style {})")):
                if cols is not None and m is not None:
                    names2 += [what.format(k) if col == "one"
                               else f"{what.format(k)} x {own[short.index(col)]}"
                               for col in cols for k in m.kinds]
        s2 = model.stage2
        t2 = _terms(s2.coef, s2.mean, s2.scale, c)
        score = sigmoid(s2.intercept + t2.sum(axis=1))
        if model.stage3 is not None:  # stage 2's terms are shown; the score is the last stage's
            score = sigmoid(model.stage3.decision(model.context_columns(
                score, *ins, model.signature_groups(blocks))))
    else:
        c, t2, score, names2 = None, None, p1, []
    in_code = code_blocks(blocks)
    keep = select(score, threshold, in_code)
    out = []
    for i in range(shown_n):
        order = np.argsort(-np.abs(shown1[i]), kind="stable")[:top]
        terms1 = [Term(names[j], float(x[i, j]), float(shown1[i, j])) for j in order if shown1[i, j] != 0]
        if absent_sum[i] != 0:
            terms1.append(Term("(absent class/id tokens and tree leaves, together)" if model.trees is not None
                                else "(absent class/id tokens, together)", 0.0, float(absent_sum[i])))
        terms2 = []
        if t2 is not None and c is not None:
            o2 = np.argsort(-np.abs(t2[i]), kind="stable")[:top]
            terms2 = [Term(names2[j], float(c[i, j]), float(t2[i, j])) for j in o2]
        out.append(BlockWhy(blocks.texts[i], float(score[i]), float(p1[i]), bool(keep[i]), bool(in_code[i]),
                            terms1, terms2))
    return out, score


def _site_terms(ex: Extractor, p: Page, whys: list[BlockWhy], cut: float, in_code: np.ndarray) -> int:
    """With a site memory: each listed block's site-stage terms, its final score and kept flag
    from the stage (the page's own extraction's); the number of the host's other pages it read
    (0: none, the page scored alone)."""
    site = p.site
    stage = ex.site_stage
    if site is None or stage is None or site[2] <= 0 or len(site[0]) != len(in_code):
        return 0
    from .score.site.stage import COLUMNS, NAMES, site_columns

    fps, k, n, model_scores = site
    x = site_columns(model_scores, fps, k, n)
    t = stage.terms(x)
    score = sigmoid(stage.decision(x))
    keep = select(score, cut, in_code)
    for i, w in enumerate(whys):
        w.site_terms = [Term(NAMES[c], float(x[i, j]), float(t[i, j])) for j, c in enumerate(COLUMNS)]
        w.site_terms.append(Term("site stage intercept", 1.0, stage.intercept))
        w.score, w.kept = float(score[i]), bool(keep[i])
    return n


# a term as the view's data has it: [name, value, contribution], a JSON array
TermRow = list[Any]  # Any: a JSON array of a name (str) and two numbers, as the page's script reads it


class _Grouped(TypedDict, total=False):
    group: str  # where a rule after the cut kept or dropped the block with others


class BlockData(_Grouped):
    """One block in the explain data."""

    text: str
    score: float
    stage1: float
    kept: bool
    code: bool
    terms1: list[TermRow]
    terms2: list[TermRow]
    terms_site: list[TermRow]


class _TextCap(TypedDict, total=False):
    text_cap: int  # the characters of block text the data holds at most (not in ``failed``'s)


class ExplainData(_TextCap):
    """The explain data of one page (``explain``, ``failed``), as ``render_view`` reads it and
    the service and ``ce-filter explain`` write it."""

    url: str
    model: str
    threshold: float
    fallback_rel: float
    page_kind: str
    page_kind_prob: float | None
    reason: str
    metadata: dict[str, str]
    stage2: bool
    site_pages: int
    blocks_total: int
    texts_cut: int
    blocks: list[BlockData]


def explain(html: bytes | str, url: str | None = None, *, extractor: Extractor | None = None,
            encoding: str | None = None, top: int = TOP, max_blocks: int = MAX_BLOCKS,
            max_text: int = MAX_TEXT) -> ExplainData:
    """The explain data of one page: its extraction, each block's why (the first
    ``max_blocks`` blocks, their texts cut at ``max_text`` characters in all; ``blocks_total``
    counts them all), the model's figures."""
    ex = extractor or Extractor()
    if url is not None and not isinstance(url, str):
        raise TypeError(f"url must be str or None, not {type(url).__name__}")
    p = ex.page(html, url, encoding=encoding)
    r: Extraction = ex.extraction(p, url)
    whys: list[BlockWhy] = []
    cut = ex.threshold
    n_blocks = 0
    in_code = np.zeros(0, dtype=bool)
    blocks = p.blocks
    if r.blocks and blocks is not None:
        n_blocks = len(blocks)
        kind, style = p.kind, p.style
        cut = ex.cut(kind)  # the page's own cut: its kind's, where the model has one
        whys, score = explain_blocks(ex.model, blocks, cut, top, kind, style, limit=max_blocks)
        in_code = code_blocks(blocks)
        keep, changed = ex.decide(blocks, score, kind)  # the page-kind decoding's group rule
        if ex.kind_name(kind) in SPAN_FILL:  # the span rule (kindrules.fill_span)
            for w, k in zip(whys, keep.tolist()):
                if k and not w.kept and not w.code:
                    w.kept = True
                    w.group = f"kept inside the kept span of a {ex.kind_name(kind)} page"
        if p.kept is not None and r.reason != THIN_REASON:  # the rules after the cut (articles.tidy)
            for w, k, k0 in zip(whys, p.kept.tolist(), keep.tolist()):
                if k != k0:
                    w.kept = k
                    w.group = ("kept whole with its table or list" if k else
                               "dropped by the rules after the cut (repeat, hidden, label, byline, "
                               "comments, table or list)")
        if changed is not None:
            for w, k, c in zip(whys, keep.tolist(), changed.tolist()):
                w.kept = k
                if c:
                    w.group = "kept whole with its repeated group" if k else \
                        "dropped whole with its repeated group"
    site = _site_terms(ex, p, whys, cut, in_code)
    meta = {k: getattr(r, k) for k in ("title", "author", "date", "sitename", "language",
                                       "canonical_url") if getattr(r, k, None)}
    room = max(max_text, 0)
    texts, cut_texts = [], 0
    for w in whys:
        if len(w.text) <= room:
            texts.append(w.text)
        else:
            texts.append(w.text[:room] + "\u2026")
            cut_texts += 1
        room = max(room - len(w.text), 0)
    return {
        "url": url or "",
        "model": r.model,
        "threshold": cut,
        "fallback_rel": FALLBACK_REL,
        "page_kind": getattr(r, "page_type", "") or "",
        "page_kind_prob": getattr(r, "page_type_prob", None),
        "reason": r.reason,
        "metadata": meta,
        "stage2": ex.model.stage2 is not None,
        "site_pages": site,
        "blocks_total": n_blocks,
        "texts_cut": cut_texts,
        "text_cap": max_text,
        "blocks": [  # (a cast: a TypedDict cannot follow the optional group's ** unpacking)
            cast(BlockData, {
                "text": txt, "score": round(w.score, 6), "stage1": round(w.stage1, 6),
                "kept": w.kept and r.reason != THIN_REASON,
                "code": w.code, **({"group": w.group} if w.group else {}),
                "terms1": [[t.name, round(t.value, 4), round(t.contribution, 4)] for t in w.stage1_terms],
                "terms2": [[t.name, round(t.value, 4), round(t.contribution, 4)] for t in w.stage2_terms],
                "terms_site": [[t.name, round(t.value, 4), round(t.contribution, 4)] for t in w.site_terms]})
            for w, txt in zip(whys, texts)
        ],
    }


def failed(url: str | None, extractor: Extractor, reason: str) -> ExplainData:
    """The explain data of a page that could not be explained (over its budget): no blocks,
    the reason as the view's note."""
    return {"url": url or "", "model": str(getattr(extractor, "version", "")),
            "threshold": extractor.threshold,
            "fallback_rel": FALLBACK_REL, "page_kind": "", "page_kind_prob": None, "reason": reason,
            "metadata": {}, "stage2": extractor.model.stage2 is not None, "site_pages": 0,
            "blocks_total": 0, "texts_cut": 0, "blocks": []}


# ---------------------------------------------------------------- the page

_CSS = """
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1d1d1f;background:#fafafa}
header{position:sticky;top:0;background:#fff;border-bottom:1px solid #ddd;padding:10px 16px;z-index:2}
header h1{font-size:17px;margin:0 0 4px}
.meta{font-size:13px;color:#555}.meta b{color:#222}
.ctl{margin-top:6px;display:flex;gap:12px;align-items:center;font-size:14px}
.ctl input[type=range]{width:320px}
main{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:16px;padding:12px 16px}
.blk{border-left:4px solid #bbb;background:#fff;margin:0 0 6px;padding:6px 10px;border-radius:3px}
.blk.kept{border-color:#1f9d55;background:#e9f8ef}
.blk.dropped .txt{text-decoration:line-through;color:#888}
.sc{font:12px ui-monospace,monospace;float:right;margin-left:8px;padding:1px 6px;border-radius:8px;
background:#eee}
.kept .sc{background:#c8efd6}
details{font-size:12px;color:#444;margin-top:3px}
summary{cursor:pointer;font-family:ui-monospace,monospace}
table.terms{border-collapse:collapse;margin:3px 0}
table.terms td{padding:1px 8px 1px 0;font-family:ui-monospace,monospace}
td.pos{color:#1f7a44}td.neg{color:#b3261e}
#out{white-space:pre-wrap;background:#fff;border:1px solid #ddd;padding:10px;border-radius:3px;
font-size:14px;position:sticky;top:110px;max-height:80vh;overflow:auto}
"""

_JS = """
const D = JSON.parse(document.getElementById('data').textContent);
const slider = document.getElementById('thr'), shown = document.getElementById('thrv');
const blks = Array.from(document.querySelectorAll('.blk'));
function apply(t) {
  const scores = D.blocks.map(b => b.score);
  let keep = scores.map(s => s >= t);
  if (!keep.some(k => k) && scores.length) {  // as the filter does: never an empty page
    const best = Math.max(...scores);
    keep = scores.map(s => s >= best * D.fallback_rel);
  }
  const first = keep.indexOf(true), last = keep.lastIndexOf(true);
  D.blocks.forEach((b, i) => { if (b.code && i > first && i < last) keep[i] = true; });
  const kept = [];
  blks.forEach((el, i) => {
    el.classList.toggle('kept', keep[i]);
    el.classList.toggle('dropped', !keep[i]);
    if (keep[i]) kept.push(D.blocks[i].text);
  });
  shown.textContent = t.toFixed(2);
  const text = kept.join('\\n\\n');
  document.getElementById('out').textContent = text;
  document.getElementById('count').textContent =
    kept.length + ' of ' + blks.length + ' blocks kept, ' +
    (text ? text.split(/\\s+/).length : 0) + ' words';
}
slider.addEventListener('input', () => apply(parseFloat(slider.value)));
const m = location.hash.match(/t=([0-9.]+)/);
if (m) slider.value = m[1];
apply(parseFloat(slider.value));
"""


def _term_rows(terms: list[TermRow]) -> str:
    rows = []
    for name, value, contrib in terms:
        cls = "pos" if contrib > 0 else "neg"
        rows.append(f"<tr><td class={cls}>{contrib:+.2f}</td><td>{_html.escape(str(name))}</td>"
                    f"<td>= {value:g}</td></tr>")
    return "<table class=terms>" + "".join(rows) + "</table>"


def _summary(b: BlockData, k: int = 3) -> str:
    """The block's k strongest terms on one line (stage 1's, then stage 2's strongest)."""
    terms = sorted((t for t in b["terms1"] if not str(t[0]).startswith("(")), key=lambda t: -abs(t[2]))[:k]
    if b["terms2"]:
        n, v, c = max(b["terms2"], key=lambda t: abs(t[2]))
        terms.append([f"stage 2: {n}", v, c])
    return ", ".join(f"{c:+.2f} {_html.escape(str(n))}" for n, _, c in terms)


def render_view(data: ExplainData) -> str:
    """The explain data as one self-contained HTML page."""
    esc = _html.escape
    md = data.get("metadata", {})
    meta = " · ".join(f"<b>{esc(k)}</b> {esc(str(v))}" for k, v in md.items())
    facts = [f"<b>model</b> {esc(data['model'])}", f"<b>threshold</b> {data['threshold']:.2f}"]
    if data.get("page_kind"):
        prob = data.get("page_kind_prob")
        facts.insert(0, f"<b>page kind</b> {esc(data['page_kind'])}"
                        + (f" ({prob:.2f})" if isinstance(prob, float) else ""))
    if data.get("reason"):
        facts.append(f"<b>note</b> {esc(data['reason'])}")
    total = data.get("blocks_total", len(data["blocks"]))
    if total > len(data["blocks"]):
        facts.append(f"<b>note</b> the view lists the first {len(data['blocks']):,} of the page's "
                     f"{total:,} blocks")
    if data.get("texts_cut"):
        facts.append(f"<b>note</b> {data['texts_cut']:,} block texts cut short (\u2026): the view shows "
                     f"{data.get('text_cap', MAX_TEXT):,} characters of text at most")
    blocks = []
    for i, b in enumerate(data["blocks"]):
        cls = "kept" if b["kept"] else "dropped"
        why = f"<div>stage 1 (features): p = {b['stage1']:.3f}</div>{_term_rows(b['terms1'])}"
        if b["terms2"]:
            p2 = "" if b.get("terms_site") else f": p = {b['score']:.3f}"
            why += f"<div>stage 2 (context){p2}</div>{_term_rows(b['terms2'])}"
        if b.get("terms_site"):
            why += (f"<div>site stage (the host's {data.get('site_pages', 0)} other pages): "
                    f"p = {b['score']:.3f}</div>{_term_rows(b['terms_site'])}")
        blocks.append(
            f'<div class="blk {cls}" id="b{i}" data-score="{b["score"]:.6f}">'
            f'<span class=sc>{b["score"]:.3f}</span><span class=txt>{esc(b["text"])}</span>'
            f"<details><summary>why: {_summary(b)}"
            f"{'; ' + esc(b['group']) if b.get('group') else ''}</summary>{why}</details></div>")
    payload = json.dumps({"blocks": [{"text": b["text"], "score": b["score"], "code": b.get("code", False)}
                                     for b in data["blocks"]],
                          "fallback_rel": data["fallback_rel"]}, ensure_ascii=False)
    payload = payload.replace("<", "\\u003c")  # no tag of the page's text can end (or open) a script
    title = md.get("title") or data.get("url") or "page"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>explain: {esc(str(title))}</title>
<style>{_CSS}</style></head><body>
<header><h1>{esc(str(title))}</h1>
<div class=meta>{esc(data.get("url", ""))}</div>
<div class=meta>{meta}</div>
<div class=meta>{" · ".join(facts)}</div>
<div class=ctl><label for=thr>threshold</label>
<input type=range id=thr min=0 max=1 step=0.01 value="{data['threshold']:.2f}">
<span id=thrv>{data['threshold']:.2f}</span><span id=count></span></div></header>
<main><section id=blocks>{''.join(blocks) or '<p>No blocks.</p>'}</section>
<section><div id=out></div></section></main>
<script type="application/json" id="data">{payload}</script>
<script>{_JS}</script>
</body></html>
"""


def explain_html(html: bytes | str, url: str | None = None, *, extractor: Extractor | None = None) -> str:
    """The explain view of one page as an HTML document."""
    return render_view(explain(html, url, extractor=extractor))
