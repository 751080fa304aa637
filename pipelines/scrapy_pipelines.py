"""Scrapy item pipelines (enable them through ``ITEM_PIPELINES``, as ``ce_filter.crawler.settings`` does):

- ``FilterPipeline`` filters the page each item carries and adds the output record
  (``ce_filter.record``) to it. Your own items (a dict, a ``scrapy.Item``, a
  dataclass or an attrs object: read and written through itemadapter) keep all their fields
  and gain one, ``CE_FILTER_ITEM_FIELD`` (default ``ce_filter``), holding the record; an item
  class must declare that field. The page is read from the item's ``url`` and ``body``: text
  (``response.text``, already decoded) or bytes (``response.body``, whose charset then comes
  from the item's ``headers`` or ``content_type``). The pages of ce-filter's own
  spider (RawPage items) become the record itself. Pages are filtered in the reactor's thread
  pool (never on the reactor thread), ``CE_FILTER_THREADS`` pages at a time (default 1), each
  in a child process under a per-page budget (one child per thread), or with the budget off
  (``CE_FILTER_PAGE_BUDGET`` 0 and ``CE_FILTER_PAGE_MEMORY`` 0) in this process by one
  shared ``Extractor``, whose C parts release the GIL so that threads run them side by side.
  Settings: the extraction options of the CLI, ``CE_FILTER_MODEL``, ``CE_FILTER_PRECISE`` or
  ``CE_FILTER_RECALL``, ``CE_FILTER_THRESHOLD``, ``CE_FILTER_COMMENTS``,
  ``CE_FILTER_TARGET_LANGUAGE``; the budget, ``CE_FILTER_PAGE_BUDGET``,
  ``CE_FILTER_PAGE_MEMORY``; ``CE_FILTER_THREADS``.
- ``JsonLinesPipeline`` writes the records (of either kind of item) to the file
  ``CE_FILTER_JSONL`` (off when unset).
- ``KafkaPipeline`` sends records to ``CE_FILTER_KAFKA_TOPIC`` (off when unset) with the
  ``CE_FILTER_BOOTSTRAP_SERVERS`` / security settings. Delivery results are counted in the
  crawl stats (``cefilter/kafka/delivered``, ``cefilter/kafka/failed``) and failures logged.
- ``KafkaRawPipeline`` sends each *raw* page, before filtering, to ``CE_FILTER_KAFKA_RAW_TOPIC``
  (off when unset) as the worker's JSON envelope (``ce_filter.pipelines.worker.envelope``), so
  ``ce-filter worker`` processes filter it; counted as ``cefilter/kafka_raw/*``. The key is the
  page's host (``CE_FILTER_KAFKA_RAW_KEY=host``, the default: a site's pages go to one partition,
  so one worker's site memory sees them all) or its URL (``url``).

Methods take ``spider`` as optional so both older and newer Scrapy call them happily, and
``FilterPipeline.process_item`` is a coroutine (Scrapy 2.11 and later).
"""

from __future__ import annotations

import logging
import queue
from typing import TYPE_CHECKING, TypeGuard, TypeVar

from itemadapter import ItemAdapter
from scrapy.exceptions import NotConfigured

from ce_filter.options import ExtractOptions
from ce_filter.read.rawpage import RawPage
from ce_filter.record import SCHEMA_ID, Record, make_record
from ce_filter.run.bounded import BoundedExtractor
from ce_filter.run.budget import Budget, PageFilter, guarded

from .kafka_io import KafkaSettings
from .sinks import JsonlSink, KafkaSink, Sink

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector

log = logging.getLogger(__name__)

# an item as a spider yields it: a dict, a scrapy.Item, a dataclass or an attrs object (read and
# written through itemadapter), or ce-filter's own RawPage; a pipeline gives it on as it came
_Item = TypeVar("_Item")

DEFAULT_ITEM_FIELD = "ce_filter"


def _is_record(item: object) -> TypeGuard[Record]:
    return isinstance(item, dict) and item.get("schema") == SCHEMA_ID


def record_of(item: object, field: str = DEFAULT_ITEM_FIELD) -> Record | None:
    """The record an item carries: the item itself (ce-filter's own spider), or its
    ``field`` (an item of yours that went through FilterPipeline); None before filtering."""
    if _is_record(item):
        return item
    if ItemAdapter.is_item(item):
        rec = ItemAdapter(item).get(field)
        return rec if _is_record(rec) else None
    return None


