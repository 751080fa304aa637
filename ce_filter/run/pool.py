"""The one page runner: pages run in child processes under a per-page budget.

Every stage that filters many pages runs them here (``extract --workers``, ``warc``'s two
passes, the Kafka worker, the crawler and the Spark job through ``bounded.BoundedExtractor``, a
pool of one). A ``Pool`` of N children (spawn context: the parent may run threads) hands out tasks and
delivers results, in input order or as they come:

- a child is built by a picklable ``setup()`` that returns its ``Handler``; the child ignores
  SIGINT (the parent decides when to stop), warms the handler up, caps its memory
  (``budget.limit_memory``), says it is ready, and runs each unit under ``budget.page_timer``
  (CPU time: past it the kernel ends the child); a unit that ran into the memory cap is the
  child's last;
- a task is one unit (a page) or several (a byte range of a WARC file whose pages the child
  reads itself): a child announces each unit of a multi-unit task before running it, so that a
  death is attributed to that unit;
- a child that dies is replaced; its unit gets a ``Result`` with ``failed`` set to the reason
  (``budget.died_reason``; a child stuck past ``wall_limit`` of wall-clock time is killed), or,
  with ``retry``, is run once more when the child was killed from outside; a multi-unit task is
  then started again past the units already delivered;
- a run with a ``key`` gives each task the child of its slot (``key(task) % N``), so that
  tasks that share state kept in a child (a site memory: one host's pages) meet it in order;
- a stop flag (anything truthy once set, as a signal handler's) ends a run at the next chance.
"""

from __future__ import annotations

import collections
import multiprocessing as mp
import queue
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any

from .budget import (
    OVER_TIME,
    Budget,
    died_reason,
    limit_memory,
    page_timer,
)

START_S = 300.0  # how long a child may take to get ready
KEY_BACKLOG = 8  # a run with a key: tasks read ahead of the children, per child


def wall_limit(budget: Budget) -> float | None:
    """The wall-clock time a unit may take before its child is killed as stuck (a child that
    waits without using CPU time): three times the CPU budget, and at least 30 s more than it."""
    if budget.seconds <= 0:
        return None
    return max(3 * budget.seconds, budget.seconds + 30)


class Handler:
    """What a child runs, made in the child by the pool's ``setup``. Single-unit tasks need
    ``run`` only; a multi-unit handler (``multi = True``) yields its units from ``units``."""

    multi = False
    info: Any = None  # Any: the handler's own, sent to the parent once ready (``Pool.info``)
    memory_cap = 0  # the child's address-space cap, once set

    def warm_up(self) -> None:
        """Run once before the memory cap, so that lazy imports and caches count in its base."""

    def units(self, task: Any) -> Iterator[tuple[object, Any]]:  # Any: the handler's tasks, its units
        """(what the parent is told before the unit, what ``run`` is given) for each unit."""
        yield None, task

    def run(self, work: Any) -> Any:  # Any: each handler runs and answers units of its own
        raise NotImplementedError

    def last(self, result: Any) -> bool:  # Any: the handler's own result
        """Whether this child must end after ``result`` (it ran out of memory)."""
        return False

    def note(self) -> object:
        """Sent with each unit of a multi-unit task (its progress so far)."""
        return None

    def finish(self, task: Any) -> object:  # Any: the handler's own task
        """Sent with the end of a multi-unit task."""
        return None


def child_main(conn: Connection, setup: Callable[[], Handler], budget: Budget) -> None:
    """A child: (index, task, units to skip) in; ('unit', index, result, note, last),
    ('begin', index, meta) and ('done', index, value) out; None ends."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    h = setup()
    h.warm_up()
    h.memory_cap = limit_memory(budget)
    try:
        serve(conn, h, budget)
    except (BrokenPipeError, ConnectionResetError):  # the parent is gone (stopped, killed)
        return


def serve(conn: Connection, h: Handler, budget: Budget) -> None:
    """A ready child's loop: its tasks in, their results out, until the parent says None."""
    conn.send(("ready", h.info, h.multi))
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        index, task, skip = msg
        for k, (meta, work) in enumerate(h.units(task)):
            if k < skip:  # delivered before, by a child that died
                continue
            if h.multi:
                conn.send(("begin", index, meta))
            with page_timer(budget):
                out = h.run(work)
            last = h.last(out)
            conn.send(("unit", index, out, h.note() if h.multi else None, last))
            if last:
                return
        if h.multi:
            conn.send(("done", index, h.finish(task)))


