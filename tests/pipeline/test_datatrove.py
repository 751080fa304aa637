"""The datatrove step: ``WarcReader -> CEFilter -> JsonlWriter`` on the local executor gives the
texts ``ce-filter warc`` gives; empty pages are dropped and counted; a slow page costs one
document, not the task."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

pytest.importorskip("datatrove", reason="needs the datatrove extra: pip install 'ce-filter[datatrove]'")

from datatrove.data import Document  # noqa: E402

from ce_filter.integrations.datatrove import CEFilter  # noqa: E402

from .conftest import REPO, run_cli  # noqa: E402

SAMPLE = REPO / "samples" / "sample.warc.gz"
PAGE = ("<html><head><title>Rivers</title></head><body><nav><a href='/'>Home</a></nav><article>"
        "<h1>Rivers of the north</h1>"
        + "".join(f"<p>Paragraph {i}: the river runs north past the old mill, where the water is cold "
                  f"and clear all through the year, and the town keeps its records.</p>" for i in range(8))
        + "</article><footer>Copyright</footer></body></html>")


def _reader_ready_warcs(src: Path, out_dir: Path) -> int:
    """``src`` rewritten as two WARC files with ``WARC-Identified-Payload-Type`` on each response,
    as Common Crawl writes them: datatrove's WarcReader picks HTML by that header (else by
    libmagic, which calls two of the sample's five pages JavaScript). Returns the HTML records."""
    from warcio.archiveiterator import ArchiveIterator
    from warcio.warcwriter import WARCWriter

    out_dir.mkdir()
    html = 0
    files = [open(out_dir / f"part-{i}.warc.gz", "wb") for i in range(2)]
    try:
        writers = [WARCWriter(f, gzip=True) for f in files]
        with open(src, "rb") as fh:
            for i, rec in enumerate(ArchiveIterator(fh)):
                if rec.rec_type == "response" and rec.http_headers:
                    ctype = (rec.http_headers.get_header("Content-Type") or "").split(";")[0].strip()
                    rec.rec_headers.replace_header("WARC-Identified-Payload-Type", ctype)
                    html += ctype == "text/html"
                writers[i % 2].write_record(rec)
    finally:
        for f in files:
            f.close()
    return html


def _stats(stats, step_name: str) -> dict[str, int]:
    for s in stats.stats:
        if s.name.endswith(step_name):
            return {k: v.total for k, v in s.stats.items()}
    raise AssertionError(f"no stats for {step_name}")


def test_warc_pipeline_gives_the_cli_texts(tmp_path):
    for mod in ("warcio", "cchardet", "magic", "orjson"):
        pytest.importorskip(mod, reason="datatrove's WarcReader/JsonlWriter need the datatrove extra")
    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.readers import WarcReader
    from datatrove.pipeline.writers import JsonlWriter

    n_html = _reader_ready_warcs(SAMPLE, tmp_path / "in")
    assert n_html == 5
    # the datatrove step reads each page alone (no site memory yet)
    r = run_cli(["warc", str(SAMPLE), "--no-site-memory", "--to", f"jsonl:{tmp_path / 'cli.jsonl'}"])
    assert r.returncode == 0, r.stderr.decode()
    cli = {x["url"]: x for x in map(json.loads, (tmp_path / "cli.jsonl").read_text("utf-8").splitlines())}
    assert len(cli) == n_html and all(x["text"] for x in cli.values())

    stats = LocalPipelineExecutor(
        pipeline=[WarcReader(str(tmp_path / "in")), CEFilter(),
                  JsonlWriter(str(tmp_path / "out"), compression=None)],
        tasks=2, workers=2, logging_dir=str(tmp_path / "logs"),
    ).run()
    docs = [json.loads(line) for f in sorted((tmp_path / "out").glob("*.jsonl"))
            for line in f.read_text("utf-8").splitlines()]
    assert len(list((tmp_path / "out").glob("*.jsonl"))) == 2  # both tasks had a file to read
    by_url = {d["metadata"]["url"]: d for d in docs}
    assert len(docs) == len(by_url) == n_html
    assert set(by_url) == set(cli)
    for url, rec in cli.items():
        d = by_url[url]
        assert d["text"] == rec["text"], url
        meta = d["metadata"]
        assert meta["title"] == rec["title"]
        assert meta.get("language") == rec["language"]
        assert meta.get("page_type") == rec["page_type"]
        assert meta.get("author") == rec["author"]
        assert meta.get("date_published") == rec["date"]
        assert meta["date"].startswith("20")  # the reader's crawl date is left as it was
    ex = _stats(stats, "ce-filter")
    assert ex["total"] == ex["extracted"] == ex["forwarded"] == n_html
    assert "dropped" not in ex


