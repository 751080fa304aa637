"""The out-of-fold evaluation: folds grouped by site/domain, every page scored once by a model
that did not see its site."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from ce_filter.cli import main
from ce_filter.learn.corpus import Doc
from ce_filter.learn.crossval import assign_folds, site_groups
from ce_filter.score.pagekind import KINDS

from .typed_corpus import make_typed_corpus

pytest.importorskip("sklearn")


@pytest.mark.parametrize("seed", [None, 1, 2])
def test_no_domain_is_in_two_folds(seed):
    rng = random.Random(5)
    docs = []
    for i in range(300):
        if i % 3:  # a domain column, as wcxb-dev has
            docs.append(Doc(str(i), b"", "", domain=f"d{rng.randrange(40)}.example"))
        else:  # no column: the canonical host
            html = f'<link rel="canonical" href="https://www.s{rng.randrange(25)}.org/x">'.encode()
            docs.append(Doc(str(i), html, ""))
    groups = site_groups(docs)
    fold = assign_folds(groups, 5, seed)
    assert set(fold.tolist()) == set(range(5))
    for g in set(groups.tolist()):
        assert len(set(fold[groups == g].tolist())) == 1
    keys = [d.domain or d.html.decode() for d in docs]
    same = [i for i in range(1, 300) if keys[i] == keys[0]]
    assert all(groups[i] == groups[0] for i in same)


def test_pages_without_a_site_are_their_own_groups():
    docs = [Doc(str(i), b"<p>no links</p>", "") for i in range(4)]
    assert len(set(site_groups(docs).tolist())) == 4


def test_cv_scores_every_page_once_per_type(tmp_path: Path, capsys):
    root = make_typed_corpus(tmp_path / "w", n=12)
    assert main(["evaluate", "--cv", str(root), "--folds", "2", "--config", "st"]) == 0
    out = capsys.readouterr().out
    assert "Out of fold: 2 folds" in out
    body = {line.split(" | ")[0][2:]: line.split(" | ") for line in out.splitlines()
            if line.startswith("| w")}
    assert body["w"][1] == "12" and body["w: article"][1] == "6" and body["w: forum"][1] == "6"
    assert float(body["w"][5]) > 0.3  # mean F1 of pages scored by the other fold's model


def test_cv_says_what_is_wrong(tmp_path: Path, capsys):
    root = make_typed_corpus(tmp_path / "w", n=8, domains=3)
    model = tmp_path / "m.json"  # a real model file: --cv trains its own, so it refuses one
    model.write_bytes((Path(__file__).parents[2] / "ce_filter" / "models" / "content.json").read_bytes())
    assert main(["evaluate", "--cv", "--model", str(model), str(root)]) == 2
    assert "--model" in capsys.readouterr().err
    assert main(["evaluate", "--cv", str(root)]) == 2  # 3 sites cannot make 5 folds
    assert "too few for 5 folds" in capsys.readouterr().err
    assert np.array_equal(assign_folds(np.array([0, 0, 1, 1]), 2), [0, 0, 1, 1]) or \
        np.array_equal(assign_folds(np.array([0, 0, 1, 1]), 2), [1, 1, 0, 0])


def test_cv_precise_scores_both_cuts_with_the_same_fold_models(tmp_path: Path, capsys, monkeypatch):
    from ce_filter.learn import fit

    trained = []
    real_train = fit.train

    def train(*args, **kw):  # each fold's model, its precise cut moved up so the two cuts differ
        model = real_train(*args, **kw)
        model.precise_threshold = 0.97
        trained.append(model.threshold)
        return model

    monkeypatch.setattr(fit, "train", train)
    root = make_typed_corpus(tmp_path / "w", n=12)
    assert main(["evaluate", "--cv", str(root), "--folds", "2", "--config", "st", "--precise"]) == 0
    out = capsys.readouterr().out
    assert len(trained) == 2  # one model per fold, shared by both tables
    assert f"default cut (per fold: {trained[0]:g}, {trained[1]:g})" in out
    assert "precise cut (per fold: 0.97, 0.97)" in out
    tables = out.split("precise cut")
    rows = [[ln for ln in t.splitlines() if ln.startswith("| w |")][0].split(" | ") for t in tables]
    assert rows[0][1] == rows[1][1] == "12"
    assert float(rows[1][2]) != float(rows[0][2]) or float(rows[1][3]) < float(rows[0][3])


def test_cv_recall_and_precise_score_three_cuts_with_the_same_fold_models(tmp_path: Path, capsys,
                                                                         monkeypatch):
    from ce_filter.learn import fit

    trained = []
    real_train = fit.train

    def train(*args, **kw):  # the preset cuts moved apart so that the three tables differ
        model = real_train(*args, **kw)
        model.precise_threshold, model.recall_threshold = 0.97, 0.03
        trained.append(model)
        return model

    monkeypatch.setattr(fit, "train", train)
    root = make_typed_corpus(tmp_path / "w", n=12)
    assert main(["evaluate", "--cv", str(root), "--folds", "2", "--config", "st", "--precise",
                 "--recall"]) == 0
    out = capsys.readouterr().out
    assert len(trained) == 2
    assert "precise cut (per fold: 0.97, 0.97)" in out
    assert f"recall cut (per fold: {min(0.03, trained[0].threshold):g}" in out
    assert out.index("default cut") < out.index("precise cut") < out.index("recall cut")


def test_cv_fixed_threshold_is_one_table(tmp_path: Path, capsys):
    root = make_typed_corpus(tmp_path / "w", n=12)
    assert main(["evaluate", "--cv", str(root), "--folds", "2", "--config", "st", "--precise",
                 "--threshold", "0.4"]) == 0
    out = capsys.readouterr().out
    assert "fixed cut (per fold: 0.4, 0.4)" in out and "precise cut" not in out


def test_cv_pages_writes_every_page_once_per_cut(tmp_path: Path, capsys):
    a = make_typed_corpus(tmp_path / "w", n=12)
    b = make_typed_corpus(tmp_path / "v", n=8, domains=4)
    tsv = tmp_path / "pages.tsv"
    assert main(["evaluate", "--cv", str(a), str(b), "--folds", "2", "--config", "st", "--precise",
                 "--pages", str(tsv)]) == 0
    out = capsys.readouterr().out
    rows = [ln.split("\t") for ln in tsv.read_text().splitlines()]
    assert rows[0] == ["cut", "corpus", "page", "page_type", "precision", "recall", "f1", "empty",
                       "lang", "site", "kind"]
    body = rows[1:]
    assert len(body) == 2 * 20 and {r[0] for r in body} == {"default", "precise"}
    default = [r for r in body if r[0] == "default"]
    assert sorted(r[2] for r in default) == sorted({r[2] for r in default})  # each page once
    assert {r[1] for r in default} == {"w", "v"} and {r[3] for r in default} == {"article", "forum"}
    # each page's kind as its fold model's own page-kind model estimated it ('' where the
    # fold had too few typed pages or sites to fit one)
    assert {r[10] for r in body} <= {*KINDS, ""}
    # the table's rounded figure and the unrounded mean of the corpora come from these rows
    table = {ln.split(" | ")[0][2:]: ln.split(" | ") for ln in out.split("precise cut")[0].splitlines()
             if ln.startswith("| ")}
    f = {c: [float(r[6]) for r in default if r[1] == c] for c in ("w", "v")}
    assert abs(float(table["w"][5]) - np.mean(f["w"])) < 0.0006
    mean = out.split("precise cut")[0].split("mean of the 2 corpora's mean F1: ")[1].split()[0]
    assert mean == f"{(np.mean(f['w']) + np.mean(f['v'])) / 2:.4f}"


def test_pages_needs_cv(tmp_path: Path, capsys):
    root = make_typed_corpus(tmp_path / "w", n=4)
    assert main(["evaluate", str(root), "--pages", str(tmp_path / "p.tsv")]) == 2
    assert "with --cv only" in capsys.readouterr().err


def test_text_and_kind_records_only_the_models_own_page_kind(monkeypatch):
    from ce_filter.api import Extractor
    from ce_filter.learn.crossval import text_and_kind

    html = (b"<html><head><title>Harbour</title></head><body><article><h1>Harbour dredging</h1>"
            + b"<p>The council voted on harbour dredging on Tuesday after a long debate.</p>" * 6
            + b"</article></body></html>")
    url = "https://example.org/news/2024/harbour-dredging"
    ex = Extractor()
    kinds: list[str] = []
    fn = text_and_kind(ex, kinds)
    assert fn(html, url) == ex.extract(html, url=url).text
    assert fn(b"", None) == ""  # a page with no text: an entry all the same
    assert len(kinds) == 2 and kinds[0] in KINDS and kinds[1] == ""
    # a model without its own page-kind model borrows the shipped one: not its estimate
    monkeypatch.setattr(ex.model, "pagekind", None)
    borrowed: list[str] = []
    assert text_and_kind(ex, borrowed)(html, url) == ex.extract(html, url=url).text
    assert borrowed == [""]
