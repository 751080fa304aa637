"""A tiny corpus in wcxb-dev's layout, made in the test: gzipped pages, pages.tsv (type,
domain, url), snippets.json, meta.json."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from .test_api import ARTICLE, PARAS

FORUM_POSTS = [
    "I had the same problem with the pump after the update and the fix was to reset the valve.",
    "Thanks, resetting the valve worked for me too, although the pressure dropped for a minute.",
    "Does anyone know whether the newer model has the same valve or a different part number?",
]


def forum_page(i: int) -> tuple[str, str]:
    posts = "".join(f"<div class='post'><div class='author'>user{k}</div><div class='body'>"
                    f"<p>{p} Thread {i}.</p></div></div>" for k, p in enumerate(FORUM_POSTS))
    html = (f"<html><head><title>Pump valve thread {i}</title></head><body>"
            f"<div id='header'><a href='/'>Forum home</a> <a href='/login'>Log in</a></div>"
            f"<div class='thread'><h1>Pump valve thread {i}</h1>{posts}</div>"
            "<div id='footer'><a href='/rules'>Forum rules</a></div></body></html>")
    gold = f"Pump valve thread {i}\n\n" + "\n\n".join(f"{p} Thread {i}." for p in FORUM_POSTS)
    return html, gold


def make_typed_corpus(root: Path, n: int = 12, domains: int | None = None) -> Path:
    """``n`` pages, alternately article and forum, on ``domains`` domains (default: one each)."""
    (root / "html").mkdir(parents=True)
    (root / "gold").mkdir()
    rows = ["id\tpage_type\tdomain\turl"]
    snippets, meta = {}, {}
    for i in range(n):
        pid = f"{i:04d}"
        if i % 2 == 0:
            html = ARTICLE.replace("Council", f"Council{i}")
            gold = f"Council{i} expands bike lanes\n\n" + "\n\n".join(PARAS)
            kind, with_, without = "article", [PARAS[0][:60], PARAS[2][10:70]], ["Terms of use", "Section 3"]
        else:
            html, gold = forum_page(i)
            kind, with_, without = "forum", [FORUM_POSTS[1][:50]], ["Forum rules", "Log in"]
        domain = f"site{i % (domains or n)}.example"
        (root / "html" / f"{pid}.html.gz").write_bytes(gzip.compress(html.encode("utf-8")))
        (root / "gold" / f"{pid}.txt").write_text(gold, encoding="utf-8")
        rows.append(f"{pid}\t{kind}\t{domain}\thttps://{domain}/p/{i}")
        snippets[pid] = {"with": with_, "without": without}
        meta[pid] = {"url": f"https://{domain}/p/{i}", "title": f"page {i}", "author": None,
                     "publish_date": "2025-01-02"}
    (root / "pages.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    (root / "snippets.json").write_text(json.dumps(snippets), encoding="utf-8")
    (root / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    return root