def _run(step: CEFilter, docs: list[Document]) -> list[Document]:
    return list(step.run(iter(docs)))


def test_empty_page_is_dropped_and_counted_with_its_reason():
    docs = [Document(PAGE, "a", metadata={"url": "http://x.invalid/a"}),
            Document("<html><body></body></html>", "b", metadata={"url": "http://x.invalid/b"}),
            Document("", "c")]
    step = CEFilter()
    out = _run(step, docs)
    assert [d.id for d in out] == ["a"]
    assert "river runs north" in out[0].text and "<p>" not in out[0].text
    assert "Copyright" not in out[0].text
    assert out[0].metadata["title"] and out[0].metadata["language"] == "en"
    st = {k: v.total for k, v in step.stats.stats.items()}
    assert st["total"] == 3 and st["forwarded"] == 1 and st["dropped"] == 2
    assert sum(v for k, v in st.items() if k.startswith("empty: ")) == 2

    step = CEFilter(keep_empty=True)
    kept = _run(step, [Document("<html><body></body></html>", "b")])
    assert kept[0].text == "" and kept[0].metadata["reason"]
    st = {k: v.total for k, v in step.stats.stats.items()}
    assert st["forwarded"] == 1 and "dropped" not in st and st[f"empty: {kept[0].metadata['reason']}"] == 1


class _Slow(CEFilter):
    """A page marked SLOW hangs (what a pathological page does to a real extractor); a hang
    that was not cut short leaves the file ``marker`` behind."""

    marker = ""

    def extract(self, text, url=None):
        if "SLOW" in text:
            time.sleep(30)
            Path(self.marker).write_text("the slow page ran to its end")
        return super().extract(text, url)


@pytest.mark.parametrize("sandbox", [False, True], ids=["timer", "sandbox"])
def test_a_page_past_the_timeout_costs_one_document(sandbox, tmp_path):
    step = _Slow(timeout=2, sandbox=sandbox)
    step.marker = str(tmp_path / "ran-to-its-end")
    out = _run(step, [Document(PAGE, "a"), Document(PAGE.replace("Rivers", "SLOW"), "slow"),
                      Document(PAGE, "c")])
    assert not Path(step.marker).exists()  # the hang was cut short, not waited out
    assert [d.id for d in out] == ["a", "c"]
    st = {k: v.total for k, v in step.stats.stats.items()}
    assert st["timeout"] == 1 and st["forwarded"] == 2
    import signal

    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)  # no timer left behind


def test_options_are_checked_at_construction_and_the_step_pickles():
    import dill

    with pytest.raises(ValueError):
        CEFilter(threshold=2)
    with pytest.raises(ValueError, match="no such model file"):
        CEFilter(model="/nonexistent/model.json")
    step = CEFilter(precise=True, metadata=False)
    assert step.extractor().threshold >= CEFilter().extractor().threshold
    copy = dill.loads(dill.dumps(step))
    assert copy._extractor is None and copy.options == step.options  # the model is loaded per task
    out = _run(copy, [Document(PAGE, "a")])
    assert out and "title" not in out[0].metadata  # metadata=False: no rules run


def test_recall_and_target_language_as_on_the_command_line():
    assert CEFilter(recall=True).options.recall is True
    with pytest.raises(ValueError, match="exclude each other"):
        CEFilter(recall=True, precise=True)
    with pytest.raises(ValueError, match="language"):
        CEFilter(target_language="klingon")
    step = CEFilter(target_language="de")
    assert _run(step, [Document(PAGE, "a")]) == []  # an English page, target German: dropped
    kept = _run(CEFilter(target_language="de", keep_empty=True), [Document(PAGE, "a")])
    assert kept[0].text == "" and kept[0].metadata["reason"].startswith("language en")


