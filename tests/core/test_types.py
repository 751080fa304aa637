"""Types that say something: ``typing.Any`` in product code is rare and explained. Each line
of ce_filter/, crawler/, pipelines/ and benchmarks/ that uses it says why in a comment
(``# Any: ...``), and there are at most MAX_ANY such uses."""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("ce_filter", "crawler", "pipelines", "benchmarks")
MAX_ANY = 50


def any_uses(path: Path) -> list[tuple[int, str]]:
    """(line, its comment) of every use of ``Any`` (not its import) in a module."""
    src = path.read_text(encoding="utf-8")
    comments = {t.start[0]: t.string for t in tokenize.generate_tokens(io.StringIO(src).readline)
                if t.type == tokenize.COMMENT}
    lines = set()
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.Name) and node.id == "Any":
            lines.add(node.lineno)
        elif isinstance(node, ast.Attribute) and node.attr == "Any":
            lines.add(node.lineno)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and node.value.strip() == "Any":  # a quoted annotation
            lines.add(node.lineno)
    return [(n, comments.get(n, "")) for n in sorted(lines)]


def test_any_is_rare_and_each_use_says_why():
    uses = [(f"{p.relative_to(ROOT)}:{n}", c) for d in FOLDERS for p in sorted((ROOT / d).rglob("*.py"))
            for n, c in any_uses(p)]
    unexplained = [where for where, c in uses if "Any:" not in c]
    assert not unexplained, f"Any without '# Any: why' on its line: {unexplained}"
    assert len(uses) <= MAX_ANY, f"{len(uses)} uses of Any (at most {MAX_ANY}): {[w for w, _ in uses]}"
