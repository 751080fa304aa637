"""The Kafka worker keeps a few pages in its filter process's hands while it reads, makes and
sends the records before them (``BoundedExtractor.extract_many``): the outputs stay in input
order, a page that kills the filter process mid-flight loses and repeats nothing (the pages
queued behind it go to the new process, in order), the site memory sees the pages in order,
and the offsets are committed once everything is acknowledged."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
from ce_filter.pipelines.kafka_io import ensure_topics, make_producer, read_topic

from .conftest import REPO, cli_env, unique
from .helpers import article, paras
from .test_worker import header, worker_args

PROMO = ("Sign up for our morning briefing to get the most important stories of the day sent to "
         "your inbox before breakfast, free of charge.")
TOPICS = ["parks", "buses", "schools", "libraries", "bridges", "markets", "harbours", "museums"]
# passes the pre-parse scan and takes the filter about 0.3 s of CPU: past a 0.1 s budget
OVER = ("<html><body>" + "<div>" * 12_000 + "</div>" * 12_000 + "<p>x" * 85_000 + "</body></html>")
BUDGET_S = 0.1


def _page(t: str) -> str:
    p = paras(t)
    return article(f"News about {t}", p[:2] + [PROMO] + p[2:])


def _bounded():
    from ce_filter.options import ExtractOptions
    from ce_filter.run.bounded import BoundedExtractor
    from ce_filter.run.budget import Budget

    return BoundedExtractor(Budget(BUDGET_S, 1024), wall_s=2 * BUDGET_S + 1,
                            options=ExtractOptions(site_memory="stream"))


def _alone(pages: list[tuple[str, str]]) -> list[str]:
    """The texts of ``pages`` filtered in order by one Extractor with a stream site memory."""
    from ce_filter.options import ExtractOptions

    ex = ExtractOptions(site_memory="stream").extractor()
    return [ex.extract(html.encode(), url).text for url, html in pages]


def test_pages_in_flight_come_back_in_order_and_a_dead_child_loses_none():
    pages = [(f"http://city.test/{t}.html", _page(t)) for t in TOPICS]
    over = ("http://city.test/over.html", OVER)
    items = pages[:4] + [over] + pages[4:]
    with _bounded() as bx:
        got = list(bx.extract_many(((h.encode(), u, None) for u, h in items), in_flight=3))
        assert bx.restarts == 1
    assert len(got) == len(items)
    assert got[4].reason.startswith("over budget: time") and not got[4].text
    # the memory saw the pages in order; the process that replaced the killed one starts empty
    want = _alone(pages[:4]) + _alone(pages[4:])
    assert [g.text for i, g in enumerate(got) if i != 4] == want
    assert PROMO in want[0] and PROMO not in want[3] and PROMO in want[4]  # (the premise)


def test_pages_whose_turn_comes_after_their_deadline_are_not_filtered():
    pages = [(f"http://city.test/{t}.html", _page(t)) for t in TOPICS[:4]]
    with _bounded() as bx:
        past = time.monotonic() - 1
        assert list(bx.extract_many((h.encode(), u, None, past) for u, h in pages)) == [None] * 4
        later = time.monotonic() + 600
        assert all(g is not None and g.text for g in bx.extract_many((h.encode(), u, None, later)
                                                                  for u, h in pages))


def test_a_run_left_early_leaves_nothing_for_the_next():
    pages = [(f"http://city.test/{t}.html", _page(t)) for t in TOPICS]
    with _bounded() as bx:
        run = bx.extract_many(((h.encode(), u, None) for u, h in pages), in_flight=3)
        assert next(run).text
        run.close()  # the pages in the child's hands are dropped with it
        again = list(bx.extract_many((h.encode(), u, None) for u, h in pages[4:]))
        assert [g.text for g in again] == _alone(pages[4:])  # a new process: nothing stale
        assert bx.extract(pages[0][1].encode(), pages[0][0]).text


def produce(kafka, topic: str, messages: list[tuple[int, bytes, bytes]]) -> None:
    p = make_producer(kafka, max_request_size=16 << 20)
    for f in [p.send(topic, key=k, value=v, partition=part) for part, k, v in messages]:
        f.get(timeout=60)
    p.close()


def committed(kafka, group: str, topic: str, partitions: int) -> list[int | None]:
    from kafka import KafkaConsumer, TopicPartition

    c = KafkaConsumer(bootstrap_servers=kafka.bootstrap_servers, group_id=group, enable_auto_commit=False)
    try:
        return [c.committed(TopicPartition(topic, i)) for i in range(partitions)]
    finally:
        c.close()


@pytest.mark.kafka
def test_the_worker_keeps_order_dead_letters_and_commits_with_pages_in_flight(kafka):
    """Two partitions, each with good pages, poison and a page that kills the filter process
    mid-flight: every good message has one record, in its partition's order; the poison is
    dead-lettered with why; the killed page has its record with the reason; every offset is
    committed, after the outputs were acknowledged (the worker exits 0)."""
    src, out, group = unique("raw"), unique("clean"), unique("group")
    dlq = f"{src}.dlq"
    ensure_topics(kafka, [src], partitions=2)
    ensure_topics(kafka, [out, dlq])
    msgs: list[tuple[int, bytes, bytes]] = []
    poison: dict[bytes, str] = {}
    for part in (0, 1):
        for i, t in enumerate(TOPICS):
            url = f"http://p{part}.test/{t}.html"
            msgs.append((part, url.encode(), json.dumps({"url": url, "html": _page(t)}).encode()))
            if i == 2:
                key = f"http://p{part}.test/empty".encode()
                msgs.append((part, key, b""))
                poison[key] = "empty-message"
            if i == 4:
                url = f"http://p{part}.test/over.html"
                msgs.append((part, url.encode(), json.dumps({"url": url, "html": OVER}).encode()))
        key = f"http://p{part}.test/broken".encode()
        msgs.append((part, key, b'{"url": "x", "html": '))  # the partition's last message
        poison[key] = "invalid-envelope"
    produce(kafka, src, msgs)
    # a longer poll interval than the other tests' (a slower group join): on a loaded machine a
    # 3 s one can see the group rebalance, and a rebalance may repeat messages (at-least-once)
    args = worker_args(kafka, src, out, group, "--idle-exit", "2", "--page-budget", str(BUDGET_S),
                       "--max-poll-interval-ms", "10000")
    r = subprocess.run([sys.executable, "-m", "ce_filter.cli", *args], cwd=REPO, env=cli_env(),
                       capture_output=True, timeout=600)
    log = r.stderr.decode()
    assert r.returncode == 0, log[-3000:]
    recs = [json.loads(m.value) for m in read_topic(kafka, out)]
    for part in (0, 1):
        mine = [x for x in recs if x["url"].startswith(f"http://p{part}.test/")]
        want = [k.decode() for p, k, _ in msgs if p == part and k not in poison]
        assert [x["url"] for x in mine] == want, log[-3000:]  # each once, in input order
        offsets = [int(x["source"]["name"].rsplit("/", 1)[1]) for x in mine]
        assert offsets == sorted(offsets)
        over = next(x for x in mine if x["url"].endswith("/over.html"))
        assert over["reason"].startswith("over budget: time") and not over["text"]
        # the pages after the killed one (one of them in flight when it died) were filtered
        assert all(x["text"] for x in mine if not x["url"].endswith("/over.html"))
    dead = {m.key: header(m, "ce-filter-reason") for m in read_topic(kafka, dlq)}
    assert dead == poison
    counts = [sum(1 for p, _, _ in msgs if p == part) for part in (0, 1)]
    assert committed(kafka, group, src, 2) == counts
