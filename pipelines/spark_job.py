"""Batch cleaning of WARC archives on Apache Spark (optional extra ``spark``: pyspark, pyarrow).

    spark-submit --master yarn \\
        "$(python -c 'import ce_filter.pipelines.spark_job as m; print(m.__file__)')" \\
        --input 's3a://bucket/crawl/*.warc.gz' --output s3a://bucket/clean/ --format parquet
    python -m ce_filter.pipelines.spark_job --master 'local[*]' --input 'warcs/*.warc.gz' --output out/

Work is distributed by file: the driver expands the inputs (paths, globs, directories, any
Hadoop-readable URI, or ``@LIST`` files of paths such as Common Crawl's ``warc.paths.gz``),
and each task streams one WARC file through the WARC reader (``ce_filter.crawler.warc.iter_pages``)
and the filter, making the same record as every other stage (``ce_filter.record``, schema
``ce_filter/record.schema.json``). The Spark schema of the output is derived from that
JSON Schema, so Parquet columns and JSON lines have the Kafka output's fields and nesting.
The model is loaded once per Python worker process (a module-level singleton; Spark reuses
its Python workers across tasks), not once per file or page. The extraction options are the
CLI's (``--model``, ``--precise``, ``--threshold``, ``--comments``, or ``CE_FILTER_MODEL`` ...);
a ``--model`` file is read on the driver and shipped with the tasks.

How a task reads its file (``--reader``): local paths and ``file:`` URIs are opened where the
task runs (every node must see them: a shared or replicated file system); ``http(s)://``
is streamed with urllib; other schemes (``s3a://``, ``hdfs://``, ``gs://``, ``abfs://`` ...)
go through Spark's ``binaryFiles`` (the Hadoop file system, whole file in executor memory),
or, with ``--reader arrow``, are streamed through ``pyarrow.fs``. With ``--reader hadoop``,
``file:`` URIs too are listed and read through the Hadoop file system, as an ``s3a://`` input
is (the way to try a cluster's path on local files).

The site memory (ce_filter.score.site.memory; on unless ``--no-site-memory`` or
``CE_FILTER_NO_SITE_MEMORY``), per task: a first pass over the task's file counts every host's
block fingerprints (``pipelines/sitecount.py``, as ``ce-filter warc`` does over its inputs),
then each page is filtered with its host's other pages in that file, itself left out
(SiteCounts), so the records equal ``ce-filter warc``'s on that file alone, whatever the order
of its records. A file on disk is read twice, ``binaryFiles``' bytes gone over twice; a
streamed file (http, arrow) is read into memory once when it is at most
``--site-memory-buffer`` MiB (default 2048), else filtered as it streams without the memory.
Hosts are not gathered across files: a host spread over several files is counted per file.
A file with a host of two pages or more gets a filter process of its own, started with the
file's counts (they travel pickled with the options, as ``ce-filter warc`` sends them to its
filter processes), so the model is loaded once more per such file.

Output: ``OUTPUT/`` holds the records (Parquet or JSON lines) and ``OUTPUT/_summary/`` one
JSON line per input file: ``file, records, pages, kept, empty, failed, skipped, errors,
seconds, site_memory`` (``pages`` = HTML pages in, ``kept`` = with text, ``failed`` = of the
empty ones, the pages the filter could not process: their records carry the reason;
``site_memory``: ``two passes``, ``read into memory``, ``off``, or ``off: ...`` with why).
Each page is filtered in a child process of the Python worker under a per-page budget
(``--page-budget`` CPU seconds, ``--page-memory`` MiB; ce_filter.run.budget): a page past it gets
a record with an empty text and the reason, and the task goes on. Undoing a body's
Content-Encoding counts against the same CPU seconds, as in ``ce-filter warc``: a body past
them is skipped and counted in the summary's ``skipped``. Spark's readers skip
``_``-prefixed paths, so ``spark.read.parquet(OUTPUT)`` reads records only. The totals go to
stderr, ``--summary FILE`` also writes them as JSON. Exit 0, or 1 when a file was broken or a page failed.
"""

from __future__ import annotations

import argparse
import functools
import glob
import gzip
import io
import json
import logging
import os
import sys
import time
import urllib.request
from collections.abc import Iterable, Iterator, Mapping
from typing import IO, TYPE_CHECKING, Literal, Protocol, TypedDict, cast
from urllib.parse import urlparse

