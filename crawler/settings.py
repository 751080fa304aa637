"""Scrapy settings for the ce-filter crawler (``scrapy.cfg`` at the repo top points here, so
``scrapy crawl cefilter -a start_urls=...`` works from the checkout).

The extraction options are the CLI's, as settings (``-s NAME=value``) or environment variables
of the same name: ``CE_FILTER_MODEL`` (model JSON file), ``CE_FILTER_PRECISE`` or ``CE_FILTER_RECALL``,
``CE_FILTER_THRESHOLD`` (a number in [0, 1]), ``CE_FILTER_COMMENTS``. Output is chosen the
same way: ``CE_FILTER_JSONL`` (path) and/or ``CE_FILTER_KAFKA_TOPIC`` (records), ``CE_FILTER_KAFKA_RAW_TOPIC``
(raw pages as the worker's JSON envelope, for ``ce-filter worker``) with the Kafka connection options
``CE_FILTER_BOOTSTRAP_SERVERS``, ``CE_FILTER_SECURITY_PROTOCOL``, ``CE_FILTER_SASL_MECHANISM``,
``CE_FILTER_SASL_PLAIN_USERNAME``, ``CE_FILTER_SASL_PLAIN_PASSWORD``, ``CE_FILTER_SSL_CAFILE``,
... (see ``ce_filter.options.CONNECTION_OPTIONS``). Scrapy's own feed exports (``-o out.jsonl``)
also receive the cleaned records.
"""

import os

from ce_filter.options import CONNECTION_OPTIONS, EXTRACTION_OPTIONS, env_name

BOT_NAME = "ce-filter"
SPIDER_MODULES = ["ce_filter.crawler.spider"]
NEWSPIDER_MODULE = "ce_filter.crawler"

ROBOTSTXT_OBEY = True
USER_AGENT = os.environ.get("CE_FILTER_USER_AGENT", "ce-filter/0.1 (main-content extraction crawler)")
DOWNLOAD_DELAY = float(os.environ.get("CE_FILTER_DOWNLOAD_DELAY", "0.25"))
CONCURRENT_REQUESTS = 16
CONCURRENT_REQUESTS_PER_DOMAIN = int(os.environ.get("CE_FILTER_CONCURRENCY", "4"))
DOWNLOAD_TIMEOUT = 30
DOWNLOAD_MAXSIZE = 16 * 1024 * 1024  # the filter cuts pages at 8 MiB anyway
RETRY_TIMES = 2
COOKIES_ENABLED = False
TELNETCONSOLE_ENABLED = False
FEED_EXPORT_ENCODING = "utf-8"
LOG_LEVEL = os.environ.get("CE_FILTER_LOG_LEVEL", "INFO")

ITEM_PIPELINES = {
    "ce_filter.pipelines.scrapy_pipelines.KafkaRawPipeline": 50,
    "ce_filter.pipelines.scrapy_pipelines.FilterPipeline": 100,
    "ce_filter.pipelines.scrapy_pipelines.JsonLinesPipeline": 300,
    "ce_filter.pipelines.scrapy_pipelines.KafkaPipeline": 400,
}

CE_FILTER_PAGE_BUDGET = float(os.environ.get("CE_FILTER_PAGE_BUDGET", "10"))  # 0 = no limit
CE_FILTER_PAGE_MEMORY = int(os.environ.get("CE_FILTER_PAGE_MEMORY", "1024"))  # 0 = no limit
CE_FILTER_JSONL = os.environ.get("CE_FILTER_JSONL", "")
CE_FILTER_KAFKA_TOPIC = os.environ.get("CE_FILTER_KAFKA_TOPIC", "")
CE_FILTER_KAFKA_RAW_TOPIC = os.environ.get("CE_FILTER_KAFKA_RAW_TOPIC", "")
# the raw pages' message key: "host" (a site's pages to one partition, so one worker's site
# memory sees them all) or "url"
CE_FILTER_KAFKA_RAW_KEY = os.environ.get("CE_FILTER_KAFKA_RAW_KEY", "host")
CE_FILTER_COMPRESSION = os.environ.get("CE_FILTER_COMPRESSION", "gzip")
# The extraction options (read by FilterPipeline, checked there) and the Kafka connection.
for _opt in [o for o, _, _ in EXTRACTION_OPTIONS] + [o for o, _ in CONNECTION_OPTIONS]:
    globals()[env_name(_opt)] = os.environ.get(env_name(_opt), "")
