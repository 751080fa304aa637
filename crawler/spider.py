"""The Scrapy spider: crawl from start URLs (or a URL file) within allowed domains, follow
links up to a depth and a page limit, obey robots.txt (``ROBOTSTXT_OBEY`` in
``ce_filter.crawler.settings``), skip non-HTML (counted in the crawl stats), and hand each HTML page to
the item pipelines as a :class:`~ce_filter.read.rawpage.RawPage`.

Spider arguments (``scrapy crawl cefilter -a name=value``; each defaults to the environment
variable ``CE_FILTER_<NAME>``):

- ``start_urls``: URLs separated by commas or whitespace
- ``url_file``: a file with one URL per line (``#`` comments allowed)
- ``allowed_domains``: comma-separated; default: the hosts of the start URLs
- ``max_depth``: links followed from a start page (0 = start pages only); default 2
- ``max_pages``: stop after this many HTML pages; 0 = no limit (default)
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import cast, overload
from urllib.parse import urlparse

import scrapy
from scrapy.exceptions import CloseSpider
from scrapy.http import Request, Response
from scrapy.linkextractors import LinkExtractor

from ce_filter.read.rawpage import RawPage, is_html_type, media_type, now_iso

DEFAULT_MAX_DEPTH = 2


# a spider argument: text from ``-a name=value``, or what ``ce-filter crawl`` passes (a list of
# URLs, a number), else the text of its environment variable, else the default
@overload
def _arg(value: str | None, env: str) -> str | None: ...
@overload
def _arg(value: str | list[str] | None, env: str) -> str | list[str] | None: ...
@overload
def _arg(value: int | str | None, env: str, default: int) -> int | str: ...
def _arg(value: object, env: str, default: object = None) -> object:
    if value not in (None, ""):
        return value
    return os.environ.get(f"CE_FILTER_{env}", default)


def _split(value: str | list[str] | None) -> list[str]:
    if not value:
        return []
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    return [v for v in value.replace(",", " ").split() if v]


def read_url_file(path: str | Path) -> list[str]:
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [ln.strip() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]


class CeFilterSpider(scrapy.Spider):
    name = "cefilter"

    def __init__(
        self,
        start_urls: str | list[str] | None = None,
        url_file: str | None = None,
        allowed_domains: str | list[str] | None = None,
        max_depth: int | str | None = None,
        max_pages: int | str | None = None,
        *args: str | None,  # (Scrapy's Spider takes its name)
        **kwargs: str,  # other spider arguments (-a name=value)
    ) -> None:
        super().__init__(*args, **kwargs)
        urls = _split(_arg(start_urls, "START_URLS"))
        url_file = _arg(url_file, "URL_FILE")
        if url_file:
            urls += read_url_file(url_file)
        if not urls:
            raise ValueError("no start URLs: pass -a start_urls=URL[,URL...] or -a url_file=FILE")
        self.start_urls = urls
        domains = _split(_arg(allowed_domains, "ALLOWED_DOMAINS"))
        self.allowed_domains = domains or sorted({urlparse(u).hostname or "" for u in urls} - {""})
        self.max_depth = int(_arg(max_depth, "MAX_DEPTH", DEFAULT_MAX_DEPTH))
        self.max_pages = int(_arg(max_pages, "MAX_PAGES", 0))
        self.pages = 0
        # Domains are enforced by Scrapy's OffsiteMiddleware (which counts what it drops, and
        # compares host names; LinkExtractor's allow_domains would compare host:port).
        self.links = LinkExtractor()

    def _count(self, key: str) -> None:
        crawler = getattr(self, "crawler", None)
        if crawler is not None and crawler.stats is not None:
            crawler.stats.inc_value(f"cefilter/{key}")

    def parse(self, response: Response, **kwargs: object) -> Iterator[RawPage | Request]:
        # (given a default, Headers.get gives bytes)
        ctype = cast(bytes, response.headers.get(b"Content-Type", b"")).decode("latin-1")
        if not isinstance(response, scrapy.http.TextResponse) or not is_html_type(ctype):
            self.logger.info("skipped non-HTML %s (%s)", response.url, media_type(ctype) or "no type")
            self._count(f"skipped/non_html/{media_type(ctype) or 'none'}")
            return
        if self.max_pages and self.pages >= self.max_pages:
            self._count("skipped/page_limit")
            raise CloseSpider("page limit reached")
        self.pages += 1
        self._count("pages")
        yield RawPage(
            url=response.url,
            body=response.body,
            fetch_time=now_iso(),
            status=response.status,
            headers={
                k.decode("latin-1"): b", ".join(v).decode("latin-1") for k, v in response.headers.items()
            },
            content_type=ctype,
            source="crawl",
            source_name=self.name,
        )
        if response.meta.get("depth", 0) < self.max_depth:
            for link in self.links.extract_links(response):
                yield response.follow(link, callback=self.parse)