class FilterPipeline:
    """Filters each item's page and adds the record (see the module docstring), off the
    reactor thread (a page never stops the downloads) and in a child process under the
    per-page budget (``CE_FILTER_PAGE_BUDGET``, ``CE_FILTER_PAGE_MEMORY``; 0 and 0: in this
    process). A page past the budget, or one whose filtering fails, gets a record with an
    empty text and the reason; the crawl goes on.

    ``threads``: how many pages are filtered at once (each in a thread of the reactor's pool,
    whose size, Scrapy's ``REACTOR_THREADPOOL_MAXSIZE``, bounds it too): with the budget, one
    child process per thread; without it, one Extractor that the threads share."""

    def __init__(self, options: ExtractOptions | None = None, stats: StatsCollector | None = None,
                 field: str = DEFAULT_ITEM_FIELD, budget: Budget | None = None,
                 threads: int = 1) -> None:
        if threads < 1:
            raise ValueError(f"CE_FILTER_THREADS must be at least 1, not {threads}")
        budget = budget if budget is not None else Budget()
        options = options or ExtractOptions()
        if budget.enabled:  # a BoundedExtractor runs one page at a time: one per thread
            self.extractors: list[PageFilter] = [BoundedExtractor(budget, options=options)
                                                 for _ in range(threads)]
        else:  # an Extractor is safe to share between threads
            self.extractors = [options.extractor()] * threads
        self.extractor = self.extractors[0]  # (the version the records name)
        self.stats = stats
        self.field = field
        self._warned: set[type] = set()
        self._free: queue.SimpleQueue[PageFilter] = queue.SimpleQueue()  # one slot per page in flight
        for ex in self.extractors:
            self._free.put(ex)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> FilterPipeline:
        # CE_FILTER_MODEL, _PRECISE, _THRESHOLD, _COMMENTS; a bad value stops the crawl at start
        s = crawler.settings
        options = ExtractOptions.from_settings(s)
        if s.getbool("CE_FILTER_SITE_MEMORY", False):  # `ce-filter crawl` sets it (--no-site-memory)
            from dataclasses import replace

            options = replace(options, site_memory="stream")
        return cls(options, crawler.stats,
                   s.get("CE_FILTER_ITEM_FIELD") or DEFAULT_ITEM_FIELD,
                   Budget(s.getfloat("CE_FILTER_PAGE_BUDGET", 10.0), s.getint("CE_FILTER_PAGE_MEMORY", 1024)),
                   s.getint("CE_FILTER_THREADS", 1))

    async def process_item(self, item: object, spider: Spider | None = None) -> object:
        """A coroutine, as Scrapy documents item pipelines (a returned Deferred is deprecated
        since Scrapy 2.13); the page is filtered in the reactor's thread pool and awaited on
        either reactor (maybe_deferred_to_future: asyncio's, Twisted's own)."""
        if record_of(item, self.field) is not None:
            return item  # already filtered
        from scrapy.utils.defer import maybe_deferred_to_future
        from twisted.internet.threads import deferToThread

        rec = await maybe_deferred_to_future(deferToThread(self.filter, item))
        return self._finish(rec, item)

    def filter(self, item: object) -> Record:
        """The record of one page item (runs in a thread of the reactor's pool)."""
        # a str body was decoded already (Scrapy's response.text): the page is its UTF-8 now,
        # whatever charset the headers name
        text = not isinstance(item, RawPage) and isinstance(ItemAdapter(item).get("body"), str)
        page = RawPage.from_mapping(item)
        ex = self._free.get()  # more threads than slots wait here
        try:
            out = guarded(ex, page.body, page.url, "utf-8" if text else page.encoding)
        finally:
            self._free.put(ex)
        return make_record(page, out, ex)

    def _finish(self, rec: Record, item: object) -> object:
        if self.stats is not None:  # (on the reactor thread: the stats are not thread-safe)
            self.stats.inc_value("cefilter/records")
            self.stats.inc_value("cefilter/kept" if rec["text"] else f"cefilter/empty/{rec['reason']}")
        if isinstance(item, RawPage):
            return rec  # ce-filter's own spider: the record is the item
        return self._attach(item, rec)

    def _attach(self, item: _Item, rec: Record) -> _Item:
        """The user's item with the record in its field. An item class without that field
        keeps its item as it was, and the crawl log says once what to declare."""
        try:
            ItemAdapter(item)[self.field] = rec
        except KeyError:
            if self.stats is not None:
                self.stats.inc_value("cefilter/no_item_field")
            if type(item) not in self._warned:
                self._warned.add(type(item))
                log.error("FilterPipeline: %s has no field %r for the ce-filter record; declare it "
                          "(%s = scrapy.Field(), or a dataclass/attrs field) or name another with "
                          "CE_FILTER_ITEM_FIELD", type(item).__name__, self.field, self.field)
        return item

    def close_spider(self, spider: Spider | None = None) -> None:
        for ex in {id(e): e for e in self.extractors}.values():
            close = getattr(ex, "close", None)
            if close is not None:
                close()


