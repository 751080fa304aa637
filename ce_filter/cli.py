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
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, cast

from .extras import MissingExtra, extra_for, require
from .keep.render import FORMATS
from .options import (
    EXIT_USAGE,
    ExtractOptions,
    Parser,
    UsageError,
    add_budget_options,
    add_extraction_options,
    arg_type,
    env_opt,
    fail,
    positive_int,
    positive_number,
    text_codec,
    writable_file,
)
from .version import __version__

if TYPE_CHECKING:
    from ce_filter.crawler.files import InputError

    from .batch import OutputDir
    from .extractor import Extractor
    from .progress import Ticker
    from .read.rawpage import RawPage
    from .run.budget import Budget, PageFilter
    from .run.pool import Handler

    # an input of ``extract``: its page, or why it could not be read
    Item = RawPage | InputError
    # what ``extract`` prints for an input: (the output, why a page has no text), or None for an
    # input that could not be read
    Output = tuple[str, str | None] | None

# Modules that add subcommands (each has ``register(subparsers)``).
PLUGINS = ("ce_filter.pipelines.commands", "ce_filter.bench.command")
DEFAULT_FETCH_TIMEOUT_S = 30.0


def cmd_extract(a: argparse.Namespace) -> int:
    from ce_filter.crawler.files import InputError, count_inputs, iter_inputs

    from .progress import Ticker

    inputs, out_dir = _batch_inputs(a)
    if inputs == ["-"] and sys.stdin.isatty():
        return fail("extract: give HTML files, directories or URLs, or pipe a page into stdin")
    if a.url is not None and (len(inputs) > 1 or Path(inputs[0]).is_dir()):
        return fail("extract: --url is the address of one page: give one file, URL or stdin")
    ex = ExtractOptions.from_args(a).extractor()
    from .run.budget import budget_from_args

    budget = budget_from_args(a)
    mib = ex.max_bytes >> 20
    headers = len(inputs) > 1 or Path(inputs[0]).is_dir()
    total = count_inputs(inputs) if headers else None
    failed = 0
    # one byte more than the filter keeps, so it marks the page as cut
    items = iter_inputs(inputs, limit=ex.max_bytes + 1, timeout=a.timeout)
    render = _Render(a.format, a.encoding, a.links, a.images, a.with_metadata, a.url)
    with Ticker("extract", total, unit="input", enabled=headers and not a.quiet) as ticker, \
            _filter_pool(a.workers, ex, render, budget) as filter_item:
        for item, result in filter_item(items):
            ticker.tick()
            if isinstance(item, InputError):
                failed += 1
                ticker.write(f"ce-filter: error: {item}")
                continue
            name = item.source_name or item.url
            if len(item.body) > ex.max_bytes:
                ticker.write(f"ce-filter: note: {name}: over {mib} MiB; only the first {mib} MiB were "
                             "read (the filter's page limit)")
            out, empty = cast("tuple[str, str | None]", result)  # (a page's: only an unread input has none)
            if empty is not None:  # a note on stderr, never mixed into the text a pipe reads
                ticker.write(f"ce-filter: note: {name}: no text ({empty})"
                             + (", no file written" if out_dir is not None else ""))
                if out_dir is not None or not out:
                    continue
            if out_dir is not None:
                failed += not _write_output(out_dir, item, name, out, ticker)
                continue
            if a.format in _HEADED and headers:
                out = f"==> {name} <==\n{out}"
            ticker.write(out, file=sys.stdout)
    return EXIT_USAGE if failed else 0


