"""The paper's Table 2 rows and our configuration without / with each of its parts.

    python -m research.ablation [--data ../shared/data] [--rows ...] [--out FILE.md]

Every model is trained here from the data (dragnet train; ours adds cleaneval-dev) and
scored with the project's bag-of-words metric on corpora it never saw (the paper's own
protocol, gold and metric: research/table2.py). Prints the table that docs/research/ABLATION.md
shows under "Our configuration without / with each part".
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

from ce_filter.api import Extractor
from ce_filter.learn.configs import CONFIGS, corpus_pages
from ce_filter.learn.corpus import load_corpus
from ce_filter.learn.evaluate import Score, evaluate, text_fn
from ce_filter.learn.fit import train
from ce_filter.read.decode import decode_html
from ce_filter.read.segment import parse, segment

PAPER = {"st+ic+cetr": {"dragnet train": "0.848", "dragnet test": "0.836", "cleaneval-final": "0.907"}}
ROWS = ("baseline", "cetr", "ic", "st", "st+ic", "st+ic+cetr", "best", "best-dom", "best+text",
        "best+ctx", "best+text+ctx", "best-rx", "best-head", "best-stage2", "best-pagerel",
        "best-cdweight", "best-anc", "best-weights", "best-runs", "best-sites")
EVAL = (("dragnet", "test"), ("cleaneval-final", None))
EVAL_ALL = EVAL + (("readability", None), ("cleanportaleval", None))


def all_blocks(html: bytes, url: str | None = None) -> str:
    """The baseline's output: every block's text (the page's visible text, as segmented)."""
    text, _ = decode_html(html)
    return "\n".join(segment(parse(text)).texts)


def _label(corpus: str, split: str | None) -> str:
    return f"{corpus} {split}" if split else corpus


def run(data: Path, rows: tuple[str, ...]) -> list[tuple[str, dict[str, Score], dict]]:
    out = []
    for name in rows:
        t0 = time.time()
        fn: Callable[[bytes, str | None], str]
        if name == "baseline":  # every block is content: the page's visible text
            fn = all_blocks
            cv = {}
        else:
            cfg = CONFIGS[name]
            ours = name.startswith("best")
            specs = [f"{data}/dragnet:train"] + ([f"{data}/cleaneval-dev"] if ours else [])
            pages, desc = corpus_pages(specs, False, rule=cfg.label_rule)
            model = train(pages, cfg, name="content", data_desc=desc)
            fn = text_fn(Extractor(model))
            cv = model.meta["cv"]
        scores = {}
        for corpus, split in EVAL_ALL if name == "baseline" or name.startswith("best") else EVAL:
            docs = load_corpus(data / corpus, split)
            scores[_label(corpus, split)] = evaluate(fn, docs)
        print(f"{name}: " + ", ".join(f"{k} {s.mean_f1:.3f}" for k, s in scores.items())
              + f" ({time.time() - t0:.0f}s)", file=sys.stderr, flush=True)
        out.append((name, scores, cv))
    return out


def render(results: list[tuple[str, dict[str, Score], dict]]) -> str:
    cols = [_label(c, s) for c, s in EVAL_ALL]
    lines = [
        "| features | CV F1 dragnet train* | " + " | ".join(cols) + " | paper (train / test / CleanEval) |",
        "|---|---|" + "---|" * len(cols) + "---|",
    ]
    for name, scores, cv in results:
        best_cv = max((v["page_f1"] for k, v in cv.items() if "page_f1" in v), default=None)
        cells = [f"{scores[c].mean_f1:.3f}" if c in scores else "" for c in cols]
        p = PAPER.get(name)
        paper = f"{p['dragnet train']} / {p['dragnet test']} / {p['cleaneval-final']}" if p else ""
        lines.append(f"| {name} | {best_cv if best_cv is not None else ''} | " + " | ".join(cells)
                     + f" | {paper} |")
    lines.append("")
    lines.append("Precision / recall / empty pages of each row:")
    lines.append("")
    lines.append("| features | corpus | precision | recall | mean F1 | empty |")
    lines.append("|---|---|---|---|---|---|")
    for name, scores, _ in results:
        for c, s in scores.items():
            lines.append(f"| {name} | {c} | {s.precision:.3f} | {s.recall:.3f} | {s.mean_f1:.3f} | "
                         f"{s.empty} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m research.ablation", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    # the corpora beside the checkout: <repo>/../shared/data
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "data"),
                    help="the labelled corpora (default: %(default)s)")
    ap.add_argument("--rows", default=",".join(ROWS), help="comma list of rows (default: all)")
    ap.add_argument("--out", default=None,
                    help="also write the table to this markdown file (default: print it only; "
                         "docs/research/ABLATION.md holds more than this table)")
    a = ap.parse_args(argv)
    results = run(Path(a.data), tuple(a.rows.split(",")))
    table = render(results)
    print(table)
    if a.out:
        Path(a.out).write_text(
            "# Ablation (generated by `python -m research.ablation`)\n\n"
            "Mean per-page bag-of-words token F1 (the project's metric; the paper's positional one "
            "is in research/table2.py). *CV F1 is 5-fold grouped cross-validation on "
            "the training pages with the LCS token counts (a close proxy of the metric).\n\n" + table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
