"""Running the Scrapy spider from Python (what ``ce-filter crawl`` does): the project's
settings (``ce_filter.crawler.settings``) plus overrides, one crawl, its stats returned."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from scrapy.settings import Settings
    from scrapy.statscollectors import StatsT

# Settings that send records (or raw pages) somewhere; FEEDS (Scrapy's feed exports) too.
DESTINATIONS = ("CE_FILTER_JSONL", "CE_FILTER_KAFKA_TOPIC", "CE_FILTER_KAFKA_RAW_TOPIC")


def crawl_settings(overrides: Mapping[str, object] | None = None) -> Settings:
    """The project's Scrapy settings with ``overrides`` at command-line priority."""
    from ce_filter.crawler import settings as project_settings
    from scrapy.settings import Settings

    s = Settings()
    s.setmodule(project_settings, priority="project")
    for name, value in (overrides or {}).items():
        try:
            s.set(name, value, priority="cmdline")
        except ValueError as e:  # e.g. -s FEEDS=... that is not JSON
            raise ValueError(f"{name}: not a JSON object ({e})") from None
    return s


def no_page_reason(stats: StatsT) -> str:
    """Why a crawl fetched no HTML page, from Scrapy's stats (errors, statuses, skips)."""
    why: Counter[str] = Counter()
    for k, v in stats.items():
        if k.startswith("downloader/exception_type_count/"):
            why[k.rsplit(".", 1)[-1].rsplit("/", 1)[-1]] += v
        elif k.startswith("downloader/response_status_count/") and not k.endswith(("/200", "/301", "/302")):
            why[f"HTTP {k.rsplit('/', 1)[-1]}"] += v
        elif k.startswith("cefilter/skipped/non_html/"):
            why[f"not HTML ({k.rsplit('/', 1)[-1]})"] += v
    if stats.get("robotstxt/forbidden"):
        why["forbidden by robots.txt"] += stats["robotstxt/forbidden"]
    if stats.get("offsite/filtered"):
        why["outside the allowed domains"] += stats["offsite/filtered"]
    return ", ".join(f"{reason} x{n}" for reason, n in why.most_common()) or "no response"


# What a failed fetch raises (Scrapy's own download errors, Twisted's network and HTTP client
# errors): a normal event of a crawl, not a fault of the crawl or the filter.
_FETCH_ERRORS = {"DownloadConnectionRefusedError", "CannotResolveHostError", "DownloadTimeoutError",
                 "DownloadCancelledError", "DownloadFailedError", "ResponseDataLossError",
                 "UnsupportedURLSchemeError"}
RETRY_LOGGER = "scrapy.downloadermiddlewares.retry"  # "Gave up retrying <request>": ERROR in Scrapy


def _is_fetch_error(exc: BaseException) -> bool:
    mod = type(exc).__module__
    return (type(exc).__name__ in _FETCH_ERRORS and mod == "scrapy.exceptions") \
        or mod.startswith(("twisted.internet.error", "twisted.web"))


class FetchErrorsOneLine(logging.Filter):
    """A page that cannot be fetched gets warning lines naming the request and why, in place of
    Scrapy's ERRORs with a traceback of its downloader (kept at ``--log-level DEBUG``): an
    unreachable host is normal input for a crawler, the run's summary counts what failed, and
    ERROR stays for faults of the crawl itself."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None and record.name.startswith("scrapy.") and _is_fetch_error(exc):
            msg, detail = record.getMessage(), str(exc)
            if detail and detail not in msg:
                msg = f"{msg}: {detail}"
            record.msg, record.args = f"{msg} ({type(exc).__name__})", None
            record.exc_info = record.exc_text = None
        elif not (record.name == RETRY_LOGGER and str(record.msg).startswith("Gave up")):
            return True
        if record.levelno > logging.WARNING:
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def _one_line_fetch_errors(level: str) -> None:
    """Put FetchErrorsOneLine on the root logger's handlers (Scrapy's) unless the log level
    asks for every detail."""
    if level.upper() == "DEBUG":
        return
    for handler in logging.getLogger().handlers:
        if not any(isinstance(f, FetchErrorsOneLine) for f in handler.filters):
            handler.addFilter(FetchErrorsOneLine())


def run_crawl(
    urls: list[str] | None,
    *,
    url_file: str | None = None,
    allowed_domains: list[str] | None = None,
    max_depth: int = 2,
    max_pages: int = 0,
    settings: dict[str, object] | Settings | None = None,
) -> StatsT:
    """Crawl and block until done; returns Scrapy's stats (``cefilter/*`` keys are ours).
    ``settings``: a dict of overrides or a ready ``crawl_settings()`` object.
    Twisted's reactor runs once per process: call this once per process."""
    from ce_filter.crawler.spider import CeFilterSpider, read_url_file
    from scrapy import signals
    from scrapy.crawler import CrawlerProcess

    if not urls and not url_file:
        raise ValueError("no start URLs: give URLs or --url-file")
    if url_file:
        read_url_file(url_file)  # a missing file is an error now, not a log line mid-crawl
    # (what has getdict is a ready Settings object)
    s = cast("Settings", settings) if hasattr(settings, "getdict") else crawl_settings(settings)
    process = CrawlerProcess(s)  # logging as Scrapy sets it up (LOG_LEVEL)
    crawler = process.create_crawler(CeFilterSpider)
    # once the engine starts, Scrapy's root log handler is the one of this crawl's settings
    level = str(s.get("LOG_LEVEL", "INFO"))
    crawler.signals.connect(lambda: _one_line_fetch_errors(level), signal=signals.engine_started, weak=False)
    process.crawl(
        crawler,
        start_urls=list(urls or []),
        url_file=url_file,
        allowed_domains=",".join(allowed_domains or []) or None,
        max_depth=max_depth,
        max_pages=max_pages,
    )
    process.start()
    return dict(crawler.stats.get_stats())
