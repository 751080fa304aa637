"""The shared options module: each check, ExtractOptions from settings, and the Extractor's own
guard on its cut."""

from __future__ import annotations

import math
import pickle

import pytest

from ce_filter import Extractor
from ce_filter.options import (
    ExtractOptions,
    UsageError,
    model_file,
    positive_int,
    positive_number,
    probability,
    text_codec,
    writable_file,
)


@pytest.mark.parametrize("bad", ["2", "-0.01", "nan", "inf", "-inf", "x", "", None, math.nan])
def test_probability_rejects(bad):
    with pytest.raises(ValueError):
        probability(bad)


def test_probability_accepts_the_closed_unit_interval():
    assert [probability(x) for x in ("0", "1", "0.5", 0.25)] == [0.0, 1.0, 0.5, 0.25]


def test_counts_and_durations():
    assert positive_int("3") == 3 and positive_number("0.5") == 0.5
    for bad in ("0", "-1", "1.5", "many"):
        with pytest.raises(ValueError):
            positive_int(bad)
    for bad in ("0", "-1", "nan", "inf", "soon"):
        with pytest.raises(ValueError):
            positive_number(bad)


def test_text_codec():
    assert text_codec("latin1") == "latin1" and text_codec("UTF-8") == "UTF-8"  # as given: the
    # decoder maps labels the web's way
    # Python codecs that are no charset label a browser accepts
    for bad in ("klingon", "hex", "base64", "bz2", "rot13", "zlib", "charmap", "palmos", "latin-1", "cp500"):
        with pytest.raises(ValueError):
            text_codec(bad)


def test_model_file_and_writable_file(tmp_path, custom_model):
    assert model_file(str(custom_model)) == str(custom_model)
    (tmp_path / "bad.json").write_text("[]")
    cases = [(tmp_path / "none.json", "no such model file"), (tmp_path / "bad.json", "not a ce-filter"),
             (tmp_path, "not a ce-filter")]
    for bad, why in cases:
        with pytest.raises(ValueError, match=why):
            model_file(str(bad))
    assert writable_file(str(tmp_path / "out.json")) == str(tmp_path / "out.json")
    for bad in (tmp_path, tmp_path / "no" / "out.json"):
        with pytest.raises(ValueError):
            writable_file(str(bad))


def test_extract_options_from_settings_check_each_value(custom_model):
    o = ExtractOptions.from_settings({"CE_FILTER_MODEL": str(custom_model), "CE_FILTER_THRESHOLD": "0.7",
                                      "CE_FILTER_PRECISE": "yes", "CE_FILTER_COMMENTS": False})
    assert o == ExtractOptions(str(custom_model), True, 0.7, False)
    assert ExtractOptions.from_settings(o.settings()) == o  # what crawl hands to Scrapy reads back
    unset = {"CE_FILTER_COMMENTS": "0", "CE_FILTER_THRESHOLD": ""}
    assert ExtractOptions.from_settings(unset) == ExtractOptions()
    with pytest.raises(UsageError, match=r"CE_FILTER_THRESHOLD: '1\.5' is not a number in \[0, 1\]"):
        ExtractOptions.from_settings({"CE_FILTER_THRESHOLD": "1.5"})
    with pytest.raises(UsageError, match="CE_FILTER_MODEL: nope.json: no such model file"):
        ExtractOptions.from_settings({"CE_FILTER_MODEL": "nope.json"})
    with pytest.raises(ValueError):
        ExtractOptions(threshold=float("nan"))


def test_extract_options_make_the_extractor_and_travel(custom_model):
    o = ExtractOptions(str(custom_model), threshold=0.8)
    assert pickle.loads(pickle.dumps(o)) == o  # sent to worker processes
    ex = o.extractor()
    assert ex.model.name == "custom" and ex.threshold == 0.8
    assert ExtractOptions(comments=True, precise=True).extractor().threshold == Extractor(
        comments=True, precise=True).threshold


@pytest.mark.parametrize("bad", [2, -1, float("nan"), float("inf")])
def test_the_extractor_refuses_a_cut_outside_0_1(bad):
    with pytest.raises(ValueError, match=r"not a number in \[0, 1\]"):
        Extractor(threshold=bad)
