"""The ``hid`` feature group: blocks inside elements marked as not shown carry the mark, the
C walk and the Python walk set the same flags, and the serving path equals the reference."""

from __future__ import annotations

import numpy as np
import pytest
from selectolax.lexbor import LexborHTMLParser

from ce_filter.features import TOKEN_PREFIXES, FeatureSpec, dense, feature_names, page_features, page_inputs
from ce_filter.features.hidden import NAMES
from ce_filter.segment import parse, segment, segment_tree

PAGE = ("<html><body><main><p>Shown paragraph</p>"
        "<div hidden><p>Attribute hidden</p></div>"
        "<div aria-hidden='TRUE'><p>Aria hidden</p></div>"
        "<div aria-hidden='false'><p>Aria shown</p></div>"
        "<div style='margin:0; display : none'><div><p>Style hidden, nested</p></div></div>"
        "<div style='display:flex'><p>Style shown</p></div>"
        "<dialog><p>Closed dialog</p></dialog><dialog open><p>Open dialog</p></dialog>"
        "<div role='dialog'><p>Role dialog</p></div>"
        "<div role='alertdialog' aria-hidden='true'><p>Both marks</p></div>"
        "</main></body></html>")
SPEC = FeatureSpec(groups=("st", "dom", "hid"))
EXPECTED = {  # block text: the flags set, in NAMES order
    "Shown paragraph": (0, 0, 0, 0), "Attribute hidden": (1, 0, 0, 0), "Aria hidden": (0, 1, 0, 0),
    "Aria shown": (0, 0, 0, 0), "Style hidden, nested": (0, 0, 1, 0), "Style shown": (0, 0, 0, 0),
    "Closed dialog": (0, 0, 0, 1), "Open dialog": (0, 0, 0, 0), "Role dialog": (0, 0, 0, 1),
    "Both marks": (0, 1, 0, 1),
}


@pytest.mark.parametrize("walk", ["c", "python"])
def test_each_mark_sets_its_flag(walk):
    b = segment(parse(PAGE)) if walk == "c" else segment_tree(LexborHTMLParser(PAGE))
    x = page_features(b, SPEC)[:, -len(NAMES):]
    assert {t: tuple(int(v) for v in r) for t, r in zip(b.texts, x)} == EXPECTED


def test_marks_leave_the_tag_flags_alone():
    b = segment(parse(PAGE))
    names = feature_names(SPEC)
    x = page_features(b, SPEC)
    tag_flags = [i for i, n in enumerate(names[:-len(NAMES)]) if n.startswith("in_")]
    assert tag_flags and names.index("in_main") in tag_flags
    shown = x[b.texts.index("Shown paragraph"), tag_flags]
    for t in ("Attribute hidden", "Aria hidden", "Style hidden, nested", "Role dialog"):
        np.testing.assert_array_equal(x[b.texts.index(t), tag_flags], shown)


def test_serving_path_matches_the_reference():
    b = segment(parse(PAGE))
    names = feature_names(SPEC)
    full = page_features(b, SPEC)
    x, _ = page_inputs(b, SPEC)
    cols = [i for i, n in enumerate(names) if not n.startswith(TOKEN_PREFIXES)]
    np.testing.assert_array_equal(x, full[:, cols])
    assert names[-len(NAMES):] == NAMES
    assert dense.handles(FeatureSpec(groups=("st", "cetr", "dom", "hid")))
