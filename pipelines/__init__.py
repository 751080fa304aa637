"""Stages around the filter: output record (``record``), sinks (``sinks``: JSONL, Kafka,
WARC), offline WARC cleaning (``offline``), the Kafka worker (``worker``), Scrapy item
pipelines (``scrapy_pipelines``), and the ``ce-filter`` subcommands (``cli``).

``embedded_broker`` starts a throwaway Tansu broker for the demo and the tests only.
"""
