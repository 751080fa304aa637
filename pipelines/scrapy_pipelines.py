"""Scrapy item pipelines (enable them through ``ITEM_PIPELINES``, as ``ce_filter.crawler.settings`` does):

- ``FilterPipeline`` turns each page item (a RawPage, or a dict with url/body/...) into the
  output record (``ce_filter.pipelines.record``). Settings: the extraction options of the CLI,
  ``CE_FILTER_MODEL``, ``CE_FILTER_PRECISE``, ``CE_FILTER_THRESHOLD``, ``CE_FILTER_COMMENTS``.
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
from typing import Any

from ce_filter.crawler.page import RawPage
from scrapy.exceptions import NotConfigured

from ce_filter.options import ExtractOptions

from .kafka_io import KafkaSettings
from .record import SCHEMA_ID, filter_page
from .sinks import JsonlSink, KafkaSink, Sink

log = logging.getLogger(__name__)


class FilterPipeline:
    def __init__(self, options: ExtractOptions | None = None, stats: Any = None) -> None:
        self.extractor = (options or ExtractOptions()).extractor()
        self.stats = stats

    @classmethod
    def from_crawler(cls, crawler: Any) -> FilterPipeline:
        # CE_FILTER_MODEL, _PRECISE, _THRESHOLD, _COMMENTS; a bad value stops the crawl at start
        return cls(ExtractOptions.from_settings(crawler.settings), crawler.stats)

    def process_item(self, item: Any, spider: Any = None) -> Any:
        if isinstance(item, dict) and item.get("schema") == SCHEMA_ID:
            return item  # already filtered
        rec = filter_page(self.extractor, RawPage.from_mapping(item))
        if self.stats is not None:
            self.stats.inc_value("cefilter/records")
            self.stats.inc_value("cefilter/kept" if rec["text"] else f"cefilter/empty/{rec['reason']}")
        return rec


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
