"""The first pass of a run with the site memory: every page's blocks counted under its host.

``ce-filter warc`` counts all its input files at once; the Spark job counts each task's file.
Both then filter each page with ``replace(options, site_memory=counts)``: a SiteCounts reads a
page's host's counts with the page itself left out, so the records do not depend on the order
of the pages (ce_filter.sitememory).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from ce_filter.crawler.page import RawPage
from ce_filter.crawler.warc import WarcStats, iter_pages

from ce_filter.options import ExtractOptions
from ce_filter.sitememory import SiteCounts


def count_pages(pages: Iterable[RawPage], decoder: Any) -> SiteCounts:
    """The SiteCounts of ``pages``: each page decoded (``decoder``: an Extractor, whose
    ``_decode`` does not depend on its model) and segmented as the extractor does, its blocks'
    fingerprints counted under its host; the fingerprints seen on a single page are dropped
    (left out of that page they count 0 anyway). Pages without a host or whose bytes give no
    text are not counted."""
    from ce_filter.segment import parse, segment
    from ce_filter.sitememory import block_fingerprints, host_of

    counts = SiteCounts()
    for p in pages:
        host = host_of(p.url)
        if not host:
            continue
        text, _enc, _cut, reason, utf8 = decoder._decode(p.body, p.encoding)
        if reason:
            continue
        counts.add(host, block_fingerprints(segment(parse(text, utf8))), p.url)
    counts.prune()
    return counts


def count_sites(inputs: Any, options: ExtractOptions, all_statuses: bool = False,
                revisits: bool = False) -> SiteCounts:
    """``count_pages`` over every page of ``inputs`` (paths, globs: read here once more)."""
    ex = replace(options, site_memory=None).extractor()
    pages = iter_pages(inputs, WarcStats(), all_statuses=all_statuses, revisits=revisits)
    return count_pages(pages, ex)
