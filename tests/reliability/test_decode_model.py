"""Charset labels that name no charset, and model files that are not models: a clear outcome,
never an exception from deep inside (LookupError, AttributeError, RecursionError)."""

from __future__ import annotations

import copy
import json

import pytest

import ce_filter
from ce_filter.read.decode import charset_from_content_type, normalize_charset
from ce_filter.score.blockmodel import Model, ModelError, load_default

# Python codecs that are not charsets of web pages: binary transforms, Python-only text codecs,
# and text codecs no browser accepts as a page's label (WHATWG Encoding Standard)
NOT_CHARSETS = ["hex", "base64", "bz2", "zlib", "quopri", "uu", "rot13", "idna", "punycode",
                "undefined", "unicode_escape", "raw_unicode_escape", "utf-7", "charmap", "palmos",
                "mbcs", "latin-1", "cp500", "ebcdic-cp-us", "utf-32", "euc_kr", "iso-2022-kr",
                "x-user-defined", "mac_latin2", "hp-roman8", "tis_620"]


@pytest.mark.parametrize("label", NOT_CHARSETS)
def test_codec_labels_that_are_no_charset_are_ignored(label):
    page = f'<html><meta charset="{label}"><p>Hello there, reader of this page.</p></html>'.encode()
    r = ce_filter.extract(page)
    assert "Hello there" in r.text and r.encoding == "utf-8"
    r = ce_filter.Extractor().extract(page, encoding=label)  # the HTTP header's charset
    assert "Hello there" in r.text and r.encoding == "utf-8"
    assert normalize_charset(label) is None
    assert charset_from_content_type(f"text/html; charset={label}") is None


def test_real_charsets_still_decode():
    text = "Grüße aus Köln, schöne Straße und Bäume. " * 5
    for label in ("iso-8859-1", "windows-1252", "latin1", "cp1250", "koi8-r", "shift_jis"):
        enc = normalize_charset(label)
        assert enc is not None, label
    r = ce_filter.Extractor().extract(f"<p>{text}</p>".encode("cp1252"), encoding="iso-8859-1")
    assert "Grüße aus Köln" in r.text


def test_browser_labels_decode_as_browsers_do():
    """Labels are matched as browsers match them, and map to the encoding the standard names
    (iso-8859-1 and ascii are windows-1252; gb2312 is GBK, read as its superset gb18030)."""
    cases = {"ISO-8859-1": "cp1252", " Latin1 ": "cp1252", "us-ascii": "cp1252", "x-cp1252": "cp1252",
             "gb2312": "gb18030", "x-gbk": "gb18030", "unicode-1-1-utf-8": "utf-8", "utf8": "utf-8",
             "iso88592": "iso8859-2", "windows-874": "cp874", "iso-8859-11": "cp874",
             "sjis": "cp932", "windows-31j": "cp932", "euc-kr": "cp949", "big5-hkscs": "big5hkscs",
             "koi": "koi8-r", "x-mac-cyrillic": "mac-cyrillic", "logical": "iso8859-8",
             "utf-16": "utf-16-le", "utf-16be": "utf-16-be"}
    for label, codec in cases.items():
        assert normalize_charset(label) == codec, label
        assert normalize_charset(codec) == codec  # a hint made by it reads the same again
    text = "Привет, мир. Это страница на русском языке. " * 5
    r = ce_filter.extract(f'<meta charset="x-cp1251"><p>{text}</p>'.encode("cp1251"))
    assert "Привет, мир" in r.text and r.encoding == "cp1251"


def test_a_utf16_or_utf32_label_on_ascii_bytes_is_a_lie():
    r = ce_filter.Extractor().extract(b"<p>Plain ASCII paragraph of text here.</p>", encoding="utf-32")
    assert "Plain ASCII paragraph" in r.text
    r = ce_filter.extract(b'<meta charset="utf-32"><p>Plain ASCII paragraph of text here.</p>')
    assert "Plain ASCII paragraph" in r.text


# ---------------------------------------------------------------- model files


def _mutated(mutate):
    d = copy.deepcopy(load_default().to_json())
    mutate(d)
    return d


MUTATIONS = {
    "nan weight": lambda d: d["stage1"]["coef"].__setitem__(0, float("nan")),
    "nan intercept": lambda d: d["stage1"].__setitem__("intercept", float("nan")),
    "infinite mean": lambda d: d["stage1"]["mean"].__setitem__(3, float("inf")),
    "threshold 5": lambda d: d.__setitem__("threshold", 5),
    "threshold -0.1": lambda d: d.__setitem__("threshold", -0.1),
    "threshold nan": lambda d: d.__setitem__("threshold", float("nan")),
    "threshold string": lambda d: d.__setitem__("threshold", "0.5"),
    "threshold true": lambda d: d.__setitem__("threshold", True),
    "features a list": lambda d: d.__setitem__("features", []),
    "spec a string": lambda d: d["features"].__setitem__("spec", "st"),
    "groups a number": lambda d: d["features"]["spec"].__setitem__("groups", 5),
    "token list of numbers": lambda d: d["features"]["spec"].__setitem__("ic_own", [1, 2]),
    "stage1 a list": lambda d: d.__setitem__("stage1", [1, 2]),
    "stage2 a string": lambda d: d.__setitem__("stage2", "x"),
    "weights nested": lambda d: d["stage1"].__setitem__("coef", [[1.0]] * len(d["stage1"]["coef"])),
    "weights strings": lambda d: d["stage1"].__setitem__("coef", ["a"] * len(d["stage1"]["coef"])),
    "name a number": lambda d: d.__setitem__("name", 7),
    "meta a list": lambda d: d.__setitem__("meta", [1]),
    "no stage1": lambda d: d.pop("stage1"),
}


@pytest.mark.parametrize("what", sorted(MUTATIONS))
def test_invalid_model_files_raise_model_error(tmp_path, what):
    p = tmp_path / "m.json"
    p.write_text(json.dumps(_mutated(MUTATIONS[what])))  # json writes NaN/Infinity literals
    with pytest.raises(ModelError):
        Model.load(p)


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, '{"a":' * 50_000 + "1" + "}" * 50_000,
                                  "[]", '"model"', "null", "not json", ""])
def test_files_that_are_not_models_raise_model_error(tmp_path, text):
    p = tmp_path / "m.json"
    p.write_text(text)
    with pytest.raises(ModelError):
        Model.load(p)


def test_non_utf8_model_file_raises_model_error(tmp_path):
    p = tmp_path / "m.json"
    p.write_bytes(b"\xff\xfe{}")
    with pytest.raises(ModelError):
        Model.load(p)


def test_the_shipped_model_still_loads_through_the_checks():
    d = load_default().to_json()
    assert Model.from_json(json.loads(json.dumps(d))).digest == load_default().digest
