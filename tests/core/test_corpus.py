"""Reading a labelled corpus: the gold is what the corpus authors meant, not how it was cut."""

from __future__ import annotations

from pathlib import Path

from ce_filter.learn.corpus import load_corpus, repair_gold
from ce_filter.learn.evaluate import token_prf


def _corpus(root: Path, pages: dict[str, tuple[bytes, bytes]]) -> Path:
    (root / "html").mkdir(parents=True)
    (root / "gold").mkdir()
    for pid, (html, gold) in pages.items():
        (root / "html" / f"{pid}.html").write_bytes(html)
        (root / "gold" / f"{pid}.txt").write_bytes(gold)
    return root


def test_character_references_in_the_gold_are_text() -> None:
    gold = "Team&#8217;s owner &#8220;don&#039;t&#8221; &amp; &rsquo;&#x2014;"
    assert repair_gold(gold) == "Team\u2019s owner \u201cdon't\u201d & \u2019\u2014"
    # what an extractor outputs for that sentence now matches it word for word
    assert token_prf("Team\u2019s owner \u201cdon't\u201d", repair_gold(gold))[1] == 1.0


def test_text_that_only_looks_like_a_reference_stays() -> None:
    for text in ("AT&T", "&notice", "a & b", "&#;", "R&D;"):
        assert repair_gold(text) == text


def test_leftover_cleaneval_marks_go_but_markup_quoted_in_an_article_stays() -> None:
    assert repair_gold("Figure 2. <p>Equilibrium <l>curve <H>x").split() == \
        ["Figure", "2.", "Equilibrium", "curve", "x"]
    code = '<form action="p.php">\n  <!-- Rest of form here -->\n</form> <module> <pre>'
    assert repair_gold(code) == code
    # a mark closed later in the text is quoted markup (code in an article), not a CleanEval mark
    quoted = "echo '<p>Guru Speak!</p>';\n<p>Thanks!</p>"
    assert repair_gold(quoted) == quoted
    assert repair_gold("<p>mark <p>quoted</p>") == "<p>mark <p>quoted</p>"


def test_a_gold_that_is_only_a_comment_is_an_empty_gold() -> None:
    assert repair_gold("<!-- this page contains no article -->\n") == ""
    two = "<!-- a --> the article <!-- b -->"  # text between two comments is gold
    assert repair_gold(two) == two


def test_load_corpus_repairs_gold_and_reads_mangled_utf16(tmp_path: Path) -> None:
    utf16 = b"\xef\xbf\xbd\xef\xbf\xbd" + "Caf\u00e9 &amp; bar".encode("utf-16-le")
    root = _corpus(tmp_path / "c", {
        "a": (b"<p>x</p>", b"It&#039;s <p>here"),
        "b": (b"<p>y</p>", utf16),
        "c": (b"<p>z</p>", b"<!-- no article -->"),
    })
    golds = {d.id: d.gold for d in load_corpus(root)}
    assert golds == {"a": "It's  here", "b": "Caf\u00e9 & bar", "c": ""}


def test_load_corpus_reads_the_wcxb_layout(tmp_path: Path) -> None:
    """Gzipped pages, page type / domain / url from pages.tsv, snippets, meta."""
    import gzip

    from .typed_corpus import make_typed_corpus

    root = make_typed_corpus(tmp_path / "w", n=4)
    docs = list(load_corpus(root))
    assert [d.id for d in docs] == ["0000", "0001", "0002", "0003"]
    assert [d.page_type for d in docs] == ["article", "forum", "article", "forum"]
    assert docs[1].domain == "site1.example" and docs[1].url == "https://site1.example/p/1"
    assert docs[0].html == gzip.decompress((root / "html" / "0000.html.gz").read_bytes())
    assert docs[0].html.startswith(b"<html>") and "Council0" in docs[0].gold
    assert docs[1].must_not_have == ("Forum rules", "Log in") and len(docs[0].must_have) == 2
    assert docs[2].meta["title"] == "page 2" and docs[2].meta["author"] is None
    assert list(load_corpus(root, limit=2))[-1].id == "0001"


def test_a_corpus_without_the_extra_files_has_empty_fields(tmp_path: Path) -> None:
    root = _corpus(tmp_path / "c", {"a": (b"<p>x</p>", b"x")})
    (d,) = load_corpus(root)
    assert (d.page_type, d.domain, d.url, d.must_have, d.must_not_have, d.meta) == ("", "", "", (), (), {})


def test_load_corpus_reads_the_site_kind_lang_layout(tmp_path: Path) -> None:
    """magic-html, newspaper, zh-content, zh-finance, big5: ``id site url year kind lang``; the
    site is the CV group, the kind the page type."""
    import gzip

    root = tmp_path / "n"
    (root / "html").mkdir(parents=True)
    (root / "gold").mkdir()
    for pid in ("a", "b"):
        (root / "html" / f"{pid}.html.gz").write_bytes(gzip.compress(b"<p>\xe4\xb8\xad</p>"))
        (root / "gold" / f"{pid}.txt").write_text("中")
    (root / "pages.tsv").write_text("id\tsite\turl\tyear\tkind\tlang\n"
                                    "a\tBBC.com\thttp://bbc.com/x\t2005\tarticle\ten\n"
                                    "b\t\t\t\t\tzh\n")
    a, b = load_corpus(root)
    assert (a.domain, a.url, a.year, a.page_type, a.lang) == ("bbc.com", "http://bbc.com/x", "2005",
                                                             "article", "en")
    assert (b.domain, b.url, b.year, b.page_type, b.lang) == ("", "", "", "", "zh")
    assert a.html == "<p>中</p>".encode()
