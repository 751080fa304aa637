"""Double-encoded UTF-8 is taken back, by the byte test in C and its reference alike, and text
that only looks like it stays as it is."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

import ce_filter
from ce_filter.read import mojibake
from ce_filter.read.decode import decode_bytes, decode_html
from tests.oracles import mojibake_suspect as oracle

TEXT = ("Don’t miss the café’s “crème brûlée” — it costs €4 … naïve señor. Ñandú, Øre, ß. "
        "Москва и Ελλάδα, 東京 and 😀.")


def double(text: str, codec: str = "cp1252") -> str:
    """``text`` as it reads after its UTF-8 was decoded as ``codec``: latin-1 keeps bytes
    0x80..0x9F as C1 controls, windows-1252 (as browsers read it) turns them into punctuation
    but for the five it leaves undefined, which stay C1 controls."""
    raw = text.encode("utf-8")
    if codec == "latin-1":
        return raw.decode("latin-1")
    return "".join(bytes([b]).decode("cp1252", "ignore") or chr(b) for b in raw)


@pytest.fixture(params=[True, False], ids=["c-part", "oracle"])
def byte_test(request, monkeypatch) -> bool:
    """The repair with the C byte test, and with the oracle's regular expression in its place."""
    if not request.param:
        monkeypatch.setattr(mojibake, "_c", SimpleNamespace(suspect=oracle.suspect))
    return request.param


@pytest.mark.parametrize("codec", ["cp1252", "latin-1"])
def test_double_encoded_bytes_are_taken_back(byte_test, codec):
    page = f"<html><body><p>{TEXT}</p></body></html>"
    bad = double(page, codec).encode("utf-8")
    text, enc, repaired = decode_bytes(bad)
    assert text == page and enc == "utf-8" and repaired
    assert decode_html(bad) == (page, "utf-8")


def test_twice_double_encoded_text_is_taken_back():
    bad = double(double(TEXT))
    assert mojibake.repair(bad) == TEXT


@pytest.mark.parametrize("label", ["windows-1252", "iso-8859-1", "iso-8859-2"])
def test_utf8_bytes_labelled_one_byte_are_read_as_utf8(label):
    page = f'<html><head><meta charset="{label}"></head><body><p>{TEXT}</p></body></html>'
    assert decode_bytes(page.encode("utf-8")) == (page, "utf-8", False)
    words, codec = {"windows-1252": ("Crème brûlée, 5 € — naïve", "cp1252"),
                    "iso-8859-1": ("Crème brûlée — naïve", "cp1252"),
                    "iso-8859-2": ("Zażółć gęślą", "iso8859-2")}[label]
    legacy = page.replace(TEXT, words)
    assert decode_bytes(legacy.encode(codec)) == (legacy, codec, False)


def test_windows_1252_keeps_its_undefined_bytes_as_c1_controls():
    assert decode_html(b'<meta charset="windows-1252"><p>a\x81b\x9dc\x93d\x94</p>') == (
        '<meta charset="windows-1252"><p>a\x81b\x9dc“d”</p>', "cp1252")


def test_the_extracted_text_and_title_are_repaired():
    page = (f"<html><head><title>{double('Café’s menu')}</title></head><body><article>"
            + "".join(f"<p>{double(TEXT)} Paragraph {i} of the review goes on for a while.</p>"
                      for i in range(6)) + "</article></body></html>")
    for html in (page.encode("utf-8"), page):
        r = ce_filter.extract(html)
        assert TEXT in r.text and "â€" not in r.text and "Ã" not in r.text
        assert r.title == "Café’s menu"


@pytest.mark.parametrize("text", [
    "«ÉTÉ» à Paris, NÃO em São Paulo, Straße…, GRÜẞE’, Ä°C, café ©, âge d’or",
    "Only one Ã© in a page is not enough to act on.",
    "Wörter mit Ä» und É« stehen so da.",
])
def test_text_that_only_looks_double_encoded_stays(text):
    assert mojibake.repair(text) == text
    data = f"<p>{text}</p>".encode()
    assert decode_bytes(data) == (f"<p>{text}</p>", "utf-8", False)


def test_legit_text_beside_mojibake_stays():
    """A page with real mojibake has its runs taken back; a look-alike whose bytes would make a
    character of no script in use ("É»" would be U+027B) is left as written."""
    text = "«ÉTÉ» " + double("l’été — “chaud”")
    assert mojibake.repair(text) == "«ÉTÉ» l’été — “chaud”"


def test_byte_test_in_c_equals_the_oracle():
    rng = random.Random(7)
    pieces = [b"\xc3", b"\xc2", b"\xe2", b"\xc5", b"\xc6", b"\xcb", b"\x80", b"\x82", b"\x84",
              b"\x92", b"\xa2", b"\xa9", b"\xb4", b"\xb5", b"\xbf", b"a", b"<p>"]
    for _ in range(3000):
        data = b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        assert mojibake.suspect(data) == oracle.suspect(data), data
    for text in (TEXT, double(TEXT), double(TEXT, "latin-1"), "plain ASCII", "Ã"):
        data = text.encode("utf-8")
        assert mojibake.suspect(data) == oracle.suspect(data)
