"""scripts/setup.sh says what it installs: Python packages into .venv always, Debian packages
(kcat, chromium, fonts-liberation) only as root with apt-get and never with CE_FILTER_NO_APT=1,
each announced before it happens. Run on a copy of the script with stand-ins for pip, id and
apt-get, so nothing is installed."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BASH = shutil.which("bash")


def _stub(path: Path, body: str) -> None:
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)


@pytest.fixture
def sandbox(tmp_path):
    if BASH is None:
        pytest.skip("no bash")
    (tmp_path / "scripts").mkdir()
    shutil.copy(REPO / "scripts" / "setup.sh", tmp_path / "scripts" / "setup.sh")
    venv = tmp_path / ".venv" / "bin"
    venv.mkdir(parents=True)
    _stub(venv / "python", f'echo "pip $*" >> "{tmp_path}/log"')
    bin_ = tmp_path / "bin"  # the only PATH: no kcat, no chromium here
    bin_.mkdir()
    os.symlink(shutil.which("dirname"), bin_ / "dirname")
    _stub(bin_ / "apt-get", f'echo "apt-get $*" >> "{tmp_path}/log"')
    return tmp_path


def _run(box: Path, uid: int, **env: str) -> tuple[str, str]:
    _stub(box / "bin" / "id", f"echo {uid}")
    r = subprocess.run([BASH, str(box / "scripts" / "setup.sh")], capture_output=True, text=True,
                       env={"PATH": str(box / "bin"), **env}, timeout=60)
    assert r.returncode == 0, r.stderr
    log = (box / "log").read_text() if (box / "log").exists() else ""
    return r.stderr, log


def test_as_root_it_says_which_system_packages_it_installs(sandbox):
    err, log = _run(sandbox, 0)
    assert "setup: installing into .venv from PyPI: ce-filter (editable) with the extras [test]" in err
    assert "installing system packages with apt-get (as root; CE_FILTER_NO_APT=1 leaves them out): " \
           "kcat chromium fonts-liberation" in err
    assert "installed: kcat" in err and "installed: chromium fonts-liberation" in err
    assert "apt-get install -y -qq --no-install-recommends kcat" in log
    assert err.index("installing system packages") < err.index("installed: kcat")


@pytest.mark.parametrize("uid,env", [(1000, {}), (0, {"CE_FILTER_NO_APT": "1"})], ids=["user", "no-apt"])
def test_otherwise_no_system_package_and_it_says_what_skips(sandbox, uid, env):
    err, log = _run(sandbox, uid, **env)
    assert "apt-get" not in log and "pip" in log
    assert "not installed: kcat chromium fonts-liberation (system packages; the tests that need them" in err


def test_the_readme_says_what_each_command_installs():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    head = readme.split("\n## ", 1)[0]
    for word in ("kcat", "chromium", "fonts-liberation", "CE_FILTER_NO_APT=1", "as root", ".venv"):
        assert word in head, word
