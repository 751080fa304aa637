"""One Extractor shared by many threads gives every page the record a serial run gives it.

The C parts run without the GIL (the parse, the walk, the dense features, the page signals),
so threads really do interleave inside them; the records (text, every metadata field, the page
kind) must not depend on what the other threads are doing."""

from __future__ import annotations

import random
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from ce_filter import Extractor
from ce_filter.api import Extraction

WORDS = ("harbour library railway orchard bridge market museum river school council timetable "
         "residents weather festival archive").split()
LANGS = (
    ("en", "The council met again on Tuesday to discuss the plan, which residents have debated for months."),
    ("de", "Der Gemeinderat hat sich am Dienstag wieder getroffen, um über den Plan zu sprechen, den die "
           "Bewohner seit Monaten diskutieren."),
    ("fr", "Le conseil s'est réuni mardi pour discuter du projet, dont les habitants débattent depuis "
           "des mois."),
    ("es", "El consejo se reunió de nuevo el martes para hablar del plan, que los vecinos debaten desde "
           "hace meses."),
)


def make_page(i: int) -> tuple[bytes | str, str]:
    """A page of one of several shapes (article with metadata, listing, forum, thin, broken,
    non-UTF-8), seeded by ``i``: what the walk, the features and the rules all read."""
    rng = random.Random(i)
    lang, sentence = LANGS[i % len(LANGS)]
    url = f"https://site{i % 17}.example/{rng.choice(WORDS)}/{i}.html"
    kind = i % 7
    nav = "".join(f'<li><a href="/s{k}">{rng.choice(WORDS).title()}</a></li>'
                  for k in range(rng.randint(3, 12)))
    paras = "".join(f"<p>{sentence} {' '.join(rng.choice(WORDS) for _ in range(rng.randint(5, 40)))}</p>"
                    for _ in range(rng.randint(1, 9)))
    head = (f'<meta charset="utf-8"><title>{rng.choice(WORDS).title()} {i} | Site {i % 17}</title>'
            f'<meta property="og:site_name" content="Site {i % 17}">'
            f'<meta name="description" content="{sentence[:60]}">')
    if kind in (0, 1):
        head += ('<script type="application/ld+json">{"@type": "NewsArticle", "headline": "Story '
                 f'{i}", "datePublished": "2024-0{1 + i % 9}-1{i % 10}T10:00:00Z", "author": '
                 f'{{"name": "Ann Writer {i % 5}"}}}}</script>')
    if kind == 2:
        head += f'<link rel="canonical" href="https://site{i % 17}.example/c/{i}">'
    byline = (f'<div class="byline">By <span class="author">Jo Smith{i % 3}</span></div>'
              f'<time datetime="2023-1{i % 3}-0{1 + i % 9}">{i % 28 + 1} March 2023</time>'
              if kind in (0, 3) else "")
    if kind == 4:  # a listing
        body = "<ul class='items'>" + "".join(
            f"<li><a href='/i/{k}'>{rng.choice(WORDS)} {k}</a> <span class=price>{k}.99</span></li>"
            for k in range(rng.randint(5, 30))) + "</ul>"
    elif kind == 5:  # a forum thread
        body = "".join(f"<div class='post' id='p{k}'><div class='user'>user{k}</div><div class='message'>"
                       f"{sentence}</div></div>" for k in range(rng.randint(2, 8)))
    elif kind == 6 and i % 3 == 0:  # thin or empty
        body = "<p>Cart (0)</p>" if i % 2 else ""
    else:
        body = (f"<article><h1>{rng.choice(WORDS).title()} {i}</h1>{byline}{paras}"
                f"<pre><code>x = {i}</code></pre></article>")
    html = (f'<!DOCTYPE html><html lang="{lang}"><head>{head}</head><body><div id="header"><ul class="nav">'
            f'{nav}</ul></div><div id="main" class="content">{body}</div><div id="footer">'
            f'<a href="/privacy">Privacy</a> | Copyright 2024 <a rel="author" href="/about">About</a>'
            f'</div></body></html>')
    if i % 97 == 0:
        return (b"" if i % 2 else b"%PDF-1.4 " + bytes(range(256))), url  # refused before parsing
    if i % 11 == 0:
        return html, url  # a str
    if i % 13 == 0:
        return html.encode("cp1252", "replace").replace(b'charset="utf-8"', b'charset="windows-1252"'), url
    if i % 29 == 0:
        return html[: len(html) // 2].encode(), url  # cut mid-tag
    return html.encode(), url


PAGES = [make_page(i) for i in range(1000)]


def record(ex: Extractor, page: tuple[bytes | str, str]) -> dict:
    return ex.extract(page[0], page[1]).to_dict()


@pytest.fixture(scope="module")
def serial() -> tuple[Extractor, list[dict]]:
    ex = Extractor()
    return ex, [record(ex, p) for p in PAGES]


def test_pages_are_varied(serial):
    _, recs = serial
    assert len({r["page_type"] for r in recs}) >= 3
    assert len({r["language"] for r in recs}) >= 4
    assert sum(bool(r["author"]) for r in recs) > 100 and sum(bool(r["date"]) for r in recs) > 100
    assert sum(bool(r["reason"]) for r in recs) >= 10 and sum(bool(r["text"]) for r in recs) > 500


def test_eight_threads_one_extractor_give_the_serial_records(serial):
    """8 threads x 1,000 pages through one Extractor, each thread in its own page order."""
    ex, expected = serial
    start = threading.Barrier(8)

    def run(seed: int) -> list[tuple[int, dict]]:
        order = list(range(len(PAGES)))
        random.Random(seed).shuffle(order)
        start.wait()
        return [(i, record(ex, PAGES[i])) for i in order]

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(run, range(8)))
    for got in results:
        assert len(got) == len(PAGES)
        bad = [i for i, r in got if r != expected[i]]
        assert not bad, (bad[:5], [(got_r, expected[i]) for i, got_r in got if i == bad[0]])


