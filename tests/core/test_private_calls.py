"""No module calls another module's private function: ``x._name(...)`` where ``x`` is an
imported module, or a class imported from another module (``Extractor._decode`` was one:
explain, sitecount, sitefit and the bench stages now call the public steps of ce_filter.read.page).
A call on an instance (``self._x()``, ``obj._x()``) is not looked at: the check is about what
a module imports."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("ce_filter", "crawler", "pipelines", "benchmarks")

# reviewed exceptions: (file, the call as written) -> why
ALLOWED: dict[tuple[str, str], str] = {
    ("ce_filter/service/serve.py", "os._exit("): "the standard library's documented exit without "
                                                 "clean-up (public despite its name)",
    ("benchmarks/stage_cpu.py", "peers._resiliparse("): "the bench's peer wrapper, a sibling "
        "benchmark module (peers.make('resiliparse') would be the public way)",
}


def _imported(tree: ast.Module) -> set[str]:
    """The names a module binds by importing: modules (``import x``, ``import x as y``,
    ``from . import x``) and names from other modules (``from x import Y``)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                names.add(a.asname or a.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                names.add(a.asname or a.name)
    return names


def private_calls(path: Path, root: Path = ROOT) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    imported = _imported(tree)
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        attr = node.func.attr
        if not attr.startswith("_") or attr.startswith("__"):
            continue
        base = node.func.value
        while isinstance(base, ast.Attribute):  # a.b._c(): the chain's first name
            base = base.value
        if isinstance(base, ast.Name) and base.id in imported:
            found.append(f"{path.relative_to(root)}:{node.lineno}: {ast.unparse(node.func)}(")
    return found


def files() -> list[Path]:
    out: list[Path] = []
    for f in FOLDERS:
        d = ROOT / f
        if d.is_dir():
            out += sorted(p for p in d.rglob("*.py") if ".venv" not in p.parts)
    return out


def test_no_module_calls_another_modules_private_function():
    found = []
    for p in files():
        for hit in private_calls(p):
            where, call = hit.rsplit(": ", 1)
            if (where.split(":")[0], call) not in ALLOWED:
                found.append(hit)
    assert not found, "\n".join(found)


def test_the_check_finds_a_private_call(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("import os\nfrom ce_filter.api import Extractor\n"
                 "Extractor._decode(1)\nos.path._joinrealpath(1)\nself_like = 1\n"
                 "class A:\n    def f(self):\n        return self._g()\n")
    assert private_calls(f, tmp_path) == ["m.py:3: Extractor._decode(", "m.py:4: os.path._joinrealpath("]


def test_no_module_imports_another_modules_private_name():
    """``from x import _name`` reaches into another module's insides as a private call does."""
    found = []
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom):
                    found += [f"{path.relative_to(ROOT)}:{node.lineno} {a.name}" for a in node.names
                              if a.name.startswith("_") and not a.name.startswith("__")]
    assert not found, found
