"""The article-precision study (learn.articlestudy) on a tiny synthetic dump: the allocation of
false-positive tokens, the article's span, the categories and the tables."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ce_filter.read.segment import FLAG_NAMES, HEADINGS
from research import articlestudy as st

P = 1 << FLAG_NAMES.index("p")
GOLD = ("Storm hits the coast\n\nThe storm reached the coast on Monday night and cut power to "
        "ten thousand homes.\n\nCrews worked through the night to restore the lines.")


def record(texts: list[str], keep: list[int], links: list[int] | None = None, **kw: Any
           ) -> dict[str, Any]:
    n = len(texts)
    words = [len(st.words(t)) for t in texts]
    rec = {"id": "t/1", "corpus": "newspaper", "page_type": "article", "lang": "en", "fold": -1,
           "gold": GOLD, "f1": 0.9, "blocks": n, "keep": keep, "score": [0.9] * n, "text": texts,
           "tag": [0] * n, "depth": [3] * n, "flags": [P] * n, "words": words,
           "links": links if links is not None else [0] * n}
    rec.update(kw)
    return rec


PAGE = [
    "Home News Sport",                                            # 0 nav, dropped
    "By Jane Smith, March 3, 2024",                               # 1 byline, kept: FP
    "Storm hits the coast",                                       # 2 gold
    "The storm reached the coast on Monday night and cut power to ten thousand homes.",  # 3
    "Crews worked through the night to restore the lines.",      # 4 gold
    "Share on Facebook Twitter",                                  # 5 share, kept: FP
    "Related: Flood warnings issued for the valley",              # 6 teaser, kept: FP
    "Ten ways to save on heating this winter",                    # 7 link list after, kept: FP
]


def test_fp_tokens_add_up_to_the_page_metric() -> None:
    from ce_filter.learn.evaluate import token_prf

    kept = [1, 2, 3, 4, 5, 6, 7]
    texts = [PAGE[i] for i in kept]
    n, fp, _ = st.block_fp(texts, GOLD)
    p, _, _ = token_prf("\n".join(texts), GOLD)
    assert sum(n) - sum(fp) == pytest.approx(p * sum(n))
    assert fp[1:4] == [0, 0, 0]  # the article's own blocks take their words first
    assert fp[0] == n[0] and fp[4] == n[4]


def test_categories_and_span() -> None:
    rec = record(PAGE, [0, 1, 1, 1, 1, 1, 1, 1], links=[0, 0, 0, 0, 0, 0, 5, 7])
    views = dict(st.page_blocks(rec))
    assert [views[i].pos for i in (1, 2, 4, 5, 7)] == ["before", "inside", "inside", "after", "after"]
    cats = {i: st.categorise(v) for i, v in views.items() if v.fp}
    assert cats == {1: "date / byline line", 5: "share / social / subscribe",
                    6: "related teaser", 7: "related teaser"}  # 7: a link list after the article
    # without link counts the unmarked list after the article is only "after"
    rec2 = record(PAGE, [0, 1, 1, 1, 1, 1, 1, 1])
    rec2.pop("links")
    assert st.categorise(dict(st.page_blocks(rec2))[7]) == "other after the article"


def test_second_copy_and_comments() -> None:
    copy = "The storm reached the coast on Monday night and cut power"
    rec = record(PAGE[:5] + [copy, "I think the crews did great work, thanks"], [0, 0, 1, 1, 1, 1, 1])
    views = dict(st.page_blocks(rec, comments="I think the crews did great work, thanks to them"))
    assert st.categorise(views[5]) == "second copy of article text"
    assert st.categorise(views[6]) == "user comments (corpus's comment gold)"


def test_cjk_group_and_article_filter() -> None:
    assert st.group_of(record(PAGE, [1] * 8, lang="zh")) == "newspaper (CJK)"
    assert st.group_of(record(PAGE, [1] * 8, lang="", gold="风暴袭击了海岸")) == "newspaper (CJK)"
    assert st.group_of(record(PAGE, [1] * 8)) == "newspaper"
    assert not st.is_article(record(PAGE, [1] * 8, corpus="wcxb-dev", page_type="forum"))
    assert st.is_article(record(PAGE, [1] * 8, corpus="dragnet train", page_type=""))
    assert st.is_article(record(PAGE, [1] * 8, corpus="dragnet test", page_type=""))
    assert not st.is_article(record(PAGE, [1] * 8, corpus="cleaneval-dev", page_type=""))


def test_cli_tables(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = tmp_path / "a.jsonl.gz"
    alt = tmp_path / "b.jsonl.gz"
    with gzip.open(base, "wt", encoding="utf-8") as f:
        f.write(json.dumps(record(PAGE, [0, 1, 1, 1, 1, 1, 1, 1], links=[0] * 6 + [5, 7])) + "\n")
        f.write(json.dumps(record(PAGE, [1] * 8, corpus="wcxb-dev", page_type="forum")) + "\n")
    with gzip.open(alt, "wt", encoding="utf-8") as f:
        f.write(json.dumps(record(PAGE, [0, 0, 1, 1, 1, 1, 0, 0], links=[0] * 6 + [5, 7])) + "\n")
    assert st.main([str(base)]) == 0
    out = capsys.readouterr().out
    assert "| pages | 1 |" in out and "related teaser" in out and "“Ten ways to save" in out
    assert st.main([str(base), "--against", str(alt)]) == 0
    out = capsys.readouterr().out
    assert "| related teaser | " in out and " → " in out
    empty = tmp_path / "c.jsonl.gz"
    with gzip.open(empty, "wt", encoding="utf-8") as f:
        f.write(json.dumps(record(PAGE, [1] * 8, corpus="wcxb-dev", page_type="forum")) + "\n")
    assert st.main([str(empty)]) == 1
    assert st.main([str(tmp_path / "missing.gz")]) == 2


def test_headings_constant_is_a_tag_set() -> None:
    assert HEADINGS and all(isinstance(t, int) for t in HEADINGS)


def test_held_out_dump_with_site_memory(tmp_path: Path) -> None:
    """oofdump --model: every page by one model, fold -1; with the site memory, pages grouped
    by site and the link counts recorded."""
    from ce_filter.learn.corpus import Doc
    from research.oofdump import held_out

    html = "<html><body><nav><a href='/'>Home</a></nav><p>{}</p><p>Share this story</p></body></html>"
    docs = [Doc(f"n/{i}", html.format(f"Article number {i} tells a long story about the storm "
                                      "and the coast and the crews.").encode(),
                f"Article number {i} tells a long story", domain=d, url=f"http://{d}/{i}")
            for i, d in enumerate(["b.example", "a.example", "b.example"])]
    assert held_out(docs, ["n"] * 3, "default", True, str(tmp_path)) == 0
    with gzip.open(tmp_path / "pages.jsonl.gz", "rt", encoding="utf-8") as f:
        recs = [json.loads(line) for line in f]
    assert [r["id"] for r in recs] == ["n/1", "n/0", "n/2"]  # by site, then id
    assert all(r["fold"] == -1 and len(r["links"]) == r["blocks"] for r in recs)
    assert recs[0]["links"][recs[0]["text"].index("Home")] == 1


def test_after_runs_drops_unsure_runs_after_the_main_one() -> None:
    from research.afterrule import after_runs

    keep = np.array([1, 0, 1, 1, 1, 0, 0, 1, 1, 0, 1], dtype=bool)
    score = np.array([.6, .1, .9, .9, .8, .1, .1, .45, .5, .2, .95])
    words = np.array([5, 30, 40, 50, 30, 10, 20, 8, 6, 40, 9], dtype=float)
    # runs at gaps of >= 25 dropped words: {0}, {2, 3, 4}, {7, 8}, {10}; the main one is {2, 3, 4}
    drop = after_runs(keep, score, words, 25, 0.6)
    assert drop.tolist() == [0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0]  # {10} is sure, {0} is before
    assert not after_runs(keep, score, words, 1000, 0.99).any()  # one run: nothing after it
    assert after_runs(keep, score, words, 25, 1.01).sum() == 3
    assert not after_runs(np.zeros(3, bool), score[:3], words[:3], 5, 1.0).any()


def test_afterrule_cli_on_a_tiny_dump(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from research import afterrule

    path = tmp_path / "p.jsonl.gz"
    teaser = "Ten ways to save on heating this winter and more"
    with gzip.open(path, "wt", encoding="utf-8") as f:
        for k in range(3):
            rec = record(PAGE[2:5] + ["Ads here", teaser], [1, 1, 1, 0, 1], fold=k,
                         kind=[0.9] + [0.1 / 6] * 6, score=[0.9, 0.9, 0.9, 0.1, 0.4])
            rec["words"][3] = 30
            f.write(json.dumps(rec) + "\n")
    assert afterrule.main([str(path), "--confirm", str(path), "--write", str(tmp_path / "w")]) == 0
    out = capsys.readouterr().out
    assert "| article pages (pooled) | 3 |" in out and "+0." in out  # the teaser dropped
    pages = afterrule.load(str(path))
    assert pages[0].is_article_kind and pages[0].prf(pages[0].keep)[0] < 1.0
    written = afterrule.load(str(tmp_path / "w" / (tmp_path.name + ".jsonl.gz")))
    assert [p.keep.tolist() for p in written] == [[True, True, True, False, False]] * 3


def test_site_bootstrap_pairs_pages_and_moves_sites_together() -> None:
    base = [dict(record(PAGE, [1] * 8, site=s, f1=0.5), id=f"t/{i}")
            for i, s in enumerate(["a", "a", "b", "c"])]
    alt = [dict(r, f1=0.6 if r["site"] == "a" else 0.5) for r in base]
    out = st.site_bootstrap(base, alt + [dict(alt[0], id="t/x")], 200)
    row = next(line for line in out.splitlines() if line.startswith("| newspaper |"))
    assert "| 4 | 3 | +0.0500 |" in row  # two of four pages up by 0.1; sites a, b, c
    lo, hi = (float(x) for x in row.split("|")[5].split("…"))
    assert 0.0 <= lo <= 0.05 <= hi <= 0.1


def test_score_table() -> None:
    rec = record(PAGE, [0, 1, 1, 1, 1, 1, 1, 1], links=[0] * 6 + [5, 7],
                 score=[0.1, 0.95, 0.9, 0.9, 0.9, 0.8, 0.6, 0.5])
    out = st.score_table([rec])
    assert "| matched blocks (no FP token) | 28 | 100% | 100% |" in out
    assert "| related teaser |" in out and "| date / byline line | 6 | 100% | 100% |" in out