@pytest.mark.parametrize("sandbox", [False, True], ids=["timer", "sandbox"])
def test_site_memory_drops_what_the_hosts_earlier_pages_repeat(sandbox):
    promo = ("Sign up for our morning briefing to get the most important stories of the day sent "
             "to your inbox before breakfast, free of charge.")
    topics = ["parks", "buses", "schools", "libraries", "bridges"]

    def page(t: str) -> str:
        return PAGE.replace("Rivers of the north", f"News about {t}").replace(
            "</article>", f"<p>{promo}</p></article>").replace("the river", f"the {t}")

    def docs() -> list[Document]:  # new each run: the step replaces a document's text
        return [Document(page(t), t, metadata={"url": f"http://city.test/{t}.html"}) for t in topics]

    alone = {d.id: d.text for d in _run(CEFilter(sandbox=sandbox), docs())}
    seen = {d.id: d.text for d in _run(CEFilter(sandbox=sandbox, site_memory=True), docs())}
    assert all(promo in alone[t] for t in topics)
    assert promo in seen["parks"]  # the host's first page: no memory yet
    assert all(promo not in seen[t] for t in topics[2:])  # on every earlier page of the host
    assert all(f"the {t} runs north" in seen[t] for t in topics)


def test_bench_warc_maps_every_record_back_to_its_gold(tmp_path):
    """The benchmark's WARC: HTML records the reader selects, URLs as crawled where known, and
    record ids that lead each written document back to its page (so the F1 is of the right page)."""
    pytest.importorskip("warcio", reason="needs the warc extra")
    from ce_filter.bench import datatrove as bench
    from warcio.archiveiterator import ArchiveIterator

    from ce_filter.learn.corpus import Doc

    docs = [Doc("a", PAGE.encode(), "Rivers of the north", url="http://site.example/a"),
            Doc("b", b'<html><head><link rel="canonical" href="https://news.example/b.html"></head>'
                     b"<body><p>Other</p></body></html>", "Other"),
            Doc("c", b"<p>c</p>", "Cold water")]
    bench.write_warcs(docs, ["x", "x", "y z"], tmp_path / "w", files=2, n_pages=7)
    recs = []
    for f in sorted((tmp_path / "w").glob("*.warc.gz")):
        with open(f, "rb") as fh:
            recs += [(r.rec_headers.get_header("WARC-Record-ID"), r.rec_headers.get_header("WARC-Target-URI"),
                      r.rec_headers.get_header("WARC-Identified-Payload-Type")) for r in ArchiveIterator(fh)]
    assert len(recs) == 7 and {t for _, _, t in recs} == {"text/html"}
    urls = {bench.record_index(rid): url for rid, url, _ in recs}
    assert sorted(urls) == list(range(7))
    assert urls[0] == urls[3] == "http://site.example/a"
    assert urls[1] == "https://news.example/b.html" and urls[2] == "http://bench.invalid/y-z/c.html"

    out = tmp_path / "out"
    out.mkdir()
    ids = {bench.record_index(rid): rid for rid, _, _ in recs}
    written = [{"id": ids[i], "text": docs[i % 3].gold} for i in (0, 2, 3, 4, 5)]  # 1 dropped, 6 lost
    (out / "00000.jsonl").write_text("".join(json.dumps(d) + "\n" for d in written))
    s = bench.score(out, docs, ["x", "x", "y z"], 7)
    assert s["docs_out"] == len(written)
    assert s["per_corpus"]["y z"] == 1.0  # records 2 and 5: the gold itself
    assert s["per_corpus"]["x"] == pytest.approx(3 / 5)  # 0, 3, 4 right; 1 and 6 empty
    assert s["f1"] == pytest.approx(5 / 7)


def _docs(tmp_path: Path, reader, name: str) -> list[dict]:
    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.writers import JsonlWriter

    LocalPipelineExecutor(pipeline=[reader, JsonlWriter(str(tmp_path / name), compression=None)],
                          tasks=1, workers=1, logging_dir=str(tmp_path / f"logs-{name}")).run()
    return [json.loads(line) for f in sorted((tmp_path / name).glob("*.jsonl"))
            for line in f.read_text("utf-8").splitlines()]


