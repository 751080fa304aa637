"""ce-filter as a datatrove extractor step: :class:`CEFilter` stands where datatrove's
``Trafilatura`` stands (``WarcReader`` -> extractor -> filters -> writer), and
:class:`WarcReader`, a drop-in for datatrove's reader that keeps every HTML response.

Same ``Document`` in and out: ``doc.text`` (the HTML the reader decoded) becomes the clean
text, and the page's own fields go into ``doc.metadata`` (:data:`METADATA_KEYS`; the reader's
``url`` and ``date``, the crawl date, are left as they are). A page left with no text is
dropped the way datatrove's extractors drop it, counted under ``dropped`` and, per reason,
under ``empty: <reason>`` in the step's stats. Each page runs under a per-document
``timeout``, in the task's process (a timer) or, with ``sandbox=True``, in datatrove's forked
extractor sandbox as ``Trafilatura`` does; either way a page that hangs costs one document,
not the task.

datatrove's own ``WarcReader`` picks HTML by the ``WARC-Identified-Payload-Type`` header, and
where a WARC has none (most crawls but Common Crawl's) by libmagic, which calls many HTML pages
``application/javascript`` or ``text/plain``: those pages are dropped without a count. This
module's :class:`WarcReader` reads the records as ``ce-filter warc`` does
(``ce_filter.crawler.warc``): every 2xx HTML ``response`` or ``resource`` record by its HTTP
``Content-Type`` (sniffed where there is none), chunking and content-encoding undone, a damaged
file read on past the damage, and every record it leaves out counted by reason in the step's
stats (``skipped: <reason>``).

Needs the ``datatrove`` extra: ``pip install 'ce-filter[datatrove]'``.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from types import FrameType
from typing import TYPE_CHECKING, Literal, Protocol, cast

from ..extras import MissingExtra
from ..options import ExtractOptions, model_file
from ..read.decode import BINARY_HEAD, looks_binary
from ..read.rawpage import RawPage
from ..record import Record, make_record

if TYPE_CHECKING:
    from ..extractor import Extractor

try:
    from datatrove.pipeline.extractors.base import BaseExtractor, ExtractorSandbox  # type: ignore[import-untyped, import-not-found, unused-ignore]
    from datatrove.pipeline.readers.warc import WarcReader as _DatatroveWarcReader  # type: ignore[import-untyped, import-not-found, unused-ignore]
    from datatrove.utils.logging import logger  # type: ignore[import-untyped, import-not-found, unused-ignore]
    from datatrove.utils.typeshelper import StatHints  # type: ignore[import-untyped, import-not-found, unused-ignore]
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise MissingExtra("ce_filter.integrations.datatrove", "datatrove") from e

__all__ = ["CEFilter", "METADATA_KEYS", "WarcReader"]


class Document(Protocol):
    """A datatrove Document (datatrove ships no type information): what the steps here read
    and set of it."""

    text: str
    metadata: dict[str, object]


# the fields of a record a document's metadata takes
MetadataField = Literal["title", "author", "date", "language", "page_type", "page_type_prob"]
# a document's text and the metadata fields the step sets
Fields = tuple[str, dict[str, str | float | None]]

# doc.metadata key -> the field of the page's record (ce_filter.record) it holds, set where the
# record's is not null. ``date_published`` is the page's own date (the reader's ``date`` is the
# crawl date and stays); ``reason`` is set only when there is one.
METADATA_KEYS: dict[str, MetadataField] = {
    "title": "title",
    "author": "author",
    "date_published": "date",
    "language": "language",
    "page_type": "page_type",
    "page_type_prob": "page_type_prob",
}
# one small page for the sandbox's warm-up (the child's first call runs every code path once)
_WARMUP = ("<html><head><title>t</title></head><body><p>ce-filter warm-up page.</p></body></html>", None)


def _options(model: str | None, precise: bool, threshold: float | None, comments: bool,
             recall: bool, target_language: str | None) -> ExtractOptions:
    """The CLI's extraction options, checked when the step is built (a bad one is a ValueError
    here, not in every task: UsageError is a ValueError)."""
    if model is not None:
        model_file(model)
    return ExtractOptions(model, precise, threshold, comments, recall, target_language)


def document_fields(record: Record, metadata: bool = True) -> Fields:
    """A datatrove document's text and metadata fields from the page's record: its text and the
    record's fields METADATA_KEYS names, where not null (``metadata=False``: the page kind alone,
    where there is one), and its ``reason`` where there is one."""
    meta: dict[str, str | float | None] = {}
    if metadata:
        meta.update((key, record[field]) for key, field in METADATA_KEYS.items() if record[field] is not None)
    elif record["page_type"]:
        meta["page_type"], meta["page_type_prob"] = record["page_type"], record["page_type_prob"]
    if record["reason"]:
        meta["reason"] = record["reason"]
    return record["text"], meta


class CEFilter(BaseExtractor):  # type: ignore[misc, unused-ignore]  # datatrove is untyped
    """ce-filter's main-content extraction as a datatrove step.

    Args:
        model: a model JSON file (``ce-filter train``); None for the shipped model.
        precise: the precision-leaning cut (``--precise``).
        threshold: the block probability cut in [0, 1] (``--threshold``).
        comments: keep user comments (``--comments``, the article+comments model).
        recall: the recall-leaning cut (``--recall``); not with ``precise``.
        target_language: an ISO 639-1 code (``--target-language``): a page identified as
            another language gives no text (dropped, counted under ``empty: language ...``).
        metadata: run the metadata rules and language identification (title, author, date,
            language); False saves about a tenth of the time and leaves them out.
        keep_empty: forward pages without text (``doc.text == ""``, the reason in
            ``doc.metadata["reason"]``) instead of dropping them; counted as forwarded and
            under ``empty: <reason>``.
        timeout: seconds one document may take, as for ``Trafilatura``: a page past it is
            skipped and counted under ``timeout``.
        sandbox: run each page in datatrove's forked sandbox, as ``Trafilatura`` does (a crash
            of the page's process costs one document); by default pages run in the task's own
            process under a timer, which saves the round trip to the child (a fifth of the
            step's time on one core). Off the main thread the sandbox is always used.
        site_memory: filter each page with the blocks the task has seen on the host's earlier
            pages (ce_filter.score.site.memory.SiteMemory: the last 50 pages of each host), so a site's
            repeated navigation, footers and "related" lists weigh against those blocks. Per
            task and in the order the reader gives the pages (a WARC file's pages are a crawl's
            order); the first page of each host is read alone. Off by default: a document's
            text then depends on the task's earlier documents.
    """

    name = "✂ ce-filter"
    _requires_dependencies: list[str] = []

    def __init__(self, model: str | None = None, *, precise: bool = False, threshold: float | None = None,
                 comments: bool = False, recall: bool = False, target_language: str | None = None,
                 metadata: bool = True, keep_empty: bool = False, timeout: float = 1,
                 sandbox: bool = False, site_memory: bool = False) -> None:
        super().__init__(timeout)
        self.options = _options(model, precise, threshold, comments, recall, target_language)
        if site_memory:
            self.options = replace(self.options, site_memory="stream")
        self.metadata = metadata
        self.keep_empty = keep_empty
        self.sandbox = sandbox
        self._warned_error = False
        # made once per task (in run), inherited by the sandbox's child
        self._extractor: Extractor | None = None

    def __getstate__(self) -> dict[str, object]:
        state = self.__dict__.copy()
        state["_extractor"] = None  # the step travels to tasks as its options; each task loads the model
        return state

    def extractor(self) -> Extractor:
        """The ce_filter Extractor of this step's options (loaded on first use)."""
        if self._extractor is None:
            ex = self.options.extractor()
            ex.metadata = self.metadata  # (an Extractor attribute: the options' cut stays as made)
            self._extractor = ex
        return self._extractor

    def extract(self, text: str, url: str | None = None) -> Fields:
        """(clean text, metadata fields) of one page: the text and fields of the record every
        other stage makes of it (``ce_filter.record.make_record``). Runs in the sandbox's child:
        the result is what travels back through its pipe."""
        extractor = self.extractor()
        html: str | bytes = text
        if looks_binary(text[:BINARY_HEAD].encode("utf-8", "surrogatepass")):
            # binary data the reader decoded as text (a body labelled HTML that is not): as bytes,
            # so the filter says so as for every other stage (no text, reason "binary content")
            html = text.encode("utf-8", "surrogatepass")
        # the page as the record knows it: its address (the HTML is the document's decoded text)
        page = RawPage(url=url or "", body=b"", source="datatrove")
        return document_fields(make_record(page, extractor.extract(html, url or None), extractor),
                               self.metadata)

    @contextlib.contextmanager
    def _runner(self) -> Iterator[Callable[[str, str | None], Fields]]:
        """How each page is run: in this process under a timer (a page past ``timeout`` raises
        TimeoutError where it is), or, with ``sandbox=True`` or off the main thread (where no
        timer signal can be received), in datatrove's forked sandbox."""
        if self.sandbox or threading.current_thread() is not threading.main_thread():
            with ExtractorSandbox(timeout=self.timeout, warmup_text=_WARMUP) as sandbox:
                yield lambda text, url: sandbox.process_document((text, url), self.extract)
            return

        def alarm(signum: int, frame: FrameType | None) -> None:
            raise TimeoutError

        def timed(text: str, url: str | None) -> Fields:
            signal.setitimer(signal.ITIMER_REAL, self.timeout)
            try:
                return self.extract(text, url)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)

        old = signal.signal(signal.SIGALRM, alarm)
        try:
            yield timed
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)

    def run(self, data: Iterable[Document], rank: int = 0, world_size: int = 1) -> Iterator[Document]:
        """BaseExtractor's loop and stats, with the page's fields kept beside its text."""
        self.extractor()  # load in the task, before any sandbox forks: its child starts warm
        with self._runner() as process:
            for doc in data:
                self.stat_update(StatHints.total)
                with self.track_time():
                    try:
                        # (the reader's url: a str, or None)
                        text, meta = process(doc.text, cast("str | None", doc.metadata.get("url")))
                        self.stat_update("extracted")
                    except TimeoutError:
                        self.stat_update("timeout")
                        logger.warning("⏰ Timeout while cleaning record text. Skipping record.")
                        continue
                    except EOFError:
                        self.stat_update("broken_process")
                        logger.warning("Process died unexpectedly, will create new process for next document")
                        continue
                    except Exception as e:  # noqa: BLE001 - as BaseExtractor: one warning, the run goes on
                        self.stat_update("clean_error")
                        if not self._warned_error:
                            logger.warning(f'❌ Error "{e}" while cleaning record text. Skipping record. '
                                           f"This message will only appear once.")
                            self._warned_error = True
                        continue
                doc.text = text
                doc.metadata.update(meta)
                if text:
                    self.stat_update(StatHints.forwarded)
                    self.update_doc_stats(doc)
                    yield doc
                elif self.keep_empty:
                    self.stat_update(StatHints.forwarded, f"empty: {meta.get('reason') or 'no text'}")
                    yield doc
                else:
                    self.stat_update(StatHints.dropped, f"empty: {meta.get('reason') or 'no text'}")


