"""The ``ce-filter`` command. Core subcommands live here; the pipeline and benchmark modules
add theirs through ``register(subparsers)`` so this file does not grow with every stage.

Exit codes: 0 done; 1 done, but something was lost or broken (pipeline commands); 2 an
ordinary mistake, said in one line (a bad option or ``CE_FILTER_*`` value, an input that
cannot be read, a missing extra); 3 the Kafka worker stopped on a delivery failure.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from . import __version__
from .extras import MissingExtra, extra_for, require
from .options import (
    EXIT_USAGE,
    ExtractOptions,
    Parser,
    UsageError,
    add_budget_options,
    add_extraction_options,
    arg_type,
    budget_from_args,
    env_opt,
    fail,
    positive_int,
    positive_number,
    text_codec,
    writable_file,
)

# Modules that add subcommands (each has ``register(subparsers)``).
PLUGINS = ("ce_filter.pipelines.cli", "ce_filter.bench.cli")
DEFAULT_FETCH_TIMEOUT_S = 30.0


def cmd_extract(a: argparse.Namespace) -> int:
    from ce_filter.crawler.files import InputError, count_inputs, iter_inputs

    from .progress import Ticker

    inputs = list(a.inputs) or ["-"]
    if inputs == ["-"] and sys.stdin.isatty():
        return fail("extract: give HTML files, directories or URLs, or pipe a page into stdin")
    ex = ExtractOptions.from_args(a).extractor()
    budget = budget_from_args(a)
    mib = ex.max_bytes >> 20
    headers = len(inputs) > 1 or Path(inputs[0]).is_dir()
    total = count_inputs(inputs) if headers else None
    failed = 0
    # one byte more than the filter keeps, so it marks the page as cut
    items = iter_inputs(inputs, limit=ex.max_bytes + 1, timeout=a.timeout)
    render = _Render(a.format, a.encoding, a.links, a.images)
    with Ticker("extract", total, unit="input", enabled=headers and not a.quiet) as ticker, \
            _filter_pool(a.workers, ex, render, budget) as filter_item:
        for item, out in filter_item(items):
            ticker.tick()
            if isinstance(item, InputError):
                failed += 1
                ticker.write(f"ce-filter: error: {item}")
                continue
            name = item.source_name or item.url
            if len(item.body) > ex.max_bytes:
                ticker.write(f"ce-filter: note: {name}: over {mib} MiB; only the first {mib} MiB were "
                             "read (the filter's page limit)")
            if a.format != "jsonl" and headers:
                out = f"==> {name} <==\n{out}"
            ticker.write(out, file=sys.stdout)
    return EXIT_USAGE if failed else 0


@contextlib.contextmanager
def _filter_pool(workers: int, ex: Any, render: _Render, budget: Any) -> Iterator[Any]:
    """``filter_item(items) -> (item, output | None)`` in input order: here, or in ``workers``
    processes (each gets the pickled Extractor); either way under the per-page ``budget``
    (ce_filter.budget.InProcessBudget: CPU time here, CPU time and memory in a worker). With
    workers, a thread reads the inputs and hands them out while this one prints, so a slow
    input (stdin, a URL) never holds back the output of those before it; at most a few pages
    per worker are in flight, so memory stays bounded however many inputs there are."""
    from .budget import InProcessBudget

    if workers <= 1:  # the CPU budget only: this process is not to be capped in memory
        bounded = InProcessBudget(ex, budget)
        yield lambda items: ((it, render(bounded, it)) for it in items)
        return
    import multiprocessing as mp
    import queue
    import threading

    with mp.get_context("spawn").Pool(workers, initializer=_init_filter,
                                         initargs=(ex, render, budget)) as pool:
        def ordered(items: Iterable[Any]) -> Iterator[tuple[Any, Any]]:
            pending: queue.Queue[Any] = queue.Queue(maxsize=4 * workers)

            def feed() -> None:
                try:
                    for it in items:
                        pending.put((it, pool.apply_async(_filter_in_pool, (it,))))
                except BaseException as e:  # noqa: BLE001 - re-raised in the printing thread
                    pending.put(e)
                pending.put(None)

            threading.Thread(target=feed, name="extract-inputs", daemon=True).start()
            while (entry := pending.get()) is not None:
                if isinstance(entry, BaseException):
                    raise entry
                it, res = entry
                yield it, res.get()

        yield ordered


class _Render:
    """What ``extract`` prints for one input, made where the page is filtered (here or in a pool
    worker, so only the output string crosses the process boundary)."""

    def __init__(self, fmt: str, encoding: str | None, links: bool, images: bool) -> None:
        self.fmt, self.encoding, self.links, self.images = fmt, encoding, links, images

    def __call__(self, ex: Any, item: Any) -> str | None:
        from ce_filter.crawler.page import RawPage
        from ce_filter.pipelines.record import dumps, filter_page

        if not isinstance(item, RawPage):  # an input that could not be read
            return None
        if self.fmt in ("markdown", "html"):
            r = ex.extract(item.body, item.url or None, encoding=self.encoding or item.encoding)
            if not r.text:
                return f"[empty: {r.reason}]"
            out = r.to_markdown(links=self.links, images=self.images) if self.fmt == "markdown" \
                else r.to_html(links=self.links, images=self.images)
            return out.rstrip("\n") + "\n"
        rec = filter_page(ex, item, encoding=self.encoding)
        if self.fmt == "jsonl":  # the pipeline's own record, one JSON document a line
            return dumps(rec).decode("utf-8")
        return rec["text"] + "\n" if rec["text"] else f"[empty: {rec['reason']}]"


_pool_state: tuple[Any, _Render] | None = None


def _init_filter(ex: Any, render: _Render, budget: Any) -> None:
    from .budget import InProcessBudget

    global _pool_state
    # what a page's output is made with, imported before the cap (about 40 MB of address space):
    # the cap is the process's size plus the page budget, and an import is no page's cost
    from ce_filter.crawler.page import RawPage  # noqa: F401
    from ce_filter.pipelines.record import dumps, filter_page  # noqa: F401

    bounded = InProcessBudget(ex, budget)
    bounded.cap_memory()  # a pool process of its own: its memory capped too
    _pool_state = (bounded, render)


def _filter_in_pool(item: Any) -> str | None:
    assert _pool_state is not None
    ex, render = _pool_state
    return render(ex, item)


def cmd_train(a: argparse.Namespace) -> int:
    from .learn.configs import train_command

    return train_command(a)


def cmd_evaluate(a: argparse.Namespace) -> int:
    from .learn.evaluate import evaluate_command

    return evaluate_command(a)


def corpus_spec(spec: str) -> str:
    """``DIR[:SPLIT]`` of a labelled corpus with at least one page (checked before a run)."""
    from .learn.corpus import corpus_ids

    path, _, split = spec.partition(":")
    root = Path(path)
    if not (root / "html").is_dir():
        raise ValueError(f"{path}: not a corpus (no html/ folder)")
    try:
        ids = corpus_ids(root, split or None)
    except (OSError, ValueError) as e:
        raise ValueError(str(e)) from None
    if not ids:
        if split:
            known = sorted({ln.split("\t")[1].strip() for ln in (root / "split.tsv").read_text().splitlines()
                            if ln.count("\t") >= 1})
            raise ValueError(f"{path}: no pages in split {split!r} (its splits: {', '.join(known)})")
        raise ValueError(f"{path}: no pages (no gold/*.txt)")
    return spec


def build_parser() -> argparse.ArgumentParser:
    ap = Parser(prog="ce-filter", description="Main-content extraction for crawlers.")
    ap.add_argument("--version", action="version", version=f"ce-filter {__version__}")
    sub = ap.add_subparsers(dest="cmd", required=True, metavar="COMMAND")

    p = sub.add_parser("extract", help="clean text of HTML files, directories, URLs or stdin",
                       description="Clean main-content text of each input, printed as it is read. "
                       "An input that cannot be read is an error line (exit 2); the others go on.")
    p.add_argument("inputs", nargs="*",
                   help="files, directories (every *.htm* below), http(s) URLs; '-' or nothing for stdin")
    from .render import FORMATS

    env_opt(p, "--format", choices=FORMATS, default="text",
            help="text; one JSON record per page (the pipeline's record, docs/PIPELINE.md); or the kept "
                 "blocks as Markdown or HTML with headings, lists, code and tables (docs/OUTPUT.md)")
    env_opt(p, "--links", action="store_true", help="markdown/html: keep links as [anchor](href)")
    env_opt(p, "--images", action="store_true", help="markdown/html: keep images as ![alt](src)")
    env_opt(p, "--encoding", type=text_codec, help="charset of the inputs, as an HTTP header would say it")
    env_opt(p, "--timeout", type=positive_number, default=DEFAULT_FETCH_TIMEOUT_S,
            help="seconds allowed to fetch one URL")
    env_opt(p, "--workers", type=positive_int, default=1,
            help="filter processes; outputs stay in input order")
    add_budget_options(p)
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no progress over many inputs (a bar on a terminal, else a line every 15 s)")
    add_extraction_options(p)
    p.set_defaults(fn=cmd_extract)

    p = sub.add_parser("train", help="train a model from corpus dirs (needs the train extra)")
    p.add_argument("corpus", nargs="+", type=arg_type(corpus_spec),
                   help="corpus dir[:split], e.g. ../shared/data/dragnet:train")
    p.add_argument("--out", required=True, help="model JSON to write")
    p.add_argument("--target", choices=("content", "comments"), default="content",
                   help="what the model keeps: the article, or the article and its comments")
    p.add_argument("--config", default="best",
                   help="training configuration name (see ce_filter.learn.configs.CONFIGS)")
    p.add_argument("--cv-seed", type=int, help="shuffle the sites over the CV folds with this seed "
                   "(another fold assignment, to check a CV gain)")
    p.set_defaults(fn=cmd_train, extras=("train",))

    p = sub.add_parser("evaluate", help="token precision/recall/F1 on corpus dirs")
    p.add_argument("corpus", nargs="+", type=arg_type(corpus_spec), help="corpus dir[:split]")
    add_extraction_options(p)
    p.add_argument("--cv", action="store_true",
                   help="out of fold (folds grouped by site/domain): train --config on the corpora "
                        "minus each fold, score the fold (needs scikit-learn); with --precise, a table "
                        "at the default cut and one at the precise cut of the same fold models")
    p.add_argument("--folds", type=arg_type(positive_int), default=5, help="with --cv: number of folds")
    p.add_argument("--config", default="best", help="with --cv: training configuration")
    p.add_argument("--cv-seed", type=int, help="with --cv: shuffle the sites over the folds")
    p.add_argument("--pages", metavar="TSV", help="with --cv: write every page's out-of-fold "
                   "precision, recall and F1 here (one row per page and cut), for paired comparisons")
    p.set_defaults(fn=cmd_evaluate)

    p = sub.add_parser("explain", help="an HTML view of why each block was kept or dropped",
                       description="Write a self-contained HTML page: the page's blocks in order, kept ones "
                       "highlighted and dropped ones struck through, each with its score and the features "
                       "that pushed it most, and a threshold slider (docs/OUTPUT.md).")
    p.add_argument("page", help="an HTML file, an http(s) URL, or '-' for stdin")
    p.add_argument("-o", "--out", type=arg_type(writable_file), required=True, help="the HTML file to write")
    env_opt(p, "--encoding", type=text_codec, help="charset of the page, as an HTTP header would say it")
    env_opt(p, "--timeout", type=positive_number, default=DEFAULT_FETCH_TIMEOUT_S,
            help="seconds allowed to fetch a URL")
    add_extraction_options(p)
    p.set_defaults(fn=cmd_explain)

    p = sub.add_parser("serve", help="the filter as an HTTP service (POST /extract, GET / explain form)",
                       description="Serve POST /extract (HTML body, JSON {url, html} or {url}) -> the "
                       "record, GET / (paste a page, see the explain view), /healthz, /metrics "
                       "(docs/SERVE.md).")
    from .serve import add_arguments as serve_arguments

    serve_arguments(p)
    p.set_defaults(fn=cmd_serve, extras=("serve",))

    for mod in PLUGINS:
        importlib.import_module(mod).register(sub)
    return ap


def cmd_explain(a: argparse.Namespace) -> int:
    from ce_filter.crawler.files import InputError, iter_inputs

    from .explain import explain, render_view

    ex = ExtractOptions.from_args(a).extractor()
    items = list(iter_inputs([a.page], limit=ex.max_bytes + 1, timeout=a.timeout))
    if not items or isinstance(items[0], InputError):
        return fail(f"explain: {items[0] if items else 'no page read'}")
    page = items[0]
    data = explain(page.body, page.url or None, extractor=ex, encoding=a.encoding or page.encoding)
    with open(a.out, "w", encoding="utf-8") as f:
        f.write(render_view(data))
    kept = sum(b["kept"] for b in data["blocks"])
    print(f"{a.out}: {kept} of {len(data['blocks'])} blocks kept", file=sys.stderr)
    return 0


def cmd_serve(a: argparse.Namespace) -> int:
    from .serve import serve_command

    return serve_command(a)


def _check_extras(a: argparse.Namespace) -> None:
    for extra in getattr(a, "extras", ()):
        require(extra, f"ce-filter {a.cmd}")


def main(argv: list[str] | None = None) -> int:
    a = build_parser().parse_args(argv)
    try:
        _check_extras(a)
        return int(a.fn(a) or 0)
    except (MissingExtra, UsageError) as e:
        return fail(str(e))
    except ModuleNotFoundError as e:  # an optional part imported deep inside a command
        extra = extra_for(e.name)
        if extra is None:
            raise
        return fail(str(MissingExtra(f"ce-filter {a.cmd} ({e.name})", extra)))
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
