"""Pages filtered in child processes of the runner: the child's handler (an Extractor, warmed
up, each page under the budget) and ``BoundedExtractor``, the Extractor of the single-process
stages (the Kafka worker, the crawler, the Spark job) whose pages run in a pool of one (or of a
few, each host's pages to one of them)."""

from __future__ import annotations

import threading
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from ..api import Extraction
from ..options import ExtractOptions
from .budget import DEFAULT_BUDGET, OVER_MEMORY, Budget, guarded, warm_up
from .pool import Handler, Pool, wall_limit

if TYPE_CHECKING:
    from ..extractor import Extractor

# a page for the child: (html, url, encoding), or with a time.monotonic() deadline for its turn
PageWork = (tuple[bytes | str, str | None, str | None]
            | tuple[bytes | str, str | None, str | None, float | None])


class ExtractorSetup:
    """A child that runs ``Extractor.extract`` on (html, url, encoding): its Extractor is what
    ``factory()`` makes; the ready message says its version, model name and digest."""

    def __init__(self, factory: Callable[[], Extractor]) -> None:
        self.factory = factory

    def __call__(self) -> Handler:
        return ExtractHandler(self.factory())


class ExtractHandler(Handler):
    """A child's Extractor: warmed up on the warm-up page, its version and model in the ready
    message; a page is (html, url, encoding), its result the Extraction; a page given as
    (html, url, encoding, until) whose turn comes after ``until`` (``time.monotonic()``, the
    same clock in every process of the machine) is not run, its result None. Stages that make
    something else of a page (a record) override ``run`` and ``last``."""

    def __init__(self, ex: Extractor) -> None:
        self.ex = ex
        self.info = (ex.version, ex.model.name, ex.model.digest)

    def warm_up(self) -> None:
        warm_up(self.ex)

    def run(self, work: PageWork) -> object:
        html, url, encoding, *until = work
        if until and until[0] is not None and time.monotonic() > until[0]:
            return None  # its turn came past the caller's deadline: not run (BoundedExtractor.extract_many)
        out = guarded(self.ex, html, url, encoding, self.memory_cap)
        out._page = None  # the parse (for to_markdown/to_html) stays here: records do not need it
        return out

    def last(self, result: object) -> bool:
        return isinstance(result, Extraction) and result.reason == OVER_MEMORY


@dataclass
class ModelRef:
    """A model's name and digest, as a child process reported them (for the records)."""

    name: str
    digest: str


def page_slot(page: PageWork) -> int:
    """The slot of a page (html, url, ...) among a BoundedExtractor's children: a stable hash
    (crc32, the same in every process and run) of the host its site memory files it under, so
    that every page of a host meets the same memory, in its input order; no host: slot 0."""
    from ..score.site.memory import host_of

    return zlib.crc32(host_of(page[1]).encode("utf-8", "surrogatepass"))


class BoundedExtractor:
    """``Extractor.extract`` in a child process under a per-page budget: a pool of one of
    ce_filter.run.pool (or of ``workers``, each page routed to the child of its host,
    ``page_slot``, so that each child's site memory sees its hosts' pages as one child would).

    A page that runs past ``budget.seconds`` of CPU (or ``wall_s`` of wall time, for a child
    stuck without using CPU) has its child killed and replaced; the page gets an empty result
    with reason ``over budget: time (N s)``; one that runs out of memory ``over budget:
    memory``; a child that dies otherwise ``filter process died (SIGNAL)``. ``extract`` never
    raises for a page; ``extract_many`` keeps a few pages in flight for a caller that has its
    own work to do between pages (the Kafka worker). Not thread-safe: one caller at a time (a
    lock serialises calls). The child's Extractor is ``options.extractor()``, or what
    ``factory()`` (picklable) makes."""

    def __init__(self, budget: Budget = DEFAULT_BUDGET, *, wall_s: float | None = None,
                 options: ExtractOptions | None = None, factory: Callable[[], Extractor] | None = None,
                 workers: int = 1) -> None:
        self.budget = budget
        self.workers = max(workers, 1)
        self.wall_s = wall_s if wall_s is not None else (wall_limit(budget) or 30.0)
        # what makes the child's Extractor: picklable (the child is spawned)
        self.factory = factory or (options or ExtractOptions()).extractor
        self._lock = threading.Lock()
        self._pool: Pool | None = None
        self._restarted = 0  # children started again, besides those of the pool in use
        self._start()

    def _start(self) -> Pool:
        old, self._pool = self._pool, None
        pool = self._pool = Pool(ExtractorSetup(self.factory), self.workers, self.budget,
                                 wall_s=self.wall_s, wait_ready=True)
        if old is not None:
            self._restarted += self.workers + old.restarts
        self.version, name, digest = cast(tuple[str, str, str], pool.info)
        self.model: ModelRef | None = ModelRef(name, digest)
        return pool

    def _open(self) -> Pool:
        """The pool, started again if it was closed."""
        return self._pool if self._pool is not None and self._pool.children else self._start()

    @property
    def restarts(self) -> int:
        """Children started in place of one that ended (a page over its budget, ...), summed
        over the children."""
        return self._restarted + (self._pool.restarts if self._pool is not None else 0)

    def extract(self, html: bytes | str, url: str | None = None, *, encoding: str | None = None
                ) -> Extraction:
        with self._lock:
            for r in list(self._open().run([(html, url, encoding)], key=page_slot)):
                if r.failed:
                    return Extraction("", "", reason=r.failed, model=self.version)
                return r.value
            raise RuntimeError("the filter process gave no result")  # (never: a run ends with it)

    def extract_many(self, pages: Iterable[PageWork], in_flight: int = 2
                     ) -> Iterator[Extraction | None]:
        """The Extraction of each of ``pages`` ((html, url, encoding), or (html, url, encoding,
        until)), in their order, with up to ``in_flight`` pages handed to the child at a time:
        while the child filters one page, the next is already in its pipe and the caller works
        on the results before it (reads the next input, sends the last output). ``pages`` is
        read lazily, one page as the child has room for it (with several children, each page to
        its host's child, a few pages ahead of them). A page given with ``until`` (a
        ``time.monotonic()`` deadline) whose turn in the child comes after it is not run: its
        result is None (and so, the clock moving on, is every later page's of that deadline in
        that child; with several children a later page's turn in another child may have come
        before it).
        Each page is under the budget as in ``extract``; a child that dies is replaced, the page
        it was on gets its reason, the pages queued behind it go to the new child in order.
        A run the caller leaves early (an exception, ``close()``) ends the child (pages it held
        are not filtered) and the next call starts another."""
        with self._lock:
            pool, finished = self._open(), False
            pool.depth = max(in_flight, 1)
            try:
                for r in pool.run(pages, ordered=True, key=page_slot):
                    if r.failed:
                        yield Extraction("", "", reason=r.failed, model=self.version)
                    else:
                        yield r.value
                finished = True
            finally:
                pool.depth = 1
                if not finished:  # results still in the child's pipe: not for the next run
                    pool.stop = True  # (close kills at once)
                    pool.close()

    def close(self) -> None:
        with self._lock:
            if self._pool is not None:
                self._pool.close()

    def __enter__(self) -> BoundedExtractor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # a forgotten close must not leave a child behind
        try:
            for c in self._pool.children if self._pool is not None else ():
                c.proc.kill()
        except Exception:  # noqa: BLE001 - interpreter shutdown, a pool never made
            pass
