"""The per-kind tables of the quality bench (benchmarks/kinds.py) on a tiny synthetic corpus of
out-of-fold pages and bench rows: every page type has its row, the best peer and the distance
to it are computed right, the page-kind confusion counts and recalls, the split of the
out-of-fold F1 by whether the kind was right, and ``--oof`` through the bench's tables."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from ce_filter.bench import kinds, quality, run
from ce_filter.bench.kinds import OofPage

# page type, estimated kind, out-of-fold F1: two pages of each of the seven types, one of the
# two listings estimated as a collection, one product page with no kind at all
PAGES = [OofPage("wcxb", f"wcxb/{t}{i}", t, f, k) for t, i, f, k in [
    ("article", 0, 0.9, "article"), ("article", 1, 0.7, "article"),
    ("documentation", 0, 0.8, "documentation"), ("documentation", 1, 0.6, "article"),
    ("service", 0, 0.5, "service"), ("service", 1, 0.5, "service"),
    ("forum", 0, 0.4, "forum"), ("forum", 1, 0.2, "forum"),
    ("collection", 0, 0.6, "collection"), ("collection", 1, 0.6, "collection"),
    ("listing", 0, 0.7, "listing"), ("listing", 1, 0.3, "collection"),
    ("product", 0, 0.6, "product"), ("product", 1, 0.0, ""),
]] + [OofPage("dragnet train", "dragnet/1", "", 0.95, "article")]

OOF_MEAN = {"article": 0.8, "documentation": 0.7, "service": 0.5, "forum": 0.3, "collection": 0.6,
            "listing": 0.5, "product": 0.3}


def _row(tool: str, by: dict[str, float], overall: float) -> quality.QualityRow:
    return {"tool": tool, "spec": "wcxb", "pages": 14, "precision": 0.5, "recall": 0.5,
            "f1_of_means": 0.5, "mean_f1": overall, "empty": 0, "must_have": None,
            "must_not_have": None, "errors": 0,
            "by_type": {k: {"name": k, "pages": 2, "precision": 0.5, "recall": 0.5, "f1_of_means": 0.5,
                            "mean_f1": v, "empty": 0, "must_have": None, "must_not_have": None}
                        for k, v in by.items()}}


ROWS: dict[str, quality.QualityRow] = {
    "ce-filter": _row("ce-filter", {k: 0.9 for k in OOF_MEAN}, 0.9),
    # trafilatura best on articles and forums; resiliparse on the rest; listing a tie (the first wins)
    "trafilatura": _row("trafilatura", {"article": 0.85, "documentation": 0.6, "service": 0.4, "forum": 0.5,
                                        "collection": 0.5, "listing": 0.45, "product": 0.2}, 0.6),
    "resiliparse": _row("resiliparse", {"article": 0.5, "documentation": 0.75, "service": 0.55, "forum": 0.1,
                                        "collection": 0.65, "listing": 0.45, "product": 0.35}, 0.55),
    "justext": {"tool": "justext", "spec": "wcxb", "error": "not installed"},
}
TOOLS = ["ce-filter", "trafilatura", "resiliparse", "justext"]
PEERS = ["trafilatura", "resiliparse", "justext"]
BEST = {"article": "trafilatura", "documentation": "resiliparse", "service": "resiliparse",
        "forum": "trafilatura", "collection": "resiliparse", "listing": "trafilatura",
        "product": "resiliparse", "all": "trafilatura"}


def _wcxb() -> list[OofPage]:
    return [p for p in PAGES if p.corpus == "wcxb"]


def test_every_kind_has_a_row_and_the_distance_to_the_best_peer():
    rows = kinds.kind_rows(_wcxb(), ROWS, "ce-filter", PEERS)
    assert [r.kind for r in rows] == [*kinds.PAGE_TYPES, "all"]
    for r in rows:
        assert r.pages == (14 if r.kind == "all" else 2)
        assert r.best == BEST[r.kind]
        assert r.peers["justext"] is None  # a peer that did not run has no figure, is never best
        assert r.shipped == pytest.approx(0.9)
        best = r.peers[r.best]
        assert best is not None and r.oof is not None and r.distance is not None
        assert r.distance == pytest.approx(r.oof - best)
        if r.kind != "all":
            assert r.oof == pytest.approx(OOF_MEAN[r.kind])
    by = {r.kind: r for r in rows}
    assert by["all"].oof == pytest.approx(sum(OOF_MEAN.values()) / 7)
    assert by["forum"].distance == pytest.approx(0.3 - 0.5)  # behind: negative
    assert by["article"].distance == pytest.approx(0.8 - 0.85)
    assert by["service"].distance == pytest.approx(0.5 - 0.55)
    md = kinds.kind_table(rows, PEERS)
    lines = md.splitlines()
    assert lines[0] == ("| page type | pages | ce-filter out of fold | ce-filter shipped (in sample) | "
                        "trafilatura | resiliparse | justext | best peer | out of fold − best peer |")
    forum = next(ln for ln in lines if ln.startswith("| forum |"))
    assert forum == "| forum | 2 | 0.300 | 0.900 | 0.500 | 0.100 | — | trafilatura (0.500) | -0.200 |"
    assert all(f"| {k} |" in md for k in kinds.PAGE_TYPES)


def test_confusion_counts_recall_and_pages_without_a_kind():
    true, est, counts = kinds.confusion(_wcxb())
    assert true == list(kinds.PAGE_TYPES)
    assert est == [*kinds.PAGE_TYPES, kinds.NONE]
    assert counts[("documentation", "article")] == 1 and counts[("listing", "collection")] == 1
    assert counts[("product", kinds.NONE)] == 1 and sum(counts.values()) == 14
    md = kinds.confusion_table(_wcxb())
    rows = {ln.split(" | ")[0][2:]: [c.strip(" |") for c in ln.split(" | ")[1:]]
            for ln in md.splitlines()[2:]}
    # columns: the seven kinds, none, pages, recall
    assert rows["article"] == ["2", "0", "0", "0", "0", "0", "0", "0", "2", "1.000"]
    assert rows["documentation"][:2] == ["1", "1"] and rows["documentation"][-1] == "0.500"
    assert rows["listing"][-1] == "0.500" and rows["product"][-1] == "0.500"
    assert rows["estimated as"][:5] == ["3", "1", "2", "2", "3"] and rows["estimated as"][-2] == "14"
    assert rows["precision"][0] == "0.667" and rows["precision"][4] == "0.667"
    assert rows["accuracy"][-1] == f"{11 / 14:.3f}"


def test_split_by_whether_the_kind_was_right():
    by = {s.kind: s for s in kinds.split_rows(_wcxb())}
    assert set(by) == {*kinds.PAGE_TYPES, "all"}
    assert (by["article"].right, by["article"].wrong, by["article"].wrong_f1) == (2, 0, None)
    assert by["article"].difference is None
    assert by["listing"].right_f1 == pytest.approx(0.7) and by["listing"].wrong_f1 == pytest.approx(0.3)
    assert by["listing"].difference == pytest.approx(0.4)
    assert by["product"].wrong == 1 and by["product"].wrong_f1 == pytest.approx(0.0)  # no kind: wrong
    assert (by["all"].right, by["all"].wrong) == (11, 3)
    assert by["all"].wrong_f1 == pytest.approx((0.6 + 0.3 + 0.0) / 3)
    assert "| listing | 1 | 0.700 | 1 | 0.300 | +0.400 |" in kinds.split_table(_wcxb())


def test_read_oof_takes_one_cut_and_old_files_without_kinds(tmp_path: Path):
    head = "cut\tcorpus\tpage\tpage_type\tprecision\trecall\tf1\tempty\tlang\tsite"
    new = tmp_path / "new.tsv"
    new.write_text(head + "\tkind\n"
                   "default\twcxb\twcxb/a\tarticle\t1\t1\t0.900000\t0\ten\ta.org\tarticle\n"
                   "precise\twcxb\twcxb/a\tarticle\t1\t1\t0.800000\t0\ten\ta.org\tarticle\n"
                   "default\tdragnet train\tdragnet/1\t\t1\t1\t0.500000\t0\t\t\tforum\n")
    got = kinds.read_oof(str(new))
    assert got == [OofPage("wcxb", "wcxb/a", "article", 0.9, "article"),
                   OofPage("dragnet train", "dragnet/1", "", 0.5, "forum")]
    assert kinds.read_oof(str(new), "precise")[0].f1 == 0.8
    old = tmp_path / "old.tsv"
    old.write_text(head + "\ndefault\twcxb\twcxb/a\tarticle\t1\t1\t0.900000\t0\ten\ta.org\n")
    assert kinds.read_oof(str(old)) == [OofPage("wcxb", "wcxb/a", "article", 0.9, "")]
    bad = tmp_path / "bad.tsv"
    bad.write_text("a\tb\n1\t2\n")
    with pytest.raises(ValueError):
        kinds.read_oof(str(bad))


def test_old_file_gives_the_kind_table_without_the_confusion():
    no_kinds = [OofPage(p.corpus, p.page, p.page_type, p.f1) for p in _wcxb()]
    parts = kinds.oof_parts("wcxb", no_kinds, ROWS, TOOLS)
    assert len(parts) == 2 and "out of fold − best peer" in parts[1]
    assert kinds.oof_parts("wcxb", [], ROWS, TOOLS) == []


def test_quality_tables_with_oof_add_the_tables_after_the_page_types(tmp_path: Path, monkeypatch):
    root = tmp_path / "wcxb"
    (root / "html").mkdir(parents=True)
    monkeypatch.setattr(quality.pages, "label", lambda spec: Path(spec).name)
    results = [dict(ROWS[t], spec=str(root)) for t in TOOLS]
    md = quality.quality_tables(results, [str(root)], TOOLS, PAGES)  # type: ignore[arg-type]
    assert md.index("By page type (wcxb)") < md.index("ce-filter out of fold against the best peer")
    assert "(wcxb; 14 pages out of fold)" in md  # the dragnet page is another corpus's
    assert "page type \\ estimated" in md and "right − wrong" in md
    assert "ce-filter out of fold" not in quality.quality_tables(results, [str(root)], TOOLS)  # type: ignore[arg-type]


def test_oof_option_is_in_the_command_line_and_needs_quality(capsys):
    p = argparse.ArgumentParser()
    run.add_arguments(p)
    a = p.parse_args(["wcxb-dev", "--quality", "--oof", "PAGES.tsv"])
    assert run.command_line(a) == "ce-filter bench wcxb-dev --quality --oof PAGES.tsv"
    assert run.run(p.parse_args(["x", "--oof", "PAGES.tsv", "--no-write"])) == 2
    assert "--oof: with --quality only" in capsys.readouterr().err
