"""Type-check every product line and check that its imports point inward, in the layout the
package installs as.

crawler/, pipelines/ and benchmarks/ install as ce_filter.crawler, ce_filter.pipelines and
ce_filter.bench through setuptools' package-dir (pyproject.toml), which mypy does not follow. So
this script builds that layout in a temporary directory (symlinks to the checkout's files:
ce_filter/ with crawler/ as ce_filter/crawler, pipelines/ as ce_filter/pipelines, benchmarks/ as
ce_filter/bench, and research/ beside it), runs mypy there with the project's settings
([tool.mypy] in pyproject.toml), prints mypy's report with each path mapped back to the checkout
(ce_filter/crawler/files.py -> crawler/files.py), then runs import-linter on the same layout with
the contracts of [tool.importlinter] (engine <- sources <- stages <- entry points,
docs/ARCHITECTURE.md). The modules whose imports depend on the Python version (VERSIONED) are
checked again as each of those Pythons sees them. Exits non-zero when any finds a fault.

Usage: .venv/bin/python scripts/typecheck.py [extra mypy arguments]   (scripts/test.sh runs it)
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# view path (under the temporary directory) -> checkout path (under ROOT)
LAYOUT = {
    "ce_filter": "ce_filter",
    "ce_filter/crawler": "crawler",
    "ce_filter/pipelines": "pipelines",
    "ce_filter/bench": "benchmarks",
    "research": "research",
}

# module -> the Python versions it is checked again for, besides the project's python_version
# (3.10). The body decoder takes zstd from backports.zstd below 3.14, whose stubs need 3.11's
# typing (under 3.10 they read as Any, so nothing of it would be checked), and from the
# standard library's compression.zstd from 3.14.
VERSIONED = {"ce_filter.crawler.warc.bodies": ("3.13", "3.14")}


def build_view(view: Path) -> None:
    """Mirror the installed layout under `view`: real directories, each file a symlink."""
    for dst, src in LAYOUT.items():
        for path in sorted((ROOT / src).rglob("*")):
            rel = path.relative_to(ROOT / src)
            if "__pycache__" in rel.parts or path.is_dir():
                continue
            target = view / dst / rel
            if target.exists():
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(path)
    (view / "pyproject.toml").symlink_to(ROOT / "pyproject.toml")


def map_back(line: str) -> str:
    """ce_filter/crawler/files.py:3: ... -> crawler/files.py:3: ... (longest view prefix first)."""
    for dst in sorted(LAYOUT, key=len, reverse=True):
        src = LAYOUT[dst]
        if dst == src:
            continue
        pattern = re.compile(r"(?<![\w/.])" + re.escape(dst) + "/")
        line = pattern.sub(src + "/", line)
    return line


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="ce-filter-typecheck-") as tmp:
        view = Path(tmp)
        build_view(view)
        cache = ROOT / ".mypy_cache" / "view"
        cmd = [sys.executable, "-m", "mypy", "--cache-dir", str(cache), *argv]
        env = dict(os.environ, MYPY_FORCE_COLOR="0")
        env.pop("MYPYPATH", None)
        proc = subprocess.run(cmd, cwd=view, env=env, capture_output=True, text=True)
        versioned = [subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", f"{cache}-{version}",
                                     "--python-version", version, "-m", module],
                                    cwd=view, env=env, capture_output=True, text=True)
                     for module, versions in VERSIONED.items() for version in versions]
        # the view first on the path, so that import-linter reads ce_filter.crawler & co. there
        lint = subprocess.run([str(Path(sys.executable).with_name("lint-imports")), "pyproject.toml",
                               "--no-cache"], cwd=view,
                              env=dict(env, PYTHONPATH=str(view)), capture_output=True, text=True)
    for line in proc.stdout.splitlines():
        print(map_back(line))
    sys.stderr.write(proc.stderr)
    for (module, version), run in zip(((m, v) for m, vs in VERSIONED.items() for v in vs), versioned):
        for line in run.stdout.splitlines():
            print(f"{map_back(line)}  (Python {version})" if run.returncode else
                  f"{module}, as Python {version} sees it: {line}")
        sys.stderr.write(run.stderr)
    contracts = [ln for ln in lint.stdout.splitlines() if ln.endswith((" KEPT", " BROKEN")) or
                 ln.startswith("Contracts:")]
    print("\n".join(map_back(ln) for ln in contracts) if lint.returncode == 0 else map_back(lint.stdout))
    sys.stderr.write(lint.stderr)
    return proc.returncode or max((run.returncode for run in versioned), default=0) or lint.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
