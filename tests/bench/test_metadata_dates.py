"""The dates section of ``ce-filter bench --metadata``: its label (a URL's whole date) and its
table, on made-up answers."""

from __future__ import annotations

from ce_filter.bench.metadata import dates_report, url_day


def test_url_day() -> None:
    assert url_day("https://ex.org/2024/03/05/story") == "2024-03-05"
    assert url_day("http://economy.caijing.com.cn/20180522/4456553.shtml") == "2018-05-22"
    assert url_day("https://www.chinadaily.com.cn/a/202405/20/WS66.html") == "2024-05-20"
    assert url_day("https://ex.org/2024/13/05/x") == "" and url_day("https://ex.org/id/12345678901") == ""
    assert url_day("") == ""


def test_dates_report_counts_right_answers() -> None:
    pages = [{"corpus": "c", "lang": "de", "day": "2024-03-05", "year": ""},
             {"corpus": "c", "lang": "de", "day": "2024-03-06", "year": ""},
             {"corpus": "b", "lang": "en", "day": "", "year": "2005"}]
    res = {"pages": 3,
           "got": {"ce-filter": ["2024-03-05", "", "2005-09-01"], "peer": ["2024-03-05", "2024-03-05", ""]},
           "secs": {"ce-filter": [0.001] * 3, "rules": [0.0001] * 3, "peer": [0.01] * 3}}
    out = dates_report(pages, res)
    assert "| c | other | URL's day | 2 | 0.500 (1) | 0.500 (2) |" in out
    assert "| b | en | year | 1 | 1.000 (1) | 0.000 (0) |" in out
