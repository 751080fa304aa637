"""``ce-filter extract`` over many inputs: ``-i FILE``, ``-o DIR`` (one file per input, named
from it), ``--keep-dirs``, and ``--target-language`` (API, CLI and option checks)."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from ce_filter import Extractor
from ce_filter.batch import OutputDir, read_input_file
from ce_filter.cli import main
from ce_filter.options import ExtractOptions, UsageError, language_code
from ce_filter.record import validate

from .test_api import ARTICLE

GERMAN = ("<html><body><article>" + "<p>Die Stadtverwaltung hat am Montag bekannt gegeben, dass die neue "
          "Brücke über den Fluss im kommenden Frühjahr eröffnet werden soll. Die Bauarbeiten hatten sich "
          "wegen schlechten Wetters um mehrere Monate verzögert.</p>" * 4 + "</article></body></html>")


@pytest.fixture(autouse=True)
def no_ce_filter_env(monkeypatch):
    for k in [k for k in os.environ if k.startswith("CE_FILTER_")]:
        monkeypatch.delenv(k)


@pytest.fixture
def pages(tmp_path):
    root = tmp_path / "in"
    for rel in ("a/index.html", "b/index.html", "b/deep/story.htm"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(ARTICLE.replace("Council", f"Council of {rel}"))
    (root / "de.html").write_text(GERMAN)
    return root


# ------------------------------------------------------------------ -i / -o / --keep-dirs


def test_input_file_and_output_dir_one_file_per_input(tmp_path, pages, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    listing = tmp_path / "list.txt"
    listing.write_text("# pages to clean\nin/a/index.html\n\n  in/b/index.html  \nin/nowhere.html\n")
    out = tmp_path / "out"
    assert main(["extract", "-q", "-i", str(listing), "in/de.html", "-o", str(out)]) == 2  # one missing
    err = capsys.readouterr().err
    assert "in/nowhere.html: no such file or directory" in err
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    # named from each input, .txt for text; the second index.html does not overwrite the first
    assert files == ["de.txt", "index-2.txt", "index.txt"]
    assert "Council of a/index.html" in (out / "index.txt").read_text()
    assert "Council of b/index.html" in (out / "index-2.txt").read_text()
    assert "Brücke" in (out / "de.txt").read_text()
    assert capsys.readouterr().out == ""  # nothing printed: it went to the files


def test_keep_dirs_keeps_the_folders_below_the_directory_given(tmp_path, pages, capsys):
    out = tmp_path / "out"
    assert main(["extract", "-q", str(pages), "-o", str(out), "--keep-dirs", "--format", "jsonl"]) == 0
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert files == ["a/index.jsonl", "b/deep/story.jsonl", "b/index.jsonl", "de.jsonl"]
    rec = json.loads((out / "b/deep/story.jsonl").read_text())
    assert rec["source"]["name"].endswith("story.htm") and validate(rec) == []


@pytest.mark.parametrize("fmt,ext", [("text", ".txt"), ("markdown", ".md"), ("html", ".html"),
                                     ("jsonl", ".jsonl")])
def test_extension_by_format(tmp_path, pages, fmt, ext):
    out = tmp_path / fmt
    assert main(["extract", "-q", str(pages / "a" / "index.html"), "-o", str(out), "--format", fmt]) == 0
    assert [p.name for p in out.iterdir()] == [f"index{ext}"]


def test_output_names_of_urls_stdin_and_files_stay_inside_the_directory(tmp_path):
    d = OutputDir(str(tmp_path / "o"), "markdown", specs=[])
    k = OutputDir(str(tmp_path / "k"), "markdown", keep_dirs=True, specs=[])

    def page(name, source="file"):
        return SimpleNamespace(source_name=name, url="", source=source)

    url = page("https://news.example/2024/03/story.html?id=7", "fetch")
    assert d.name(url) == Path("news.example_2024_03_story_id_7")
    assert k.name(url) == Path("news.example/2024/03/story_id_7")
    assert d.name(page("https://news.example/", "fetch")) == Path("news.example_index")
    assert d.name(page("-")) == Path("stdin")
    # a file given with .. or an absolute path never writes outside the output directory
    assert k.name(page("../../etc/x.html")) == Path("etc/x")
    assert k.name(page("/tmp/a b/x.html")) == Path("tmp/a_b/x")
    assert d.path_for(page("x.html")) == tmp_path / "o" / "x.md"
    assert d.path_for(page("y/x.html")) == tmp_path / "o" / "x-2.md"


def test_output_never_goes_through_a_link_nor_replaces_a_file(tmp_path, pages, capsys):
    """A link in the output folder (to a file or a folder outside it) is never written through,
    and a file already there is never replaced: the output gets the next free name, with a note."""
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (elsewhere / "index.txt").write_text("theirs")
    (out / "index.txt").symlink_to(elsewhere / "index.txt")
    (out / "de.txt").write_text("mine")
    two = [str(pages / "a" / "index.html"), str(pages / "de.html")]
    assert main(["extract", "-q", *two, "-o", str(out)]) == 0
    assert (elsewhere / "index.txt").read_text() == "theirs" and (out / "index.txt").is_symlink()
    assert (out / "de.txt").read_text() == "mine"
    assert "Council of a/index.html" in (out / "index-2.txt").read_text()
    assert "Brücke" in (out / "de-2.txt").read_text()
    err = capsys.readouterr().err
    assert f"a file had its output's name; written to {out / 'de-2.txt'}" in err
    # --overwrite replaces the name itself: the link goes, its target stays as it was
    assert main(["extract", "-q", *two, "-o", str(out), "--overwrite"]) == 0
    assert not (out / "index.txt").is_symlink()
    assert "Council of a/index.html" in (out / "index.txt").read_text()
    assert (elsewhere / "index.txt").read_text() == "theirs" and "Brücke" in (out / "de.txt").read_text()
    assert sorted(p.name for p in out.iterdir()) == ["de-2.txt", "de.txt", "index-2.txt", "index.txt"]


def test_keep_dirs_never_follows_a_linked_folder_out(tmp_path, pages, capsys):
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (out / "b").symlink_to(elsewhere, target_is_directory=True)
    assert main(["extract", "-q", str(pages), "-o", str(out), "--keep-dirs"]) == 2  # b/'s two pages fail
    assert list(elsewhere.iterdir()) == []
    err = capsys.readouterr().err
    assert err.count("cannot write its output") == 2 and "links are not followed" in err
    assert (out / "a" / "index.txt").exists() and (out / "de.txt").exists()


def test_a_page_without_text_prints_its_note_on_stderr_only(tmp_path, capsys):
    f = tmp_path / "empty.html"
    f.write_text("<html><body><script>x()</script></body></html>")
    assert main(["extract", str(f)]) == 0
    cap = capsys.readouterr()
    assert cap.out == "" and f"ce-filter: note: {f}: no text (no text in page)" in cap.err


def test_a_page_without_text_gets_no_file_and_a_note(tmp_path, pages, capsys):
    out = tmp_path / "out"
    assert main(["extract", "-q", str(pages / "de.html"), str(pages / "a" / "index.html"), "-o", str(out),
                 "--target-language", "en"]) == 0
    assert [p.name for p in out.iterdir()] == ["index.txt"]
    assert "de.html: no text (language de, not the target en), no file written" in capsys.readouterr().err


@pytest.mark.parametrize("args,line", [
    (["--keep-dirs", "x.html"], "--keep-dirs goes with --output-dir DIR"),
    (["-i", "NOWHERE.txt"], "--input-file NOWHERE.txt: No such file or directory"),
    (["-i", "EMPTY.txt"], "--input-file EMPTY.txt: no URL or path in it (one a line)"),
    (["x.html", "-o", "FILE.txt"], "--output-dir FILE.txt: exists and is not a directory"),
    (["x.html", "--target-language", "english"], "'english' is not an ISO 639-1 language code"),
])
def test_batch_mistakes_are_one_line(tmp_path, monkeypatch, capsys, args, line):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "EMPTY.txt").write_text("# nothing\n\n")
    (tmp_path / "FILE.txt").write_text("x")
    (tmp_path / "x.html").write_text(ARTICLE)
    with pytest.raises(SystemExit) if "english" in line else contextlib.nullcontext():  # argparse's own
        assert main(["extract", *args]) == 2
    err = capsys.readouterr().err
    assert line in err and len(err.strip().splitlines()) == 1, err


def test_read_input_file_skips_blank_and_comment_lines(tmp_path):
    f = tmp_path / "l.txt"
    f.write_bytes("\ufeffhttps://a.example/\r\n# c\r\n\r\n x.html \r\n".encode())
    assert read_input_file(str(f)) == ["https://a.example/", "x.html"]
    f.write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(UsageError, match="not UTF-8"):
        read_input_file(str(f))


# ------------------------------------------------------------------ --target-language


def test_target_language_in_the_api():
    de = Extractor(target_language="EN").extract(GERMAN)
    assert de.text == "" and de.reason == "language de, not the target en" and de.language == "de"
    assert de.blocks_kept == 0 and de.to_markdown().strip() == ""
    assert Extractor(target_language="de").extract(GERMAN).text  # the right language keeps its text
    en = Extractor(target_language="en").extract(ARTICLE)
    assert en.text and not en.reason
    # without the metadata rules the language is still identified for the check
    nm = Extractor(target_language="en", metadata=False).extract(GERMAN)
    assert nm.text == "" and nm.reason == "language de, not the target en"


def test_target_language_with_an_unknown_language_keeps_the_text(monkeypatch):
    import ce_filter.extractor as extractor

    monkeypatch.setattr(extractor, "metadata_rules", lambda: (lambda *a: SimpleNamespace(lang=""), None,
                                                         lambda text, lang: ""))
    r = Extractor(target_language="en", metadata=False).extract(GERMAN)
    assert r.text and not r.reason


def test_target_language_option_everywhere(monkeypatch, capsys, tmp_path):
    assert language_code("pt_BR") == "pt" and language_code(" EN-us ") == "en"
    for bad in ("eng", "e", "", "1a", "ée"):
        with pytest.raises(ValueError, match="ISO 639-1"):
            language_code(bad)
    o = ExtractOptions(target_language="DE")
    assert o.target_language == "de" and o.extractor().target_language == "de"
    assert ExtractOptions.from_settings({"CE_FILTER_TARGET_LANGUAGE": "fr"}).target_language == "fr"
    assert o.settings()["CE_FILTER_TARGET_LANGUAGE"] == "de"
    with pytest.raises(UsageError, match="CE_FILTER_TARGET_LANGUAGE"):
        ExtractOptions.from_settings({"CE_FILTER_TARGET_LANGUAGE": "german"})
    page = tmp_path / "de.html"
    page.write_text(GERMAN)
    monkeypatch.setenv("CE_FILTER_TARGET_LANGUAGE", "en")  # the variable, as every option has one
    assert main(["extract", "--format", "jsonl", str(page)]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["text"] == "" and rec["reason"] == "language de, not the target en" and validate(rec) == []


def test_target_language_reaches_the_pipeline_stages(tmp_path, capsys):
    pytest.importorskip("warcio", reason="warcio not installed (pip install 'ce-filter[warc]')")
    sample = Path(__file__).resolve().parents[2] / "samples" / "sample.warc.gz"
    out = tmp_path / "de.jsonl"
    assert main(["warc", str(sample), "--to", f"jsonl:{out}", "--target-language", "de", "-q"]) == 0
    recs = [json.loads(ln) for ln in out.read_text().splitlines()]
    english = [r for r in recs if r["language"] == "en"]
    assert english
    assert all(r["text"] == "" and r["reason"] == "language en, not the target de" for r in english)
