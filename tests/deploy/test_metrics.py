"""ce_filter.pipelines.metrics: the exposition scraped over real HTTP, health/readiness, and lag read
from a real consumer against the embedded broker."""

from __future__ import annotations

import time
import urllib.error
import urllib.request

import pytest
from ce_filter.pipelines.metrics import Metrics, parse_exposition, scrape, value

from .conftest import unique


def _get(url: str) -> tuple[int, str, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), e.read().decode()


@pytest.fixture
def served():
    m = Metrics(info={"model": "content@test"}, stale_after_s=60)
    server = m.serve(0, host="127.0.0.1")
    try:
        yield m, server
    finally:
        server.close()


def test_scrape_counts_and_histogram(served):
    m, server = served
    for ms in (0.2, 3, 3, 40, 700, 20_000):
        m.observe(1000, ms / 1000, bytes_out=300)
    m.observe(50, 0.001, failed="invalid-envelope")
    m.observe(0, 0.0001, failed='odd "reason"\nwith newline')
    m.commit()
    m.set_lag({("raw", 0): 7, ("raw", 1): 5})

    status, ctype, text = _get(server.url + "/metrics")
    assert status == 200 and ctype.startswith("text/plain; version=0.0.4")
    s = parse_exposition(text)
    assert value(s, "ce_filter_pages_in_total") == 8
    assert value(s, "ce_filter_pages_out_total") == 6
    assert value(s, "ce_filter_pages_failed_total") == 2
    assert value(s, "ce_filter_pages_failed_total", reason="invalid-envelope") == 1
    assert value(s, "ce_filter_pages_failed_total", reason='odd "reason"\nwith newline') == 1
    assert value(s, "ce_filter_bytes_in_total") == 6000 + 50
    assert value(s, "ce_filter_bytes_out_total") == 1800
    assert value(s, "ce_filter_commits_total") == 1
    assert value(s, "ce_filter_consumer_lag", topic="raw", partition="0") == 7
    assert value(s, "ce_filter_consumer_lag_sum") == 12
    assert value(s, "ce_filter_assigned_partitions") == 2
    assert value(s, "ce_filter_info", model="content@test") == 1

    # histogram: cumulative buckets, +Inf = count, sum in seconds
    name = "ce_filter_page_duration_seconds_bucket"
    buckets = sorted((float(dict(ls)["le"]), v) for (n, ls), v in s.items() if n == name)
    counts = [v for _, v in buckets]
    assert counts == sorted(counts), "buckets must be cumulative"
    assert buckets[-1] == (float("inf"), 8)
    assert value(s, "ce_filter_page_duration_seconds_count") == 8
    assert dict(buckets)[0.005] == 5  # 0.1 ms, 0.2 ms, 1 ms, 3 ms, 3 ms
    assert dict(buckets)[10.0] == 7  # all but the 20 s page
    assert value(s, "ce_filter_page_duration_seconds_sum") == pytest.approx(20.7473, abs=1e-6)
    # every family has HELP and TYPE once
    types = [line.split()[2] for line in text.splitlines() if line.startswith("# TYPE")]
    assert len(types) == len(set(types))


def test_health_and_readiness(served):
    m, server = served
    assert _get(server.url + "/healthz")[0] == 503  # the loop never ran
    assert _get(server.url + "/readyz")[0] == 503
    m.set_ready(True)
    m.heartbeat()
    assert _get(server.url + "/healthz")[:1] == (200,)
    assert _get(server.url + "/readyz")[0] == 200
    assert _get(server.url + "/nope")[0] == 404
    m.stale_after_s = 0.05
    time.sleep(0.1)
    assert _get(server.url + "/healthz")[0] == 503  # a stuck poll loop is unhealthy
    m.heartbeat()
    m.stale_after_s = 60
    assert _get(server.url + "/healthz")[0] == 200
    m.set_ready(False)
    assert _get(server.url + "/readyz")[0] == 503
    assert scrape(server.url + "/metrics")[("ce_filter_ready", ())] == 0


