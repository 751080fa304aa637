"""Where the gold text is that no block holds: the candidate sources a segmenter could add.

    python -m research.outside ../shared/data/wcxb-dev

Per page: the gold's word tokens minus the page blocks' tokens (a multiset difference) are the
gold outside any block. Each candidate source (the text of a tag the walk skips, an attribute,
JSON-LD strings by key, the meta description, the other scripts) is credited with the outside
tokens it holds (multiset overlap; sources overlap, so the shares do not add up). Reported per
page type (per corpus where it has none), pooled over the pages: the share of all gold tokens
outside blocks, and per source the share of all gold tokens it would bring back at most, with
the number of pages where it brings back 10 tokens or more.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable

from selectolax.lexbor import LexborHTMLParser

from ce_filter.learn.corpus import Doc, Spec
from ce_filter.learn.labels import words
from ce_filter.progress import progress
from ce_filter.read.decode import decode_html
from ce_filter.read.segment import parse, segment

SKIPPED = ("noscript", "button", "select", "textarea", "template", "svg", "math", "iframe", "object", "video",
           "audio", "canvas", "map")
ATTRS = (("alt", "alt"), ("title attribute", "title"), ("aria-label", "aria-label"),
         ("input value/placeholder", "value"), ("input value/placeholder", "placeholder"))
JSONLD_KEYS = ("articleBody", "description", "reviewBody", "text", "name", "headline")


def jsonld_strings(tree: LexborHTMLParser) -> dict[str, list[str]]:
    """String values of the page's JSON-LD, by their key (keys outside JSONLD_KEYS: "other")."""
    out: dict[str, list[str]] = defaultdict(list)
    for s in tree.css('script[type="application/ld+json"]'):
        try:
            data = json.loads(s.text() or "")
        except ValueError:
            continue
        stack: list[tuple[str | None, object]] = [(None, data)]
        while stack:
            key, v = stack.pop()
            if isinstance(v, dict):
                stack.extend(v.items())
            elif isinstance(v, list):
                stack.extend((key, x) for x in v)
            elif isinstance(v, str) and key:
                out[key if key in JSONLD_KEYS else "other"].append(v)
    return out


def sources(html: str) -> dict[str, list[str]]:
    """The page's text outside the walk, by source."""
    t = LexborHTMLParser(html)
    src: dict[str, list[str]] = defaultdict(list)
    for tag in SKIPPED:
        src[f"<{tag}>"] = [n.text(separator=" ") for n in t.css(tag)]
    for name, attr in ATTRS:
        src[name] += [n.attributes.get(attr) or "" for n in t.css(f"[{attr}]")
                      if not (attr == "title" and n.tag == "title")]
    src["meta description"] = [n.attributes.get("content") or "" for n in
                               t.css('meta[name="description"], meta[property="og:description"]')]
    src["<title>"] = [n.text() for n in t.css("title")]
    for key, vs in jsonld_strings(t).items():
        src[f"JSON-LD {key}"] = vs
    src["other <script>"] = [s.text() or "" for s in t.css("script")
                             if s.attributes.get("type") != "application/ld+json"]
    return src


def in_blocks(texts: list[str], gold: str) -> tuple[int, int]:
    """(gold tokens the blocks hold, as a multiset overlap; gold tokens)."""
    g = Counter(words(gold))
    b = Counter(w for t in texts for w in words(t))
    return sum((g & b).values()), sum(g.values())


class Tally:
    """Pooled counts of one page type."""

    def __init__(self) -> None:
        self.pages = 0
        self.gold = 0
        self.outside = 0
        self.by_source: Counter[str] = Counter()
        self.pages_10: Counter[str] = Counter()


def tally(docs: Iterable[Doc], by: str, log: bool = False, total: int | None = None
          ) -> dict[str, Tally]:
    out: dict[str, Tally] = defaultdict(Tally)
    for d in progress(docs, f"outside {by}", total=total, enabled=log):
        html, _ = decode_html(d.html)
        b = segment(parse(html))
        gold = Counter(words(d.gold))
        missing = gold - Counter(w for t in b.texts for w in words(t))
        t = out[d.page_type or by]
        t.pages += 1
        t.gold += sum(gold.values())
        t.outside += sum(missing.values())
        if not missing:
            continue
        for name, texts in sources(html).items():
            gain = sum((missing & Counter(w for x in texts for w in words(x))).values())
            t.by_source[name] += gain
            t.pages_10[name] += gain >= 10
    return out


def render(label: str, tallies: dict[str, Tally], top: int = 8) -> str:
    lines = [f"| {label}: page type | pages | gold outside blocks | sources (share of all gold "
             "tokens they hold; pages with >= 10 tokens) |", "|---|---|---|---|"]
    for kind, t in tallies.items():
        best = [(n, v) for n, v in t.by_source.most_common(top) if v]
        cells = "; ".join(f"{n} {v / t.gold:.2%} ({t.pages_10[n]})" for n, v in best) or "—"
        lines.append(f"| {kind} | {t.pages} | {t.outside / max(t.gold, 1):.2%} | {cells} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m research.outside", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus", nargs="+", help="corpus dir[:split]")
    a = ap.parse_args(argv)
    for c in map(Spec.parse, a.corpus):
        print(render(c.label, tally(c.load(), c.label, log=True, total=c.size())))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
