"""The pipeline's JSONL record of every page of the labelled corpora, to tell what a change of
the code does to the output: ``dump`` writes one ``CORPUS.MODE.jsonl`` per corpus and mode,
``compare`` lists the pages whose records differ between two dumps. A change meant to move no
record shows ``0 records differ`` on every file.

    python scripts/corpus_records.py dump ../shared/data /tmp/rec/before
    python scripts/corpus_records.py dump ../shared/data /tmp/rec/after
    python scripts/corpus_records.py compare /tmp/rec/before /tmp/rec/after

Modes: ``default`` and ``precise``, the record ``ce-filter extract --format jsonl`` writes for
each page (the URL from the corpus's ``pages.tsv`` where it has one; ``fetch_time`` fixed and
``processed_at`` left out, so two runs can be equal byte for byte); ``warc`` and
``warc-precise``, what ``ce-filter warc`` writes (site memory on, two workers) for a WARC of
the corpus's pages with their URLs.
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from ce_filter import Extractor
from ce_filter.read.rawpage import RawPage
from ce_filter.record import dumps, filter_page

MODES = {"default": {}, "precise": {"precise": True}}
FETCH_TIME = "2000-01-01T00:00:00Z"


def _urls(corpus: Path) -> dict[str, str]:
    tsv = corpus / "pages.tsv"
    if not tsv.exists():
        return {}
    rows = [ln.split("\t") for ln in tsv.read_text(encoding="utf-8").splitlines()]
    head = rows[0]
    if "id" not in head or "url" not in head:
        return {}
    i, u = head.index("id"), head.index("url")
    return {r[i]: r[u] for r in rows[1:] if len(r) > max(i, u) and r[u]}


def pages(corpus: Path) -> Iterator[RawPage]:
    """The corpus's pages in name order, as raw pages with their URLs."""
    urls = _urls(corpus)
    for f in sorted((corpus / "html").iterdir()):
        body = f.read_bytes()
        if f.name.endswith(".gz"):
            body = gzip.decompress(body)
        pid = f.name.split(".", 1)[0]
        yield RawPage(url=urls.get(pid, ""), body=body, fetch_time=FETCH_TIME, source="file",
                      source_name=f.name)


def dump(data: Path, out: Path, corpora: list[str], warc: bool = True) -> None:
    out.mkdir(parents=True, exist_ok=True)
    names = corpora or sorted(p.name for p in data.iterdir() if (p / "html").is_dir())
    if warc:
        dump_warc(data, out, names)
    for mode, kw in MODES.items():
        ex = Extractor(**kw)
        for name in names:
            path = out / f"{name}.{mode}.jsonl"
            with path.open("wb") as fh:
                for page in pages(data / name):
                    fh.write(dumps(_steady(filter_page(ex, page))) + b"\n")
            print(f"{path}: written", file=sys.stderr)


def _steady(rec: dict) -> dict:
    """The record without what changes from run to run (when it was made, the WARC's folder)."""
    rec["processed_at"] = None
    if rec["source"].get("name"):
        rec["source"]["name"] = Path(rec["source"]["name"]).name
    return rec


def dump_warc(data: Path, out: Path, names: list[str]) -> None:
    """``ce-filter warc`` over a WARC of each corpus (its pages in name order, with their URLs),
    records in input order (the run's own ``fetch_time`` is the WARC's date)."""
    from ce_filter.crawler.warcgen import WarcBuilder

    for name in names:
        with tempfile.TemporaryDirectory() as tmp:
            warc = Path(tmp) / f"{name}.warc.gz"
            with warc.open("wb") as fh:
                b = WarcBuilder(fh)
                for page in pages(data / name):
                    b.response(page.url or f"http://{name}.corpus.invalid/{page.source_name}", page.body,
                               content_type="text/html")
            for mode, flags in (("warc", []), ("warc-precise", ["--precise"])):
                path = out / f"{name}.{mode}.jsonl"
                subprocess.run([sys.executable, "-m", "ce_filter.cli", "warc", str(warc), "--to",
                                f"jsonl:{path}", "--workers", "2", "-q", *flags], check=True)
                recs = [_steady(json.loads(ln)) for ln in path.read_text(encoding="utf-8").splitlines()]
                recs.sort(key=lambda r: (r["url"] or "", r["source"].get("record_id") or ""))
                path.write_text("".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n"
                                        for r in recs), encoding="utf-8")
                print(f"{path}: written", file=sys.stderr)


def compare(a: Path, b: Path, ignore: frozenset[str] = frozenset()) -> int:
    """Prints, per file, how many records differ and in which fields (but those in ``ignore``);
    1 when any differ."""
    differ = 0
    for fa in sorted(a.glob("*.jsonl")):
        fb = b / fa.name
        if not fb.exists():
            print(f"{fa.name}: missing in {b}")
            differ += 1
            continue
        la, lb = fa.read_bytes().splitlines(), fb.read_bytes().splitlines()
        n, fields = 0, {}
        for ra, rb in zip(la, lb):
            if ra != rb:
                da, db = json.loads(ra), json.loads(rb)
                if all(da.get(k) == db.get(k) for k in set(da) | set(db) if k not in ignore):
                    continue
                n += 1
                for k in sorted(set(da) | set(db)):
                    if da.get(k) != db.get(k):
                        fields.setdefault(k, []).append(da.get("source_name") or da.get("url"))
        n += abs(len(la) - len(lb))
        differ += n
        detail = "; ".join(f"{k}: {len(v)} ({', '.join(map(str, v[:3]))})" for k, v in fields.items())
        print(f"{fa.name}: {n} of {len(la)} records differ" + (f" ({detail})" if detail else ""))
    return 1 if differ else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump", help="write the records of every corpus page")
    d.add_argument("data", type=Path, help="the corpora's folder (../shared/data)")
    d.add_argument("out", type=Path)
    d.add_argument("--corpus", action="append", default=[], help="only this corpus (repeatable)")
    d.add_argument("--no-warc", action="store_true", help="leave out the ce-filter warc modes")
    c = sub.add_parser("compare", help="which records differ between two dumps")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    c.add_argument("--ignore", action="append", default=[], metavar="FIELD",
                   help="a field whose difference does not count (repeatable), e.g. model")
    args = ap.parse_args(argv)
    if args.cmd == "dump":
        dump(args.data, args.out, args.corpus, warc=not args.no_warc)
        return 0
    return compare(args.a, args.b, frozenset(args.ignore))


if __name__ == "__main__":
    sys.exit(main())