from ce_filter.extras import MissingExtra, require
from ce_filter.options import (
    ExtractOptions,
    Parser,
    add_extraction_options,
    arg_type,
    env_opt,
    fail,
    non_negative_int,
    non_negative_number,
)

if TYPE_CHECKING:
    from pyspark import Accumulator
    from pyspark.accumulators import AccumulatorParam
    from pyspark.sql import SparkSession
    from pyspark.sql.types import DataType, StructType

    from ce_filter.extractor import Extractor
    from ce_filter.record import JsonSchema, Record
    from ce_filter.run.bounded import BoundedExtractor
    from ce_filter.score.blockmodel import Model
    from ce_filter.score.site.memory import SiteCounts

PROG = "ce_filter.pipelines.spark_job"
log = logging.getLogger("ce_filter.pipelines.spark_job")

WARC_SUFFIXES = (".warc", ".warc.gz", ".arc", ".arc.gz")
READERS = ("auto", "local", "http", "hadoop", "arrow")
MAX_ERRORS_PER_FILE = 20
# the site memory's first pass, per file (the summary's ``site_memory``)
TWO_PASSES = "two passes"  # a file on disk read twice, or binaryFiles' bytes gone over twice
IN_MEMORY = "read into memory"  # a streamed file (http, arrow) held once, gone over twice
OFF = "off"
# a streamed file up to this size is read into memory for the two passes (a Common Crawl WARC
# file, about 1 GB, fits: its records then do not depend on the reader)
BUFFER_MIB = 2048
_CHUNK = 8 << 20


class Summary(TypedDict):
    """One input file's summary (a line of ``OUTPUT/_summary``; see the module doc)."""

    file: str
    records: int
    pages: int
    kept: int
    empty: int
    failed: int
    skipped: int
    errors: list[str]
    seconds: float
    site_memory: str


class TaskOptions(TypedDict):
    """What every task is given besides its files (``run`` makes it on the driver)."""

    options: ExtractOptions
    model_json: str | None
    all_statuses: bool
    reader: str
    budget: tuple[float, int]
    site_memory: bool
    buffer_mib: int


class Stream(Protocol):
    """A binary stream a task reads its WARC file from (a file, an HTTP response, a pyarrow
    stream, binaryFiles' bytes), or one the site memory's first pass made of it."""

    def read(self, size: int = -1, /) -> bytes: ...

    def close(self) -> None: ...


class Rewindable(Stream, Protocol):
    """A stream read once for the site memory's counts, then again from where it was."""

    def tell(self) -> int: ...

    def seek(self, offset: int, whence: int = 0, /) -> int: ...


# ------------------------------------------------------------------ executor side

_extractor: BoundedExtractor | Extractor | None = None
_extractor_key: tuple[ExtractOptions, str | None, tuple[float, ...]] | None = None


@functools.lru_cache(maxsize=2)
def _model(model_json: str) -> Model:
    """The model of a ``--model`` file's text, parsed once per process (not once per file)."""
    from ce_filter.score.blockmodel import Model

    return Model.from_json(json.loads(model_json))


def make_extractor(options: ExtractOptions, model_json: str | None) -> Extractor:
    """The Extractor of ``options``; ``model_json``: the model file's text (see get_extractor)."""
    if model_json is None:
        return options.extractor()
    from ce_filter import Extractor

    return Extractor(_model(model_json), **options.extractor_options())


@functools.lru_cache(maxsize=2)
def _counter(options: ExtractOptions, model_json: str | None) -> Extractor:
    """The in-process Extractor whose decoding the site memory's first pass uses."""
    return make_extractor(options, model_json)


def get_extractor(options: ExtractOptions | None = None, model_json: str | None = None,
                  budget: tuple[float, int] = (10.0, 1024)) -> BoundedExtractor | Extractor:
    """The process's Extractor, made on first use (once per Python worker, not per task): a
    ce_filter.run.bounded.BoundedExtractor (a child process under the per-page budget of CPU
    seconds and MiB) unless the budget is (0, 0). ``model_json``: the text of
    ``options.model``, read on the driver and shipped with the tasks, so executors need no
    copy of the file."""
    global _extractor, _extractor_key
    options = options or ExtractOptions()
    key = (options, model_json, tuple(budget))
    if _extractor is None or _extractor_key != key:
        if _extractor is not None and hasattr(_extractor, "close"):
            _extractor.close()
        _extractor = new_extractor(options, model_json, budget)
        _extractor_key = key
    return _extractor


