"""Page-kind decoding (ce_filter/keep/kindrules.py): groups decided as wholes, JSON-LD candidates,
the rules file tied to its model, the Extractor applying it, and the study's offline metric
agreeing with the real extraction."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ce_filter.api import Extractor
from ce_filter.keep.kindrules import KindDecoding, decide_groups, jsonld_candidates, missing
from ce_filter.read.segment import parse, segment
from ce_filter.score.blockmodel import Model
from ce_filter.score.features.context import signature_groups

CARD = ('<div class="card"><h3 class="t">Item number {i} in the grid</h3>'
        '<p class="s">A short description of item {i} with a few more words in it.</p></div>')
PAGE = ("<html><head><title>Shop</title></head><body><nav><a href='/'>Home</a> <a href='/a'>About</a>"
        "</nav><main><h1>All the items of the shop</h1>"
        "<p>This page lists every item we sell, with a short description of each of them.</p>"
        '<div class="grid">' + "".join(CARD.format(i=i) for i in range(8)) + "</div></main>"
        "<footer><p>Copyright the shop, all rights reserved.</p></footer></body></html>")


def test_groups_kept_and_dropped_whole() -> None:
    # blocks 0..9: groups 0 (4 blocks, mean 0.55), 1 (4 blocks, mean 0.15), 2 and 3 alone
    groups = np.array([2, 0, 0, 0, 0, 1, 1, 1, 1, 3])
    scores = np.array([0.9, 0.8, 0.3, 0.6, 0.5, 0.5, 0.05, 0.02, 0.03, 0.1])
    keep = scores >= 0.5
    out, changed = decide_groups(keep, scores, groups, 0.2, 0.5)
    assert out.tolist() == [True, True, True, True, True, False, False, False, False, False]
    assert np.flatnonzero(changed).tolist() == [2, 5]
    # either side off
    assert decide_groups(keep, scores, groups, None, 0.5)[0][5]
    assert not decide_groups(keep, scores, groups, 0.2, None)[0][2]
    # a group below min_group is left alone
    assert decide_groups(keep, scores, groups, 0.2, 0.5, min_group=5)[0].tolist() == keep.tolist()


def test_groups_outside_the_kept_span_and_empty_pages_untouched() -> None:
    groups = np.array([0, 0, 0, 1, 2, 2, 2])
    scores = np.array([0.45, 0.45, 0.45, 0.9, 0.1, 0.1, 0.1])
    keep = scores >= 0.5  # only block 3: groups 0 and 2 lie outside the span
    out, changed = decide_groups(keep, scores, groups, 0.2, 0.4)
    assert out.tolist() == keep.tolist() and not changed.any()
    none = np.zeros(7, dtype=bool)
    assert not decide_groups(none, scores, groups, 0.2, 0.1)[0].any()
    assert len(decide_groups(np.zeros(0, dtype=bool), np.zeros(0), np.zeros(0, dtype=np.int64),
                             0.1, 0.2)[0]) == 0


def test_group_rule_needs_a_sure_kind() -> None:
    d = KindDecoding("x", {"forum": (None, 0.3)}, sure={"forum": 0.7})
    kinds = ("article", "forum", "listing")
    assert d.group_rule(kinds, np.array([0.2, 0.8, 0.0])) == (None, 0.3)
    assert d.group_rule(kinds, np.array([0.35, 0.6, 0.05])) is None  # forum, but not sure
    assert d.group_rule(kinds, np.array([0.1, 0.1, 0.8])) is None  # no rule for listings


def test_decoding_file_round_trip_and_errors(tmp_path) -> None:
    d = KindDecoding("abc123", {"listing": (0.2, 0.5), "forum": (None, 0.4)}, {"product": 0.5},
                     sure={"forum": 0.5})
    p = tmp_path / "m.decoding.json"
    d.save(p)
    assert KindDecoding.load(p) == d
    bad = d.to_json()
    bad["groups"]["listing"] = {"lo": 0.6, "hi": 0.5}
    with pytest.raises(ValueError, match="above hi"):
        KindDecoding.from_json(bad)
    with pytest.raises(ValueError, match="format"):
        KindDecoding.from_json({"model_digest": "x"})
    bad = d.to_json()
    bad["jsonld"]["product"] = 2
    with pytest.raises(ValueError, match="in \\[0, 1\\]"):
        KindDecoding.from_json(bad)


def test_jsonld_candidates_and_missing() -> None:
    ld = json.dumps({"@context": "https://schema.org", "@graph": [
        {"@type": "Product", "name": "Desk",
         "description": "<p>A standing desk of solid oak, &amp; steel legs that last.</p>",
         "review": [{"@type": "Review", "reviewBody": "Sturdy and easy to assemble, five stars."}]},
        {"@type": "ItemList", "itemListElement": [
            {"@type": "ListItem", "name": "The first item of the list of five"},
            {"@type": "ListItem", "item": {"name": "The second item of the list here"}}]},
        {"@type": "Organization", "description": "A company that should not be read here at all"}]})
    c = jsonld_candidates([ld, "{not json"])
    assert c == ["A standing desk of solid oak, & steel legs that last.",
                 "Sturdy and easy to assemble, five stars.",
                 "The first item of the list of five", "The second item of the list here"]
    kept = "A standing desk of solid oak, & steel legs that last. Price 300"
    assert missing(c, kept, 0.5) == c[1:]
    assert missing(c, kept, 0.0) == []
    assert missing([c[1], c[1]], "", 0.5) == [c[1]]  # the same text once


def test_extractor_without_rules_is_unchanged_and_digest_checked() -> None:
    # no rule was adopted for the shipped model (docs/research/KIND_DECODING.md): none found
    shipped = Extractor()
    assert shipped.decoding is None
    assert shipped.extract(PAGE).text == Extractor(decoding=False).extract(PAGE).text


def test_decoding_file_beside_the_model_file_is_tied_to_its_digest(tmp_path) -> None:
    from importlib import resources

    ref = resources.files("ce_filter") / "models" / "content.json"
    path = tmp_path / "m.json"
    path.write_text(ref.read_text(encoding="utf-8"), encoding="utf-8")
    digest = Model.load(path).digest
    KindDecoding(digest, {"forum": (None, 0.3)}, sure={"forum": 0.5}).save(tmp_path / "m.decoding.json")
    ex = Extractor(str(path))
    assert ex.decoding is not None and ex.decoding.groups == {"forum": (None, 0.3)}
    assert Extractor(str(path), decoding=False).decoding is None
    # a file made for another model is not applied
    KindDecoding("0" * 12, {"forum": (None, 0.3)}).save(tmp_path / "m.decoding.json")
    assert Extractor(str(path)).decoding is None
    with pytest.raises(ValueError, match="for model"):
        Extractor(decoding=KindDecoding("not-this-model", {"listing": (0.1, 0.5)}))


def test_extractor_applies_the_group_rule_of_the_page_kind() -> None:
    base = Extractor(decoding=False)
    blocks = segment(parse(PAGE))
    kind, style = base.page_context(blocks, PAGE, None)
    assert kind is not None
    k = base.kind_model.kinds[int(np.argmax(kind))]
    scores = base.model.block_scores(blocks, kind, style)
    groups = signature_groups(blocks)
    cards = np.bincount(groups)[groups] >= 8
    # every repeated group kept whole: hi 0
    ex = Extractor(decoding=KindDecoding(base.model.digest, {k: (None, 0.0)}))
    keep, changed = ex.decide(blocks, scores, kind)
    assert changed is not None and keep[cards].all()
    assert keep.tolist() == (base.decide(blocks, scores, kind)[0] | cards).tolist()
    # another kind's rule does not apply to this page
    other = next(x for x in base.kind_model.kinds if x != k)
    ex2 = Extractor(decoding=KindDecoding(base.model.digest, {other: (None, 0.0)}))
    assert ex2.decide(blocks, scores, kind)[1] is None


def test_explain_names_the_group_decision() -> None:
    from ce_filter.explain import explain, render_view

    base = Extractor(decoding=False)
    blocks = segment(parse(PAGE))
    kind, _ = base.page_context(blocks, PAGE, None)
    assert kind is not None
    k = base.kind_model.kinds[int(np.argmax(kind))]
    ex = Extractor(decoding=KindDecoding(base.model.digest, {k: (1.0, None)}))  # drop every group
    data = explain(PAGE, extractor=ex)
    dropped = [b for b in data["blocks"] if b.get("group") == "dropped whole with its repeated group"]
    assert dropped and not any(b["kept"] for b in dropped)
    assert "dropped whole with its repeated group" in render_view(data)
    assert not any("group" in b for b in explain(PAGE, extractor=base)["blocks"])


def test_extractor_adds_the_missing_jsonld_text() -> None:
    desc = "A standing desk of solid oak with steel legs, made to last for many years of work."
    ld = json.dumps({"@context": "https://schema.org", "@type": "Product", "name": "Oak desk",
                     "description": desc})
    page = PAGE.replace("<head>", f'<head><script type="application/ld+json">{ld}</script>')
    base = Extractor(decoding=False)
    assert desc not in base.extract(page).text
    blocks = segment(parse(page))
    kind, _ = base.page_context(blocks, page, None)
    assert kind is not None
    k = base.kind_model.kinds[int(np.argmax(kind))]
    r = Extractor(decoding=KindDecoding(base.model.digest, {}, {k: 0.5})).extract(page)
    assert r.text.endswith(desc) and r.text.startswith(base.extract(page).text)
    # the rule of another kind adds nothing; "empty" only acts on a page with no block kept
    other = next(x for x in base.kind_model.kinds if x != k)
    for rules in ({other: 0.5}, {"empty": 0.5}):
        ex = Extractor(decoding=KindDecoding(base.model.digest, {}, rules))
        assert ex.extract(page).text == base.extract(page).text