def _batch_inputs(a: argparse.Namespace) -> tuple[list[str], OutputDir | None]:
    """``extract``'s inputs (the arguments, then the lines of ``-i FILE``; stdin when none) and
    the ``-o DIR`` writer (None: print to stdout)."""
    from .batch import OutputDir, read_input_file

    inputs = list(a.inputs) + (read_input_file(a.input_file) if a.input_file else [])
    if a.input_file == "-" and "-" in inputs:
        raise UsageError("--input-file - reads the list from stdin, so no input can be '-' too")
    inputs = inputs or ["-"]
    for flag, given in (("--keep-dirs", a.keep_dirs), ("--overwrite", a.overwrite)):
        if given and not a.output_dir:
            raise UsageError(f"{flag} goes with --output-dir DIR")
    out_dir = OutputDir(a.output_dir, a.format, keep_dirs=a.keep_dirs, specs=inputs,
                        overwrite=a.overwrite) if a.output_dir else None
    return inputs, out_dir


def _write_output(out_dir: OutputDir, item: RawPage, name: str, out: str, ticker: Ticker) -> bool:
    """One input's output into its own file under ``-o DIR``. False when the file could not be
    written (said in one line); a note when its name was taken by a file already there."""
    try:
        path, renamed = out_dir.write(item, out)
    except OSError as e:
        ticker.write(f"ce-filter: error: {name}: cannot write its output: {e.strerror or e}")
        return False
    if renamed:
        ticker.write(f"ce-filter: note: {name}: a file had its output's name; written to {path} "
                     "(--overwrite replaces files)")
    return True


def add_batch_options(p: argparse.ArgumentParser) -> None:
    """``extract``'s options for many inputs at once (as trafilatura's -i, -o, --keep-dirs)."""
    g = p.add_argument_group("many inputs")
    g.add_argument("-i", "--input-file", metavar="FILE",
                   help="read inputs from FILE too: one URL or path a line (blank lines and #-lines "
                        "skipped; '-' = the list on stdin)")
    g.add_argument("-o", "--output-dir", metavar="DIR",
                   help="write each input's output to its own file in DIR (made if missing), named from "
                        "the input, the extension by --format (.txt, .md, .html, .jsonl, ...); a page "
                        "without text gets no file, a note on stderr")
    g.add_argument("--keep-dirs", action="store_true",
                   help="with -o: keep the input's folders (below a directory given as input; a URL's "
                        "host and path) instead of one flat folder")
    g.add_argument("--overwrite", action="store_true",
                   help="with -o: replace a file that has an output's name (by default the output gets "
                        "the next free name, NAME-2, ...); links below DIR are never followed")


@contextlib.contextmanager
def _filter_pool(workers: int, ex: Extractor, render: _Render, budget: Budget
                 ) -> Iterator[Callable[[Iterable[Item]], Iterator[tuple[Item, Output]]]]:
    """``filter_item(items) -> (item, output | None)`` in input order: here, or in ``workers``
    processes (each gets the pickled Extractor); either way under the per-page ``budget``
    (ce_filter.run.budget.InProcessBudget: CPU time here, CPU time and memory in a worker). With
    workers, a thread reads the inputs and hands them out while this one prints, so a slow
    input (stdin, a URL) never holds back the output of those before it; at most a few pages
    per worker are in flight, so memory stays bounded however many inputs there are."""
    from .run.budget import InProcessBudget

    if workers <= 1:  # the CPU budget only: this process is not to be capped in memory
        bounded = InProcessBudget(ex, budget)
        yield lambda items: ((it, render(bounded, it)) for it in items)
        return
    from .run.pool import Pool

    with Pool(_FilterSetup(ex, render, budget), workers, budget, depth=2,
              name="ce-filter-extract") as pool:
        def ordered(items: Iterable[Item]) -> Iterator[tuple[Item, Output]]:
            for r in pool.run(items, ordered=True, read_ahead=4 * workers):
                yield r.task, (render.failed(pool.info, r.task, r.failed) if r.failed else r.value)

        yield ordered


# formats read by people: over several inputs, each output is headed by its input's name (the
# others are one line, one row or one element per page, which say the page's address themselves)
_HEADED = ("text", "markdown", "html")