def new_extractor(options: ExtractOptions, model_json: str | None = None,
                  budget: tuple[float, int] = (10.0, 1024)) -> BoundedExtractor | Extractor:
    """An Extractor of its own (``get_extractor``'s kind; the caller closes it): the one of a
    file's site memory, whose counts (ce_filter.score.site.memory.SiteCounts, picklable) travel with
    the options to the budget's child process, as ``ce-filter warc`` sends them to its
    filter processes."""
    from ce_filter.run.bounded import BoundedExtractor
    from ce_filter.run.budget import Budget

    b = Budget(*budget)
    # by its importable name: run as ``python -m``, this module is __main__, which the
    # budget's spawned child cannot import
    from ce_filter.pipelines.spark_job import make_extractor

    make = functools.partial(make_extractor, options, model_json)
    return BoundedExtractor(b, factory=make) if b.enabled else make()


class _Named:
    """A binary stream with the name the records should carry as their source."""

    def __init__(self, fh: Stream, name: str) -> None:
        self.fh = fh
        self.name = name

    def read(self, size: int = -1) -> bytes:
        return self.fh.read(size)

    def close(self) -> None:
        self.fh.close()


class _Joined:
    """The bytes already read from a stream, then the rest of it (a file found too big to hold
    is filtered from where it is, not opened again)."""

    def __init__(self, head: bytes, rest: Stream) -> None:
        self.head, self.at, self.rest = memoryview(head), 0, rest

    def read(self, size: int = -1) -> bytes:
        if self.at < len(self.head):
            end = len(self.head) if size is None or size < 0 else self.at + size
            out = bytes(self.head[self.at:end])
            self.at += len(out)
            return out
        return self.rest.read(size)

    def close(self) -> None:
        self.rest.close()


def _declared_size(stream: Stream) -> int | None:
    """The Content-Length an HTTP response declares (None: not known)."""
    headers = getattr(stream, "headers", None)
    try:
        return int(headers.get("Content-Length")) if headers is not None else None
    except (TypeError, ValueError):
        return None


def _seekable(stream: Stream) -> bool:
    try:  # (a stream without seekable: AttributeError)
        return bool(stream.seekable())  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):
        return False


def two_pass_source(stream: Stream | None, buffer_mib: int = BUFFER_MIB) -> tuple[Stream | None, str]:
    """(what to read the file from, how its site memory's first pass is made). ``stream``
    None (a local path) or seekable (binaryFiles' bytes): read twice, ``TWO_PASSES``. A
    stream that cannot be read twice cheaply (http, arrow): read into memory when it is at
    most ``buffer_mib`` MiB (``IN_MEMORY``); else filtered from where it is without the memory
    (``off: ...``; the bytes already read are not read again)."""
    if stream is None or _seekable(stream):
        return stream, TWO_PASSES
    cap = buffer_mib << 20
    over = f"{OFF}: a streamed file over {buffer_mib} MiB"
    size = _declared_size(stream)
    if cap <= 0 or (size is not None and size > cap):
        return stream, over
    buf = io.BytesIO()
    while buf.tell() <= cap:
        chunk = stream.read(min(_CHUNK, cap + 1 - buf.tell()))
        if not chunk:
            buf.seek(0)
            return buf, IN_MEMORY
        buf.write(chunk)
    return _Joined(buf.getvalue(), stream), over


def count_file(name: str, stream: Rewindable | None, options: ExtractOptions, model_json: str | None = None,
               all_statuses: bool = False, seconds: float = 0.0) -> SiteCounts:
    """The site memory's first pass over one file (``ce_filter.pipelines.sitecount``; a page
    past ``seconds`` of CPU time is not counted): ``stream`` None reads the local path
    ``name``; a seekable stream is read from where it is and put back there for the second
    pass."""
    from ce_filter.crawler.warc import WarcStats, iter_pages
    from ce_filter.pipelines.sitecount import count_pages

    decoder = _counter(options.alone(), model_json)
    if stream is None:
        return count_pages(iter_pages(name, WarcStats(), all_statuses=all_statuses, seconds=seconds),
                           decoder, seconds)
    at = stream.tell()
    try:
        return count_pages(iter_pages(_Named(stream, name), WarcStats(), all_statuses=all_statuses,
                                      seconds=seconds), decoder, seconds)
    finally:
        stream.seek(at)


def scheme(path: str) -> str:
    s = urlparse(path).scheme.lower()
    return "" if len(s) == 1 else s  # a Windows drive letter is not a scheme


