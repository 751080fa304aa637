"""The page kind is stated only where the page-kind model can read the page: enough words,
and a script written with spaces between words."""

from __future__ import annotations

from ce_filter import extract
from ce_filter.score.kindgate import MIN_WORDS, kind_stated, unspaced

EN = "The town's fishing fleet returned on Thursday with its largest catch in a decade. "
ZH = "本市渔船队周四返港，带回了十年来最大的一次渔获。渔民们说，今年的天气格外好。"
JA = "町の漁船団は木曜日、この十年で最大の漁獲とともに帰港した。"


def test_unspaced_scripts() -> None:
    assert unspaced(ZH) and unspaced(JA) and unspaced("ข่าววันนี้ฝนตกหนักในกรุงเทพ")
    assert not unspaced(EN) and not unspaced("Die Straße ist lang. " * 5) and not unspaced("")
    assert not unspaced(EN * 3 + ZH[:10])  # an English page quoting a few characters
    assert unspaced("Apple 苹果公司 " + ZH)  # a Chinese page naming a brand


def test_kind_stated() -> None:
    assert not kind_stated(MIN_WORDS - 1, EN * 10)
    assert kind_stated(MIN_WORDS, EN * 10)
    assert not kind_stated(500, ZH * 10)
    assert not kind_stated(500, "", [ZH] * 3) and kind_stated(500, "", [EN] * 3)  # no kept text: the blocks


def page(body: str) -> str:
    return ("<html><head><title>News</title></head><body><article><h1>Fleet</h1>"
            f"{body}</article></body></html>")


def test_extraction_states_a_kind_only_where_it_can_tell() -> None:
    for html in ("<p>hi</p>", page("<p>Veröffentlicht am 2. November 2023</p><p>" + "Wir sind im Sommer nach "
                                    "Italien gefahren und haben viel gesehen. " * 5 + "</p>"),
                 page(f"<p>{ZH * 20}</p><p>{ZH * 20}</p>")):
        r = extract(html)
        assert r.text and (r.page_type, r.page_type_prob) == ("", None), html[:60]
    r = extract(page("".join(f"<p>{EN * 3}</p>" for _ in range(8))), "https://news.example.org/2024/03/05/fleet")
    assert r.page_type == "article" and r.page_type_prob is not None