class _Render:
    """What ``extract`` prints for one input, made where the page is filtered (here or in a pool
    worker, so only the output string crosses the process boundary). ``url``: the page's
    address for an input that has none of its own (a saved file, stdin) or instead of it."""

    def __init__(self, fmt: str, encoding: str | None, links: bool, images: bool,
                 with_metadata: bool = False, url: str | None = None) -> None:
        self.fmt, self.encoding, self.links, self.images = fmt, encoding, links, images
        self.with_metadata, self.url = with_metadata, url

    def __call__(self, ex: PageFilter, item: Item) -> Output:
        """The output and, for a page without text in a format read by people, why it has none
        (the output is then only ``--with-metadata``'s front matter, or nothing)."""
        from ce_filter.read.rawpage import RawPage
        from ce_filter.record import dumps, filter_page

        if not isinstance(item, RawPage):  # an input that could not be read
            return None
        item = self.page(item)
        if self.fmt == "jsonl":  # the pipeline's own record, one JSON document a line
            return dumps(filter_page(ex, item, encoding=self.encoding)).decode("utf-8"), None
        r = ex.extract(item.body, item.url or None, encoding=self.encoding or item.encoding)
        if not r.text and self.fmt in _HEADED:
            meta = self.with_metadata and self.fmt != "html"
            head = r.render("text", with_metadata=True).rstrip("\n") + "\n" if meta else ""
            return head, r.reason or "no text"
        out = r.render(self.fmt, links=self.links, images=self.images, with_metadata=self.with_metadata)
        # a blank line after each page's text (the line's end is the printer's); a json object,
        # a csv row and an xml document are one after the other
        return (out.rstrip("\n") + "\n" if self.fmt in _HEADED else out.rstrip("\r\n")), None

    def page(self, item: RawPage) -> RawPage:
        """The input's page, at ``url`` where one was given for it."""
        import dataclasses

        return item if self.url is None else dataclasses.replace(item, url=self.url)

    def failed(self, info: tuple[str, str, str], item: Item, reason: str) -> Output:
        """The output of an input whose filter process died on it (ce_filter.run.pool)."""
        from ce_filter.api import Extraction
        from ce_filter.read.rawpage import RawPage
        from ce_filter.record import ExtractorRef, dumps, make_record

        if not isinstance(item, RawPage):
            return None
        if self.fmt == "jsonl":
            rec = make_record(self.page(item), Extraction("", "", reason=reason), ExtractorRef(*info))
            return dumps(rec).decode("utf-8"), None
        return "", reason


class _FilterSetup:
    """``extract --workers``' runner children (ce_filter.run.pool): each renders its inputs with
    the pickled Extractor under the per-page budget, in its own memory cap."""

    def __init__(self, ex: Extractor, render: _Render, budget: Budget) -> None:
        self.ex, self.render, self.budget = ex, render, budget

    def __call__(self) -> Handler:
        # what a page's output is made with, imported before the cap (about 40 MB of address
        # space): the cap is the process's size plus the page budget; an import is no page's cost
        from ce_filter.read.rawpage import RawPage  # noqa: F401
        from ce_filter.record import dumps, filter_page  # noqa: F401

        from .run.budget import InProcessBudget, warm_up
        from .run.pool import Handler

        bounded = InProcessBudget(self.ex, self.budget)
        render = self.render

        class _Filter(Handler):
            info = (self.ex.version, self.ex.model.name, self.ex.model.digest)

            def warm_up(self) -> None:
                warm_up(bounded.extractor)

            def run(self, work: Item) -> Output:
                bounded.memory_cap = self.memory_cap
                return render(bounded, work)

        return _Filter()

def cmd_train(a: argparse.Namespace) -> int:
    from .learn.configs import train_command

    return train_command(a)


def cmd_evaluate(a: argparse.Namespace) -> int:
    if getattr(a, "cv", False):
        from .learn.crossval import cv_command

        return cv_command(a)
    from .learn.evaluate import evaluate_command

    return evaluate_command(a)


