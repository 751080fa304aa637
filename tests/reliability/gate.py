"""A filter pipeline for the crawl test: filtering the page ``/gated`` waits until the test's
server has served more pages than when it started. That can only happen if the downloads go on
while a page is being filtered, i.e. if filtering is off the reactor thread."""

from __future__ import annotations

import os
import time
import urllib.request
from typing import Any

from ce_filter.pipelines.scrapy_pipelines import FilterPipeline

WANT = 10  # pages the server must serve while /gated is being filtered


class GatedFilterPipeline(FilterPipeline):
    def filter(self, item: Any) -> dict[str, Any]:
        if str(item.get("url") if isinstance(item, dict) else item.url).endswith("/gated"):
            base = os.environ["GATE_SERVER"]

            def served() -> int:
                return int(urllib.request.urlopen(base + "/count", timeout=5).read())

            start, outcome = served(), "timed out"
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                if served() >= start + WANT:
                    outcome = "released"
                    break
                time.sleep(0.05)
            with open(os.environ["GATE_OUT"], "w") as fh:
                fh.write(outcome)
        return super().filter(item)
