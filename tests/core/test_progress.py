"""Progress of the long commands: a bar on a terminal, plain periodic lines in a log."""

from __future__ import annotations

import io

import pytest

from ce_filter.learn import progress as P


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_log_gets_plain_lines_with_the_total_and_the_time_left(monkeypatch):
    clock = iter(range(0, 1000, 10))  # each call 10 s later
    monkeypatch.setattr(P.time, "monotonic", lambda: float(next(clock)))
    out = io.StringIO()
    assert list(P.progress(range(4), "train: features", file=out)) == [0, 1, 2, 3]
    lines = out.getvalue().splitlines()
    assert "\r" not in out.getvalue()
    # one line per LOG_EVERY (15 s) at most, then the final one
    assert lines[0] == "train: features: 2/4 pages (50%), 0:20 elapsed, ~0:20 left"
    assert lines[-1] == "train: features: 4/4 pages (100%), 0:50 elapsed"


def test_no_total_and_disabled():
    out = io.StringIO()
    assert list(P.progress(iter("ab"), "x", file=out, unit="fit")) == ["a", "b"]
    assert out.getvalue().splitlines()[-1].startswith("x: 2 fits, ")
    quiet = io.StringIO()
    list(P.progress(range(3), "x", enabled=False, file=quiet))
    assert quiet.getvalue() == ""


def test_a_terminal_gets_a_tqdm_bar():
    pytest.importorskip("tqdm")
    out = Terminal()
    t = P.Ticker("train: fits", total=3, unit="fit", file=out)
    for _ in range(3):
        t.tick()
    t.write("a message")
    t.close()
    text = out.getvalue()
    assert "3/3" in text and "fit" in text and "a message" in text


def test_time_format():
    assert P._fmt(5) == "0:05" and P._fmt(65) == "1:05" and P._fmt(3725) == "1:02:05"
