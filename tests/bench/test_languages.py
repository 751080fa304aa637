"""``python -m benchmarks.languages`` on a tiny synthetic corpus: the non-English article pages
grouped by the language pages.tsv gives, small languages pooled, English and forum pages left
out, and the table written into the doc's generated section."""

from __future__ import annotations

from pathlib import Path

from ce_filter.bench import languages

PARA = ("Der Gemeinderat hat am Dienstag nach einer langen Debatte über Kosten und Zeitplan "
        "beschlossen, den Hafen im kommenden Frühjahr auszubaggern und die Anwohner anzuhören.")


def _corpus(root: Path) -> None:
    (root / "html").mkdir(parents=True)
    (root / "gold").mkdir()
    rows = ["id\tsite\turl\tyear\tkind\tlang"]
    pages = [(f"de{i}", "article", "de") for i in range(5)] + [
        ("fr0", "article", "fr"), ("en0", "article", "en"), ("de-forum", "forum", "de")]
    for pid, kind, lang in pages:
        body = f"<h1>Titel {pid}</h1>" + f"<p>{PARA}</p>" * 4
        html = (f"<html lang='{lang}'><head><meta charset='utf-8'></head><body><article>{body}"
                "</article><div class='sidebar'><h3>Ähnliche Beiträge</h3><ul><li><a href='/x'>"
                "Ein anderer Artikel</a></li></ul></div></body></html>")
        (root / "html" / f"{pid}.html").write_text(html, encoding="utf-8")
        (root / "gold" / f"{pid}.txt").write_text(f"Titel {pid}\n\n" + "\n\n".join([PARA] * 4),
                                                  encoding="utf-8")
        rows.append(f"{pid}\tsite{pid}\thttps://example.org/{pid}\t\t{kind}\t{lang}")
    (root / "pages.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")


def test_the_table_per_language(tmp_path, capsys):
    _corpus(tmp_path / "c")
    doc = tmp_path / "OUT.md"
    doc.write_text("# Notes\n\nhand-written\n", encoding="utf-8")
    assert languages.main(["--data", str(tmp_path), "--corpora", "c", "--tools", "ce-filter",
                           "--doc", str(doc)]) == 0
    out = capsys.readouterr().out
    lines = {ln.split(" | ")[0].strip("| "): ln for ln in out.splitlines() if ln.startswith("| ")}
    assert "| 5 | c |" in lines["de"]  # the forum page and the English one are left out
    assert "| 1 | c |" in lines["other (fr)"]
    assert "| 6 | c |" in lines["all non-English"]
    f1 = float(lines["de"].rstrip(" |").split(" | ")[-1])
    assert 0 < f1 <= 1
    text = doc.read_text(encoding="utf-8")
    assert "hand-written" in text and "<!-- BEGIN generated:languages -->" in text


def test_no_pages_is_exit_2(tmp_path):
    assert languages.main(["--data", str(tmp_path), "--corpora", "c", "--no-write"]) == 2
