"""Checks an installed ce-filter as a wheel gives it: a page extracts, and every C part of this
platform (ce_filter.native.PARTS) imports. Prints each part's
state; exits 1 naming what is missing. The wheel builds run it on every wheel they make
(pyproject.toml's [tool.cibuildwheel] test-command); run it with the Python the wheel is
installed in (from a checkout too: a script's own folder, not the current one, is on sys.path):

    python scripts/check_wheel.py
"""

from __future__ import annotations

import sys

STORY = ("The harbour council met again on Tuesday to discuss the plan, which residents have "
         "debated for months, and agreed to publish a timetable soon.")


def page(i: int) -> str:
    nav = "".join(f'<li><a href="/s{k}">Section {k}</a></li>' for k in range(8))
    return (f"<html><head><title>Story {i}</title></head><body><ul class=nav>{nav}</ul>"
            f"<article><h1>Story {i}</h1>" + f"<p>{STORY} Part {i}.</p>" * 4
            + "</article><footer>Privacy | Terms | Copyright</footer></body></html>")


def main() -> int:
    try:
        import ce_filter
        from ce_filter import native
        from ce_filter.score.site.memory import SiteMemory
    except ImportError as e:  # a part missing: the package names it
        print(f"check_wheel: ce-filter does not import: {e}", file=sys.stderr)
        return 1
    print(f"ce_filter from {ce_filter.__file__}")
    problems: list[str] = []
    try:
        text = ce_filter.extract(page(0), url="https://example.org/0").text
        # a site's pages through the site memory: its C parts run too
        ex = ce_filter.Extractor(site_memory=SiteMemory())
        texts = [ex.extract(page(i), url=f"https://example.org/{i}").text for i in range(1, 4)]
        problems += [f"page {i}: the story is not in the text: {t[:200]!r}"
                     for i, t in enumerate([text, *texts]) if STORY not in t]
    except ImportError as e:  # a part missing: no page extracts (named below)
        problems.append(f"no page extracts: {e}")
    parts = native.active()
    for name, on in parts.items():
        print(f"{'C' if on else 'MISSING':>8}  ce_filter.{name}")
    problems += [f"ce_filter.{name} does not run (not in the wheel)"
                 for name, on in parts.items() if not on]
    for p in problems:
        print(f"check_wheel: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
