"""The Kafka worker against the embedded broker: no message can stop it or block its
partition. Poison that used to crash-loop it (deep nesting, lone surrogates, a message over the
producer's max_request_size) goes to the dead-letter topic, cut to fit where needed; a page past
its budget gets a record with the reason; a batch of slow pages is committed in parts instead
of missing max.poll.interval and being redelivered forever."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time

import pytest
from ce_filter.pipelines.kafka_io import ensure_topics, make_producer, read_topic
from pipeline.conftest import REPO, cli_env, unique
from pipeline.test_worker import good_messages, header, worker_args

pytestmark = pytest.mark.kafka
DEEP = b'{"url": "http://deep.test/", "html": ' + b"[" * 3000 + b"]" * 3000 + b"}"  # ~6 KB
BIG_HTML = "<html><body>" + "<p>" + "word " * 1_050_000 + "</p></body></html>"  # 5 MiB of text
# a sentence, not a word: a whole page keeping one word is a thin page (model.thin_page)
DEEP_TEXT = "A paragraph nested seven thousand levels deep is still the text of this page."
SLOW = "<html><body>" + "<div>" * 7_000 + f"<p>{DEEP_TEXT}</p></body></html>"  # passes the scan, ~0.06 s
OVER = ("<html><body>" + "<div>" * 12_000 + "</div>" * 12_000 + "<p>x" * 85_000
        + "</body></html>")  # passes it too, ~0.3 s


def _produce(kafka, topic: str, messages: list[tuple[bytes, bytes]]) -> None:
    p = make_producer(kafka, max_request_size=16 << 20)
    for f in [p.send(topic, key=k, value=v) for k, v in messages]:
        f.get(timeout=60)
    p.close()


def _run_worker(kafka, src: str, out: str, group: str, *extra: str) -> subprocess.CompletedProcess:
    args = worker_args(kafka, src, out, group, "--idle-exit", "2", *extra)
    return subprocess.run([sys.executable, "-m", "ce_filter.cli", *args], cwd=REPO, env=cli_env(),
                          capture_output=True, timeout=600)


def _committed(kafka, group: str, topic: str) -> int | None:
    from kafka import KafkaConsumer, TopicPartition

    c = KafkaConsumer(bootstrap_servers=kafka.bootstrap_servers, group_id=group, enable_auto_commit=False)
    try:
        return c.committed(TopicPartition(topic, 0))
    finally:
        c.close()


def test_poison_that_crash_looped_the_worker_is_dead_lettered(kafka):
    src, out, group = unique("raw"), unique("clean"), unique("group")
    dlq = f"{src}.dlq"
    ensure_topics(kafka, [src, out, dlq])
    good = good_messages(6, "fine")
    poison = {
        b"http://deep.test/": DEEP,
        b"http://nested.test/": b'{"url": "http://nested.test/", "html": "<p>x</p>", "meta": '
                                + b'{"a": ' * 2000 + b"1" + b"}" * 2001,
        b"http://b64.test/": b'{"url": "x", "html_b64": "not base64!"}',
        b"http://big.test/": json.dumps({"url": "http://big.test/", "html": BIG_HTML}).encode(),
    }
    surrogates = {  # decodable: a record, with the lone surrogates replaced
        b"http://sur-html.test/": b'{"url": "http://sur-html.test/", "html": "<p>bad \\ud800 char '
                                  b'in a paragraph of text</p>"}',
        b"http://sur-url.test/": b'{"url": "http://sur-url.test/\\ud800", "html": "<p>fine text</p>"}',
        b"http://sur-time.test/": b'{"url": "http://sur-time.test/", "fetch_time": "2024\\udfff", '
                                  b'"html": "<p>fine text</p>"}',
    }
    msgs = good[:3] + list(poison.items()) + list(surrogates.items()) + good[3:]
    _produce(kafka, src, msgs)
    r = _run_worker(kafka, src, out, group)
    log = r.stderr.decode()
    assert r.returncode == 0, log[-3000:]
    assert _committed(kafka, group, src) == len(msgs)  # nothing blocks the partition
    recs = {m.key: json.loads(m.value) for m in read_topic(kafka, out)}
    assert {k for k, _ in good} <= set(recs) and len(recs) == len(good) + len(surrogates)
    assert recs[b"http://sur-url.test/\xef\xbf\xbd"]["text"] == "fine text"
    assert "bad" in recs[b"http://sur-html.test/"]["text"]
    dead = {m.key: m for m in read_topic(kafka, dlq)}
    assert set(dead) == set(poison), log[-3000:]
    assert header(dead[b"http://deep.test/"], "ce-filter-reason") == "invalid-envelope"
    assert header(dead[b"http://nested.test/"], "ce-filter-reason") == "invalid-envelope"
    assert header(dead[b"http://b64.test/"], "ce-filter-reason") == "invalid-envelope"
    assert dead[b"http://deep.test/"].value == DEEP  # unchanged: it can be replayed
    big = dead[b"http://big.test/"]  # its record was over 4 MiB: refused, then dead-lettered
    assert header(big, "ce-filter-reason") == "output-error"
    assert int(header(big, "ce-filter-truncated")) == len(poison[b"http://big.test/"])
    assert 0 < len(big.value) < 4 << 20 and poison[b"http://big.test/"].startswith(big.value)
    where = (header(big, "ce-filter-source-topic"), header(big, "ce-filter-source-partition"),
             int(header(big, "ce-filter-source-offset")))
    assert where == (src, "0", msgs.index((b"http://big.test/", poison[b"http://big.test/"])))


def _cpu(html: str) -> float:
    """CPU seconds of one extraction of ``html`` here (the best of three, warmed up)."""
    from ce_filter import Extractor

    ex = Extractor()
    ex.extract(html)
    best = float("inf")
    for _ in range(3):
        t0 = time.process_time()
        ex.extract(html)
        best = min(best, time.process_time() - t0)
    return best


def test_slow_pages_never_make_a_redelivery_loop(kafka):
    """Slow pages with a 3 s poll interval: batches are cut at 1.2 s and committed in parts;
    every page comes out once. A page past the budget gets its reason. The page count and the
    budget follow this machine's CPU time for the pages (measured first), so that the pages'
    CPU time alone is 1.5 times the batch limit and the budget sits halfway (geometrically)
    between a slow page and the one over it, on a faster or slower CPU alike."""
    slow_s, over_s = _cpu(SLOW), _cpu(OVER)
    # the premise: the two are told apart (about 5x on an idle machine, 2.8x seen under load);
    # the budget between them then leaves each page 40 % or more of margin
    assert over_s > 2 * slow_s, (slow_s, over_s)
    budget = (slow_s * over_s) ** 0.5
    n_slow = max(8, math.ceil(1.5 * 1.2 / slow_s))  # CPU time alone: 1.5 times the batch limit
    src, out, group = unique("raw"), unique("clean"), unique("group")
    ensure_topics(kafka, [src, out])
    slow = [(f"http://slow.test/{i}".encode(), json.dumps({"url": f"http://slow.test/{i}",
                                                           "html": SLOW}).encode()) for i in range(n_slow)]
    over = [(b"http://over.test/", json.dumps({"url": "http://over.test/", "html": OVER}).encode())]
    half = n_slow // 2
    msgs = slow[:half] + over + good_messages(4, "quick") + slow[half:]
    _produce(kafka, src, msgs)
    r = _run_worker(kafka, src, out, group, "--page-budget", f"{budget:.3f}")
    log = r.stderr.decode()
    assert r.returncode == 0, log[-3000:]
    keys = [m.key for m in read_topic(kafka, out)]
    assert sorted(keys) == sorted(k for k, _ in msgs), log[-3000:]  # each once: no redelivery
    assert "batch over 1 s" in log and _committed(kafka, group, src) == len(msgs)
    recs = {m.key: json.loads(m.value) for m in read_topic(kafka, out)}
    assert recs[b"http://over.test/"]["reason"].startswith("over budget: time")
    assert all(recs[k]["text"] == DEEP_TEXT for k, _ in slow)
