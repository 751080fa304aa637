"""Markdown tables, machine info, and the generated sections of docs/BENCHMARKS.md."""

from __future__ import annotations

import datetime as _dt
import math
import os
import platform
import re
from importlib import metadata
from pathlib import Path

LIBS = ("selectolax", "numpy", "lxml", "warcio", "charset-normalizer", "trafilatura", "resiliparse",
        "readability-lxml", "justext", "boilerpy3", "html-text", "turbohtml", "kafka-python")


def table(header: list[str], rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def num(x: float | None, fmt: str = ".1f") -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, fmt)


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine_info(pin: int | None = None) -> list[tuple[str, str]]:
    import ce_filter

    versions = []
    for lib in LIBS:
        try:
            versions.append(f"{lib} {metadata.version(lib)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{lib} (not installed)")
    try:
        from ce_filter.score.blockmodel import load_default

        m = load_default()
        model = f"{m.name}@{m.digest}"
    except Exception as e:  # noqa: BLE001 - info line only
        model = f"unavailable ({e})"
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return [
        ("CPU", f"{cpu_model()} ({os.cpu_count()} logical cores; "
                + (f"pinned to core {pin})" if pin is not None else "not pinned)")),
        ("OS", platform.platform()),
        ("Python", f"{platform.python_implementation()} {platform.python_version()}"),
        ("ce-filter", f"{ce_filter.__version__}, model {model}"),
        ("libraries", ", ".join(versions)),
        ("date", _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")),
        ("load average at start", load),
    ]


def run_header(command: str, pin: int | None = None) -> str:
    lines = [f"Command: `{command}`", ""]
    lines += [f"- {k}: {v}" for k, v in machine_info(pin)]
    return "\n".join(lines)


BEGIN = "<!-- BEGIN generated:{} -->"
END = "<!-- END generated:{} -->"


def read_section(path: str | Path, name: str) -> str | None:
    """The body of the generated section ``name`` of ``path`` (None when it has none)."""
    doc = Path(path).read_text(encoding="utf-8") if Path(path).exists() else ""
    m = re.search(re.escape(BEGIN.format(name)) + r"\n(.*?)\n" + re.escape(END.format(name)), doc, re.S)
    return m.group(1) if m else None


def read_table(text: str, first_column: str) -> list[dict[str, str]]:
    """The rows of the markdown table in ``text`` whose header starts with ``first_column``,
    as {column: cell} (what ``table`` wrote)."""
    lines = text.splitlines()
    for i, ln in enumerate(lines):
        if ln.startswith(f"| {first_column} |"):
            head = [c.strip() for c in ln.strip("|").split("|")]
            rows = []
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                rows.append(dict(zip(head, (c.strip() for c in row.strip("|").split("|")))))
            return rows
    return []


def update_doc(path: str | Path, sections: dict[str, str]) -> None:
    """Replace each named generated section of ``path`` (between its BEGIN/END markers),
    leaving the hand-written text alone; a section the file lacks is appended."""
    path = Path(path)
    doc = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    for name, body in sections.items():
        block = f"{BEGIN.format(name)}\n{body.strip()}\n{END.format(name)}"
        m = re.search(re.escape(BEGIN.format(name)) + r".*?" + re.escape(END.format(name)), doc, re.S)
        if m:
            doc = doc[: m.start()] + block + doc[m.end():]
        else:
            doc = doc.rstrip("\n") + "\n\n" + block + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(doc, encoding="utf-8")
