"""Charset sniffing order: BOM, transport hint, <meta>, UTF-8, detection; never raises."""

import codecs

from ce_filter.decode import charset_from_content_type, decode_html

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