class WarcReader(_DatatroveWarcReader):  # type: ignore[misc, unused-ignore]  # datatrove is untyped
    """datatrove's ``WarcReader`` on ce-filter's WARC reader: one document per HTML page.

    The same arguments as datatrove's (``data_folder``, ``paths_file``, ``compression``,
    ``limit``, ``skip``, ``file_progress``, ``doc_progress``, ``adapter``, ``text_key``,
    ``id_key``, ``default_metadata``, ``recursive``, ``glob_pattern``, ``shuffle_files``) and
    the same documents: ``text`` the page's HTML, decoded (BOM, the HTTP charset, a ``<meta>``,
    UTF-8, detection), ``id`` the record's ``WARC-Record-ID``, ``metadata`` its ``url``
    (``WARC-Target-URI``) and ``date`` (``WARC-Date``, the crawl date) and, as datatrove's
    readers add it, ``file_path``.

    Which records become documents is ``ce-filter warc``'s choice, not libmagic's: each 2xx
    ``response`` (or ``resource``) record whose HTTP ``Content-Type`` is HTML (the body sniffed
    where there is none), with chunking and gzip/deflate/brotli/zstd content-encoding undone;
    ``revisit`` records and everything else are skipped and counted in the step's stats as
    ``skipped: <reason>`` (``skipped: non-html image/png``, ``skipped: http status 404``); a
    broken or truncated file yields every whole record before the break and past it, and counts
    ``errors``. Gzipped WARCs are read as they are stored (``compression`` "infer" or "gzip": the
    reader finds the gzip members itself, so a damaged one costs its own records only); a
    ``.zst`` file is decompressed by datatrove's filesystem layer first.
    """

    name = "🕷 Warc (ce-filter)"
    _requires_dependencies = ["warcio"]

    def _compression(self, filepath: str) -> str | None:
        """What the filesystem layer undoes before the WARC reader sees the bytes: zstd only
        (gzip members are the reader's own unit of damage)."""
        if self.compression == "infer":
            return "zstd" if filepath.endswith((".zst", ".zstd")) else None
        return None if self.compression == "gzip" else self.compression

    def read_file(self, filepath: str) -> Iterator[Document]:
        from ce_filter.crawler.warc import WarcStats, iter_pages

        from ..read.decode import decode_html

        stats = WarcStats()
        try:
            with self.data_folder.open(filepath, "rb", compression=self._compression(filepath)) as f:
                for i, page in enumerate(iter_pages(f, stats)):
                    with self.track_time():
                        html = decode_html(page.body, page.encoding)[0]
                        data: dict[str, str | None] = {"text": html, "url": page.url or None,
                                                "date": page.fetch_time}
                        if page.record_id:
                            data["id"] = page.record_id
                        document = self.get_document_from_dict(data, filepath, i)
                    if document:
                        yield document
        finally:  # also when the task stops reading early (limit)
            for reason, n in sorted(stats.skipped.items()):
                self.stat_update(f"skipped: {reason}", value=n)
            if stats.errors:
                self.stat_update("errors", value=len(stats.errors))
                for e in stats.errors:
                    logger.warning(f"{filepath}: {e['error']} at offset {e['offset']}")
