"""Delivery failures are counted, never silent; the demo runs end to end."""

from __future__ import annotations

import json

import pytest
from ce_filter.pipelines.embedded_broker import EmbeddedBroker
from ce_filter.pipelines.kafka_io import KafkaSettings
from ce_filter.pipelines.sinks import KafkaSink, open_sinks, parse_spec

from .conftest import run_cli, unique


def _rec(url: str, text: str = "hello") -> dict:
    return {"url": url, "text": text}


def test_kafka_sink_counts_failures(broker, tmp_path):
    """A record over the size limit fails at once; records sent after the broker died fail
    when their delivery times out. Both are counted, with their errors."""
    own = EmbeddedBroker(log_path=tmp_path / "own.log").start()
    try:
        sink = KafkaSink(
            unique("fail"),
            KafkaSettings(bootstrap_servers=own.bootstrap),
            flush_timeout_s=10,
            max_request_size=10_000,
            delivery_timeout_ms=3_000,
            request_timeout_ms=1_000,
            linger_ms=0,
            retries=1,
            max_block_ms=2_000,
        )
        sink.write(_rec("http://ok.test/"))
        sink.flush()
        assert (sink.stats.delivered, sink.stats.failed) == (1, 0)
        sink.write(_rec("http://big.test/", "x" * 50_000))  # refused by the producer: counted
        assert sink.stats.failed == 1 and "MessageSizeTooLarge" in sink.stats.errors[0]
        own.stop()
        for i in range(3):
            sink.write(_rec(f"http://lost.test/{i}"))
        st = sink.close()
    finally:
        own.stop()
    assert st.written == 5 and st.delivered == 1 and st.failed == 4 and len(st.errors) == 4
    assert "4 failed" in sink.summary()


def test_sink_specs():
    assert parse_spec("kafka:a.b") == ("kafka", "a.b") and parse_spec("jsonl:-") == ("jsonl", "-")
    for bad in ("kafka:", "s3:x", "out.jsonl"):
        with pytest.raises(ValueError):
            parse_spec(bad)
    with pytest.raises(ValueError):
        open_sinks(["jsonl:-", "nope:x"])


def test_demo_runs_the_whole_chain(broker):
    r = run_cli(["demo", "--show", "5"])  # every record: the order read back is not fixed
    out = r.stdout.decode()
    assert r.returncode == 0, out + r.stderr.decode()
    assert "Started an embedded Kafka-protocol broker" in out and "Broker stopped." in out
    assert "5 delivered, 0 failed" in out and "Read 5 records back from Kafka" in out
    assert "lasermotive.com" in out and "Lockheed" in out  # a cleaned record, read back (wrapped)


def test_demo_without_broker_falls_back_to_a_file():
    r = run_cli(["demo", "--no-broker", "--show", "1"])
    out = r.stdout.decode()
    assert r.returncode == 0 and "Kafka skipped" in out and "5 records in" in out
    path = out.split("5 records in ", 1)[1].split(";", 1)[0]
    assert all(json.loads(x)["text"] for x in open(path, encoding="utf-8"))


def test_kafka_security_settings_pass_through(monkeypatch):
    """Connection and security options reach kafka-python as they are named there, from flags
    or from CE_FILTER_* variables (a flag wins)."""
    from ce_filter.cli import build_parser

    monkeypatch.setenv("CE_FILTER_SECURITY_PROTOCOL", "SASL_SSL")
    monkeypatch.setenv("CE_FILTER_SASL_MECHANISM", "SCRAM-SHA-512")
    monkeypatch.setenv("CE_FILTER_SASL_PLAIN_USERNAME", "crawler")
    monkeypatch.setenv("CE_FILTER_SASL_PLAIN_PASSWORD", "s3cret")
    monkeypatch.setenv("CE_FILTER_BOOTSTRAP_SERVERS", "k1:9093,k2:9093")
    monkeypatch.setenv("CE_FILTER_MAX_POLL_INTERVAL_MS", "4000")
    a = build_parser().parse_args(
        [
            "worker",
            "--input-topic",
            "in",
            "--output-topic",
            "out",
            "--ssl-cafile",
            "/etc/ca.pem",
            "--sasl-plain-username",
            "flag-wins",
        ]
    )
    cfg = KafkaSettings.from_mapping(a).client_config()
    assert cfg["bootstrap_servers"] == ["k1:9093", "k2:9093"] and a.max_poll_interval_ms == 4000
    assert (cfg["security_protocol"], cfg["sasl_mechanism"], cfg["sasl_plain_password"]) == (
        "SASL_SSL",
        "SCRAM-SHA-512",
        "s3cret",
    )
    assert cfg["sasl_plain_username"] == "flag-wins" and cfg["ssl_cafile"] == "/etc/ca.pem"
    scrapy_like = {
        "CE_FILTER_BOOTSTRAP_SERVERS": "k:1",
        "CE_FILTER_SECURITY_PROTOCOL": "SSL",
        "CE_FILTER_SSL_CAFILE": "",
    }
    cfg = KafkaSettings.from_mapping(scrapy_like, prefix="CE_FILTER_").client_config()
    assert (
        cfg["bootstrap_servers"] == ["k:1"] and cfg["security_protocol"] == "SSL" and "ssl_cafile" not in cfg
    )
