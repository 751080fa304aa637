"""The README's install lines, as written: each names the checkout (``.``) with extras that
pyproject.toml declares, and the first two a user meets are run in a fresh venv from a copy of
the checkout (the core install, then one with an extra), after which the quick start's first
command works. Slow (a venv, two builds and installs): marked ``slow``."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

from .conftest import REPO
from .test_wheel import TIMEOUT, clean_env, copy_sources

README = (REPO / "README.md").read_text(encoding="utf-8")
PAGE = ("<html><body><nav><a href='/a'>Home</a></nav><article><h1>Harbour plan</h1>"
        + "<p>The harbour council met again on Tuesday to discuss the plan, which residents have "
          "debated for months, and agreed to publish a timetable soon.</p>" * 3
        + "</article></body></html>")


def install_lines() -> list[str]:
    """Every ``pip install`` line of the README's code blocks, in order, comments removed."""
    blocks = re.findall(r"```bash\n(.*?)```", README, flags=re.S)
    return [ln.split("#", 1)[0].strip() for b in blocks for ln in b.splitlines()
            if ln.strip().startswith("pip install")]


def test_every_install_line_names_the_checkout_with_declared_extras():
    extras = set(tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"])
    lines = install_lines()
    assert lines and lines[0] == "pip install .", lines[:1]  # the first a user meets: the core
    for ln in lines:
        argv = shlex.split(ln)
        assert argv[:2] == ["pip", "install"] and len(argv) == 3, ln
        m = re.fullmatch(r"\.(?:\[([a-z,]+)\])?", argv[2])
        assert m, f"{ln}: not an install from the checkout"
        assert set(filter(None, (m.group(1) or "").split(","))) <= extras - {"test", "fuzz"}, ln
    # where the first install line is, the README says the package is not on the index yet
    first = README.index("pip install .")
    assert "not on PyPI" in README[first - 600:first + 300]


@pytest.mark.slow
def test_the_first_install_lines_run_as_written(tmp_path):
    src = tmp_path / "ce-filter"
    src.mkdir()
    copy_sources(src)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=TIMEOUT)
    env = clean_env()
    env["PATH"] = f"{venv / 'bin'}:{env.get('PATH', '')}"  # the README's pip and ce-filter are the venv's
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"

    def sh(line: str) -> subprocess.CompletedProcess:
        return subprocess.run(shlex.split(line), cwd=src, env=env, capture_output=True, text=True,
                              timeout=TIMEOUT)

    lines = install_lines()
    serve = next(ln for ln in lines if "[serve]" in ln)
    for ln in (lines[0], serve):
        r = sh(ln)
        assert r.returncode == 0, f"{ln}: exit {r.returncode}\n{r.stderr[-3000:]}"
    Path(src / "page.html").write_text(PAGE)
    r = sh("ce-filter extract page.html")
    assert r.returncode == 0 and "harbour council met again" in r.stdout, r.stderr
    r = sh("ce-filter serve --help")
    assert r.returncode == 0 and "--workers" in r.stdout, r.stderr