def test_negotiation_process_metrics_and_replaced_lag(served):
    """prometheus_client's exposition: OpenMetrics for a scraper that asks, gzip, the process
    collector; a second Metrics in the same process has its own registry; a revoked partition's
    lag disappears."""
    import gzip

    m, server = served
    m.set_lag({("raw", 0): 3, ("raw", 1): 4})
    m.set_lag({("raw", 1): 2})
    req = urllib.request.Request(server.url + "/metrics",
                                 headers={"Accept": "application/openmetrics-text; version=1.0.0",
                                          "Accept-Encoding": "gzip"})
    with urllib.request.urlopen(req, timeout=5) as r:
        assert r.headers["Content-Type"].startswith("application/openmetrics-text")
        assert r.headers["Content-Encoding"] == "gzip"
        text = gzip.decompress(r.read()).decode()
    assert text.rstrip().endswith("# EOF")
    s = scrape(server.url + "/metrics")
    assert [dict(ls)["partition"] for (n, ls) in s if n == "ce_filter_consumer_lag"] == ["1"]
    assert value(s, "ce_filter_consumer_lag_sum") == 2 and value(s, "ce_filter_assigned_partitions") == 1
    assert value(s, "process_start_time_seconds") > 0
    other = Metrics()
    other.observe(10, 0.1, bytes_out=1)
    assert value(parse_exposition(other.render()), "ce_filter_pages_in_total") == 1
    assert value(scrape(server.url + "/metrics"), "ce_filter_pages_in_total") == 0


def test_parse_rejects_garbage():
    with pytest.raises(ValueError):
        parse_exposition("this is not a sample line at all {")


def _produce(kafka, topic: str, n: int, partitions: int = 2) -> None:
    from ce_filter.pipelines.kafka_io import make_producer

    producer = make_producer(kafka)  # gzip batches: several records per batch
    for i in range(n):
        producer.send(topic, value=b"<p>x</p>", partition=i % partitions)
    producer.flush(30)
    producer.close()


@pytest.mark.kafka
def test_lag_from_a_real_consumer(kafka):
    from ce_filter.pipelines.kafka_io import ensure_topics, make_consumer
    from kafka import TopicPartition

    topic = unique("lag")
    ensure_topics(kafka, [topic], partitions=2)
    _produce(kafka, topic, 10)

    m = Metrics()
    consumer = make_consumer(kafka, enable_auto_commit=False, auto_offset_reset="earliest")
    try:
        tps = [TopicPartition(topic, 0), TopicPartition(topic, 1)]
        consumer.assign(tps)
        consumer.seek_to_beginning(*tps)
        got, checked = 0, 0
        deadline = time.monotonic() + 30
        while got < 10 and time.monotonic() < deadline:
            got += sum(len(b) for b in consumer.poll(timeout_ms=500, max_records=3).values())
            lag = m.update_lag(consumer)
            if all(consumer.highwater(tp) is not None for tp in tps):
                assert sum(lag.values()) == 10 - got
                checked += 1
        assert got == 10 and checked
        assert m.snapshot()["lag"] == 0 and m.snapshot()["partitions"] == [(topic, 0), (topic, 1)]
    finally:
        consumer.close()


@pytest.mark.kafka
def test_group_lag_committed_against_end(kafka):
    from ce_filter.pipelines.kafka_io import ensure_topics, make_consumer
    from ce_filter.pipelines.metrics import group_lag
    from kafka import TopicPartition
    from kafka.structs import OffsetAndMetadata

    topic, group = unique("glag"), unique("group")
    ensure_topics(kafka, [topic], partitions=2)
    _produce(kafka, topic, 10)
    assert group_lag(kafka, group, [topic])["total"] == 10  # nothing committed: all of it

    # a manually assigned consumer of the group commits offset 3 on partition 0 only
    c = make_consumer(kafka, group_id=group, enable_auto_commit=False)
    try:
        tp0 = TopicPartition(topic, 0)
        c.assign([tp0])
        c.commit({tp0: OffsetAndMetadata(3, "", -1)})
    finally:
        c.close()
    lag = group_lag(kafka, group, [topic])
    rows = {r["partition"]: r for r in lag["partitions"]}
    assert rows[0] == {"topic": topic, "partition": 0, "committed": 3, "end": 5, "lag": 2}
    assert rows[1]["committed"] is None and rows[1]["lag"] == 5
    assert lag["total"] == 7
