"""The recall-leaning preset (trafilatura's favor_recall): its cut is chosen on CV in training
and stored in the model file, never above the default cut; it excludes ``precise``."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from ce_filter.api import RECALL_THRESHOLD, Extractor
from ce_filter.cli import main
from ce_filter.options import ExtractOptions, UsageError
from ce_filter.score.blockmodel import Model, ModelError, load_default


def test_recall_preset_uses_the_models_cv_cut():
    m = load_default()
    rt = RECALL_THRESHOLD if m.recall_threshold is None else m.recall_threshold
    ex = Extractor(recall=True)
    assert ex.threshold == min(m.threshold, rt) <= Extractor().threshold
    old = replace(m, recall_threshold=None)  # a model file from before the CV choice
    assert Extractor(old, recall=True).threshold == min(m.threshold, RECALL_THRESHOLD)
    high = replace(m, recall_threshold=0.99)  # never above the default cut
    assert Extractor(high, recall=True).threshold == m.threshold
    assert Extractor(recall=True, threshold=0.9).threshold == 0.9  # an explicit cut wins
    with pytest.raises(ValueError, match="exclude each other"):
        Extractor(precise=True, recall=True)


def test_recall_keeps_at_least_what_the_default_keeps():
    page = ("<html><body><nav><a href=/>Home</a> <a href=/a>About</a></nav><article><h1>Title</h1>"
            + "<p>" + "A sentence of the article body, long enough to count. " * 8 + "</p>"
            + "<p>Short aside line.</p></article><footer>Copyright 2024</footer></body></html>")
    default = Extractor().extract(page)
    wide = Extractor(recall=True).extract(page)
    assert set(default.text.split("\n\n")) <= set(wide.text.split("\n\n"))


def test_model_file_roundtrip_and_refusal(tmp_path: Path):
    m = replace(load_default(), recall_threshold=0.15)
    p = tmp_path / "m.json"
    m.save(p)
    assert Model.load(p).recall_threshold == 0.15
    d = json.loads(p.read_text())
    d["recall_threshold"] = 1.5
    p.write_text(json.dumps(d))
    with pytest.raises(ModelError):
        Model.load(p)


def test_options_cli_and_settings(tmp_path: Path, capsys):
    assert ExtractOptions.from_settings({"CE_FILTER_RECALL": "true"}).recall
    assert ExtractOptions(recall=True).extractor().recall
    with pytest.raises(UsageError):
        ExtractOptions(precise=True, recall=True)
    with pytest.raises(UsageError):
        ExtractOptions.from_settings({"CE_FILTER_RECALL": "1", "CE_FILTER_PRECISE": "1"})
    page = tmp_path / "p.html"
    page.write_text("<p>" + "words of a page " * 20 + "</p>")
    assert main(["extract", "--precise", "--recall", str(page)]) == 2
    assert "exclude each other" in capsys.readouterr().err
    assert main(["extract", "--recall", str(page)]) == 0
    assert "words of a page" in capsys.readouterr().out


def test_training_records_the_recall_cut(tmp_path: Path):
    pytest.importorskip("sklearn")
    from ce_filter.learn.configs import CONFIGS, corpus_pages
    from ce_filter.learn.fit import train

    from .typed_corpus import make_typed_corpus

    pages = corpus_pages([str(make_typed_corpus(tmp_path / "w", n=24))], False)[0]
    cfg = replace(CONFIGS["st"], ic_min_pages=0, log=False, folds=3)
    m = train(pages, cfg, name="content", data_desc={})
    assert m.recall_threshold is not None and m.recall_threshold <= m.threshold <= m.precise_threshold
    cv = m.meta["cv"]
    assert cv["recall"]["threshold"] == m.recall_threshold and "f_beta" in cv["recall"]
    assert cv["recall"]["recall"] >= cv["default"]["recall"]
    assert m.meta["config"]["recall_beta"] == 2.0
    assert Model.from_json(json.loads(m.dumps())).recall_threshold == m.recall_threshold
