"""The studies' own checks: their metrics are the product's (research/, run from a checkout)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from core.test_kind_decoding import PAGE

REPO = Path(__file__).resolve().parents[2]


def test_study_metric_matches_the_real_extraction(tmp_path) -> None:
    """The study's offline F1 (block tokens against the gold) is the real extraction's."""
    import shutil
    from importlib import resources

    from ce_filter.learn.corpus import Doc
    from research.kindstudy import load, page_f1
    from research.oofdump import CapturingExtractor, page_record

    ref = resources.files("ce_filter") / "models" / "content.json"
    shutil.copy(str(ref), tmp_path / "fold0.json")
    ex = CapturingExtractor(str(tmp_path / "fold0.json"))
    docs = [Doc("t/1", PAGE.encode(), "All the items of the shop. Item number 3 in the grid",
                page_type="listing"),
            Doc("t/2", b"<html><body><p>Hello there, a page of one line.</p></body></html>",
                "Hello there")]
    with gzip.open(tmp_path / "pages.jsonl.gz", "wt", encoding="utf-8") as f:
        for d in docs:
            f.write(json.dumps(page_record(d, "t", 0, ex)) + "\n")
    pages = load(str(tmp_path))
    assert len(pages) == 2
    for p in pages:
        assert 0.0 < p.f1_real < 1.0
        assert page_f1(p) == pytest.approx(p.f1_real, abs=1e-12)


def test_ablation_help_names_its_output_and_the_corpora_beside_the_checkout(capsys):
    from research import ablation

    with pytest.raises(SystemExit):
        ablation.main(["--help"])
    out = capsys.readouterr().out
    assert "RESULTS.md" not in out and out.count("docs/research/ABLATION.md") >= 2
    assert f"(default: {REPO.parent / 'shared' / 'data'})" in out.replace("\n", " ").replace("  ", " ")


