"""The ``item`` feature group: repeated multi-block items (cards) told from one-block items
(menu entries) without class names, the same on the serving path as in the numpy reference."""

from __future__ import annotations

import numpy as np

from ce_filter.read.segment import parse, segment
from ce_filter.score.features import (
    TOKEN_PREFIXES,
    FeatureSpec,
    dense,
    feature_names,
    page_features,
    page_inputs,
)
from ce_filter.score.features.item import NAMES, item_columns

CARDS = 6
MENU = 7
PAGE = ("<html><body><nav><ul>"
        + "".join(f"<li><a href='/s{i}'>Section {i}</a></li>" for i in range(MENU))
        + "</ul></nav><main><div class='grid'>"
        + "".join(f"<div><h3><a href='/b{i}'>Book number {i}</a></h3><p>Author {i}</p>"
                  f"<p>${i}.99 paperback</p></div>" for i in range(CARDS))
        + "</div><p>" + "A closing paragraph of the listing page. " * 5 + "</p></main></body></html>")
SPEC = FeatureSpec(groups=("st", "dom", "item"))


def _rows() -> dict[str, dict[str, float]]:
    b = segment(parse(PAGE))
    names = feature_names(SPEC)
    return {t: dict(zip(names, r)) for t, r in zip(b.texts, page_features(b, SPEC))}


def test_cards_are_rich_items_and_menu_entries_are_not():
    rows = _rows()
    card = rows["Author 3"]
    assert card["rich_items"] == np.log1p(CARDS)  # six items of three blocks each
    assert 0 < card["rich_share"] < 1
    menu = rows["Section 2"]
    assert menu["rich_items"] == 0 and menu["rich_share"] == 0
    # a menu entry's box holds all seven entries, one block each
    assert max(menu[f"items{lvl}"] for lvl in (0, 1, 2, 3)) == np.log1p(MENU)
    assert all(menu[f"item_blocks{lvl}"] <= np.log1p(1.0) for lvl in (0, 1, 2, 3)
               if menu[f"items{lvl}"] == np.log1p(MENU))


def test_serving_path_matches_the_reference():
    b = segment(parse(PAGE))
    names = feature_names(SPEC)
    full = page_features(b, SPEC)
    x, _ = page_inputs(b, SPEC)
    cols = [i for i, n in enumerate(names) if not n.startswith(TOKEN_PREFIXES)]
    np.testing.assert_array_equal(x, full[:, cols])
    assert names[-len(NAMES):] == NAMES
    assert dense.handles(FeatureSpec(groups=("st", "cetr", "dom", "item")))


def test_empty_page():
    names, cols = item_columns(np.zeros((0, 10), dtype=np.int64), np.zeros(0))
    assert names == NAMES and cols[0].shape == (0, len(NAMES))


def test_gated_group_is_item_times_not_product():
    b = segment(parse(PAGE))
    kind = np.full(7, 0.05)
    kind[6] = 0.7  # pagekind.KINDS: product last
    plain = FeatureSpec(groups=("st", "item"))
    gated = FeatureSpec(groups=("st", "itemg"))
    a = page_features(b, plain, kind)[:, -len(NAMES):]
    g = page_features(b, gated, kind)[:, -len(NAMES):]
    np.testing.assert_allclose(g, a * 0.3)
    assert a.any()
    x, _ = page_inputs(b, gated, kind)
    np.testing.assert_array_equal(x, page_features(b, gated, kind))