def local_path(path: str) -> str | None:
    s = scheme(path)
    if s == "":
        return path
    if s == "file":
        return urlparse(path).path
    return None


def open_stream(name: str, reader: str) -> IO[bytes]:
    """A binary stream over the WARC ``name`` (caller closes it)."""
    lp = local_path(name)
    if reader in ("auto", "local") and lp is not None:
        return open(lp, "rb")
    if reader in ("auto", "http") and scheme(name) in ("http", "https"):
        req = urllib.request.Request(name, headers={"User-Agent": "ce-filter-spark"})
        return urllib.request.urlopen(req, timeout=120)  # noqa: S310 - the user's input URL
    if reader == "arrow":
        from pyarrow import fs

        filesystem, path = fs.FileSystem.from_uri(name)
        # the file's own bytes, as the other readers give them: the WARC reader undoes the gzip
        # members itself (and steps over a damaged one), and a file held in memory for the site
        # memory's two passes stays compressed (pyarrow would otherwise gunzip a .gz name)
        return filesystem.open_input_stream(path, compression=None)
    raise ValueError(f"no way to open {name!r} with reader {reader!r}")


def filter_file(
    name: str,
    stream: Stream | None,
    *,
    options: ExtractOptions | None = None,
    model_json: str | None = None,
    all_statuses: bool = False,
    budget: tuple[float, int] = (10.0, 1024),
    site_memory: bool = True,
    buffer_mib: int = BUFFER_MIB,
) -> tuple[list[Record], Summary]:
    """The records of one WARC file and its summary. ``stream`` is a binary stream, or None
    to open ``name`` as a local path. Never raises for bad input: it is in the summary. A page
    the filter could not process (an error, its process died) still gets its record, with an
    empty text and the reason, and counts in ``failed``.

    ``site_memory``: a first pass counts every host's block fingerprints over this file
    (``count_file``), and each page is then filtered with its host's other pages in the file,
    itself left out (ce_filter.score.site.memory.SiteCounts): the records do not depend on the order
    of the file's records, and equal ``ce-filter warc``'s on this file alone. How the file is
    read twice: ``two_pass_source`` (``buffer_mib``); the summary's ``site_memory`` says."""
    from ce_filter.crawler.warc import WarcStats, iter_pages

    from ce_filter.record import make_record
    from ce_filter.run.budget import FILTER_ERROR, PROCESS_DIED, guarded

    t0 = time.monotonic()
    stats = WarcStats()
    records: list[Record] = []
    kept = empty = failed = 0
    errors: list[str] = []
    options = options or ExtractOptions()
    memory, readable = OFF, True
    if site_memory:
        try:
            stream, memory = two_pass_source(stream, buffer_mib)
            if memory in (TWO_PASSES, IN_MEMORY):
                # (read twice: a local path (None), a seekable stream, or the bytes in memory)
                counts = count_file(name, cast("Rewindable | None", stream), options, model_json,
                                    all_statuses, budget[0])
                # no host with two pages: every page is filtered as alone, by the extractor
                # already running (no new filter process for this file)
                if counts.counts:
                    options = options.with_counts(counts)
        except Exception as e:  # noqa: BLE001 - cannot open or read: the file's summary says so
            errors.append(f"cannot read: {type(e).__name__}: {e}")
            memory, readable = OFF, False
    # a file with its site memory gets a filter of its own for its counts (a new child process
    # under a budget), closed with the file; the process's filter stays for the other files
    own = options.site_counts is not None
    ex = new_extractor(options, model_json, budget) if own else get_extractor(options, model_json, budget)
    try:
        source: str | _Named = name if stream is None else _Named(stream, name)
        pages = iter_pages(source, stats, all_statuses=all_statuses, seconds=budget[0]) if readable else ()
        for page in pages:
            rec = make_record(page, guarded(ex, page.body, page.url, page.encoding), ex)
            if rec["text"]:
                kept += 1
            else:
                empty += 1
                # (a record without text says why)
                if cast(str, rec["reason"]).startswith((FILTER_ERROR, PROCESS_DIED)):
                    failed += 1
                    if len(errors) < MAX_ERRORS_PER_FILE:
                        errors.append(f"{page.url}: {rec['reason']}")
            records.append(rec)
    except Exception as e:  # noqa: BLE001 - cannot open or read: the file's summary says so
        errors.append(f"cannot read: {type(e).__name__}: {e}")
    finally:
        if own and hasattr(ex, "close"):
            ex.close()
    errors += [f"{e['error']} at offset {e['offset']}" for e in stats.errors]
    summary: Summary = {
        "file": name,
        "records": stats.records,
        "pages": stats.pages,
        "kept": kept,
        "empty": empty,
        "failed": failed,
        "skipped": stats.skipped_total,
        "errors": errors,
        "seconds": round(time.monotonic() - t0, 3),
        "site_memory": memory,
    }
    log.info("%s: %d pages, %d kept, %d failed, %d errors; site memory: %s", name, stats.pages, kept,
             failed, len(errors), memory)
    return records, summary