def test_threads_reading_one_extraction_run_its_rules_once_in_effect(serial):
    """Threads reading the lazy metadata fields of one Extraction all see the rules' values,
    and a value set by the caller is not overwritten by another thread's rules."""
    ex, expected = serial
    for i in range(0, 40, 4):
        out = ex.extract(*PAGES[i])
        start = threading.Barrier(6)

        def read(_: int, out: Extraction = out, start: threading.Barrier = start) -> dict:
            start.wait()
            return out.to_dict()

        with ThreadPoolExecutor(6) as pool:
            assert all(r == expected[i] for r in pool.map(read, range(6)))
    out = ex.extract(*PAGES[0])
    start = threading.Barrier(2)

    def setter() -> None:
        start.wait()
        out.author = "Set By Caller"

    def reader() -> None:
        start.wait()
        _ = out.date

    ts = [threading.Thread(target=setter), threading.Thread(target=reader)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert out.author == "Set By Caller" and out.date == expected[0]["date"]


def test_scrapy_pipeline_filters_pages_in_threads(serial):
    """FilterPipeline with CE_FILTER_THREADS > 1 and the budget off: one shared Extractor,
    pages filtered side by side by the reactor pool's threads, each record the serial one."""
    pytest.importorskip("scrapy")
    from ce_filter.pipelines.scrapy_pipelines import FilterPipeline

    from ce_filter.run.budget import Budget

    with pytest.raises(ValueError, match="CE_FILTER_THREADS"):
        FilterPipeline(budget=Budget(0, 0), threads=0)
    _, expected = serial
    pipe = FilterPipeline(budget=Budget(0, 0), threads=4)
    assert len({id(e) for e in pipe.extractors}) == 1
    items = [{"url": PAGES[i][1], "body": PAGES[i][0]} for i in range(0, 1000, 7)
             if isinstance(PAGES[i][0], bytes)]

    def rec(item: dict) -> dict:
        r = pipe.filter(item)
        return {k: r[k] for k in ("text", "title", "author", "date", "language", "page_type", "reason")}

    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(rec, items))
    want = [rec(it) for it in items]
    assert got == want
    by_url = {PAGES[i][1]: expected[i] for i in range(1000)}
    assert all(g["text"] == by_url[it["url"]]["text"] for g, it in zip(got, items))
    pipe.close_spider()