def test_warc_reader_keeps_every_html_page_with_datatroves_document_shape(tmp_path):
    """ce-filter's WarcReader on the sample as shipped (no payload-type header): all five HTML
    pages, where datatrove's reader keeps the three libmagic calls HTML; each document as
    datatrove's reader makes it from a payload-typed copy (id, text, url, date), and what it
    leaves out counted by reason."""
    pytest.importorskip("warcio", reason="needs the warc extra")
    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.readers import WarcReader as DatatroveWarcReader
    from datatrove.pipeline.writers import JsonlWriter

    from ce_filter.integrations.datatrove import WarcReader

    stats = LocalPipelineExecutor(
        pipeline=[WarcReader(str(SAMPLE.parent), glob_pattern=SAMPLE.name), CEFilter(),
                  JsonlWriter(str(tmp_path / "out"), compression=None)],
        tasks=1, workers=1, logging_dir=str(tmp_path / "logs"),
    ).run()
    reader = _stats(stats, "(ce-filter)")
    assert reader["documents"] == 5
    assert reader["skipped: non-html image/png"] == 1 and reader["skipped: revisit (no payload)"] == 1
    assert _stats(stats, "ce-filter")["forwarded"] == 5
    out = [json.loads(line) for f in (tmp_path / "out").glob("*.jsonl")
           for line in f.read_text("utf-8").splitlines()]
    assert len(out) == 5 and all(d["text"] and d["metadata"]["title"] for d in out)

    # the same documents datatrove's reader gives where the WARC says which payloads are HTML
    assert _reader_ready_warcs(SAMPLE, tmp_path / "typed") == 5
    theirs = {d["id"]: d for d in _docs(tmp_path, DatatroveWarcReader(str(tmp_path / "typed")), "theirs")}
    ours = {d["id"]: d for d in _docs(tmp_path, WarcReader(str(tmp_path / "typed")), "ours")}
    assert len(ours) == 5 and set(ours) == set(theirs) and all(i.startswith("<urn:uuid:") for i in ours)
    for rid, d in ours.items():
        assert d["text"] == theirs[rid]["text"], rid  # the raw HTML
        assert d["metadata"] == theirs[rid]["metadata"], rid  # url, date, file_path


def test_warc_reader_takes_datatroves_arguments(tmp_path):
    pytest.importorskip("warcio", reason="needs the warc extra")
    import shutil

    from ce_filter.integrations.datatrove import WarcReader

    (tmp_path / "in" / "sub").mkdir(parents=True)
    shutil.copy(SAMPLE, tmp_path / "in" / "a.warc.gz")
    shutil.copy(SAMPLE, tmp_path / "in" / "sub" / "b.warc.gz")
    (tmp_path / "paths.txt").write_text("sub/b.warc.gz\n")

    def read(**kw) -> list[Document]:
        return list(WarcReader(str(tmp_path / "in"), **kw).run())

    everything = read()
    assert len(everything) == 10
    assert len(read(recursive=False)) == 5
    assert len(read(glob_pattern="sub/*.warc.gz")) == 5
    assert [d.metadata["file_path"] for d in read(paths_file=str(tmp_path / "paths.txt"))] == \
        [str(tmp_path / "in" / "sub" / "b.warc.gz")] * 5
    assert [d.id for d in read(skip=2, limit=3)] == [d.id for d in everything[2:5]]
    assert len(read(compression="gzip")) == 10
    assert all(d.metadata["crawl"] == "x" for d in read(default_metadata={"crawl": "x"}, limit=2))

    def adapter(self, data, path, id_in_file):
        return {"text": data["text"][:20], "id": f"{path}#{id_in_file}", "metadata": {"u": data["url"]}}

    got = read(adapter=adapter, limit=1)
    assert got[0].id == "a.warc.gz#0" and got[0].text == everything[0].text[:20]
    assert got[0].metadata == {"u": everything[0].metadata["url"],
                               "file_path": str(tmp_path / "in" / "a.warc.gz")}
    assert read(text_key="html") == []  # as datatrove's: the record's HTML is under "text"
    assert [d.id for d in read(id_key="url")] == [d.metadata["url"] for d in everything]
    sharded = [d.id for rank in range(2)
               for d in WarcReader(str(tmp_path / "in")).run(rank=rank, world_size=2)]
    assert sorted(sharded) == sorted(d.id for d in everything)
