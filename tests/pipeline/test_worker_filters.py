"""Several filter processes in one worker (``--filters N``): each page goes to the child of its
host (``ce_filter.run.bounded.page_slot``), so a host's pages meet one site memory in their order and
the records are those of one filter process; results still come in input order, and a child
that dies is replaced at its slot (the later pages of its hosts go to the replacement)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from typing import Any

import pytest
from ce_filter.pipelines.kafka_io import ensure_topics, read_topic

from ce_filter.options import ExtractOptions
from ce_filter.run.bounded import BoundedExtractor, page_slot
from ce_filter.run.budget import Budget
from ce_filter.run.pool import Handler, Pool

from .conftest import REPO, cli_env, unique
from .helpers import article, paras
from .test_worker import header, worker_args
from .test_worker_overlap import BUDGET_S, OVER, PROMO, TOPICS, committed, produce


def _page(t: str) -> str:
    """An article whose paragraphs are ``t``'s, with the PROMO every page of a host repeats."""
    p = paras(t)
    return article(f"News about {t}", p[:2] + [PROMO] + p[2:])

# ------------------------------------------------------------------ the runner's slots


class _Pid(Handler):
    """A task is (key, n): answers (its child's pid, n); n = -1 kills the child."""

    def run(self, work: Any) -> Any:
        key, n = work
        if n == -1:
            os.kill(os.getpid(), signal.SIGKILL)
        return os.getpid(), n


def _pid() -> Handler:
    return _Pid()


def _key(task: tuple[int, int]) -> int:
    return task[0]


def test_a_key_keeps_its_tasks_on_one_child_in_order_and_a_dead_child_is_replaced_at_its_slot() -> None:
    keys = [0, 1, 2, 3, 5, 4, 1, 1, 0, 3, 2, 5, 4, 0]
    tasks = [(k, i) for i, k in enumerate(keys)]
    dies = 7  # the task (key 1, slot 1) that kills its child: the later slot-1 tasks go to the new one
    tasks[dies] = (1, -1)
    tasks += [(k, 100 + i) for i, k in enumerate(keys)]
    with Pool(_pid, 2, depth=2) as pool:
        got = list(pool.run(tasks, ordered=True, key=_key))
        assert [r.index for r in got] == list(range(len(tasks)))  # input order
        assert got[dies].failed == "filter process died (SIGKILL)" and got[dies].value is None
        assert pool.restarts == 1
    before: dict[int, set[int]] = {0: set(), 1: set()}  # slot -> the pids that served it
    after: dict[int, set[int]] = {0: set(), 1: set()}
    for r in got:
        if r.index != dies:
            assert r.value[1] == r.task[1]
            (before if r.index < dies else after)[r.task[0] % 2].add(r.value[0])
    # one child a slot; slot 1's child replaced (a new pid), slot 0's the same all along
    assert all(len(s) == 1 for s in (*before.values(), *after.values()))
    assert before[0] == after[0] and before[1] != after[1] and before[0] != before[1]


# ------------------------------------------------------------------ BoundedExtractor

HOSTS = ["alpha.test", "bravo.test", "charlie.test", "delta.test", "echo.test", "foxtrot.test"]


def _slots(n: int = 2) -> dict[str, int]:
    return {h: page_slot((b"", f"http://{h}/")) % n for h in HOSTS}


def _stream(pages_per_host: int) -> list[tuple[str, str]]:
    """(url, html): the hosts' pages interleaved, each host's sharing its navigation and PROMO."""
    return [(f"http://{h}/{t}.html", _page(f"{t} in {h.split('.')[0]}"))
            for t in TOPICS[:pages_per_host] for h in HOSTS]


