"""Scrapy item pipelines (enable them through ``ITEM_PIPELINES``, as ``ce_filter.crawler.settings`` does):

- ``FilterPipeline`` turns each page item (a RawPage, or a dict with url/body/...) into the
  output record (``ce_filter.pipelines.record``), in a thread (never on the reactor) and a
  child process under a per-page budget. Settings: the extraction options of the CLI,
  ``CE_FILTER_MODEL``, ``CE_FILTER_PRECISE``, ``CE_FILTER_THRESHOLD``, ``CE_FILTER_COMMENTS``;
  the budget, ``CE_FILTER_PAGE_BUDGET``, ``CE_FILTER_PAGE_MEMORY``.
- ``JsonLinesPipeline`` writes records to the file ``CE_FILTER_JSONL`` (off when unset).
- ``KafkaPipeline`` sends records to ``CE_FILTER_KAFKA_TOPIC`` (off when unset) with the
  ``CE_FILTER_BOOTSTRAP_SERVERS`` / security settings. Delivery results are counted in the
  crawl stats (``cefilter/kafka/delivered``, ``cefilter/kafka/failed``) and failures logged.
- ``KafkaRawPipeline`` sends each *raw* page, before filtering, to ``CE_FILTER_KAFKA_RAW_TOPIC``
  (off when unset) as the worker's JSON envelope (``ce_filter.pipelines.worker.envelope``; key = URL), so
  ``ce-filter worker`` processes filter it; counted as ``cefilter/kafka_raw/*``.

Methods take ``spider`` as optional so both older and newer Scrapy call them happily.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from ce_filter.crawler.page import RawPage
from scrapy.exceptions import NotConfigured

from ce_filter.budget import BoundedExtractor, Budget, guarded
from ce_filter.options import ExtractOptions

from .kafka_io import KafkaSettings
from .record import SCHEMA_ID, make_record
from .sinks import JsonlSink, KafkaSink, Sink

log = logging.getLogger(__name__)


class FilterPipeline:
    """Filters off the reactor thread (a page never stops the downloads), in a child process
    under the per-page budget (``CE_FILTER_PAGE_BUDGET``, ``CE_FILTER_PAGE_MEMORY``; 0 and
    0: in this process). A page past the budget, or one whose filtering fails, gets a record
    with an empty text and the reason; the crawl goes on."""

    def __init__(self, options: ExtractOptions | None = None, stats: Any = None,
                 budget: Budget | None = None) -> None:
        budget = budget if budget is not None else Budget()
        options = options or ExtractOptions()
        if budget.enabled:
            self.extractor: Any = BoundedExtractor(budget, options=options)
        else:
            self.extractor = options.extractor()
        self.stats = stats
        self._lock = threading.Lock()  # one page at a time per extractor (threads share it)

    @classmethod
    def from_crawler(cls, crawler: Any) -> FilterPipeline:
        # CE_FILTER_MODEL, _PRECISE, _THRESHOLD, _COMMENTS; a bad value stops the crawl at start
        s = crawler.settings
        return cls(ExtractOptions.from_settings(s), crawler.stats,
                   Budget(s.getfloat("CE_FILTER_PAGE_BUDGET", 10.0), s.getint("CE_FILTER_PAGE_MEMORY", 1024)))

    def process_item(self, item: Any, spider: Any = None) -> Any:
        if isinstance(item, dict) and item.get("schema") == SCHEMA_ID:
            return item  # already filtered
        from twisted.internet.threads import deferToThread

        return deferToThread(self.filter, item).addCallback(self._count)

    def filter(self, item: Any) -> dict[str, Any]:
        """The record of one page item (runs in a thread of the reactor's pool)."""
        page = RawPage.from_mapping(item)
        with self._lock:
            out = guarded(self.extractor, page.body, page.url, page.encoding)
        return make_record(page, out, self.extractor)

    def _count(self, rec: dict[str, Any]) -> dict[str, Any]:
        if self.stats is not None:  # (on the reactor thread: the stats are not thread-safe)
            self.stats.inc_value("cefilter/records")
            self.stats.inc_value("cefilter/kept" if rec["text"] else f"cefilter/empty/{rec['reason']}")
        return rec

    def close_spider(self, spider: Any = None) -> None:
        close = getattr(self.extractor, "close", None)
        if close is not None:
            close()


class _SinkPipeline:
    """Writes each record to a sink opened when the spider opens."""

    setting = ""
    stat = ""

    def __init__(self, crawler: Any) -> None:
        self.crawler = crawler
        self.sink: Sink | None = None

    @classmethod
    def from_crawler(cls, crawler: Any) -> _SinkPipeline:
        if not crawler.settings.get(cls.setting):
            raise NotConfigured()  # (no message: Scrapy then disables it without a warning)
        return cls(crawler)

    def open_sink(self) -> Sink:
        raise NotImplementedError

    def open_spider(self, spider: Any = None) -> None:
        self.sink = self.open_sink()
        log.info("%s: writing records to %s", type(self).__name__, self.sink.name)

    def process_item(self, item: Any, spider: Any = None) -> Any:
        if self.sink is not None and isinstance(item, dict) and item.get("schema") == SCHEMA_ID:
            self.sink.write(item)
        return item

    def close_spider(self, spider: Any = None) -> None:
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


class KafkaRawPipeline(KafkaPipeline):
    """Raw pages -> the workers' input topic (runs before ``FilterPipeline``)."""

    setting = "CE_FILTER_KAFKA_RAW_TOPIC"
    stat = "kafka_raw"

    def process_item(self, item: Any, spider: Any = None) -> Any:
        if self.sink is None or (isinstance(item, dict) and item.get("schema") == SCHEMA_ID):
            return item
        from .worker import envelope

        page = RawPage.from_mapping(item)
        try:
            self.sink.send(envelope(page), page.url.encode("utf-8"))  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - refused at once (e.g. too large): counted and logged by the sink
            pass
        return item