def _summaries_param() -> AccumulatorParam[dict[str, Summary]]:
    from pyspark.accumulators import AccumulatorParam

    class FileSummaries(AccumulatorParam):
        """Per-file summaries keyed by file: a retried or speculative task replaces its own
        entry instead of adding to it, so counts stay exact."""

        def zero(self, value: dict[str, Summary]) -> dict[str, Summary]:
            return {}

        def addInPlace(self, a: dict[str, Summary], b: dict[str, Summary]  # noqa: N802 - pyspark's name
                       ) -> dict[str, Summary]:
            a.update(b)
            return a

    return FileSummaries()


# ------------------------------------------------------------------ schema


def _spark_type(prop: JsonSchema) -> tuple[DataType, bool]:
    """(Spark type, nullable) of a JSON Schema property of the record schema."""
    from pyspark.sql import types as T

    kinds = prop.get("type", "string")
    kinds = [kinds] if isinstance(kinds, str) else list(kinds)
    nullable = "null" in kinds
    kind = next((k for k in kinds if k != "null"), "string")
    if kind == "object":
        return record_struct(prop), nullable
    if kind == "array":  # a list field (e.g. authors) added to the record later
        item, _ = _spark_type(prop.get("items", {}))
        return T.ArrayType(item), nullable
    simple = {"string": T.StringType(), "integer": T.LongType(), "number": T.DoubleType(),
              "boolean": T.BooleanType()}  # fmt: skip
    if kind not in simple:
        raise ValueError(f"record schema type {kind!r} has no Spark type here")
    return simple[kind], nullable


def record_struct(schema: JsonSchema | None = None) -> StructType:
    """The Spark StructType of ``ce_filter/record.schema.json`` (field order kept)."""
    from pyspark.sql import types as T

    from ce_filter.record import schema as record_schema

    schema = schema or record_schema()
    required = set(schema.get("required", ()))
    fields = []
    for name, prop in schema["properties"].items():
        typ, nullable = _spark_type(prop)
        # an optional property (e.g. source.revisit_of) is null where a record leaves it out
        fields.append(T.StructField(name, typ, nullable or name not in required))
    return T.StructType(fields)


def to_row(record: Mapping[str, object], struct: StructType) -> tuple[object, ...]:
    """A record as a tuple in ``struct``'s field order (nested objects as tuples; a field the
    record leaves out, an optional one, is None; fields the schema does not know are left out)."""
    from pyspark.sql import types as T

    def value(v: object, typ: DataType) -> object:
        if v is None:
            return None
        if isinstance(typ, T.StructType):  # (a JSON object of the record)
            return to_row(cast("Mapping[str, object]", v), typ)
        if isinstance(typ, T.ArrayType) and isinstance(typ.elementType, T.StructType):
            return [to_row(x, typ.elementType) for x in cast("list[Mapping[str, object]]", v)]
        return v

    return tuple(value(record.get(f.name), f.dataType) for f in struct.fields)


SummaryField = Literal["file", "records", "pages", "kept", "empty", "failed", "skipped", "errors", "seconds",
                       "site_memory"]
SummaryCount = Literal["records", "pages", "kept", "empty", "failed", "skipped"]
SUMMARY_FIELDS: tuple[SummaryField, ...] = ("file", "records", "pages", "kept", "empty", "failed", "skipped",
                                            "errors", "seconds", "site_memory")


def summary_struct() -> StructType:
    from pyspark.sql import types as T

    long_ = T.LongType()
    return T.StructType(
        [T.StructField("file", T.StringType(), False)]
        + [T.StructField(k, long_, False) for k in ("records", "pages", "kept", "empty", "failed", "skipped")]
        + [
            T.StructField("errors", T.ArrayType(T.StringType()), False),
            T.StructField("seconds", T.DoubleType(), False),
            T.StructField("site_memory", T.StringType(), False),
        ]
    )


# ------------------------------------------------------------------ driver side


