"""Sources for the filter: a WARC reader (``ce_filter.crawler.warc``) and a Scrapy spider
(``ce_filter.crawler.spider``).

Both hand on :class:`ce_filter.read.rawpage.RawPage` records: the page bytes plus what the fetch said
about them. This package imports neither Scrapy nor Kafka at import time.
"""

from ce_filter.read.rawpage import RawPage

__all__ = ["RawPage"]