class _SinkPipeline:
    """Writes each record to a sink opened when the spider opens."""

    setting = ""
    stat = ""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.sink: Sink | None = None
        self.field = crawler.settings.get("CE_FILTER_ITEM_FIELD") or DEFAULT_ITEM_FIELD

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> _SinkPipeline:
        if not crawler.settings.get(cls.setting):
            raise NotConfigured()  # (no message: Scrapy then disables it without a warning)
        return cls(crawler)

    def open_sink(self) -> Sink:
        raise NotImplementedError

    def open_spider(self, spider: Spider | None = None) -> None:
        self.sink = self.open_sink()
        log.info("%s: writing records to %s", type(self).__name__, self.sink.name)

    def process_item(self, item: _Item, spider: Spider | None = None) -> _Item:
        rec = record_of(item, self.field)
        if self.sink is not None and rec is not None:
            self.sink.write(rec)
        return item

    def close_spider(self, spider: Spider | None = None) -> None:
        if self.sink is None:
            return
        st = self.sink.close()
        stats = self.crawler.stats
        stats.set_value(f"cefilter/{self.stat}/delivered", st.delivered)
        stats.set_value(f"cefilter/{self.stat}/failed", st.failed)
        (log.error if st.failed else log.info)(self.sink.summary())


class JsonLinesPipeline(_SinkPipeline):
    setting = "CE_FILTER_JSONL"
    stat = "jsonl"

    def open_sink(self) -> Sink:
        return JsonlSink(self.crawler.settings.get(self.setting))


class KafkaPipeline(_SinkPipeline):
    setting = "CE_FILTER_KAFKA_TOPIC"
    stat = "kafka"

    def open_sink(self) -> Sink:
        s = self.crawler.settings
        kafka = KafkaSettings.from_mapping(s, prefix="CE_FILTER_")
        return KafkaSink(
            s.get(self.setting), kafka, compression_type=s.get("CE_FILTER_COMPRESSION") or "gzip"
        )


RAW_KEYS = ("host", "url")


def raw_key(url: str, mode: str) -> bytes:
    """A raw page's message key: its host (``ce_filter.score.site.memory.host_of``; the URL where it
    has none) or its URL."""
    from ce_filter.score.site.memory import host_of

    return ((host_of(url) if mode == "host" else "") or url).encode("utf-8")


class KafkaRawPipeline(KafkaPipeline):
    """Raw pages -> the workers' input topic (runs before ``FilterPipeline``)."""

    setting = "CE_FILTER_KAFKA_RAW_TOPIC"
    stat = "kafka_raw"

    def open_sink(self) -> Sink:
        self.key = (self.crawler.settings.get("CE_FILTER_KAFKA_RAW_KEY") or "host").lower()
        if self.key not in RAW_KEYS:
            raise ValueError(f"CE_FILTER_KAFKA_RAW_KEY must be one of {', '.join(RAW_KEYS)}, not "
                             f"{self.key!r}")
        return super().open_sink()

    def process_item(self, item: _Item, spider: Spider | None = None) -> _Item:
        if self.sink is None or record_of(item, self.field) is not None:
            return item
        from .worker import envelope

        page = RawPage.from_mapping(item)
        try:
            self.sink.send(envelope(page), raw_key(page.url, self.key))  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - refused at once (e.g. too large): counted and logged by the sink
            pass
        return item
