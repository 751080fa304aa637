"""The speed and quality benchmark: ce-filter side by side with its peers.

Run it as ``ce-filter bench`` (or ``python -m ce_filter.bench``); see docs/BENCHMARKS.md.

Layout: ``peers`` (one adapter per tool), ``pages`` (which pages), ``measure`` (the child
process that times one tool), ``stages`` (ce-filter's own time breakdown and the selectolax
floor), ``stats`` (percentiles, size buckets, the linear fit), ``synthwarc`` (a WARC made of
corpus pages), ``pipeline`` (WARC -> JSONL and Kafka worker rows), ``quality`` (P/R/F1 per
corpus), ``report`` (markdown, machine info, docs/BENCHMARKS.md) and ``run`` (the command).
Only the standard library is imported at module level, so ``ce-filter --help`` stays cheap and
the package imports where the peers are not installed.
"""
