"""A probability cut per page kind: chosen on CV in the fit, stored in the model file,
applied by the Extractor unless the caller gives a cut of their own."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from ce_filter.api import Extractor
from ce_filter.learn.fit import LabelledPage, TrainConfig, kind_cuts
from ce_filter.read.segment import Blocks
from ce_filter.score.blockmodel import Model, load_default
from ce_filter.score.pagekind import KINDS

from .test_api import ARTICLE, PARAS
from .test_model import assert_refused


def _page(i: int, kind: str, scores: list[float], content: list[bool]) -> tuple[LabelledPage, np.ndarray]:
    """A page of 10-word blocks: the content ones fully matched to the gold, the others not."""
    n = np.full(len(scores), 10.0)
    matched = np.where(content, 10.0, 0.0)
    p = LabelledPage(f"c/{i}", Blocks(), np.asarray(content, dtype=int), n, matched, int(matched.sum()))
    p.kind = np.eye(len(KINDS))[KINDS.index(kind)] * 0.9 + 0.1 / len(KINDS)
    return p, np.asarray(scores)


def _synthetic() -> tuple[list[LabelledPage], list[np.ndarray]]:
    # articles: boilerplate at 0.4, content at 0.9 (best cut above 0.4); listings: content at
    # 0.3, boilerplate at 0.1 (best cut in (0.1, 0.3]); three forum pages (too few for a cut)
    made = ([_page(i, "article", [0.9, 0.9, 0.4], [True, True, False]) for i in range(10)]
            + [_page(10 + i, "listing", [0.3, 0.3, 0.1], [True, True, False]) for i in range(10)]
            + [_page(20 + i, "forum", [0.5, 0.2], [True, False]) for i in range(3)])
    return [p for p, _ in made], [s for _, s in made]


def test_each_kind_gets_its_own_cut_and_small_kinds_the_global_one():
    pages, scores = _synthetic()
    cfg = TrainConfig(kind_cuts=True, kind_min_pages=5, log=False)
    cut, pcut, seen = kind_cuts(pages, scores, KINDS, cfg, default=0.35, precise=0.35)
    assert set(cut) == set(pcut) == {"article", "listing"}  # forum: 3 pages < 5
    assert 0.4 < cut["article"] <= 0.9 and 0.1 < cut["listing"] <= 0.3
    assert all(pcut[k] >= cut[k] for k in cut)  # the precise cut never below the default one
    assert seen["article"]["page_f1"] == 1.0 > seen["article"]["page_f1_global"]
    assert seen["forum"] == {"pages": 3, "page_f1_global": 1.0}
    # shrinkage pulls every cut toward the global one
    far = kind_cuts(pages, scores, KINDS, replace(cfg, kind_shrink=1000.0), 0.35, 0.35)[0]
    assert all(abs(far[k] - 0.35) < abs(cut[k] - 0.35) for k in cut)


def _with_cuts(cuts: dict | None, precise: dict | None = None) -> Model:
    return replace(load_default(), kind_thresholds=cuts, kind_precise_thresholds=precise)


def test_kind_cuts_roundtrip_and_old_files_keep_their_bytes(tmp_path):
    m = _with_cuts({"article": 0.3, "listing": 0.2}, {"article": 0.6, "listing": 0.2})
    p = tmp_path / "m.json"
    m.save(p)
    back = Model.load(p)
    assert back.kind_thresholds == m.kind_thresholds
    assert back.kind_precise_thresholds == m.kind_precise_thresholds
    assert back.dumps() == m.dumps()
    plain = _with_cuts(None).to_json()  # without cuts per kind: no field, the old bytes
    assert "kind_thresholds" not in plain and "kind_precise_thresholds" not in plain


@pytest.mark.parametrize("mutate", [
    lambda d: d.update(kind_thresholds={"article": 1.5}),
    lambda d: d.update(kind_thresholds={"article": "high"}),
    lambda d: d.update(kind_thresholds={"recipe": 0.5}),
    lambda d: d.update(kind_thresholds=[0.5]),
    lambda d: d.update(kind_precise_thresholds={"article": float("nan")}),
    lambda d: d.pop("pagekind") and d["features"]["spec"].update(
        groups=[g for g in d["features"]["spec"]["groups"] if g != "kind"]),
])
def test_bad_kind_cuts_are_refused(tmp_path, mutate):
    d = _with_cuts({"article": 0.3}, {"article": 0.5}).to_json()
    mutate(d)
    assert_refused(tmp_path, d)


def test_extractor_cuts_at_the_pages_kind_unless_told_otherwise():
    kinds = load_default().pagekind.kinds
    everything = _with_cuts({k: 0.0 for k in kinds})  # every block kept
    r = Extractor(everything).extract(ARTICLE)
    assert r.blocks_kept == len(r.blocks) and "Privacy" in r.text
    # an explicit threshold overrides the model's cuts, the kind ones included
    r = Extractor(everything, threshold=0.5).extract(ARTICLE)
    assert r.blocks_kept < len(r.blocks) and "Privacy" not in r.text and PARAS[0] in r.text
    # the kind read is the page's most probable one: other kinds' cuts do not apply
    ex = Extractor(everything)
    kind = ex.page_context(*_page_of(ARTICLE))[0]
    top = kinds[int(np.argmax(kind))]
    only_others = Extractor(_with_cuts({k: 0.0 for k in kinds if k != top}))
    assert only_others.cut(kind) == only_others.threshold == load_default().threshold
    assert ex.cut(kind) == 0.0


def test_precise_kind_cut_is_never_below_the_kinds_default():
    kinds = load_default().pagekind.kinds
    kind = np.eye(len(kinds))[0]
    ex = Extractor(_with_cuts({kinds[0]: 0.4}, {kinds[0]: 0.3}), precise=True)
    assert ex.cut(kind) == 0.4
    ex = Extractor(_with_cuts({kinds[0]: 0.4}, {kinds[0]: 0.7}), precise=True)
    assert ex.cut(kind) == 0.7
    assert Extractor(_with_cuts({kinds[0]: 0.4}, {kinds[0]: 0.7})).cut(kind) == 0.4


def _page_of(html: str) -> tuple[Blocks, str, None]:
    from ce_filter.read.segment import parse, segment

    return segment(parse(html)), html, None
