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
