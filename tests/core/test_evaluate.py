"""The metric's companions: snippet rates and tables per page type."""

from __future__ import annotations

from pathlib import Path

from ce_filter.cli import main
from ce_filter.learn.corpus import Doc
from ce_filter.learn.evaluate import Score, rows, snippet_hits

from .typed_corpus import make_typed_corpus


def test_snippets_match_across_white_space_case_sensitive_and_mid_word():
    out = "Intro line.\n\nThe pump   valve was\nreset by the tech-\nnician. Home"
    hits = snippet_hits(out, ["pump valve was reset", "was reset by the te", "PUMP", "absent words", "  "],
                        ["Home", "Log in", "valve", ""])
    # found: the first two (white space runs are one space; a snippet cut mid-word still
    # matches); not "PUMP" (case-sensitive); the empty snippet does not count
    assert hits == (2, 4, 1, 3)


def test_snippet_rates_pool_the_snippets_of_all_pages():
    s = Score()
    s.add("alpha beta", "alpha beta", Doc("1", b"", "", must_have=("alpha",), must_not_have=("beta",)))
    s.add("gamma", "gamma", Doc("2", b"", "", must_have=("gamma", "delta", "eps")))
    assert s.must_have_rate == 2 / 4 and s.must_not_have_rate == 0.0
    assert Score().must_have_rate is None
    plain = Score()
    plain.add("x", "x")  # a corpus without snippets has no rate
    assert plain.must_have_rate is None and plain.must_not_have_rate is None


def test_scores_by_page_type_and_merged_folds():
    a, b = Score("a"), Score("b")
    a.add("one two", "one two", Doc("1", b"", "", page_type="forum"))
    a.add("", "one two", Doc("2", b"", "", page_type="article"))
    b.add("one", "one two", Doc("3", b"", "", page_type="forum"))
    a.extend(b)
    by = a.by_type()
    assert list(by) == ["article", "forum"]  # the corpus's fixed order, not by name
    assert by["forum"].n == 2 and by["forum"].mean_f1 == (1.0 + 2 / 3) / 2
    assert by["article"].empty == 1 and a.empty == 1 and a.n == 3
    lines = rows("w", a)
    assert lines[0].startswith("| w | 3 |") and lines[1].startswith("| w: article | 1 |")
    d = a.as_dict()
    assert d["by_type"]["forum"]["pages"] == 2 and "by_type" not in d["by_type"]["forum"]


def test_evaluate_prints_a_row_per_page_type(tmp_path: Path, capsys):
    root = make_typed_corpus(tmp_path / "w", n=6)
    assert main(["evaluate", str(root)]) == 0
    out = capsys.readouterr().out.splitlines()
    body = [line for line in out if line.startswith("| w")]
    assert [line.split(" | ")[0] for line in body] == ["| w", "| w: article", "| w: forum"]
    assert [line.split(" | ")[1] for line in body] == ["6", "3", "3"]
    assert "must-have found" in out[0] and body[0].split(" | ")[-2] != "—"


def test_rows_per_language_site_and_year():
    """A corpus of a few sites with many pages each is shown per site, and per language and
    capture year where it has more than one; a corpus of many small sites is not shown per site."""
    s = Score("big")
    for i in range(40):
        d = Doc(str(i), b"", "", domain=f"s{i % 2}.com", lang="zh" if i < 10 else "en",
                year="2005" if i % 4 else "2017", page_type="article")
        s.add("one two" if i % 2 else "one", "one two", d)
    labels = [line.split(" | ")[0] for line in rows("big", s)]
    assert labels == ["| big", "| big: article", "| big: en", "| big: zh", "| big: s0.com",
                      "| big: s1.com", "| big: 2005", "| big: 2017"]
    assert s.by("site")["s1.com"].mean_f1 == 1.0 and s.by("site")["s0.com"].n == 20
    d = s.as_dict()
    assert set(d) >= {"by_type", "by_lang", "by_site", "by_year"}
    many = Score("many")
    for i in range(30):
        many.add("x", "x", Doc(str(i), b"", "", domain=f"s{i}.com", lang="en"))
    assert list(many.breakdowns()) == [] and len(rows("many", many)) == 1
    few = Score("few")  # many pages, but only two of them with a site: no site rows
    for i in range(30):
        few.add("x", "x", Doc(str(i), b"", "", domain=f"s{i}.com" if i < 2 else ""))
    assert "site" not in few.breakdowns()
