"""The wheel holds every C part, and they run where no compiler is. The wheel is built from a
copy of the sources as the wheel builds make it (CE_FILTER_REQUIRE_C=1: pyproject.toml's
[tool.cibuildwheel]), or taken from CE_FILTER_WHEEL (one built earlier, e.g. by cibuildwheel, for
this Python). It is installed into a fresh venv whose PATH holds only python and pip and whose
CC and CXX are /bin/false, so nothing can compile; its dependencies come from pip's cache or
PyPI. There scripts/check_wheel.py must find a page extracted and every C part of the platform
running (ce_filter.native.active), and must fail once a part's file is gone. Those two are slow
(a build, a venv and an install; about 20 s here): marked ``slow``. The quick ones: setup.py
builds the parts ce_filter.native.PARTS names, and active() says which run."""

from __future__ import annotations

import ast
import importlib.machinery
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from ce_filter import native
from ce_filter.native import PARTS

from .conftest import REPO
from .test_wheel import TIMEOUT, clean_env, copy_sources

SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]  # this Python's, e.g. .cpython-311-x86_64-linux-gnu.so


def part_file(name: str) -> str:
    """The path in the wheel of the C part ``ce_filter.<name>``."""
    return "ce_filter/" + name.replace(".", "/") + SUFFIX


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    given = os.environ.get("CE_FILTER_WHEEL")
    if given:
        return Path(given)
    src, dist = tmp_path_factory.mktemp("src"), tmp_path_factory.mktemp("dist")
    copy_sources(src)
    env = {**clean_env(), "CE_FILTER_REQUIRE_C": "1"}
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist), str(src)],
                       capture_output=True, text=True, timeout=TIMEOUT, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    (whl,) = dist.glob("ce_filter-*.whl")
    return whl


def test_setup_builds_the_parts_native_names():
    """setup.py's parts (the arguments of its _part calls) are PARTS."""
    tree = ast.parse((REPO / "setup.py").read_text(encoding="utf-8"))
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
             and n.func.id == "_part"]
    built = {c.args[0].value for c in calls if c.args and isinstance(c.args[0], ast.Constant)}
    built_only, named_only = built - set(PARTS), set(PARTS) - built
    assert not built_only and not named_only, \
        f"setup.py builds {sorted(built_only)} which ce_filter.native.PARTS does not name, and PARTS " \
        f"names {sorted(named_only)} which setup.py does not build: PARTS lists what a wheel must hold"
    assert "read._segment" in built and len(set(PARTS)) == len(PARTS)
    # the parts without a Python version must build (optional=False): those native requires
    needed = {c.args[0].value for c in calls if c.args and isinstance(c.args[0], ast.Constant)
              and any(k.arg == "optional" and isinstance(k.value, ast.Constant) and k.value.value is False
                      for k in c.keywords)}
    assert needed == set(PARTS), (sorted(needed), sorted(PARTS))  # every part: none has a Python version


def test_active_says_which_parts_run(monkeypatch):
    assert native.active() == {n: True for n in PARTS}
    gone = PARTS[-1]
    monkeypatch.setitem(sys.modules, f"ce_filter.{gone}", None)  # (imports as if its file were gone)
    assert native.active()[gone] is False
    with pytest.raises(ImportError, match="wheel, or from source with a C compiler"):
        native.required(gone)


@pytest.mark.slow
def test_the_wheel_holds_every_c_part(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = [name for name in PARTS if part_file(name) not in names]
    assert not missing, f"{wheel.name} lacks {missing}"


@pytest.mark.slow
def test_without_a_compiler_the_wheel_installs_and_runs_every_c_part(wheel, tmp_path):
    venv, bin_dir, work = tmp_path / "venv", tmp_path / "bin", tmp_path / "work"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=TIMEOUT)
    bin_dir.mkdir()
    for tool in ("python", "pip"):  # all there is on PATH: the venv's (a symlink would lose the venv)
        (bin_dir / tool).write_text(f'#!/bin/sh\nexec "{venv / "bin" / tool}" "$@"\n')
        (bin_dir / tool).chmod(0o755)
    env = {**clean_env(), "PATH": str(bin_dir), "CC": "/bin/false", "CXX": "/bin/false",
           "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    assert shutil.which("gcc", path=env["PATH"]) is None and shutil.which("cc", path=env["PATH"]) is None

    def run(*args: str, **extra: str) -> subprocess.CompletedProcess:
        return subprocess.run(list(args), cwd=work, env={**env, **extra}, capture_output=True, text=True,
                              timeout=TIMEOUT)

    work.mkdir()
    r = run("pip", "install", "-q", str(wheel))
    assert r.returncode == 0, f"pip install: exit {r.returncode}\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}"
    shutil.copy2(REPO / "scripts" / "check_wheel.py", work)

    r = run("python", "check_wheel.py")
    assert r.returncode == 0, r.stdout + r.stderr
    site = next(venv.glob("lib/python*/site-packages"))
    assert f"ce_filter from {site / 'ce_filter' / '__init__.py'}" in r.stdout  # the wheel's, not the checkout
    assert r.stdout.count("       C  ce_filter.") == len(PARTS), r.stdout

    # the check fails where a C part does not run: its file gone
    gone = PARTS[-1]
    (site / part_file(gone)).unlink()
    r = run("python", "check_wheel.py")
    assert r.returncode == 1 and f"ce_filter.{gone} does not import" in r.stderr, r.stdout + r.stderr
