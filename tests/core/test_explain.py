"""The explain view: exact log-odds terms, escaping, and the page as a browser shows it
(headless Chromium: the DOM after the script ran, and the screenshot's pixels)."""

from __future__ import annotations

import math
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import numpy as np
import pytest

from ce_filter.api import Extractor, select
from ce_filter.explain import _terms, explain, explain_blocks, render_view
from ce_filter.read.segment import parse, segment
from ce_filter.score.blockmodel import sigmoid
from ce_filter.score.features import context_features, page_features, stage2_inputs

PAGE = """<html><head><title>Harbour news | Town Paper</title></head><body>
<nav><a href="/">Home</a> <a href="/news">News</a> <a href="/sport">Sport</a>
<a href="/weather">Weather</a></nav>
<article><h1>Fishing fleet returns with record catch</h1>
<p>The town's fishing fleet returned on Thursday with its largest catch in a decade, as cold currents
brought unusually large shoals of herring close to the shore, skippers said.</p>
<p>Skippers said the calm weather had allowed the boats to stay out for longer than usual, and the fish
market stayed open late into the evening to handle the landings of the week.</p>
<pre>fetch("/data.json")
  .then(r => r.json())</pre>
<p>The catch was the largest since the harbour was rebuilt, and the market expects prices to
fall for a while as the herring reach the shops and restaurants of the town this week.</p>
<p>Text with markup-like content: &lt;/script&gt;&lt;script&gt;window.pwned=1&lt;/script&gt; stays text.</p>
</article>
<footer><p>Copyright 2024 Town Paper. All rights reserved.</p><a href="/privacy">Privacy</a></footer>
</body></html>"""


def test_terms_add_up_to_the_models_scores_exactly() -> None:
    ex = Extractor()
    blocks = segment(parse(PAGE))
    whys, scores = explain_blocks(ex.model, blocks, ex.threshold)
    np.testing.assert_allclose(scores, ex.model.block_scores(blocks), rtol=0, atol=1e-12)
    m = ex.model
    x = m.stage1_matrix(page_features(blocks, m.spec))  # the tree-leaf columns after the features
    z1 = m.stage1.intercept + _terms(m.stage1.coef, m.stage1.mean, m.stage1.scale, x).sum(axis=1)
    assert m.stage2 is not None  # the shipped model has a stage 2; its terms are shown too
    c = context_features(sigmoid(z1), *stage2_inputs(blocks), page_rel=m.stage2_page_rel)
    z2 = m.stage2.intercept + _terms(m.stage2.coef, m.stage2.mean, m.stage2.scale, c).sum(axis=1)
    np.testing.assert_allclose(sigmoid(z2), scores, rtol=0, atol=1e-12)
    assert all(w.stage1_terms and w.stage2_terms for w in whys)
    # the strongest term first
    t = whys[0].stage1_terms
    assert abs(t[0].contribution) >= abs(t[1].contribution)


def test_view_data_and_escaping() -> None:
    d = explain(PAGE.encode(), "https://town.example/fleet")
    ex = Extractor()
    blocks = segment(parse(PAGE))
    # the page's own cut: its kind's where the model has cuts per kind
    assert d["threshold"] == ex.cut(ex.page_context(blocks, PAGE, "https://town.example/fleet")[0])
    assert any(b["kept"] for b in d["blocks"]) and not all(b["kept"] for b in d["blocks"])
    html = render_view(d)
    assert "<script>window.pwned" not in html  # page text never becomes markup
    assert html.count("<script") == 2  # the data and the view's own script
    assert 'id="thr"' in html or "id=thr" in html
    empty = render_view(explain(b"", None))
    assert "No blocks." in empty and "empty input" in empty


def _png_pixels(path: Path) -> tuple[int, int, bytes]:
    """(width, height, RGB(A) rows unfiltered) of an 8-bit PNG, enough to count colours."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    w = h = ctype = 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", chunk[:10])
            assert depth == 8
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + n
    bpp = 4 if ctype == 6 else 3
    raw = zlib.decompress(idat)
    stride = w * bpp
    out = bytearray()
    prev = bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out += line
        prev = line
    return w, bpp, bytes(out)


def _count_colour(path: Path, rgb: tuple[int, int, int]) -> int:
    w, bpp, px = _png_pixels(path)
    return sum(1 for i in range(0, len(px), bpp) if tuple(px[i:i + 3]) == rgb)


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium not installed (apt-get install chromium)")
def test_view_in_headless_chromium(tmp_path: Path) -> None:
    # a cut just over the code block's score, so that the block is kept by the code rule alone
    # (one URL for every call: the page kind, and through it the scores, read the URL)
    url = "https://town.example/fleet"
    d0 = explain(PAGE.encode(), url)
    code_score = next(b["score"] for b in d0["blocks"] if b["code"])
    # (a cut of two decimals: the view's URL carries it so)
    ex = Extractor(threshold=min(math.floor(code_score * 100 + 1) / 100, 0.99))
    view = tmp_path / "view.html"
    view.write_text(render_view(explain(PAGE.encode(), url, extractor=ex)),
                    encoding="utf-8")
    base = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--no-first-run", "--disable-component-update", "--disable-sync",
            f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1200,900"]

    def dom(threshold: str) -> str:
        r = subprocess.run([*base, "--dump-dom", f"{view.as_uri()}#t={threshold}"], capture_output=True,
                           text=True, timeout=120)
        assert r.returncode == 0, r.stderr[-2000:]
        return r.stdout

    d = explain(PAGE.encode(), url, extractor=ex)
    n = len(d["blocks"])
    at_default = dom(f"{d['threshold']:.2f}")
    kept = at_default.count('class="blk kept"')
    assert 0 < kept < n and at_default.count('class="blk dropped"') == n - kept
    assert kept == sum(b["kept"] for b in d["blocks"])  # the script agrees with the filter
    code = next(i for i, b in enumerate(d["blocks"]) if b["code"])
    assert d["blocks"][code]["kept"] and d["blocks"][code]["score"] < d["threshold"]
    assert f'<div class="blk kept" id="b{code}"' in at_default  # kept by the code rule, also in JS
    assert "Fishing fleet returns with record catch" in at_default.split('id="out"')[1]
    everything = dom("0")
    assert everything.count('class="blk kept"') == n and f"{n} of {n} blocks kept" in everything
    strict = dom("1")  # nothing reaches 1: the filter's fallback keeps the best-scored blocks
    scores = np.array([b["score"] for b in d["blocks"]])
    fallback = select(scores, 1.0, np.array([b["code"] for b in d["blocks"]]))
    assert 0 < strict.count('class="blk kept"') == fallback.sum() < n

    shots = {}
    for t in ("0", "1"):
        png = tmp_path / f"view{t}.png"
        r = subprocess.run([*base, f"--screenshot={png}", f"{view.as_uri()}#t={t}"], capture_output=True,
                           text=True, timeout=120)
        assert r.returncode == 0 and png.exists(), r.stderr[-2000:]
        shots[t] = _count_colour(png, (0xE9, 0xF8, 0xEF))  # the kept blocks' background
    assert shots["0"] > shots["1"] > 0
