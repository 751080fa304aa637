"""Quality on the labelled corpora (skip with a reason where ../shared/data is absent).

The floors are regression guards a little under the measured figures in docs/RESULTS.md;
the issue bars are listed there next to what was reached.
"""

import json
import subprocess
import sys

import pytest

from ce_filter import Extractor
from ce_filter.learn.blas import pinned_env
from ce_filter.learn.corpus import load_corpus
from ce_filter.learn.evaluate import evaluate, text_fn
from ce_filter.score.blockmodel import load_default

FLOORS = {  # corpus, split -> (min mean F1, max empty pages)
    ("dragnet", "test"): (0.89, 2),
    ("cleaneval-final", None): (0.91, 3),
    ("readability", None): (0.86, 1),
    ("cleanportaleval", None): (0.85, 1),  # 0.864 since wcxb-dev is in the training data
    # Chinese and Japanese scored a character a token; none of these pages is trained on
    ("zh-finance", None): (0.93, 2),  # 0.938
    ("big5", None): (0.95, 1),  # 0.964
    ("magic-html", None): (0.79, 3),  # 0.805
    ("zh-content", None): (0.88, 1),  # 0.891
}


@pytest.mark.corpus
@pytest.mark.parametrize("corpus,split", list(FLOORS))
def test_shipped_model_quality(data_dir, corpus, split):
    ex = Extractor()
    s = evaluate(text_fn(ex), load_corpus(data_dir / corpus, split))
    floor, max_empty = FLOORS[(corpus, split)]
    assert s.mean_f1 >= floor, s.as_dict()
    assert s.empty <= max_empty, s.as_dict()


@pytest.mark.corpus
def test_comments_model_keeps_comments(data_dir):
    docs = [d for d in load_corpus(data_dir / "dragnet", "test") if len(d.comments) > 500][:40]
    plain, withc = Extractor(), Extractor(comments=True)
    a = evaluate(text_fn(plain), docs, comments=True)
    b = evaluate(text_fn(withc), docs, comments=True)
    assert b.recall > a.recall + 0.05


@pytest.mark.corpus
@pytest.mark.heavy
def test_shipped_model_rebuilds_bit_for_bit(data_dir, tmp_path):
    pytest.importorskip("sklearn")
    out = tmp_path / "content.json"
    meta = load_default("content").meta
    corpora = [str(data_dir / c.split(":")[0]) + (":" + c.split(":")[1] if ":" in c else "")
               for c in meta["data"]["corpora"]]
    cmd = [sys.executable, "-m", "ce_filter.cli", "train", *corpora, "--target", "content",
           "--config", meta["data"]["config"], "--out", str(out)]
    # the kernel the shipped model was fitted with, whatever this environment chose
    subprocess.run(cmd, check=True, capture_output=True, env=pinned_env(force=True))
    shipped = load_default("content").dumps()
    rebuilt = json.loads(out.read_text())
    if rebuilt["meta"]["libraries"] != meta["libraries"]:
        # other numpy/scikit-learn numerics, BLAS kernel or CPU vector unit (learn/blas.py):
        # the same model, not the same bytes
        _assert_same_model(rebuilt, json.loads(shipped), rtol=1e-5)
        pytest.xfail(f"libraries {rebuilt['meta']['libraries']} differ from the shipped model's "
                     f"{meta['libraries']}: equal to 1e-5, not bit-for-bit")
    assert rebuilt == json.loads(shipped)
    assert out.read_text() == shipped


@pytest.mark.corpus
def test_shipped_site_stage_rebuilds_bit_for_bit(data_dir, tmp_path):
    """models/content-site.json (the site memory's stage, on by default in warc, worker, crawl
    and Spark) from its command in docs/research/SITE_MEMORY.md: the out-of-fold run, the
    adoption rule and the fit on all pages give the shipped file byte for byte."""
    from importlib import resources

    shipped_path = resources.files("ce_filter") / "models" / "content-site.json"
    shipped = shipped_path.read_text(encoding="utf-8")
    meta = json.loads(shipped)["meta"]
    out = tmp_path / "content-site.json"
    cmd = [sys.executable, "-m", "ce_filter.learn.sitefit", "fit",
           *(str(data_dir / c) for c in meta["corpora"]), "--out", str(out)]
    r = subprocess.run(cmd, check=True, capture_output=True, text=True, env=pinned_env(force=True))
    report = json.loads(r.stdout[: r.stdout.index("\n}\n") + 3])  # the out-of-fold figures
    assert report["adopted"] is True and report["oof"]["all"]["pages"] == meta["pages"]
    assert out.read_text(encoding="utf-8") == shipped


def _assert_same_model(a: dict, b: dict, rtol: float) -> None:
    import numpy as np

    for stage in ("stage1", "stage2"):
        assert (a[stage] is None) == (b[stage] is None)
        if a[stage] is None:
            continue
        for k in ("mean", "scale", "coef", "intercept"):
            np.testing.assert_allclose(a[stage][k], b[stage][k], rtol=rtol, atol=1e-9)
    assert a["features"] == b["features"] and a["threshold"] == b["threshold"]


@pytest.mark.corpus
def test_c_walk_equals_python_walk_on_every_corpus_page(data_dir):
    """Every page of every corpus: the walk's blocks are its oracle's (the Python walk of
    tests/oracles/walk_python.py), field for field."""
    from ce_filter.read import segment as S
    from ce_filter.read.decode import decode_html
    from tests.oracles import walk_python
    pages = 0
    differ = []
    for corpus in sorted(p for p in data_dir.iterdir() if (p / "html").is_dir()):
        for doc in load_corpus(corpus):  # every page with gold, gzipped ones (wcxb-dev) too
            html, _ = decode_html(doc.html)
            pages += 1
            if not S.segment(S.parse(html)).same_as(walk_python.walk(html)):
                differ.append(f"{corpus.name}/{doc.id}")
    assert pages > 3000 and not differ, (pages, differ[:10])