def page_url(url: str) -> str:
    """An absolute http(s) URL (``extract --url``): what a page's links can resolve against."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"not an absolute http(s) URL: {url!r}")
    return url


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
    env_opt(p, "--format", choices=FORMATS, default="text",
            help="text (a table row per line, code with its line breaks); markdown or html (headings, "
                 "lists, code, tables); json (one object per page, trafilatura's field names), xml "
                 "(trafilatura's <doc>/<main>), csv (trafilatura's tab-separated columns); jsonl (the "
                 "pipeline's record, one per line; its JSON Schema is "
                 "ce_filter/record.schema.json in the package)")
    env_opt(p, "--links", action="store_true",
            help="markdown/html/xml: keep links, made absolute against the page's URL and <base href>")
    env_opt(p, "--images", action="store_true", help="markdown/html/xml: keep images (alt text, source)")
    env_opt(p, "--with-metadata", action="store_true",
            help="text/markdown: put the metadata before the text as YAML front matter")
    p.add_argument("--url", type=arg_type(page_url),
                   help="the page's address, for a saved file or stdin (links, the date in the path and "
                        "the canonical address resolve against it)")
    env_opt(p, "--encoding", type=text_codec, help="charset of the inputs, as an HTTP header would say it")
    env_opt(p, "--timeout", type=positive_number, default=DEFAULT_FETCH_TIMEOUT_S,
            help="seconds allowed to fetch one URL")
    env_opt(p, "--workers", type=positive_int, default=1,
            help="filter processes; outputs stay in input order")
    add_budget_options(p)
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no progress over many inputs (a bar on a terminal, else a line every 15 s)")
    add_batch_options(p)
    add_extraction_options(p)
    p.set_defaults(fn=cmd_extract)

    p = sub.add_parser("train", help="train a model from corpus dirs (needs the train extra)",
                       description="Train a content model from labelled corpora: each corpus dir holds "
                       "html/ID.html pages and gold/ID.txt main text. The gold is aligned to each page's "
                       "blocks to label them, the regression's C and the keep threshold are chosen by "
                       "5-fold cross-validation grouped by site, and the model is written as JSON "
                       "(--out) that --model and CE_FILTER_MODEL load. The same corpora and --config "
                       "give the same file, byte for byte.")
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

    p = sub.add_parser("evaluate", help="token precision/recall/F1 on corpus dirs",
                       description="Score the filter on labelled corpora (html/ID.html pages, gold/ID.txt "
                       "main text): mean per-page token precision, recall and F1 of the kept text against "
                       "the gold, a table per corpus (per page kind, site, language and year where the "
                       "corpus says them).")
    p.add_argument("corpus", nargs="+", type=arg_type(corpus_spec), help="corpus dir[:split]")
    add_extraction_options(p)
    p.add_argument("--cv", action="store_true",
                   help="out of fold (folds grouped by site/domain): train --config on the corpora "
                        "minus each fold, score the fold (needs scikit-learn); with --precise / --recall, a "
                        "table at the default cut and one at each preset's cut of the same fold models")
    p.add_argument("--folds", type=arg_type(positive_int), default=5, help="with --cv: number of folds")
    p.add_argument("--config", default="best", help="with --cv: training configuration")
    p.add_argument("--cv-seed", type=int, help="with --cv: shuffle the sites over the folds")
    p.add_argument("--pages", metavar="TSV", help="with --cv: write every page's out-of-fold "
                   "precision, recall and F1 here (one row per page and cut), for paired comparisons")
    p.set_defaults(fn=cmd_evaluate)

    p = sub.add_parser("explain", help="an HTML view of why each block was kept or dropped",
                       description="Write a self-contained HTML page: the page's blocks in order, kept ones "
                       "highlighted and dropped ones struck through, each with its score and the features "
                       "that pushed it most, and a threshold slider to see what another cut would keep.")
    p.add_argument("page", help="an HTML file, an http(s) URL, or '-' for stdin")
    p.add_argument("-o", "--out", type=arg_type(output_file),
                   help="the HTML file to write, replaced if it exists (a link there is replaced, never "
                        "written through); '-' for stdout (default: NAME.explain.html beside a file given, "
                        "stdout for a URL or stdin)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace a file named NAME.explain.html beside the page (by default the view gets "
                        "the next free name, NAME-2.explain.html, ...); a link there is replaced, never "
                        "written through, as with extract -o DIR")
    env_opt(p, "--encoding", type=text_codec, help="charset of the page, as an HTTP header would say it")
    env_opt(p, "--timeout", type=positive_number, default=DEFAULT_FETCH_TIMEOUT_S,
            help="seconds allowed to fetch a URL")
    add_extraction_options(p)
    p.set_defaults(fn=cmd_explain)

    p = sub.add_parser("serve", help="the filter as an HTTP service (POST /extract, GET / explain form)",
                       description="Serve POST /extract (HTML body, JSON {url, html} or {url}; ?url= for "
                       "the page's address, ?format=markdown|html) -> the record as JSON, GET / (paste a "
                       "page, see the explain view), /healthz, /metrics (Prometheus). Needs the serve "
                       "extra: pip install 'ce-filter[serve]'.")
    from .service.serve import add_arguments as serve_arguments

    serve_arguments(p)
    p.set_defaults(fn=cmd_serve, extras=("serve",))

    for mod in PLUGINS:
        importlib.import_module(mod).register(sub)
    return ap


def cmd_explain(a: argparse.Namespace) -> int:
    import os

    from ce_filter.crawler.files import InputError, iter_inputs

    from .batch import write_file
    from .explain import explain, render_view

    ex = ExtractOptions.from_args(a).extractor()
    items = list(iter_inputs([a.page], limit=ex.max_bytes + 1, timeout=a.timeout))
    if not items or isinstance(items[0], InputError):
        return fail(f"explain: {items[0] if items else 'no page read'}")
    page = items[0]
    beside: Path | None = None  # the view beside the page: NAME.explain.html, or the next free name
    if a.out is None:
        src = Path(a.page)
        if a.page == "-" or "://" in a.page or not src.is_file():
            a.out = "-"  # stdout for a URL or stdin
        else:
            beside = src.with_name(src.name.rsplit(".", 1)[0])
            if not os.access(beside.parent, os.W_OK):
                return fail(f"explain: {beside}.explain.html: permission denied (-o FILE writes elsewhere)")
    if a.overwrite and a.out == "-":
        return fail("explain: --overwrite goes with the view written to a file, not to stdout")
    data = explain(page.body, page.url or None, extractor=ex, encoding=a.encoding or page.encoding)
    view = render_view(data)
    where = "stdout"
    if a.out == "-":  # stdout, as '-' means for the input
        sys.stdout.write(view)
        sys.stdout.flush()
    else:  # as extract -o DIR writes: never through a link; -o FILE replaces the file it names
        first = f"{beside}.explain.html" if beside else str(a.out)
        try:
            if beside:
                path, renamed = write_file(beside, view, ext=".explain.html", overwrite=a.overwrite)
            else:
                path, renamed = write_file(first, view, overwrite=True)
        except OSError as e:
            print(f"ce-filter: error: explain: {first}: cannot write the view: {e.strerror or e}",
                  file=sys.stderr)
            return 1
        if renamed:
            print(f"ce-filter: note: {first}: a file had its name; written to {path} "
                  "(--overwrite replaces it)", file=sys.stderr)
        where = str(path)
    kept = sum(b["kept"] for b in data["blocks"])
    print(f"{where}: {kept} of {len(data['blocks'])} blocks kept", file=sys.stderr)
    return 0


def output_file(value: str) -> str:
    """``-`` (stdout) or a file that can be written."""
    return value if value == "-" else writable_file(value)


def cmd_serve(a: argparse.Namespace) -> int:
    from .service.serve import serve_command

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
