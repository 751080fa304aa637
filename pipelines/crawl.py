"""Running the Scrapy spider from Python (what ``ce-filter crawl`` does): the project's
settings (``ce_filter.crawler.settings``) plus overrides, one crawl, its stats returned."""

from __future__ import annotations

from typing import Any


def run_crawl(
    urls: list[str] | None,
    *,
    url_file: str | None = None,
    allowed_domains: list[str] | None = None,
    max_depth: int = 2,
    max_pages: int = 0,
    settings: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Crawl and block until done; returns Scrapy's stats (``cefilter/*`` keys are ours).
    Twisted's reactor runs once per process: call this once per process."""
    from ce_filter.crawler import settings as project_settings
    from ce_filter.crawler.spider import CeFilterSpider, read_url_file
    from scrapy.crawler import CrawlerProcess
    from scrapy.settings import Settings

    if not urls and not url_file:
        raise ValueError("no start URLs: give URLs or --url-file")
    if url_file:
        read_url_file(url_file)  # a missing file is an error now, not a log line mid-crawl
    s = Settings()
    s.setmodule(project_settings, priority="project")
    s.update(settings or {}, priority="cmdline")
    process = CrawlerProcess(s)  # logging as Scrapy sets it up (LOG_LEVEL)
    crawler = process.create_crawler(CeFilterSpider)
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
