"""pyproject.toml and the README agree: the core dependencies the README names are exactly
pyproject's, every extra has its install line, the serve command is in the quick start, the
project URLs name real paths (no invented address), and the test extra brings the bench's
peers (so no test skips for want of a Python package)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli", reason="Python 3.10 without tomli: pyproject not parsed")

REPO = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
README = (REPO / "README.md").read_text(encoding="utf-8")


def _name(req: str) -> str:
    return re.split(r"[<>=!~;\[ ]", req, maxsplit=1)[0].strip().lower()


def test_the_readme_names_exactly_the_core_dependencies():
    core = {_name(r) for r in PROJECT["dependencies"]}
    para = " ".join(README.split("The core install is what", 1)[1].split("\n\n", 1)[0].split())
    listed = para.split(" need: ", 1)[1].split(" (exactly", 1)[0]
    named = {w.strip().lower() for w in re.split(r",\s*|\s+and\s+", listed) if w.strip()}
    assert named == core


def test_every_extra_has_an_install_line_and_serve_is_in_the_quick_start():
    install = README.split("\n## Install\n", 1)[1].split("\n## ", 1)[0]
    for extra in PROJECT["optional-dependencies"]:
        if extra in ("test", "fuzz"):  # the developers' extras: scripts/test.sh, fuzz/README
            continue
        assert f"pip install '.[{extra}]'" in install, extra
    quick = README.split("\n## Quick start by use case\n", 1)[1].split("\n## ", 1)[0]
    assert "ce-filter serve" in quick and "pip install '.[serve]'" in quick


def test_project_urls_name_paths_that_exist():
    urls = PROJECT["urls"]
    assert {"Homepage", "Documentation"} <= set(urls)
    for label, where in urls.items():
        assert (REPO / where).exists(), (label, where)


def test_the_test_extra_brings_the_bench_peers():
    extras = PROJECT["optional-dependencies"]
    test = " ".join(extras["test"])
    assert "bench" in re.search(r"ce-filter\[([^\]]*)\]", test).group(1).split(",")
    assert {_name(r) for r in extras["bench"]} >= {"trafilatura", "resiliparse", "readability-lxml",
                                                   "justext", "boilerpy3", "html-text"}


def test_the_warc_extra_brings_zstd_where_the_standard_library_has_none():
    """The WARC body decoder (crawler/warc/bodies.py) takes zstd from backports.zstd below
    Python 3.14 and from the standard library's compression.zstd from 3.14: the warc extra
    installs the backport there and only there."""
    [req] = [r for r in PROJECT["optional-dependencies"]["warc"] if _name(r) == "backports.zstd"]
    assert req.split(";", 1)[1].strip().replace('"', "'") == "python_version < '3.14'"
