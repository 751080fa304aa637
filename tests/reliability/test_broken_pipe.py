"""``ce-filter warc ... --to jsonl:- | head -1``: the reader goes away after one record; the
run stops, and its summary still adds up (records = pages + skipped; pages = kept + empty +
read-but-unfiltered; each sink's delivered + failed = the records it was given)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "samples" / "sample.warc.gz"


@pytest.mark.parametrize("stdin", [False, True], ids=["file", "stdin"])
def test_a_closed_stdout_leaves_a_summary_that_adds_up(tmp_path: Path, stdin: bool) -> None:
    stats = tmp_path / "stats.json"
    warc = tmp_path / "many.warc.gz"  # gzip members back to back: more records than a pipe holds
    warc.write_bytes(SAMPLE.read_bytes() * 60)
    args = [sys.executable, "-m", "ce_filter.cli", "warc", "-" if stdin else str(warc),
            "--to", "jsonl:-", "--quiet", "--stats", str(stats)]
    with open(warc, "rb") as inp:
        proc = subprocess.Popen(args, cwd=REPO, stdin=inp if stdin else subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert proc.stdout is not None and proc.stderr is not None
        first = proc.stdout.readline()  # `head -1`
        proc.stdout.close()
        err = proc.stderr.read().decode()
        code = proc.wait(timeout=300)
    assert json.loads(first)["text"]
    assert code != 0 and "Broken pipe" in err, err
    st = json.loads(stats.read_text())
    assert st["records"] == st["pages"] + sum(st["skipped"].values()), st
    done = st["kept"] + sum(st["empty"].values())
    assert st["pages"] == done + st.get("unfiltered", 0), st
    sink = st["sinks"]["jsonl:-"]
    assert sink["delivered"] + sink["failed"] == done and sink["delivered"] >= 1, st
    assert f"{sink['delivered']} delivered, {sink['failed']} failed" in err