def _read_list(path: str, prefix: str) -> list[str]:
    """Lines of a list file (``.gz`` too); relative entries get ``prefix``."""
    lp = local_path(path)
    if lp is None:
        raise ValueError(f"list files are read on the driver: give a local path, not {path!r}")
    with open(lp, "rb") as fh:
        data = fh.read()
    if lp.endswith(".gz"):
        data = gzip.decompress(data)
    out = []
    for line in data.decode("utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        out.append(line if scheme(line) or line.startswith("/") else prefix + line)
    return out


def _hadoop_expand(spark: SparkSession, uri: str) -> list[str]:
    """Files matching a Hadoop URI/glob (directories: their WARC files, recursively)."""
    jvm = spark.sparkContext._jvm  # noqa: SLF001 - the Hadoop FS is only reachable through py4j
    assert jvm is not None  # (a running SparkContext has its gateway to the JVM)
    conf = spark.sparkContext._jsc.hadoopConfiguration()  # noqa: SLF001
    path = jvm.org.apache.hadoop.fs.Path(uri)
    fs = path.getFileSystem(conf)
    statuses = fs.globStatus(path)
    if not statuses:
        raise FileNotFoundError(f"no WARC input at {uri!r}")
    out = []
    for st in statuses:
        if st.isDirectory():
            it = fs.listFiles(st.getPath(), True)
            while it.hasNext():
                p = it.next().getPath().toString()
                if p.endswith(WARC_SUFFIXES):
                    out.append(p)
        else:
            out.append(st.getPath().toString())
    return sorted(out)


def expand_inputs(inputs: Iterable[str], spark: SparkSession | None = None, prefix: str = "",
                  reader: str = "auto") -> list[str]:
    """Input names, in order, without duplicates. Local ones expand exactly as
    ``ce-filter warc`` expands them (so records name their source the same way); with the
    ``hadoop`` reader, ``file:`` URIs expand through the Hadoop file system, as other URIs do."""
    from ce_filter.crawler.warc import expand_sources

    out: list[str] = []
    for item in inputs:
        for part in [p for p in item.split(",") if p.strip()] if "," in item else [item]:
            part = part.strip()
            if part.startswith("@"):
                out += _read_list(part[1:], prefix)
            elif local_path(part) is not None and scheme(part) == "":
                out += [name for name, _ in expand_sources(part)]
            elif scheme(part) == "file" and not (reader == "hadoop" and spark is not None):
                lp = local_path(part) or ""
                out += [name for name, _ in expand_sources(lp)]
            elif scheme(part) in ("http", "https"):
                out.append(part)
            else:
                if spark is None:
                    raise ValueError(f"{part!r}: a Hadoop URI needs the Spark session to expand")
                out += _hadoop_expand(spark, part) if glob.has_magic(part) or part.endswith("/") else [part]
    return list(dict.fromkeys(out))  # each once, in first-seen order


def _process_files(names: Iterable[str], opts: TaskOptions, acc: Accumulator[dict[str, Summary]],
                   struct: StructType) -> Iterator[tuple[object, ...]]:
    # by its importable name: run as ``python -m``, this module is __main__, whose functions
    # travel to the executors by value, and its per-process caches cannot
    from ce_filter.pipelines.spark_job import filter_file

    for name in names:
        stream: IO[bytes] | None = None
        try:
            if local_path(name) is None or opts["reader"] not in ("auto", "local"):
                stream = open_stream(name, opts["reader"])
        except Exception as e:  # noqa: BLE001 - in the summary, not a failed job
            acc.add({name: _failed_summary(name, f"cannot open: {type(e).__name__}: {e}")})
            continue
        try:
            records, summary = filter_file(
                name,
                stream,
                options=opts["options"],
                model_json=opts["model_json"],
                all_statuses=opts["all_statuses"],
                budget=opts["budget"],
                site_memory=opts["site_memory"],
                buffer_mib=opts["buffer_mib"],
            )
        finally:
            if stream is not None:
                stream.close()
        acc.add({name: summary})
        for rec in records:
            yield to_row(rec, struct)


def _process_blobs(
    pairs: Iterable[tuple[str, bytes]], opts: TaskOptions, acc: Accumulator[dict[str, Summary]],
    struct: StructType,
) -> Iterator[tuple[object, ...]]:
    from ce_filter.pipelines.spark_job import filter_file  # (see _process_files)

    for name, data in pairs:
        records, summary = filter_file(
            name,
            io.BytesIO(data),
            options=opts["options"],
            model_json=opts["model_json"],
            all_statuses=opts["all_statuses"],
            budget=opts["budget"],
            site_memory=opts["site_memory"],
        )
        acc.add({name: summary})
        for rec in records:
            yield to_row(rec, struct)


def _read_in_task(name: str, reader: str) -> bool:
    """Whether a task opens ``name`` itself (else: Spark's binaryFiles reads it)."""
    if reader == "hadoop":
        return False
    if reader == "auto":
        return local_path(name) is not None or scheme(name) in ("http", "https")
    return True


def _failed_summary(name: str, error: str) -> Summary:
    return Summary(
        file=name, records=0, pages=0, kept=0, empty=0, failed=0, skipped=0, errors=[error], seconds=0.0,
        site_memory=OFF,
    )


def run(
    spark: SparkSession,
    inputs: list[str],
    output: str,
    *,
    fmt: str = "parquet",
    mode: str = "errorifexists",
    compression: str | None = None,
    reader: str = "auto",
    prefix: str = "",
    options: ExtractOptions | None = None,
    all_statuses: bool = False,
    budget: tuple[float, int] = (10.0, 1024),
    site_memory: bool = True,
    buffer_mib: int = BUFFER_MIB,
) -> list[Summary]:
    """Clean ``inputs`` into ``output``; returns the per-file summaries (also written to
    ``OUTPUT/_summary``). ``options``: model and cut (a model file is read here, on the
    driver). ``budget``: per page, CPU seconds and MiB (0, 0: none). ``site_memory``: each
    file's pages filtered with their host's other pages in that file (``filter_file``);
    ``buffer_mib``: the largest streamed file read into memory for it."""
    if fmt not in ("parquet", "json"):
        raise ValueError(f"--format is parquet or json, not {fmt!r}")
    if reader not in READERS:
        raise ValueError(f"--reader is one of {', '.join(READERS)}")
    files = expand_inputs(inputs, spark, prefix, reader)
    if not files:
        raise FileNotFoundError("no WARC files in the inputs")
    sc = spark.sparkContext
    struct = record_struct()
    acc = sc.accumulator({}, _summaries_param())
    options = options or ExtractOptions()
    model_json = None
    if options.model:
        with open(options.model, encoding="utf-8") as fh:
            model_json = fh.read()
    opts: TaskOptions = {"options": options, "model_json": model_json, "all_statuses": all_statuses,
                         "reader": reader, "budget": cast("tuple[float, int]", tuple(budget)),
                         "site_memory": site_memory, "buffer_mib": buffer_mib}
    by_task = [f for f in files if _read_in_task(f, reader)]
    via_hadoop = [f for f in files if not _read_in_task(f, reader)]
    rdds = []
    if by_task:
        rdds.append(
            sc.parallelize(by_task, len(by_task)).mapPartitions(
                lambda it: _process_files(it, opts, acc, struct)
            )
        )
    if via_hadoop:
        blobs = sc.binaryFiles(",".join(via_hadoop), minPartitions=len(via_hadoop))
        rdds.append(blobs.mapPartitions(lambda it: _process_blobs(it, opts, acc, struct)))
    rows = rdds[0] if len(rdds) == 1 else sc.union(rdds)
    df = spark.createDataFrame(rows, struct)
    writer = df.write.mode(mode)
    if compression:
        writer = writer.option("compression", compression)
    if fmt == "parquet":
        writer.parquet(output)
    else:
        writer.option("ignoreNullFields", "false").json(output)

    by_name = dict(acc.value)
    # (mypy reads pop's default in the context of the ``or``, as a Summary)
    summaries = [by_name.pop(f, None) or _failed_summary(f, "no summary (task lost)")  # type: ignore[arg-type]
                 for f in by_task]
    # binaryFiles names each file by its qualified URI (hdfs:///x -> hdfs://namenode:8020/x)
    summaries += [by_name[n] for n in sorted(by_name)]
    summary_rows = [tuple(s[k] for k in SUMMARY_FIELDS) for s in summaries]
    (
        spark.createDataFrame(summary_rows, summary_struct())
        .coalesce(1)
        .write.mode("overwrite")
        .json(output.rstrip("/") + "/_summary")
    )
    return summaries


def totals(summaries: list[Summary]) -> dict[str, int]:
    keys: tuple[SummaryCount, ...] = ("records", "pages", "kept", "empty", "failed", "skipped")
    t: dict[str, int] = {k: sum(s[k] for s in summaries) for k in keys}
    t["files"] = len(summaries)
    t["files_with_errors"] = sum(1 for s in summaries if s["errors"])
    return t


def build_parser() -> argparse.ArgumentParser:
    ap = Parser(
        prog=PROG,
        description="Clean WARC files on Spark: one task per file, records as Parquet or JSON lines.",
    )
    ap.add_argument("--input", action="append", required=True,
                    help="WARC path, glob, directory, Hadoop URI, comma-separated list, or @LISTFILE "
                    "(one path per line, .gz ok); repeatable")  # fmt: skip
    ap.add_argument("--output", required=True, help="output directory (any Hadoop URI)")
    ap.add_argument("--format", choices=("parquet", "json"), default="parquet", help="output format")
    ap.add_argument(
        "--mode", default="errorifexists", choices=("errorifexists", "overwrite", "append", "ignore"),
        help="what to do when OUTPUT exists (Spark's save modes)",
    )
    ap.add_argument(
        "--compression", help="Spark codec (parquet: snappy (default), zstd, gzip; json: gzip ...)"
    )
    ap.add_argument(
        "--reader", choices=READERS, default="auto", help="how tasks read their file (see module doc)"
    )
    ap.add_argument("--prefix", default="", help="prepended to relative entries of @LIST files "
                    "(e.g. s3a://commoncrawl/ or https://data.commoncrawl.org/)")  # fmt: skip
    ap.add_argument("--all-statuses", action="store_true", help="also filter non-2xx responses")
    ap.add_argument("--page-budget", type=arg_type(non_negative_number), default=10.0,
                    help="CPU seconds one page may take (0 = no limit): past it, a record with "
                    "the reason; a body whose Content-Encoding takes longer to undo is skipped")  # fmt: skip
    ap.add_argument("--page-memory", type=arg_type(non_negative_int), default=1024,
                    help="MiB of memory one page may take beyond the filter's own (0 = no limit)")
    env_opt(ap, "--no-site-memory", action="store_true",
            help="filter each page alone: no first pass over each file counting the blocks that "
            "each host's pages in it repeat (navigation, footers, related lists), which the filter "
            "then drops")
    ap.add_argument("--site-memory-buffer", type=arg_type(non_negative_int), default=BUFFER_MIB,
                    help="MiB of a streamed file (http, arrow reader) read into memory for the site "
                    "memory's two passes; a larger file is filtered without it (0: never)")
    ap.add_argument(
        "--summary", help="also write the per-file summaries and totals as JSON to this local file"
    )
    ap.add_argument("--master", help="Spark master when run with python -m (spark-submit sets its own)")
    ap.add_argument("--app-name", default="ce-filter", help="Spark application name")
    add_extraction_options(ap)
    return ap


def main(argv: list[str] | None = None) -> int:
    a = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    try:
        require("spark", "the Spark job")
        require("warc", "the Spark job")
    except MissingExtra as e:
        return fail(str(e), PROG)
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = SparkSession.builder.appName(a.app_name)
    if a.master:
        builder = builder.master(a.master)
    spark = builder.getOrCreate()
    try:
        summaries = run(
            spark,
            a.input,
            a.output,
            fmt=a.format,
            mode=a.mode,
            compression=a.compression,
            reader=a.reader,
            prefix=a.prefix,
            options=ExtractOptions.from_args(a),
            all_statuses=a.all_statuses,
            budget=(a.page_budget, a.page_memory),
            site_memory=not a.no_site_memory,
            buffer_mib=a.site_memory_buffer,
        )
    except (FileNotFoundError, ValueError) as e:
        return fail(str(e), PROG)
    finally:
        spark.stop()
    t = totals(summaries)
    for s in summaries:
        line = (f"{s['file']}: {s['records']} records, {s['pages']} pages, {s['kept']} kept, "
                f"{s['empty']} empty, {s['failed']} failed, {s['skipped']} skipped; "
                f"site memory: {s['site_memory']}")  # fmt: skip
        print(line + "".join(f"\n  error: {e}" for e in s["errors"]), file=sys.stderr)
    print(
        f"total: {t['files']} files, {t['pages']} pages in, {t['kept']} kept, {t['failed']} failed, "
        f"{t['files_with_errors']} file(s) with errors -> {a.output}",
        file=sys.stderr,
    )
    if a.summary:
        with open(a.summary, "w", encoding="utf-8") as fh:
            json.dump({"totals": t, "files": summaries}, fh, indent=1)
            fh.write("\n")
    return 1 if t["failed"] or t["files_with_errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
