"""``ce-filter warc``: WARC -> JSONL, -> WARC (conversion records), -> Kafka, with counts that add up."""

from __future__ import annotations

import json

import pytest
from ce_filter.crawler.warc import read_all
from ce_filter.pipelines.kafka_io import read_topic
from warcio.archiveiterator import ArchiveIterator

from ce_filter.record import validate

from .conftest import run_cli, unique
from .helpers import make_warc


@pytest.fixture
def warc_file(tmp_path):
    t = make_warc()
    path = tmp_path / "in.warc.gz"
    path.write_bytes(t.data)
    return path, t


def _jsonl(path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def _conversions(path) -> list[tuple[str, str, str]]:
    with open(path, "rb") as fh:
        return [
            (
                r.rec_headers.get_header("WARC-Target-URI"),
                r.rec_headers.get_header("WARC-Refers-To"),
                r.content_stream().read().decode("utf-8"),
            )
            for r in ArchiveIterator(fh)
            if r.rec_type == "conversion"
        ]


def test_warc_to_jsonl_warc_and_kafka(warc_file, tmp_path, kafka, kcat):
    path, t = warc_file
    topic = unique("warc-out")
    out_jsonl, out_warc, stats_json = tmp_path / "o.jsonl", tmp_path / "o.warc.gz", tmp_path / "stats.json"
    r = run_cli(
        [
            "warc",
            str(path),
            "--to",
            f"jsonl:{out_jsonl}",
            "--to",
            f"warc:{out_warc}",
            "--to",
            f"kafka:{topic}",
            "--bootstrap-servers",
            kafka.bootstrap_servers,
            "--stats",
            str(stats_json),
        ]
    )
    assert r.returncode == 0, r.stderr.decode()
    st = json.loads(stats_json.read_text())
    # counts add up: records = pages + skipped; pages = kept + empty = what each sink got
    assert st["records"] == t.records == st["pages"] + sum(st["skipped"].values())
    assert st["pages"] == len(t.pages) == st["kept"] + sum(st["empty"].values())
    for name, s in st["sinks"].items():
        assert (s["written"], s["delivered"], s["failed"]) == (st["pages"], st["pages"], 0), name
    recs = _jsonl(out_jsonl)
    assert sorted(x["url"] for x in recs) == sorted(t.pages)
    for x in recs:
        assert validate(x) == [] and t.pages[x["url"]] in x["text"]
        assert x["source"] == {"type": "warc", "name": str(path), "record_id": t.record_ids[x["url"]]}
    conv = _conversions(out_warc)
    assert sorted(c[0] for c in conv) == sorted(t.pages)
    for url, refers, text in conv:
        assert refers == t.record_ids[url] and t.pages[url] in text
    msgs = read_topic(kafka, topic)
    assert sorted(m.key.decode() for m in msgs) == sorted(t.pages)
    assert {m.key.decode(): json.loads(m.value)["text_sha256"] for m in msgs} == {
        x["url"]: x["text_sha256"] for x in recs
    }
    assert all(validate(json.loads(m.value)) == [] for m in msgs)
    seen = kcat(kafka.bootstrap_servers, topic)  # an independent client agrees
    assert sorted((m["key"], json.loads(m["payload"])["text_sha256"]) for m in seen) == sorted(
        (x["url"], x["text_sha256"]) for x in recs
    )


def test_workers_and_stdin_give_the_same_records(warc_file, tmp_path):
    path, t = warc_file
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    r1 = run_cli(["warc", str(path), str(path), "--to", f"jsonl:{one}"])
    r2 = run_cli(["warc", str(path), str(path), "--to", f"jsonl:{two}", "--workers", "2"])
    assert r1.returncode == 0 and r2.returncode == 0, r2.stderr.decode()
    key = lambda x: (x["url"], x["text_sha256"])  # noqa: E731
    a, b = sorted(map(key, _jsonl(one))), sorted(map(key, _jsonl(two)))
    assert len(a) == 2 * len(t.pages) and a == b  # order may differ, records do not
    r3 = run_cli(["warc", "-", "--to", "jsonl:-"], input=path.read_bytes())
    assert r3.returncode == 0
    piped = [json.loads(x) for x in r3.stdout.decode().splitlines()]
    assert sorted(map(key, piped)) == sorted(set(a))
    assert b"\r" not in r3.stderr  # no progress line when stderr is not a terminal


@pytest.mark.parametrize("workers", ["1", "2"])  # 2: read in byte-range shards (warc_shards)
def test_truncated_input_keeps_whole_records_and_says_where(warc_file, tmp_path, workers):
    path, t = warc_file
    cut_at = t.data.index(b"\x1f\x8b", len(t.data) // 2)  # a record boundary in the second half
    cut = tmp_path / "cut.warc.gz"
    cut.write_bytes(t.data[: cut_at + 40])
    out = tmp_path / "o.jsonl"
    r = run_cli(["warc", str(cut), "--to", f"jsonl:{out}", "--workers", workers])
    err = r.stderr.decode()
    assert r.returncode == 1, err
    assert f"at offset {cut_at}" in err and "truncated" in err
    before_cut = [p.url for p in read_all(t.data[:cut_at])]  # the whole records before the cut
    assert 0 < len(before_cut) < len(t.pages)
    got = [x["url"] for x in _jsonl(out)]
    assert (got if workers == "1" else sorted(got)) == (before_cut if workers == "1" else sorted(before_cut))


def test_bad_arguments_and_missing_input(tmp_path):
    r = run_cli(["warc", str(tmp_path / "nope.warc.gz"), "--to", "jsonl:-"])
    assert r.returncode == 2 and b"no WARC input" in r.stderr
    r = run_cli(["warc", str(tmp_path), "--to", "s3:bucket"])
    assert r.returncode == 2 and b"bad sink" in r.stderr


def test_stats_is_checked_before_the_run_and_written_after(warc_file, tmp_path):
    path, t = warc_file
    out = tmp_path / "o.jsonl"
    r = run_cli(["warc", str(path), "--to", f"jsonl:{out}", "--stats", str(tmp_path / "no" / "s.json")])
    assert r.returncode == 2 and b"cannot write" in r.stderr and not out.exists()  # nothing ran
    r = run_cli(["warc", str(path), "--to", f"jsonl:{out}", "--stats", str(tmp_path / "s.json")])
    assert r.returncode == 0 and json.loads((tmp_path / "s.json").read_text())["pages"] == len(t.pages)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_revisits_resolved_on_request(warc_file, tmp_path, workers):
    path, t = warc_file
    out = tmp_path / "o.jsonl"
    r = run_cli(["warc", str(path), "--to", f"jsonl:{out}", "--revisits", "resolve", "--workers", workers])
    assert r.returncode == 0, r.stderr.decode()
    recs = _jsonl(out)
    assert len(recs) == len(t.pages) + 1
    for rec in recs:
        validate(rec)
    again = [x for x in recs if x["source"].get("revisit_of")]
    assert len(again) == 1
    original = next(x for x in recs if x["source"]["record_id"] == again[0]["source"]["revisit_of"])
    assert original["url"] == again[0]["url"] and original["text_sha256"] == again[0]["text_sha256"]
    assert original["text"] and "revisit_of" not in original["source"]


def test_wet_records_carry_language_and_title_end_to_end(tmp_path):
    """``ce-filter warc --to warc:``: each conversion record names the kept text's language
    and the article's title, as in the JSONL record of the same page."""
    from pathlib import Path

    sample = Path(__file__).parents[2] / "samples" / "sample.warc.gz"
    out_warc, out_jsonl = tmp_path / "o.warc.gz", tmp_path / "o.jsonl"
    r = run_cli(["warc", str(sample), "--to", f"warc:{out_warc}", "--to", f"jsonl:{out_jsonl}"])
    assert r.returncode == 0, r.stderr
    recs = {x["url"]: x for x in _jsonl(out_jsonl)}
    with open(out_warc, "rb") as fh:
        heads = [r.rec_headers for r in ArchiveIterator(fh) if r.rec_type == "conversion"]
    assert len(heads) == len(recs) >= 3
    for h in heads:
        rec = recs[h.get_header("WARC-Target-URI")]
        assert h.get_header("WARC-Identified-Content-Language") == rec["language"] == "en"
        assert h.get_header("WARC-Title") == rec["title"] and rec["title"]