@dataclass
class Result:
    """One unit's result (``value``), or why it has none (``failed``), or a task's end."""

    index: int  # the task's position in the run's input
    task: Any  # Any: the caller's task, as it gave it
    value: Any = None  # Any: the handler's result, as it made it
    failed: str = ""  # the unit's child died: the reason (its unit has no value)
    meta: Any = None  # Any: the unit as its handler announced it (multi-unit tasks)
    note: Any = None  # Any: the handler's note after the unit (multi-unit tasks)
    end: bool = False  # a multi-unit task's end; ``value`` is its ``finish``


class Sender:
    """Writes one child's messages, in order, from a thread of its own. The run's loop never
    writes to a pipe itself: a child blocked writing a result (a long page's) must find its
    parent reading, never blocked on a full pipe to it, and the loop must get back to the
    wall-clock limit whatever the pipes hold. A child that is gone ends the sending (its death
    is seen on the reading side)."""

    def __init__(self, conn: Connection, name: str) -> None:
        self.conn = conn
        self.q: queue.SimpleQueue[tuple[bool, object]] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._loop, name=f"{name}-send", daemon=True)
        self.thread.start()

    def send(self, msg: object) -> None:
        self.q.put((True, msg))

    def _loop(self) -> None:
        gone = False
        while True:
            more, msg = self.q.get()
            if not more:
                return
            if gone:
                continue
            try:
                self.conn.send(msg)
            except (OSError, ValueError):  # the child died (or its pipe was closed)
                gone = True

    def stop(self, timeout: float) -> bool:
        """End the thread once what was queued is written (or the child is gone); whether it
        ended within ``timeout`` seconds."""
        self.q.put((False, None))
        self.thread.join(timeout)
        return not self.thread.is_alive()


@dataclass
class _Child:
    proc: BaseProcess
    conn: Connection
    sender: Sender
    ready: bool = False
    work: collections.deque = field(default_factory=collections.deque)  # [index, task, delivered]
    meta: object = None  # the announced unit in hand (multi)
    busy: bool = False  # a unit in hand (wall clock applies)
    since: float = 0.0
    leaving: bool = False  # said its last unit was its last


