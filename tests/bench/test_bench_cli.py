"""``ce-filter bench`` on what is not a corpus: one line and exit 2, never a traceback; and
where a bare corpus name is looked up (never inside the installed package)."""

from __future__ import annotations

from pathlib import Path

import pytest
from ce_filter.bench import pages

from ce_filter.cli import main


@pytest.fixture(autouse=True)
def no_data_env(monkeypatch):
    monkeypatch.delenv("CE_FILTER_DATA", raising=False)


def _one_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


def test_a_folder_without_the_corpus_layout_is_one_line(tmp_path, capsys):
    (tmp_path / "pages").mkdir()
    (tmp_path / "pages" / "a.html").write_text("<p>x</p>")
    assert main(["bench", str(tmp_path / "pages"), "--no-write", "--tools", "ce-filter"]) == 2
    assert "no html/ under" in _one_line(capsys)


@pytest.mark.parametrize("mode", [["--sections", "speed,stages,memory"], ["--sections", "memory"],
                                  ["--quality", "--jobs", "1"]])
def test_html_without_gold_is_one_line(tmp_path, capsys, mode):
    (tmp_path / "c" / "html").mkdir(parents=True)
    (tmp_path / "c" / "html" / "a.html").write_text("<p>x</p>")
    assert main(["bench", str(tmp_path / "c"), "--no-write", "--tools", "ce-filter", *mode]) == 2
    assert "no page with both html/ID.html and gold/ID.txt" in _one_line(capsys)


def test_a_split_with_no_pages_is_one_line(mini_corpus, capsys):
    assert main(["bench", f"{mini_corpus}:nosuchsplit", "--no-write", "--tools", "ce-filter"]) == 2
    assert "in split 'nosuchsplit'" in _one_line(capsys)


def test_the_data_root_is_beside_the_current_directory_not_the_package(tmp_path, monkeypatch, mini_corpus):
    assert pages.data_root() == Path("..") / "shared" / "data"  # relative: no site-packages path
    # a bare name is found under ../shared/data of where the command runs
    data = tmp_path / "shared" / "data"
    data.mkdir(parents=True)
    (data / "mini").symlink_to(mini_corpus)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert pages.resolve("mini:test")[1] == "test"
    assert pages.absolute("mini:test") == f"{(data / 'mini').resolve()}:test"
    monkeypatch.setenv("CE_FILTER_DATA", str(tmp_path / "elsewhere"))
    with pytest.raises(FileNotFoundError, match="set CE_FILTER_DATA or give a path"):
        pages.resolve("mini")
