"""The per-page budget options: a budget that is no number of seconds/MiB is an ordinary
mistake (one line, exit 2, before any page is read), from a flag or its variable, in every
command that has them; 0 means no limit."""

from __future__ import annotations

import pytest
from ce_filter.pipelines.spark_job import build_parser
from pipeline.conftest import cli_env, run_cli

from .warcs import pages

BAD = [
    (["--page-budget", "nan"], {}, "argument --page-budget: 'nan': must be 0 (no limit) or more"),
    (["--page-budget", "-1"], {}, "argument --page-budget: '-1': must be 0 (no limit) or more"),
    (["--page-budget", "soon"], {}, "argument --page-budget: 'soon' is not a number"),
    (["--page-memory", "-5"], {}, "argument --page-memory: '-5': must be 0 (no limit) or more"),
    (["--page-memory", "1.5"], {}, "argument --page-memory: '1.5' is not a whole number"),
    ([], {"CE_FILTER_PAGE_BUDGET": "inf"}, "(from CE_FILTER_PAGE_BUDGET)"),
]


@pytest.mark.parametrize("command", ["warc", "worker", "crawl", "extract", "serve"])
@pytest.mark.parametrize("flags,environ,line", BAD, ids=[" ".join(b[0]) or str(b[1]) for b in BAD])
def test_a_bad_budget_is_one_line_and_exit_2(tmp_path, command, flags, environ, line):
    warc = tmp_path / "x.warc.gz"
    warc.write_bytes(pages(3)[0])
    out = tmp_path / "out.jsonl"
    args = {"warc": [str(warc), "--to", f"jsonl:{out}"],
            "worker": ["--input-topic", "a", "--output-topic", "b"],
            "crawl": ["http://127.0.0.1:9/", "--to", f"jsonl:{out}"],
            "extract": [str(warc)], "serve": ["--port", "9"]}[command]
    r = run_cli([command, *args, *flags], env=cli_env(**environ))
    err = r.stderr.decode().strip()
    assert r.returncode == 2, err
    assert len(err.splitlines()) == 1 and line in err, err
    assert not out.exists()


def test_zero_means_no_limit_and_the_run_goes_on(tmp_path):
    warc = tmp_path / "x.warc.gz"
    warc.write_bytes(pages(5)[0])
    out = tmp_path / "out.jsonl"
    r = run_cli(["warc", str(warc), "--to", f"jsonl:{out}", "--page-budget", "0", "--page-memory", "0"])
    assert r.returncode == 0, r.stderr.decode()
    assert len(out.read_text().splitlines()) == 5


def test_the_spark_job_checks_its_budget_too(capsys):
    with pytest.raises(SystemExit) as e:
        build_parser().parse_args(["--input", "x", "--output", "y", "--page-budget", "nan"])
    assert e.value.code == 2
    assert "'nan': must be 0 (no limit) or more" in capsys.readouterr().err