class Pool:
    """N children of ``setup`` under ``budget``; ``run(tasks)`` yields their ``Result``s.
    ``depth``: tasks in hand per child; ``retry``: a unit whose child was killed from outside
    (not by its budget) runs once more; ``stop``: truthy once the run is to end; ``wall_s``:
    the wall-clock limit (``wall_limit(budget)`` by default). ``info``: the last ready
    child's ``Handler.info``; ``restarts``, ``retried``: counts."""

    def __init__(self, setup: Callable[[], Handler], workers: int = 1, budget: Budget | None = None,
                 *, depth: int = 1, retry: bool = False, stop: object = None,
                 wall_s: float | None = None, wait_ready: bool = False,
                 name: str = "ce-filter-page") -> None:
        self.setup, self.budget = setup, budget or Budget(0, 0)
        self.depth, self.retry, self.stop, self.name = max(depth, 1), retry, stop, name
        self.wall_s = wall_s if wall_s is not None else wall_limit(self.budget)
        self.ctx = mp.get_context("spawn")  # the parent may run threads (Kafka, Twisted)
        self.info: Any = None  # Any: the handler's ready message (Handler.info)
        self.multi = False  # the handler's (its children say so when ready)
        self.restarts = self.retried = 0
        self._retried: set[tuple[int, int]] = set()
        self.children = [self._spawn() for _ in range(max(workers, 1))]
        if wait_ready:
            for c in self.children:
                self._wait_ready(c)

    # ---- children

    def _spawn(self) -> _Child:
        parent, child = self.ctx.Pipe()
        proc = self.ctx.Process(target=child_main, args=(child, self.setup, self.budget),
                                daemon=True, name=self.name)
        proc.start()
        child.close()
        return _Child(proc, parent, Sender(parent, self.name))

    def _wait_ready(self, c: _Child) -> None:
        """Wait for a child's ready message: one that cannot start (a bad model file, ...) is an
        error of the caller's setup."""
        if not c.conn.poll(START_S):
            c.proc.kill()
            raise RuntimeError(f"the filter process did not start within {START_S:g} s")
        if self._recv(c) is None:
            c.proc.join(10)
            raise RuntimeError(f"the filter process failed to start (exit {c.proc.exitcode})")

    def _recv(self, c: _Child) -> tuple[Any, ...] | None:  # Any: the child's message fields
        try:
            msg = c.conn.recv()
        except (EOFError, OSError):
            return None
        if msg[0] == "ready":
            c.ready, self.info, self.multi = True, msg[1], msg[2]
        return msg

    def _replace(self, c: _Child) -> str:
        """Reap a dead child and start another in its place; why it died."""
        c.proc.join(10)
        code = c.proc.exitcode
        if not c.ready:  # it never served a unit: the setup is wrong, not a page
            raise RuntimeError(f"a filter process failed to start (exit {code})")
        reason = died_reason(code, self.budget)
        if code == -signal.SIGKILL and self.wall_s and c.busy \
                and time.monotonic() - c.since > self.wall_s:
            reason = f"{OVER_TIME} ({self.wall_s:g} s wall clock)"
        if c.sender.stop(10):  # (a write still under way keeps the descriptor open)
            c.conn.close()
        self.children[self.children.index(c)] = self._spawn()
        self.restarts += 1
        return reason

    def close(self) -> None:
        """End the children: asked to, then killed after 5 s (at once after a stop)."""
        for c in self.children:
            c.sender.send(None)
        deadline = time.monotonic() + 5
        for c in self.children:
            c.proc.join(max(deadline - time.monotonic(), 0.1) if not self.stop else 0)
            if c.proc.is_alive():
                c.proc.kill()
                c.proc.join(5)
            if c.sender.stop(5):
                c.conn.close()
        self.children = []

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- a run

    def run(self, tasks: Iterable[object], *, ordered: bool = False, read_ahead: int = 0,
            key: Callable[[Any], int] | None = None  # Any: a key of the caller's tasks
            ) -> Iterator[Result]:
        """The results of ``tasks`` (in input order with ``ordered``: a task's results once every
        earlier task's are out). ``read_ahead``: a thread reads that many tasks ahead (for
        inputs that may be slow, so that the results before them are not held back). ``key``:
        a task runs in child ``key(task) % N`` (its slot; a child that dies is replaced at its
        slot), so that tasks of one key meet the same child state (a site memory) in their input
        order; tasks are then read up to KEY_BACKLOG a child ahead of the children, so that a
        child whose slot has nothing waiting is not held up by a busy one."""
        feed = _Feed(tasks, read_ahead)
        keyed = key is not None and len(self.children) > 1
        # [index, task, delivered] to hand out: one queue for all children, or one a slot
        todos: list[collections.deque] = [collections.deque()
                                          for _ in (self.children if keyed else [None])]
        backlog = KEY_BACKLOG * len(self.children) if keyed else 1
        held: dict[int, list[Result]] = collections.defaultdict(list)
        ended: set[int] = set()
        head = opened = 0
        try:
            while not self.stop:
                again = True
                while again:  # keyed: once more for the tasks read for a child passed already
                    again = False
                    for i, c in enumerate(self.children):
                        todo = todos[i if keyed else 0]
                        while c.ready and not c.leaving and len(c.work) < self.depth:
                            while not todo and sum(map(len, todos)) < backlog:
                                nxt = feed.next()
                                if nxt is None:
                                    break
                                slot = key(nxt[1]) % len(self.children) if keyed and key else 0
                                todos[slot].append([nxt[0], nxt[1], 0])
                                opened += 1
                            if not todo:
                                break
                            w = todo.popleft()
                            if not c.work:
                                c.since, c.busy = time.monotonic(), True
                            c.work.append(w)
                            c.sender.send((w[0], w[1], w[2]))
                            again = keyed
                if feed.done and not any(todos) and len(ended) + head == opened and not held:
                    return
                for c in self._events(feed):
                    todo = todos[self.children.index(c) if keyed else 0]
                    for r, end in self._handle(c, todo):
                        if end:
                            ended.add(r.index)
                        if not ordered:
                            yield r
                        elif r.index == head:
                            yield r
                        else:
                            held[r.index].append(r)
                while head in ended:  # ordered: the tasks after the first open one wait
                    ended.discard(head)
                    head += 1
                    if ordered:
                        yield from held.pop(head, [])
                if not ordered:
                    held.clear()
        finally:
            feed.close()

    def _events(self, feed: _Feed) -> list[_Child]:
        """Children with something to say (a message, or their end), waiting at most 0.5 s;
        children past the wall-clock limit of their unit are killed first."""
        now = time.monotonic()
        for c in self.children:
            if self.wall_s and c.busy and now - c.since > self.wall_s:
                c.proc.kill()
        ready = wait([c.conn for c in self.children] + feed.waitable(), timeout=0.5)
        feed.drain(ready)
        return [c for c in self.children if c.conn in ready]

    def _handle(self, c: _Child, todo: collections.deque) -> list[tuple[Result, bool]]:
        """A child's message as results, each with whether it ends its task."""
        msg = self._recv(c)
        if msg is None:
            return self._died(c, todo)
        if msg[0] == "begin":
            c.meta, c.since, c.busy = msg[2], time.monotonic(), True
            return []
        if msg[0] == "unit":
            w = c.work[0]
            r = Result(w[0], w[1], msg[2], meta=c.meta, note=msg[3])
            w[2] += 1
            c.meta, c.leaving = None, bool(msg[4])
            if not self.multi:
                c.work.popleft()
            c.since, c.busy = time.monotonic(), bool(c.work)
            return [(r, not self.multi)]
        if msg[0] == "done":
            w = c.work.popleft()
            c.since, c.busy = time.monotonic(), bool(c.work)
            return [(Result(w[0], w[1], msg[2], end=True), True)]
        return []

    def _died(self, c: _Child, todo: collections.deque) -> list[tuple[Result, bool]]:
        """A child died: replaced; the unit it was on failed or (``retry``) run once more, the
        rest of its work handed out again (a multi-unit task past the units delivered)."""
        reason = self._replace(c)
        out: list[tuple[Result, bool]] = []
        in_unit = c.work and not c.leaving and (c.meta is not None or not self.multi)
        if in_unit:
            w = c.work[0]
            code = c.proc.exitcode
            killed = code is not None and code < 0 and not reason.startswith(OVER_TIME)
            if self.retry and killed and (w[0], w[2]) not in self._retried:
                self._retried.add((w[0], w[2]))
                self.retried += 1
            else:
                out.append((Result(w[0], w[1], failed=reason, meta=c.meta), not self.multi))
                if self.multi:
                    w[2] += 1
                else:
                    c.work.popleft()
        todo.extendleft(reversed(c.work))
        return out


