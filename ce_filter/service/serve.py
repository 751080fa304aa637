"""``ce-filter serve``: the filter as an HTTP service, for crawlers not written in Python.

- ``POST /extract``: an HTML body (any content type but JSON; the charset from Content-Type,
  ``?url=`` for the page's address), or JSON ``{"url": ..., "html": ...}``, or JSON
  ``{"url": ...}`` alone to have the service fetch the page -> the record as JSON (the same
  record every other output path writes). ``?format=markdown|html`` (or ``"format"`` in the
  JSON) adds the structured text as ``content``; ``links``/``images`` as for the CLI;
  ``?threshold=`` is the CLI's ``--threshold``.
- ``GET /``: a form to paste a URL or HTML; ``POST /explain`` (the form, or the same inputs
  as /extract) -> the explain view.
- ``GET /healthz``: ``ok``; ``GET /metrics``: Prometheus text (requests by path and status,
  pages, bytes, time per request), prometheus_client's multiprocess registry summed over the
  workers and the front (ServiceMetrics).

A front process (ce_filter.service.front) reads every request whole, within ``--client-timeout``,
before a worker sees it, so slow clients hold no worker; gunicorn's pre-forked worker
processes behind it, on a private Unix socket, handle one request at a time each (the work is
CPU-bound, so a process per core is the right shape). The model is loaded once in the master
and shared copy-on-write by the workers. Bounds: request bodies over ``max_body`` bytes get 413
without being read whole; a URL is fetched from public addresses only unless
``--allow-private-fetch`` (ce_filter.service.netguard), cut at the filter's own page limit, within its
fetch timeout; each page is filtered under the per-page budget (``--page-budget`` CPU seconds,
``--page-memory`` MiB; ce_filter.run.budget.InProcessBudget): past it the answer is the record with
an empty text and its reason, and a worker that ran out of memory is replaced after answering.
Behind that, a request that runs past ``--request-timeout`` seconds has its worker killed and
replaced by gunicorn (the client gets 502, the service goes on).
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import multiprocessing
import os
import time
import urllib.parse
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TypedDict, cast

from ..api import MAX_BYTES, Extractor
from ..jsontypes import Loaded
from ..keep.render import FORMATS as CLI_FORMATS
from ..run.budget import DEFAULT_BUDGET, OVER_MEMORY, Budget, InProcessBudget
from ..values import probability

if TYPE_CHECKING:
    import logging

    from _typeshed.wsgi import StartResponse, WSGIEnvironment

    from ..read.rawpage import RawPage

MAX_BODY = MAX_BYTES + (1 << 20)  # a page at the filter's size limit, plus its JSON overhead
FETCH_TIMEOUT = 10.0
CLIENT_TIMEOUT = 30.0  # seconds a client has to send its whole request (ce_filter.service.front)
_JSON = "application/json"
# ``format``: the command line's output format names (render.FORMATS). The answer is always the
# record as JSON; json and jsonl are the record alone, every other format adds the page rendered
# in it as ``content`` (what ``ce-filter extract --format`` prints for the page).
_FORMATS = tuple(dict.fromkeys(("json", *CLI_FORMATS)))

RECYCLE = "ce_filter.recycle_worker"  # set in a request's environ: replace its worker after it


class HttpError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


_REASONS = {200: "OK", 400: "Bad Request", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed",
            408: "Request Timeout", 431: "Request Header Fields Too Large", 503: "Service Unavailable",
            411: "Length Required", 413: "Content Too Large", 415: "Unsupported Media Type",
            422: "Unprocessable Content", 500: "Internal Server Error", 502: "Bad Gateway"}


# ---------------------------------------------------------------- metrics of every process

_PATHS = ("/extract", "/explain", "/", "/healthz", "/metrics", "other")
_CLASSES = ("2xx", "4xx", "5xx")
_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


class ServiceMetrics:
    """The service's prometheus_client metrics. With ``directory`` (serve.run's private folder,
    set as PROMETHEUS_MULTIPROC_DIR before the front and the workers fork), in multiprocess
    mode: each process writes its own values there and /metrics, from any worker, is
    ``MultiProcessCollector``'s sum over them all; without, one process's own registry."""

    def __init__(self, directory: str | None = None) -> None:
        from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

        self.directory = directory
        r = None if directory else CollectorRegistry()
        self.registry = r
        self.requests = Counter("ce_filter_http_requests", "HTTP requests by path and status class.",
                                ["path", "code"], registry=r)
        self.pages = Counter("ce_filter_pages", "Pages filtered, by outcome (text, or empty with a reason).",
                             ["outcome"], registry=r)
        self.bytes_in = Counter("ce_filter_bytes_in", "HTML bytes received or fetched.", registry=r)
        self.duration = Histogram("ce_filter_request_duration_seconds",
                                  "Time per /extract or /explain request.", buckets=_BUCKETS, registry=r)
        started = Gauge("ce_filter_process_start_time_seconds", "When the service started (Unix time).",
                        registry=r, multiprocess_mode="max")
        started.set(time.time())
        for path in _PATHS:  # every series from the start, at 0
            for cls in _CLASSES:
                self.requests.labels(path, cls)
        for outcome in ("text", "empty"):
            self.pages.labels(outcome)

    def observe(self, path: str, status: int, seconds: float, bytes_in: int = 0,
                page: bool | None = None) -> None:
        self.requests.labels(path if path in _PATHS else "other",
                             {2: "2xx", 4: "4xx"}.get(status // 100, "5xx")).inc()
        if page is not None:
            self.pages.labels("text" if page else "empty").inc()
        if bytes_in:
            self.bytes_in.inc(bytes_in)
        if path in ("/extract", "/explain"):
            self.duration.observe(seconds)

    def exposition(self) -> bytes:
        """The exposition text (format 0.0.4): in multiprocess mode summed over every process."""
        from prometheus_client import CollectorRegistry, generate_latest
        from prometheus_client.multiprocess import MultiProcessCollector

        if self.registry is not None:
            return generate_latest(self.registry)
        r = CollectorRegistry()
        MultiProcessCollector(r, path=self.directory)
        return generate_latest(r)


def multiprocess(directory: str) -> None:
    """Put this process (before it forks the front and the workers) in prometheus_client's
    multiprocess mode, its values in ``directory``."""
    from prometheus_client import values

    os.environ[MULTIPROC_ENV] = directory
    values.ValueClass = values.get_value_class()  # chosen at import: choose again


def process_dead(pid: int) -> None:
    """A worker's end (gunicorn's child_exit): its live gauges go; its counts stay."""
    from prometheus_client import multiprocess as mp

    mp.mark_process_dead(pid)


# ---------------------------------------------------------------- the application


@dataclass
class Options:
    max_body: int = MAX_BODY
    fetch: bool = True  # may /extract fetch a URL it is given without HTML
    private_fetch: bool = False  # may it fetch loopback, private, link-local addresses (netguard)
    fetch_timeout: float = FETCH_TIMEOUT
    budget: Budget = DEFAULT_BUDGET  # per page filtered by /extract


def _read_body(environ: WSGIEnvironment, limit: int) -> bytes:
    """The request body, at most ``limit`` bytes (413 beyond, without reading it all)."""
    length = environ.get("CONTENT_LENGTH") or ""
    stream = environ["wsgi.input"]
    if length:
        try:
            n = int(length)
        except ValueError as e:
            raise HttpError(400, "bad Content-Length") from e
        if n > limit:
            raise HttpError(413, f"body of {n} bytes is over the limit of {limit}")
        return stream.read(n) if n > 0 else b""
    data = stream.read(limit + 1)  # chunked: read one byte past the limit to know
    if len(data) > limit:
        raise HttpError(413, f"body is over the limit of {limit} bytes")
    return data


def fetch(url: str, timeout: float, private: bool = False) -> RawPage:
    """The page at ``url`` (a RawPage, body cut at the filter's page limit + 1 byte), or 400
    for a URL (or a redirect's) that is not http(s), 403 for one whose host (or a redirect's)
    is not a public address unless ``private``, 502 with why when it cannot be fetched. Every
    hop goes through ce_filter.service.netguard's one opener."""
    from ..crawler.files import InputError
    from ..crawler.files import fetch as fetch_page
    from .netguard import Refused, check_scheme, opener, refusal

    try:
        check_scheme(url)
    except Refused as e:
        raise HttpError(e.status, str(e)) from None
    if not urllib.parse.urlsplit(url).netloc:
        raise HttpError(400, f"not an http(s) URL: {url!r}")
    try:
        return fetch_page(url, limit=MAX_BYTES + 1, timeout=timeout, opener=opener(private))
    except InputError as e:
        refused = refusal(e)
        if refused is not None:
            raise HttpError(refused.status, f"fetching {url}: {refused}") from None
        raise HttpError(502, f"fetching {e}") from None


def _json_object(raw: bytes) -> dict[str, Loaded]:
    """The JSON object of a request body; 400 with the reason for anything else (not JSON,
    nested too deeply for the parser, not an object)."""
    try:
        j = json.loads(raw or b"null")
    except RecursionError:
        raise HttpError(400, "body is not usable JSON: nested too deeply") from None
    except ValueError as e:
        raise HttpError(400, f"body is not JSON: {e}") from None
    if not isinstance(j, dict):
        raise HttpError(400, 'JSON body must be an object: {"url": ..., "html": ...}')
    return j


def _utf8(s: str, field: str) -> bytes:
    """``s`` as UTF-8; 400 for a string holding a lone surrogate (a \\ud800 escape: no text)."""
    try:
        return s.encode("utf-8")
    except UnicodeEncodeError as e:
        raise HttpError(400, f'"{field}" is not text: a lone surrogate at character {e.start}') from None


def _flag(v: object) -> bool:
    return str(v).lower() in ("1", "true", "yes", "on")


class Inputs(TypedDict):
    """What a request asks for: its page and how to answer (``App._inputs``)."""

    url: str
    body: bytes
    content_type: str
    status: int | None
    format: str
    links: bool
    images: bool
    threshold: float | None


class App:
    """The WSGI application (one per process tree; ``extractor`` loaded before the fork)."""

    def __init__(self, extractor: Extractor | None = None, options: Options | None = None) -> None:
        self.opt = options or Options()
        self.ex = extractor or Extractor()
        self.bounded = InProcessBudget(self.ex, self.opt.budget)
        self.metrics = ServiceMetrics(os.environ.get(MULTIPROC_ENV))

    def worker_ready(self) -> None:
        """In each worker process once forked: its memory cap (the budget's), after the modules a
        request is answered with are imported (an import is no page's cost)."""
        from ..explain import explain  # noqa: F401
        from ..read.rawpage import RawPage  # noqa: F401
        from ..record import dumps, make_record  # noqa: F401

        self.bounded.cap_memory()

    # -- inputs
    def _inputs(self, environ: WSGIEnvironment) -> Inputs:
        """url, body (bytes), content_type, status, and output options of a request."""
        query = urllib.parse.parse_qs(environ.get("QUERY_STRING", ""))
        q = {k: v[-1] for k, v in query.items()}
        ctype = environ.get("CONTENT_TYPE", "") or ""
        mt = ctype.split(";", 1)[0].strip().lower()
        if environ["REQUEST_METHOD"] == "GET":
            raw = b""
        else:
            raw = _read_body(environ, self.opt.max_body)
        doc: dict[str, object] = dict(q)
        body: bytes | None = None
        if mt == _JSON:
            j = _json_object(raw)
            doc.update(j)
            html = j.get("html")
            if html is not None and not isinstance(html, str):
                raise HttpError(400, '"html" must be a string')
            body = _utf8(html, "html") if html is not None else None
            ctype = "text/html; charset=utf-8" if html is not None else ""
        elif mt == "application/x-www-form-urlencoded":
            form = {k: v[-1] for k, v in urllib.parse.parse_qs(raw.decode("utf-8", "replace")).items()}
            doc.update(form)
            if form.get("html", "").strip():
                body = form["html"].encode("utf-8")
                ctype = "text/html; charset=utf-8"
        elif mt.startswith("multipart/"):
            raise HttpError(415, "send the HTML as the body, or JSON {url, html}")
        elif raw:
            body = raw
        url = doc.get("url")
        if url is not None and not isinstance(url, str):
            raise HttpError(400, '"url" must be a string')
        if url:
            _utf8(url, "url")
        threshold = None
        if doc.get("threshold") not in (None, ""):
            try:
                threshold = probability(doc["threshold"])  # as the command line's --threshold
            except ValueError as e:
                raise HttpError(400, f"threshold: {e}") from None
        fmt = str(doc.get("format") or "json").lower()
        if fmt not in _FORMATS:
            raise HttpError(400, f"format must be one of {', '.join(_FORMATS)}")
        status = None
        if body is None:
            if not url:
                raise HttpError(400, "no page: send HTML as the body, JSON {url, html}, or JSON {url}")
            if not self.opt.fetch:
                raise HttpError(400, "this service does not fetch URLs (--no-fetch): send the HTML")
            page = fetch(url, self.opt.fetch_timeout, self.opt.private_fetch)
            body, ctype, status, url = page.body, page.content_type, page.status, page.url
        return {"url": url or "", "body": body, "content_type": ctype, "status": status, "format": fmt,
                "links": _flag(doc.get("links", "")), "images": _flag(doc.get("images", "")),
                "threshold": threshold}

    def _extractor(self, threshold: float | None) -> InProcessBudget:
        """The service's Extractor, or a copy cutting at the request's ``threshold`` (the
        model shared, as ``Extractor(threshold=...)`` would cut)."""
        if threshold is None:
            return self.bounded
        ex = copy.copy(self.ex)
        ex.fixed, ex.threshold = True, threshold
        bounded = copy.copy(self.bounded)
        bounded.extractor = ex
        return bounded

    # -- handlers
    def extract(self, environ: WSGIEnvironment) -> tuple[int, str, bytes, bool | None, int]:
        from ..read.rawpage import RawPage, now_iso
        from ..record import dumps, make_record

        inp = self._inputs(environ)
        page = RawPage(url=inp["url"], body=inp["body"], content_type=inp["content_type"],
                       status=inp["status"], fetch_time=now_iso(), source="serve")
        bounded = self._extractor(inp["threshold"])
        r = bounded.extract(page.body, page.url or None, encoding=page.encoding)
        if r.reason == OVER_MEMORY:
            environ[RECYCLE] = True  # not trusted with the next page: gunicorn replaces it
        # json and jsonl are the record itself; another format adds the page rendered in it
        content = (None if inp["format"] in ("json", "jsonl")
                   else r.render(inp["format"], links=inp["links"], images=inp["images"]))
        rec = make_record(page, r, bounded.extractor, content=content)
        return 200, _JSON, dumps(rec), bool(rec["text"]), len(page.body)

    def explain(self, environ: WSGIEnvironment) -> tuple[int, str, bytes, bool | None, int]:
        """The explain view, under the per-page budget as /extract's filtering is (past it: the
        view with no blocks and the reason as its note); the view is bounded (explain.MAX_BLOCKS
        blocks, explain.MAX_TEXT characters of text)."""
        from ..explain import explain, failed, render_view
        from ..read.decode import charset_from_content_type
        from ..run.budget import FILTER_ERROR, OVER_TIME, OverBudget, cpu_deadline, memory_exhausted

        inp = self._inputs(environ)
        enc = charset_from_content_type(inp["content_type"])
        ex = cast(Extractor, self._extractor(inp["threshold"]).extractor)  # (self.ex, or its copy)
        url = inp["url"] or None
        seconds = self.opt.budget.seconds
        try:
            with cpu_deadline(seconds):
                data = explain(inp["body"], url, extractor=ex, encoding=enc)
                view = render_view(data).encode("utf-8")
        except OverBudget:
            data = failed(url, ex, f"{OVER_TIME} ({seconds:g} s)")
        except Exception as e:  # noqa: BLE001 - as budget.guarded: the page's failure is its answer
            if isinstance(e, MemoryError) or memory_exhausted(self.bounded.memory_cap):
                environ[RECYCLE] = True  # not trusted with the next page: gunicorn replaces it
                data = failed(url, ex, OVER_MEMORY)
            else:
                data = failed(url, ex, f"{FILTER_ERROR}: {type(e).__name__}")
        else:
            return (200, "text/html; charset=utf-8", view, bool(any(b["kept"] for b in data["blocks"])),
                    len(inp["body"]))
        return 200, "text/html; charset=utf-8", render_view(data).encode("utf-8"), False, len(inp["body"])

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        t0 = time.perf_counter()
        path = environ.get("PATH_INFO", "") or "/"
        method = environ.get("REQUEST_METHOD", "GET")
        page: bool | None = None
        nbytes = 0
        try:
            if path == "/extract":
                if method != "POST":
                    raise HttpError(405, "POST the page to /extract")
                status, ctype, body, page, nbytes = self.extract(environ)
            elif path == "/explain":
                if method not in ("POST", "GET"):
                    raise HttpError(405, "GET or POST /explain")
                status, ctype, body, page, nbytes = self.explain(environ)
            elif path == "/":
                if method != "GET":
                    raise HttpError(405, "GET /")
                status, ctype, body = 200, "text/html; charset=utf-8", _FORM.encode("utf-8")
            elif path == "/healthz":
                status, ctype, body = 200, "text/plain; charset=utf-8", b"ok\n"
            elif path == "/metrics":
                status, ctype = 200, "text/plain; version=0.0.4; charset=utf-8"
                body = self.metrics.exposition()
            else:
                raise HttpError(404, f"no such path {path!r}; see GET /")
        except HttpError as e:
            status, ctype = e.status, _JSON
            body = json.dumps({"error": str(e), "status": e.status}).encode("utf-8")
        except Exception as e:  # noqa: BLE001 - a bad page must not take the service down
            status, ctype = 500, _JSON
            body = json.dumps({"error": f"internal error: {type(e).__name__}: {e}", "status": 500}).encode()
        self.metrics.observe(path, status, time.perf_counter() - t0, nbytes, page)
        start_response(f"{status} {_REASONS.get(status, '')}",
                       [("Content-Type", ctype), ("Content-Length", str(len(body)))])
        return [body]


_FORM = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>ce-filter</title>
<style>body{font:15px/1.4 system-ui,sans-serif;max-width:900px;margin:24px auto;padding:0 16px}
textarea,input[type=url]{width:100%;box-sizing:border-box;font:13px ui-monospace,monospace}
textarea{height:260px}button{margin-top:8px;font-size:15px}</style></head><body>
<h1>ce-filter</h1>
<p>Paste a page's URL or its HTML to see which blocks the filter keeps and why.</p>
<form method="post" action="/explain">
<label>URL<br><input type="url" name="url" placeholder="https://example.org/article"></label>
<p><label>HTML (optional; when empty the URL is fetched)<br><textarea name="html"></textarea></label></p>
<button type="submit">Explain</button></form>
<p>API: <code>POST /extract</code> with the HTML as the body (or JSON <code>{"url", "html"}</code>,
or <code>{"url"}</code> to fetch) returns the record as JSON;
<code>/healthz</code>, <code>/metrics</code>.</p>
</body></html>
"""


# ---------------------------------------------------------------- running it


class GunicornWorker(Protocol):
    """A gunicorn worker as its hooks get it (gunicorn ships no type information)."""

    pid: int
    alive: bool  # False: the worker leaves after this request (gunicorn starts another)
    log: logging.Logger  # gunicorn's Logger: logging's methods


def run(host: str = "127.0.0.1", port: int = 8080, workers: int = 2, timeout: float = 30.0,
        extractor: Extractor | None = None, options: Options | None = None,
        client_timeout: float = CLIENT_TIMEOUT) -> None:
    """Serve until stopped (SIGTERM / SIGINT stop gracefully): the front (ce_filter.service.front) on
    ``host:port`` (port 0: a free one, said in the "listening on" line), gunicorn's worker
    processes behind it on a private Unix socket."""
    import shutil
    import socket
    import sys
    import tempfile

    from gunicorn.app.base import BaseApplication

    from .front import FrontOptions, run_front

    tmp = tempfile.mkdtemp(prefix="ce-filter-serve-")
    before = os.environ.get(MULTIPROC_ENV)
    os.makedirs(f"{tmp}/metrics")
    multiprocess(f"{tmp}/metrics")  # before the front and the workers fork
    app = App(extractor, options)
    opt = app.opt
    listener = socket.create_server((host, port), backlog=1024,
                                    family=socket.AF_INET6 if ":" in host else socket.AF_INET)
    bound = listener.getsockname()[1]
    address = f"http://{f'[{host}]' if ':' in host else host}:{bound}"
    master = os.getpid()
    upstream = f"{tmp}/workers.sock"
    front_options = FrontOptions(client_timeout=client_timeout, upstream_timeout=timeout + 10,
                                 max_body=opt.max_body)
    # the front is a plain fork (not a multiprocessing.Process): gunicorn's workers, forked
    # from the master later, must not find it among their children when they exit
    sys.stderr.flush()
    front = os.fork()
    if front == 0:
        code = 1
        try:
            run_front(listener, upstream, front_options, app.metrics.observe)
            code = 0
        except BaseException:  # noqa: BLE001 - run_front stopped the master; say why, then go
            import traceback

            traceback.print_exc()
        finally:
            os._exit(code)
    listener.close()  # the front's now; the workers forked later must not hold it

    def say(line: str) -> None:
        print(f"ce-filter serve: {line}", file=sys.stderr, flush=True)

    def when_ready(arbiter: object) -> None:
        say(f"listening on {address} with {workers} worker{'s' if workers != 1 else ''}; "
            "Ctrl-C or SIGTERM stops it")

    def post_worker_init(worker: GunicornWorker) -> None:
        app.worker_ready()
        # its signal handlers are in place from here on: a stop now ends it cleanly
        worker.log.info("worker ready (pid: %s)", worker.pid)

    def post_request(worker: GunicornWorker, req: object, environ: WSGIEnvironment, resp: object) -> None:
        if environ.get(RECYCLE):
            worker.log.warning("worker %s ran out of its page memory: replacing it", worker.pid)
            worker.alive = False

    class _Server(BaseApplication):
        def load_config(self) -> None:
            for k, v in {"bind": f"unix:{upstream}", "workers": workers,
                         "timeout": max(1, math.ceil(timeout)),
                         "graceful_timeout": 10, "worker_class": "sync", "preload_app": True,
                         "limit_request_line": 8190, "limit_request_fields": 100,
                         "accesslog": None, "errorlog": "-", "loglevel": "info",
                         "proc_name": "ce-filter-serve", "control_socket_disable": True,
                         "when_ready": when_ready,
                         "post_worker_init": post_worker_init,
                         "post_request": post_request,
                         "child_exit": lambda server, worker: process_dead(worker.pid)}.items():
                if k in self.cfg.settings:  # control_socket_disable: only gunicorn >= 24 has one
                    self.cfg.set(k, v)

        def load(self) -> App:
            return app

    try:
        _Server().run()
    finally:
        # gunicorn's workers are forked inside run() and leave it by SystemExit(0) through
        # here: the front and the socket's folder are the master's to stop and remove
        if os.getpid() == master:
            _stop_front(front)
            shutil.rmtree(tmp, ignore_errors=True)
            if before is None:
                os.environ.pop(MULTIPROC_ENV, None)
            else:
                os.environ[MULTIPROC_ENV] = before
            say("stopped")


def _stop_front(pid: int, grace: float = 15.0) -> None:
    """SIGTERM the front (it finishes the requests in flight), SIGKILL past ``grace`` s."""
    import signal

    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # gunicorn's handler would reap it first
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    deadline = time.monotonic() + grace
    try:
        while os.waitpid(pid, os.WNOHANG)[0] == 0:
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return
            time.sleep(0.05)
    except ChildProcessError:  # reaped already
        pass


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The serve options (``ce-filter serve`` and ``python -m ce_filter.service.serve``); each also a
    ``CE_FILTER_<OPTION>`` variable."""
    from ..options import add_budget_options, add_extraction_options, env_opt, positive_int, positive_number

    env_opt(p, "--host", default="127.0.0.1", help="address to listen on")
    env_opt(p, "--port", type=int, default=8080, help="port to listen on")
    env_opt(p, "--workers", type=positive_int, default=multiprocessing.cpu_count(),
            help="worker processes (default: one per core)")
    env_opt(p, "--request-timeout", type=positive_number, default=30.0,
            help="seconds a request may take before its worker is replaced")
    env_opt(p, "--max-body", type=positive_int, default=MAX_BODY, help="largest request body in bytes")
    env_opt(p, "--no-fetch", action="store_true",
            help="never fetch a URL given without HTML (the service then reaches nothing itself)")
    env_opt(p, "--fetch-timeout", type=positive_number, default=FETCH_TIMEOUT, help="seconds to fetch a page")
    env_opt(p, "--allow-private-fetch", action="store_true",
            help="let a given URL be fetched from loopback, private and link-local addresses (refused by "
                 "default: a client must not reach what only the service can)")
    env_opt(p, "--client-timeout", type=positive_number, default=CLIENT_TIMEOUT,
            help="seconds a client has to send its whole request (no worker waits for it meanwhile)")
    add_budget_options(p)
    add_extraction_options(p)


def serve_command(a: argparse.Namespace) -> int:
    from ..options import ExtractOptions
    from ..run.budget import budget_from_args

    run(a.host, a.port, a.workers, a.request_timeout, ExtractOptions.from_args(a).extractor(),
        Options(max_body=a.max_body, fetch=not a.no_fetch, fetch_timeout=a.fetch_timeout,
                budget=budget_from_args(a), private_fetch=a.allow_private_fetch),
        client_timeout=a.client_timeout)
    return 0


def main(argv: list[str] | None = None) -> int:
    from ..options import Parser

    p = Parser(prog="python -m ce_filter.service.serve",
               description="The filter as an HTTP service (POST /extract).")
    add_arguments(p)
    return serve_command(p.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
