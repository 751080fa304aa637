"""The ``ce-filter`` command. Core subcommands live here; the pipeline and benchmark modules
add theirs through ``register(subparsers)`` so this file does not grow with every stage."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path

from . import __version__

# Modules that add subcommands (each has ``register(subparsers)``).
PLUGINS = ("ce_filter.pipelines.cli", "ce_filter.bench.cli")


def _read_inputs(paths: list[str]) -> list[tuple[str, bytes]]:
    if not paths or paths == ["-"]:
        return [("-", sys.stdin.buffer.read())]
    out = []
    for p in paths:
        path = Path(p)
        files = sorted(path.rglob("*.htm*")) if path.is_dir() else [path]
        out.extend((str(f), f.read_bytes()) for f in files)
    return out


def cmd_extract(a: argparse.Namespace) -> int:
    from .api import Extractor

    ex = Extractor(a.model, comments=a.comments, threshold=a.threshold, precise=a.precise)
    for name, data in _read_inputs(a.inputs):
        r = ex.extract(data, encoding=a.encoding)
        if a.format == "jsonl":
            d = r.to_dict()
            d["source"] = name
            print(json.dumps(d, ensure_ascii=False))
        else:
            if len(a.inputs) > 1 or (a.inputs and Path(a.inputs[0]).is_dir()):
                print(f"==> {name} <==")
            print(r.text if r.text else f"[empty: {r.reason}]", end="\n\n" if r.text else "\n")
    return 0


def cmd_train(a: argparse.Namespace) -> int:
    from .learn.configs import train_command

    return train_command(a)


def cmd_evaluate(a: argparse.Namespace) -> int:
    from .learn.evaluate import evaluate_command

    return evaluate_command(a)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="ce-filter", description="Main-content extraction for crawlers.")
    ap.add_argument("--version", action="version", version=f"ce-filter {__version__}")
    sub = ap.add_subparsers(dest="cmd", required=True)

    def model_opts(p: argparse.ArgumentParser) -> None:
        p.add_argument("--model", help="model JSON (default: the shipped model)")
        p.add_argument("--comments", action="store_true", help="keep user comments (article+comments model)")
        p.add_argument("--threshold", type=float, help="block probability cut (higher = more precise)")
        p.add_argument("--precise", action="store_true", help="precision-leaning preset (for indexers)")

    p = sub.add_parser("extract", help="clean text of HTML files, directories or stdin")
    p.add_argument("inputs", nargs="*", help="files or directories; '-' or nothing for stdin")
    p.add_argument("--format", choices=("text", "jsonl"), default="text")
    p.add_argument("--encoding", help="charset hint (as from an HTTP header)")
    model_opts(p)
    p.set_defaults(fn=cmd_extract)

    p = sub.add_parser("train", help="train a model from corpus dirs (needs scikit-learn)")
    p.add_argument("corpus", nargs="+", help="corpus dir[:split], e.g. ../shared/data/dragnet:train")
    p.add_argument("--out", required=True, help="model JSON to write")
    p.add_argument("--target", choices=("content", "comments"), default="content")
    p.add_argument("--config", default="best",
                   help="training configuration name (see ce_filter.learn.configs.CONFIGS)")
    p.add_argument("--cv-seed", type=int, help="shuffle the sites over the CV folds with this seed "
                   "(another fold assignment, to check a CV gain)")
    p.set_defaults(fn=cmd_train)

    p = sub.add_parser("evaluate", help="token precision/recall/F1 on corpus dirs")
    p.add_argument("corpus", nargs="+", help="corpus dir[:split]")
    model_opts(p)
    p.add_argument("--cv", action="store_true",
                   help="out of fold (folds grouped by site/domain): train --config on the corpora "
                        "minus each fold, score the fold (needs scikit-learn)")
    p.add_argument("--folds", type=int, default=5, help="with --cv: number of folds (default 5)")
    p.add_argument("--config", default="best", help="with --cv: training configuration")
    p.add_argument("--cv-seed", type=int, help="with --cv: shuffle the sites over the folds")
    p.set_defaults(fn=cmd_evaluate)

    for mod in PLUGINS:
        try:
            m = importlib.import_module(mod)
        except ModuleNotFoundError as e:
            if e.name is None or not (mod == e.name or mod.startswith(e.name + ".")):  # its dependency
                raise
            continue
        m.register(sub)
    return ap


def main(argv: list[str] | None = None) -> int:
    a = build_parser().parse_args(argv)
    try:
        return int(a.fn(a) or 0)
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
