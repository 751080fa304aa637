"""Charset sniffing order: BOM, transport hint, <meta>, UTF-8, detection; never raises."""

import codecs
import gzip
import random

import pytest

from ce_filter.read.decode import bare_utf16, charset_from_content_type, decode_html, looks_binary

RU = "Привет, мир! Это длинный тестовый текст о погоде в Москве и новостях дня. " * 20


def test_bom_wins_over_hint():
    data = codecs.BOM_UTF8 + "héllo".encode()
    assert decode_html(data, "cp1251") == ("héllo", "utf-8")


def test_hint_then_meta():
    data = b'<meta charset="windows-1251"><p>' + RU.encode("cp1251")
    text, enc = decode_html(data)
    assert enc == "cp1251" and RU in text
    text, enc = decode_html(RU.encode("koi8-r"), "koi8-r")
    assert text == RU


def test_undeclared_cp1251_is_detected():
    text, enc = decode_html(f"<html><body><p>{RU}</p></body></html>".encode("cp1251"))
    assert RU in text, enc


def test_garbage_and_unknown_labels_do_not_raise():
    text, enc = decode_html(b"\xff\xfe\x00garbage\x80\x81", "no-such-charset")
    assert isinstance(text, str)
    assert charset_from_content_type("text/html; charset=\"UTF-8\"") == "utf-8"
    assert charset_from_content_type("text/html") is None


ZH = "新华社北京电，中国人民银行今日宣布下调存款准备金率零点五个百分点。" * 5


def test_utf8_body_wins_over_a_legacy_multibyte_label():
    """Chinese sites often declare gb2312/gbk and serve UTF-8: valid multi-byte UTF-8 is read as
    UTF-8 whatever legacy charset the page or the transport names."""
    page = f'<meta charset="gb2312"><p>{ZH}</p>'
    for label in ("gb2312", "gbk", "big5", "shift_jis", "euc-kr", "windows-1251"):
        data = page.replace("gb2312", label).encode("utf-8")
        assert decode_html(data) == (page.replace("gb2312", label), "utf-8"), label
        assert decode_html(data, label)[1] == "utf-8", label


def test_real_gbk_stays_gbk():
    data = f'<meta charset="gb2312"><p>{ZH}</p>'.encode("gbk")
    text, enc = decode_html(data)
    assert enc == "gb18030" and ZH in text
    short = '<meta charset="gbk"><p>中文</p>'.encode("gbk")  # two characters: not valid UTF-8
    assert decode_html(short)[0].endswith("中文</p>")


def test_utf8_cut_mid_character_under_a_legacy_label():
    data = f'<meta charset="gbk"><p>{ZH}'.encode()[:-1]
    text, enc = decode_html(data)
    assert enc == "utf-8" and text.startswith(f'<meta charset="gbk"><p>{ZH[:-1]}')


# ---------------------------------------------------------------- binary input

PAGE = ("<html><head><title>Té</title></head><body><p>"
        + "Die Fischereiflotte der Stadt kehrte am Donnerstag zurück. 漁船団 " * 30 + "</p></body></html>")


@pytest.mark.parametrize("size", [100, 5000, 8192, 100_000])
def test_random_bytes_are_binary(size: int) -> None:
    rng = random.Random(size)
    assert looks_binary(bytes(rng.randrange(256) for _ in range(size)))


@pytest.mark.parametrize("enc", ["utf-8", "cp1252", "gb18030", "shift_jis", "iso2022_jp", "utf-16-le",
                                 "utf-16-be", "utf-32-le", "utf-32-be", "utf-16", "utf-32"])
def test_text_in_any_encoding_is_not_binary(enc: str) -> None:
    data = PAGE.encode(enc, "replace")
    assert not looks_binary(data)
    text, used = decode_html(data, None if enc != "iso2022_jp" else enc)
    assert "Fischereiflotte" in text, (enc, used)


@pytest.mark.parametrize("enc", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_utf16_without_bom_is_decoded(enc: str) -> None:
    data = PAGE.encode(enc)
    assert bare_utf16(data[:1024]) == enc
    assert decode_html(data) == (PAGE, enc)
    assert decode_html(data, "utf-8")[1] == enc  # the NULs outweigh a wrong label


def test_magic_numbers_and_few_controls() -> None:
    assert looks_binary(b"\x1f\x8b\x08" + b"x" * 100)  # gzip
    assert looks_binary(b"\x89PNG\r\n\x1a\n" + b"x" * 100)
    assert not looks_binary(b"")
    # a page with a few stray control bytes (a form feed, a NUL, an ESC sequence) is text
    assert not looks_binary(b"<p>a\x0cb\x00c\x1b$B text</p>" + b"<p>more text</p>" * 10)
    assert bare_utf16(PAGE.encode()) is None and bare_utf16(b"\x00" * 3) is None


@pytest.mark.corpus
def test_no_corpus_page_is_binary(data_dir) -> None:
    """Every page of every labelled corpus is text: none is called binary, none taken for
    BOM-less UTF-16/32."""
    flagged, n = [], 0
    for corpus in sorted(p for p in data_dir.iterdir() if (p / "html").is_dir()):
        for path in sorted((corpus / "html").iterdir()):
            raw = gzip.open(path, "rb").read() if path.suffix == ".gz" else path.read_bytes()
            n += 1
            if looks_binary(raw) or bare_utf16(raw[:1024]):
                flagged.append(f"{corpus.name}/{path.name}")
    assert n > 5000 and not flagged


def test_extract_gives_no_text_for_random_bytes() -> None:
    from ce_filter import Extractor

    rng = random.Random(8)
    noise = bytes(rng.randrange(256) for _ in range(8192))
    r = Extractor().extract(noise, "http://example.org/x", encoding="utf-8")  # labelled text/html
    assert (r.text, r.reason, r.language, r.page_type) == ("", "binary content", "", "")
    r = Extractor().extract(PAGE.encode("utf-16-le"))
    assert "Fischereiflotte" in r.text and r.encoding == "utf-16-le"


def test_random_bytes_in_a_warc_give_no_text(tmp_path) -> None:
    """8 KB of random bytes labelled text/html in a WARC: a record with no text, 'binary
    content'; the page beside it is unaffected."""
    import json
    import subprocess
    import sys

    pytest.importorskip("warcio")
    from ce_filter.crawler.warcgen import WarcBuilder

    rng = random.Random(8)
    path = tmp_path / "in.warc.gz"
    with open(path, "wb") as f:
        w = WarcBuilder(f)
        w.response("http://noise.test/", bytes(rng.randrange(256) for _ in range(8192)),
                   content_type="text/html")
        w.response("http://page.test/", PAGE.encode())
    out = tmp_path / "out.jsonl"
    subprocess.run([sys.executable, "-m", "ce_filter.cli", "warc", str(path), "--to", f"jsonl:{out}", "-q"],
                   check=True, capture_output=True)
    recs = {r["url"]: r for r in map(json.loads, out.read_text().splitlines())}
    noise = recs["http://noise.test/"]
    assert (noise["text"], noise["reason"]) == ("", "binary content")
    assert "Fischereiflotte" in recs["http://page.test/"]["text"]
