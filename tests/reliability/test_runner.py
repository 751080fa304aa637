"""ce_filter.run.pool: the one page runner (children under a budget, replaced when they die)."""

from __future__ import annotations

import os
import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ce_filter.run.budget import Budget
from ce_filter.run.pool import Handler, Pool, wall_limit

REPO = Path(__file__).resolve().parents[2]


class _Echo(Handler):
    """A unit is an int: sleep that many hundredths of a second, answer it doubled; -1 kills
    the child, -2 is over memory (the child's last unit), -3 spins past the CPU budget."""

    info = ("echo",)

    def run(self, work: Any) -> Any:
        if work == -1:
            os.kill(os.getpid(), signal.SIGKILL)
        if work == -3:
            while True:
                pass
        time.sleep(max(work, 0) / 100)
        return work * 2

    def last(self, result: Any) -> bool:
        return bool(result == -8)


class _Shards(Handler):
    """A task (name, n) has n units, (name, k) each; unit ("bad", 2) kills its child."""

    multi = True

    def units(self, task: Any) -> Iterator[tuple[Any, Any]]:
        name, n = task
        for k in range(n):
            yield (name, k), (name, k)

    def run(self, work: Any) -> Any:
        if work == ("bad", 2):
            os.kill(os.getpid(), signal.SIGKILL)
        return work

    def note(self) -> Any:
        return "note"

    def finish(self, task: Any) -> Any:
        return ("end", task[0])


def _echo() -> Handler:
    return _Echo()


def _shards() -> Handler:
    return _Shards()


def test_ordered_and_unordered_results() -> None:
    with Pool(_echo, 2) as pool:
        tasks = [5, 0, 3, 0, 1, 0, 2]
        got = [(r.index, r.value) for r in pool.run(tasks, ordered=True)]
        assert got == [(i, t * 2) for i, t in enumerate(tasks)]
        assert pool.info == ("echo",)
        got = sorted((r.index, r.value) for r in pool.run(tasks, read_ahead=3))
        assert got == [(i, t * 2) for i, t in enumerate(tasks)]


def test_a_child_killed_mid_page_is_replaced_and_the_page_gets_its_reason() -> None:
    with Pool(_echo, 2, depth=2) as pool:
        got = {r.index: r for r in pool.run([1, 2, -1, 3, 4, 5], ordered=True)}
        assert sorted(got) == list(range(6))
        assert got[2].failed == "filter process died (SIGKILL)" and got[2].value is None
        assert [got[i].value for i in (0, 1, 3, 4, 5)] == [2, 4, 6, 8, 10]
        assert pool.restarts == 1
    with Pool(_echo, 1, retry=True) as pool:  # killed from outside: run once more, then failed
        got = list(pool.run([-1, 1]))
        assert [r.failed for r in got if r.failed] == ["filter process died (SIGKILL)"]
        assert pool.retried == 1 and pool.restarts == 2


def test_over_the_cpu_budget_and_over_memory() -> None:
    with Pool(_echo, 1, Budget(0.2, 0)) as pool:
        got = list(pool.run([-3, 1], ordered=True))
        assert got[0].failed == "over budget: time (0.2 s)" and got[1].value == 2
    with Pool(_echo, 1) as pool:  # a unit that ran out of memory is its child's last
        got = list(pool.run([-4, 1, 2], ordered=True))
        assert [r.value for r in got] == [-8, 2, 4] and pool.restarts == 1
    assert wall_limit(Budget(10, 0)) == 40 and wall_limit(Budget(30, 0)) == 90
    assert wall_limit(Budget(0, 0)) is None


def test_the_wall_clock_limit_kills_a_stuck_child() -> None:
    with Pool(_echo, 1, wall_s=0.5) as pool:
        got = list(pool.run([300, 1], ordered=True))
        assert got[0].failed == "over budget: time (0.5 s wall clock)" and got[1].value == 2


class _Stop:
    def __init__(self) -> None:
        self.set = False

    def __bool__(self) -> bool:
        return self.set


def test_the_stop_flag_ends_a_run_promptly() -> None:
    stop = _Stop()
    pool = Pool(_echo, 2, stop=stop)
    t0 = time.monotonic()
    got = []
    for r in pool.run([0, 6000, 6000, 6000]):
        got.append(r.value)
        stop.set = True
    pool.close()
    assert got == [0] and time.monotonic() - t0 < 20


def test_multi_unit_tasks_resume_past_the_units_delivered() -> None:
    with Pool(_shards, 2, retry=False) as pool:
        got = list(pool.run([("a", 3), ("bad", 5), ("c", 2)], ordered=True))
    units = [(r.index, r.value, r.failed) for r in got if not r.end]
    assert units == [(0, ("a", 0), ""), (0, ("a", 1), ""), (0, ("a", 2), ""),
                     (1, ("bad", 0), ""), (1, ("bad", 1), ""),
                     (1, None, "filter process died (SIGKILL)"),
                     (1, ("bad", 3), ""), (1, ("bad", 4), ""),
                     (2, ("c", 0), ""), (2, ("c", 1), "")]
    assert [r.meta for r in got if r.failed] == [("bad", 2)]
    assert [r.value for r in got if r.end] == [("end", "a"), ("end", "bad"), ("end", "c")]
    assert all(r.note == "note" for r in got if not r.end and not r.failed)


def test_only_the_runner_starts_child_processes() -> None:
    """Pages run in children of ce_filter.run.pool only; the service (gunicorn's workers) and the
    benchmark harness (other tools, each in a process) are the exceptions."""
    allowed = {"ce_filter/run/pool.py", "benchmarks/quality.py"}
    pattern = re.compile(r"^\s*(import multiprocessing|from multiprocessing|import concurrent\.futures"
                         r"|from concurrent\.futures.*ProcessPool)|ProcessPoolExecutor\(|os\.fork\(")
    offenders = []
    for top in ("ce_filter", "pipelines", "crawler", "benchmarks", "samples"):
        for path in (REPO / top).rglob("*.py"):
            rel = path.relative_to(REPO).as_posix()
            if rel in allowed or rel.startswith("ce_filter/service/"):
                continue
            for line in path.read_text(encoding="utf-8").splitlines():
                code = line.split("#", 1)[0]
                if pattern.search(code):
                    offenders.append(f"{rel}: {line.strip()}")
    assert not offenders, offenders


def test_a_multi_unit_task_retries_a_killed_unit_once() -> None:
    with Pool(_shards, 1, retry=True) as pool:
        got = list(pool.run([("bad", 4)]))
        assert [(r.value, r.failed) for r in got if not r.end] == [
            (("bad", 0), ""), (("bad", 1), ""), (None, "filter process died (SIGKILL)"),
            (("bad", 3), "")]
        assert got[-1].end and pool.retried == 1 and pool.restarts == 2
