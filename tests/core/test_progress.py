"""The progress helper every long command uses (ce_filter.progress), and what warc and extract
show with it: a tqdm bar on a terminal, plain lines every LOG_EVERY seconds elsewhere."""

from __future__ import annotations

import fcntl
import io
import os
import pty
import select
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from ce_filter import progress as P

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "samples" / "sample.warc.gz"
TIMEOUT = 120  # a hang guard, not a timing assertion


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_plain_lines_with_total_eta_and_counts(monkeypatch):
    out = io.StringIO()
    clock = iter(range(0, 1000, 10))  # each look at the clock is 10 s later
    monkeypatch.setattr(P.time, "monotonic", lambda: float(next(clock)))
    with P.Ticker("warc", 4_000_000, unit="B", unit_scale=True, file=out) as t:
        for _ in range(4):
            t.set_postfix("3 pages, 2 kept")
            t.tick(1_000_000)
    lines = out.getvalue().splitlines()
    # started at 0 s; ticks at 10, 20, 30, 40 s (a line when 15 s have passed since the last
    # one: at 20 and 40 s); the final line at close, 50 s
    assert lines == [
        "warc: 2.0 MB of 4.0 MB (50%), 0:20 elapsed, ~0:20 left; 3 pages, 2 kept",
        "warc: 4.0 MB of 4.0 MB (100%), 0:40 elapsed; 3 pages, 2 kept",
        "warc: 4.0 MB of 4.0 MB (100%), 0:50 elapsed; 3 pages, 2 kept",
    ]
    assert P.line("extract", 3, None, 75, "input") == "extract: 3 inputs, 1:15 elapsed"
    assert P.line("train", 1, 4, 3700, "page") == "train: 1/4 pages (25%), 1:01:40 elapsed, ~3:05:00 left"


def test_a_short_job_off_a_terminal_writes_nothing_and_disabled_is_silent():
    out = io.StringIO()
    assert list(P.progress(range(3), "quick", file=out)) == [0, 1, 2]
    assert out.getvalue() == ""
    tty = Tty()
    with P.Ticker("off", 3, enabled=False, file=tty) as t:
        t.tick(3)
    assert tty.getvalue() == "" and t.bar is None


def test_terminal_gets_a_tqdm_bar_and_messages_do_not_break_it():
    tty = Tty()
    with P.Ticker("extract", 2, unit="input", file=tty) as t:
        assert t.bar is not None
        t.tick()
        t.write("ce-filter: error: x: no such file", file=tty)
        t.tick()
    text = tty.getvalue()
    assert "ce-filter: error: x: no such file\n" in text
    assert "extract: 100%" in text and "2/2" in text


def pty_run(args: list[str], cwd: Path) -> tuple[int, str]:
    """Run the CLI with stderr on a pseudo-terminal 120 columns wide; (exit code, its stderr)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    env = {k: v for k, v in os.environ.items() if not k.startswith("CE_FILTER_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    p = subprocess.Popen([sys.executable, "-m", "ce_filter.cli", *args], cwd=cwd, env=env,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], TIMEOUT)
        if not ready:
            p.kill()
            break
        try:
            data = os.read(master, 65536)
        except OSError:  # the child closed its end
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return p.wait(TIMEOUT), b"".join(chunks).decode("utf-8", "replace")


def test_warc_on_a_terminal_shows_a_bar_over_the_input_bytes(tmp_path):
    pytest.importorskip("warcio")
    size = SAMPLE.stat().st_size
    code, err = pty_run(["warc", str(SAMPLE), "--to", f"jsonl:{tmp_path / 'o.jsonl'}"], tmp_path)
    assert code == 0, err
    last = [s for s in err.replace("\r", "\n").splitlines() if s.startswith("warc:")][-1]
    assert "100%|" in last and f"{size / 1000:.1f}k/{size / 1000:.1f}k" in last, last
    assert "5 pages, " in last and "kept" in last
    code, err = pty_run(["warc", "-q", str(SAMPLE), "--to", f"jsonl:{tmp_path / 'q.jsonl'}"], tmp_path)
    assert code == 0 and "warc:" not in err and "%|" not in err


def test_extract_over_many_inputs_on_a_terminal(tmp_path):
    from .test_api import ARTICLE

    for i in range(3):
        (tmp_path / f"{i}.html").write_text(ARTICLE)
    code, err = pty_run(["extract", str(tmp_path), "nonexist.html"], tmp_path)
    assert code == 2
    assert "extract: 100%" in err and "4/4" in err  # three files and the missing one
    assert "ce-filter: error: nonexist.html: no such file or directory" in err
    code, err = pty_run(["extract", str(tmp_path / "0.html")], tmp_path)  # one input: no bar
    assert code == 0 and "%|" not in err


def test_time_format():
    assert P._fmt(5) == "0:05" and P._fmt(65) == "1:05" and P._fmt(3725) == "1:02:05"