def test_pages_of_a_host_meet_one_memory_with_two_children_and_a_dead_child_forgets_only_its_slot() -> None:
    slots = _slots()
    assert set(slots.values()) == {0, 1}  # the premise: the hosts use both children
    pages = _stream(4)
    k = 13  # a page that kills its child, among the pages of host slots[...]
    over_host = HOSTS[k % len(HOSTS)]
    items = pages[:k] + [(f"http://{over_host}/over.html", OVER)] + pages[k:]
    with BoundedExtractor(Budget(BUDGET_S, 1024), wall_s=2 * BUDGET_S + 1, workers=2,
                          options=ExtractOptions(site_memory="stream")) as bx:
        got = list(bx.extract_many(((h.encode(), u, None) for u, h in items), in_flight=2))
        assert bx.restarts == 1
    assert len(got) == len(items)
    assert got[k].reason.startswith("over budget: time") and not got[k].text
    # what one Extractor a slot gives, that of the dead child's slot started again after it
    mk = ExtractOptions(site_memory="stream").extractor
    ex = {0: mk(), 1: mk()}
    want = []
    for i, (u, h) in enumerate(items):
        s = slots[u.split("/")[2]]
        if i == k:
            ex[s] = mk()
            continue
        want.append(ex[s].extract(h.encode(), u).text)
    assert [g.text for i, g in enumerate(got) if i != k] == want
    # the premise: the memory matters, per slot. A host's first page keeps the promo, its later
    # ones not; past the dead child, the first page of each host of its slot keeps it again.
    text = {u: w for (u, _), w in zip(items[:k] + items[k + 1:], want)}
    dead = slots[over_host]
    assert all(PROMO in text[f"http://{h}/{TOPICS[0]}.html"] for h in HOSTS)
    assert all(PROMO not in text[f"http://{h}/{TOPICS[1]}.html"] for h in HOSTS)
    for h in HOSTS:
        after = next(u for u, _ in items[k + 1:] if u.split("/")[2] == h)
        assert (PROMO in text[after]) == (slots[h] == dead), after


# ------------------------------------------------------------------ the worker


def _run_worker(kafka, src: str, out: str, dlq: str, group: str, filters: int) -> str:
    args = worker_args(kafka, src, out, group, "--idle-exit", "2", "--dead-letter-topic", dlq,
                       "--max-poll-interval-ms", "10000", "--max-poll-records", "7",
                       "--filters", str(filters))
    r = subprocess.run([sys.executable, "-m", "ce_filter.cli", *args], cwd=REPO, env=cli_env(),
                       capture_output=True, timeout=600)
    log = r.stderr.decode()
    assert r.returncode == 0, log[-3000:]
    return log


def _records(kafka, topic: str) -> dict[int, list[dict[str, Any]]]:
    """The records per input partition, in the order they left, without the timing field."""
    out: dict[int, list[dict[str, Any]]] = {0: [], 1: []}
    for m in read_topic(kafka, topic):
        rec = json.loads(m.value)
        rec.pop("processed_at")
        out[int(rec["source"]["name"].split("/")[-2])].append(rec)
    return out


@pytest.mark.kafka
def test_two_filter_processes_give_the_records_of_one(kafka):
    """Two partitions, each with the interleaved pages of three hosts (a host's pages in one
    partition, as keying by host does) and poison: the worker with --filters 2 gives the records
    of --filters 1, in each partition's order; the poison is dead-lettered; offsets committed."""
    assert set(_slots().values()) == {0, 1}
    src = unique("raw")
    ensure_topics(kafka, [src], partitions=2)
    msgs: list[tuple[int, bytes, bytes]] = []
    poison: dict[bytes, str] = {}
    for i, (url, html) in enumerate(_stream(4)):
        part = HOSTS.index(url.split("/")[2]) % 2
        msgs.append((part, url.encode(), json.dumps({"url": url, "html": html}).encode()))
        if i in (5, 14):
            key = f"http://{HOSTS[part]}/empty-{i}".encode()
            msgs.append((part, key, b""))
            poison[key] = "empty-message"
    key = f"http://{HOSTS[1]}/broken".encode()
    msgs.append((1, key, b'{"url": "x", "html": '))
    poison[key] = "invalid-envelope"
    produce(kafka, src, msgs)
    counts = [sum(1 for p, _, _ in msgs if p == part) for part in (0, 1)]
    runs = {}
    for filters in (1, 2):
        out, dlq, group = unique("clean"), unique("dlq"), unique("group")
        ensure_topics(kafka, [out, dlq])
        log = _run_worker(kafka, src, out, dlq, group, filters)
        runs[filters] = _records(kafka, out)
        dead = {m.key: header(m, "ce-filter-reason") for m in read_topic(kafka, dlq)}
        assert dead == poison, log[-3000:]
        assert committed(kafka, group, src, 2) == counts
    one, two = runs[1], runs[2]
    for part in (0, 1):
        want = [k.decode() for p, k, _ in msgs if p == part and k not in poison]
        assert [x["url"] for x in one[part]] == want  # each once, in input order
        assert two[part] == one[part]  # byte for byte but the timing field, in the same order
    # the premise: the site memory is at work (a host's first page keeps the promo, its last not)
    texts = {x["url"]: x["text"] for part in (0, 1) for x in one[part]}
    for h in HOSTS:
        assert PROMO in texts[f"http://{h}/{TOPICS[0]}.html"]
        assert PROMO not in texts[f"http://{h}/{TOPICS[3]}.html"]
