"""The comment-section group (features.comments, config best+kind+cmt): its flags follow the
class/id names near the block and above it, and serving computes what training does."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ce_filter.read.segment import parse, segment
from ce_filter.score.blockmodel import load_default
from ce_filter.score.features import TOKEN_PREFIXES, dense, feature_names, page_features, page_inputs
from ce_filter.score.features.comments import CMT_NAMES

PAGE = """<html><body><article class="post"><h1>A headline of the story</h1>
<p>The article's own paragraph, long enough to be a block of its own on the page.</p></article>
<section id="comments"><h2>12 responses</h2><ol class="thread"><li><div class="body">
<p>A reader's first reply, with its own few words.</p></div></li></ol></section>
<div class="wrap"><div><div><div><div><div><p>Deep under a comment-free chain.</p>
</div></div></div></div></div></div>
<div id="disqus_thread"><div><div><div><div><div><p>Far below a thread.</p>
</div></div></div></div></div></div>
</body></html>"""
KIND = np.array([0.4, 0.05, 0.1, 0.15, 0.1, 0.12, 0.08])


def _spec():
    return replace(load_default().spec, groups=load_default().spec.groups + ("cmt",), kind_mix=CMT_NAMES)


def _flags(text: str) -> tuple[float, float]:
    b = segment(parse(PAGE))
    spec = _spec()
    col = dict(zip(feature_names(spec), page_features(b, spec, KIND).T))
    i = next(i for i, t in enumerate(b.texts) if text in t)
    return float(col["cmt_near"][i]), float(col["cmt_anc"][i])


def test_flags_follow_comment_names_near_and_above():
    assert _flags("article's own paragraph") == (0.0, 0.0)
    assert _flags("first reply") == (1.0, 1.0)  # #comments four levels up
    assert _flags("comment-free chain") == (0.0, 0.0)
    assert _flags("Far below a thread") == (0.0, 1.0)  # disqus_thread six levels up: above, not near


def test_serving_path_equals_the_reference_in_one_call_and_the_general_path(monkeypatch):
    spec = _spec()
    b = segment(parse(PAGE))
    names = feature_names(spec)
    full = page_features(b, spec, KIND)
    tok = np.array([n.startswith(TOKEN_PREFIXES) for n in names])
    x = page_inputs(b, spec, KIND)[0]
    assert np.array_equal(x, full[:, ~tok])
    monkeypatch.setattr(dense, "handles", lambda spec: False)
    assert np.array_equal(page_inputs(b, spec, KIND)[0], x)
    col = dict(zip(names, full.T))
    assert np.array_equal(col["kmix_article*cmt_near"], col["cmt_near"] * KIND[0])
