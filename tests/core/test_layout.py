"""The repository's stage folders install under the ce_filter namespace: no source file may
import them by their folder names, which would only work from a checkout (and would collide
with other projects' generic ``crawler`` / ``pipelines`` packages in site-packages)."""

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FOLDERS = {"crawler", "pipelines", "benchmarks"}


def _sources() -> list[Path]:
    return [p for d in ("ce_filter", "crawler", "pipelines", "benchmarks", "tests", "deploy", "samples")
            for p in (REPO / d).rglob("*.py")]


def test_no_import_by_folder_name():
    bad = []
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            bad += [f"{path.relative_to(REPO)}: {n}" for n in names if n.split(".")[0] in FOLDERS]
    assert not bad, bad


def test_stage_packages_import_under_ce_filter():
    import ce_filter.bench.run
    import ce_filter.crawler.warc
    import ce_filter.crawler.warc_shards
    import ce_filter.pipelines.offline

    for mod, folder in ((ce_filter.crawler.warc_shards, "crawler"),
                        (ce_filter.pipelines.offline, "pipelines"), (ce_filter.bench.run, "benchmarks")):
        assert Path(mod.__file__).resolve().parent.name == folder
    # a package inside a stage folder (crawler/warc/) installs under it too
    assert Path(ce_filter.crawler.warc.__file__).resolve().parent.parent.name == "crawler"


def test_research_stays_apart_from_the_product():
    """The studies (research/) are run from a checkout and never installed: no product module
    imports them, and the packages the wheel carries do not include them."""
    import tomllib

    bad = []
    for d in ("ce_filter", "crawler", "pipelines", "benchmarks"):
        for path in (REPO / d).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                mods = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                    [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else []
                bad += [f"{path.relative_to(REPO)}: {m}" for m in mods if m.split(".")[0] == "research"]
    assert not bad, bad
    packages = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    assert not [p for p in packages if p.split(".")[0] == "research" or "study" in p]
    studies = {p.stem for p in (REPO / "research").glob("*.py")} - {"__init__"}
    assert studies and not studies & {p.stem for p in (REPO / "ce_filter" / "learn").glob("*.py")}


def test_the_architecture_page_names_every_module():
    """docs/ARCHITECTURE.md draws the house: a module or package added at the top of ce_filter/,
    crawler/ or pipelines/ must be placed on it."""
    doc = (REPO / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    missing = []
    for folder in ("ce_filter", "crawler", "pipelines"):
        for p in sorted((REPO / folder).iterdir()):
            if p.name.startswith(("_", ".")) or p.name in ("py.typed",):
                continue
            if p.suffix == ".py" or (p.is_dir() and (p / "__init__.py").exists()) or p.name == "models":
                name = p.stem if p.suffix == ".py" else p.name
                if f"`{name}" not in doc and f"{name}.py" not in doc and f"{name}/" not in doc \
                        and f" {name}," not in doc and f" {name})" not in doc and f"({name}," not in doc:
                    missing.append(f"{folder}/{p.name}")
    assert not missing, f"not on docs/ARCHITECTURE.md: {missing}"


def test_every_module_has_a_room_in_the_import_contracts():
    """The import contracts (pyproject.toml [tool.importlinter], checked by scripts/typecheck.py)
    name each top-level module of ce_filter/ as engine or entry point: a new one must be placed,
    or the rule that dependencies point inward would not reach it."""
    import tomllib

    contracts = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    engine = set(contracts[0]["source_modules"])
    entry = set(contracts[0]["forbidden_modules"]) - {"ce_filter.crawler", "ce_filter.pipelines"}
    assert not engine & entry
    tops = {f"ce_filter.{p.stem if p.suffix == '.py' else p.name}" for p in (REPO / "ce_filter").iterdir()
            if not p.name.startswith(("_", ".")) and (p.suffix == ".py" or (p / "__init__.py").exists())}
    assert tops - {"ce_filter.bench"} == (engine | entry) - {"ce_filter.bench"}, \
        (tops ^ (engine | entry)) - {"ce_filter.bench"}


def test_no_python_file_edits_sys_path():
    """No .py file of the repository assigns to, extends or inserts into the import path: the
    checkout's root on it shadows the installed ce_filter with one that has no crawler,
    pipelines or bench (those are crawler/, pipelines/, benchmarks/ only once installed), so
    every script, tool and test imports the installed package as it is."""
    import re

    edit = re.compile(r"\bsys\s*\.\s*path\s*(?:\.\s*(?:insert|append|extend|remove|pop|clear)\s*\("
                      r"|\[[^\]]*\]\s*=(?!=)|[+]?=(?!=))")
    skip = {".git", ".venv", "build", "dist", "node_modules", "__pycache__"}
    found = []
    for p in sorted(REPO.rglob("*.py")):
        rel = p.relative_to(REPO)
        if skip & set(rel.parts) or any(part.startswith(".") or part.endswith(".egg-info")
                                        for part in rel.parts):
            continue
        for n, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if edit.search(line):
                found.append(f"{rel}:{n}: {line.strip()}")
    assert not found, "sys.path edits:\n" + "\n".join(found)
