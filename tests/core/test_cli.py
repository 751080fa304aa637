"""The CLI's extract/train/evaluate on a tiny corpus made in the test."""

import json
import sys

import pytest

from ce_filter.cli import main
from ce_filter.model import Model

from .test_api import ARTICLE, PARAS


def make_corpus(root, n=12):
    (root / "html").mkdir(parents=True)
    (root / "gold").mkdir()
    for i in range(n):
        html = ARTICLE.replace("Council", f"Council{i}")
        (root / "html" / f"{i}.html").write_text(html)
        (root / "gold" / f"{i}.txt").write_text(f"Council{i} expands bike lanes\n\n" + "\n\n".join(PARAS))
    return root


def test_extract_file_and_jsonl(tmp_path, capsys):
    f = tmp_path / "a.html"
    f.write_text(ARTICLE)
    assert main(["extract", str(f)]) == 0
    assert PARAS[0] in capsys.readouterr().out
    assert main(["extract", "--format", "jsonl", str(f), str(f)]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(rows) == 2 and rows[0]["blocks_kept"] > 0 and rows[0]["source"] == str(f)


def test_extract_stdin(monkeypatch, capsys):
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(ARTICLE.encode())))
    assert main(["extract"]) == 0
    assert PARAS[1] in capsys.readouterr().out


def test_train_is_reproducible_and_evaluate(tmp_path, capsys):
    pytest.importorskip("sklearn")
    corpus = make_corpus(tmp_path / "c")
    outs = []
    for k in range(2):
        out = tmp_path / f"m{k}.json"
        assert main(["train", str(corpus), "--out", str(out), "--config", "st+ic+cetr"]) == 0
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]
    m = Model.load(tmp_path / "m0.json")
    assert m.meta["data"]["pages"] == 12
    assert main(["evaluate", str(corpus), "--model", str(tmp_path / "m0.json")]) == 0
    table = capsys.readouterr().out
    assert "| c | 12 |" in table