class _Feed:
    """The run's tasks, numbered; read here, or by a thread ``ahead`` tasks ahead."""

    def __init__(self, tasks: Iterable[object], ahead: int) -> None:
        self.source = enumerate(tasks)
        self.done = False
        self.thread: threading.Thread | None = None
        self.halt = False
        if ahead > 0:
            self.q: queue.Queue[tuple[str, Any]] = queue.Queue(maxsize=ahead)  # Any: a task or an error
            self.r, self.w = mp.Pipe(duplex=False)
            self.thread = threading.Thread(target=self._read, name="runner-feed", daemon=True)
            self.thread.start()

    def _read(self) -> None:
        try:
            for item in self.source:
                while not self.halt:
                    try:
                        self.q.put(("ok", item), timeout=0.2)
                        break
                    except queue.Full:
                        continue
                if self.halt:
                    return
                self.w.send_bytes(b".")
        except BaseException as e:  # noqa: BLE001 - raised again in the run
            self.q.put(("error", e))
        self.q.put(("end", None))
        try:
            self.w.send_bytes(b".")
        except OSError:
            pass

    def next(self) -> tuple[int, object] | None:
        if self.done:
            return None
        if self.thread is None:
            item = next(self.source, None)
            self.done = item is None
            return item
        try:
            kind, item = self.q.get_nowait()
        except queue.Empty:
            return None
        if kind == "error":
            raise item
        if kind == "end":
            self.done = True
            return None
        return item

    def waitable(self) -> list[Connection]:
        return [self.r] if self.thread is not None and not self.done else []

    def drain(self, ready: Sequence[object]) -> None:
        if self.thread is not None and self.r in ready:
            while self.r.poll():
                self.r.recv_bytes()

    def close(self) -> None:
        self.halt = True
