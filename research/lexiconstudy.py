"""The multilingual boilerplate-heading lexicon (research/boiler_headings.tsv) against the English
list alone, as the shipped content model would be fitted with each.

    python -m research.lexiconstudy english|multilingual OUTDIR [--data ../shared/data]
    python -m research.lexiconstudy english|multilingual OUTDIR --cv
    python -m research.lexiconstudy compare ENGLISH_OUTDIR MULTILINGUAL_OUTDIR

``--cv``: instead, ``ce-filter evaluate --cv`` of the same configuration on all six trainable
corpora (5 folds grouped by site; every page scored by a model that never saw its site), each
page's figures written to OUTDIR/pages.tsv for a paired comparison.
``compare``: the two fitted models, each with its own lexicon, page by page on magic-html,
newspaper and zh-content: mean token F1 of each (English and non-English pages apart), and how
many pages changed.

Fits the shipped content configuration on dragnet train, cleaneval-dev and wcxb-dev with the
head_lex regex of the chosen lexicon (its own 5-fold CV grouped by site is printed, per corpus:
``by_corpus``), writes the model to OUTDIR/content.json, then scores it on the trainable corpora
it was not fitted on (magic-html, newspaper, zh-content: many non-English pages), in the same
process so the same regex makes the features.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ce_filter.score.features import dense, headings
from research.lexicon import UNSPACED_SLACK, multilingual_phrases

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
TRAIN = ("dragnet:train", "cleaneval-dev", "wcxb-dev")
HELD = ("magic-html", "newspaper", "zh-content")
SHIPPED = "best+kind+pn.5+w1+shop05+ic30+thin"


def use(which: str) -> None:
    """Replace the head_lex lexicon in this process: ``english`` the list alone,
    ``multilingual`` the list and the sourced phrases (research/lexicon.py's
    multilingual_phrases)."""
    if which == "english":
        dense.use_lexicon(headings.BOILER_WORDS)
    else:
        dense.use_lexicon(*multilingual_phrases(), UNSPACED_SLACK)


def page_f1(model: str, data: Path) -> dict[str, tuple[str, float]]:
    """Each page of HELD: (language, token F1 of ``model`` under the regex in force)."""
    from ce_filter.learn.corpus import Spec
    from ce_filter.learn.evaluate import text_fn, token_prf
    from ce_filter.options import ExtractOptions

    fn = text_fn(ExtractOptions(model).extractor())
    return {f"{c}/{d.id}": (d.lang, token_prf(fn(d.html, d.url or None), d.gold)[2])
            for c in HELD for d in Spec.parse(f"{data}/{c}").load()}


def compare(english: Path, multilingual: Path, data: Path) -> str:
    """The paired table of the two fitted models on HELD (Markdown)."""
    use("english")
    a = page_f1(str(english / "content.json"), data)
    use("multilingual")
    b = page_f1(str(multilingual / "content.json"), data)
    groups: dict[str, list[str]] = {}
    for k, (lang, _) in a.items():
        c = k.split("/", 1)[0]
        side = "English" if lang == "en" else "language unknown" if not lang else "non-English"
        for g in (f"{c}: {side}", f"all: {side}"):
            groups.setdefault(g, []).append(k)
    rows = ["| pages | n | F1 English list | F1 multilingual | difference | pages changed (up) |",
            "|---|---|---|---|---|---|"]
    for g, ks in sorted(groups.items()):
        fa = sum(a[k][1] for k in ks) / len(ks)
        fb = sum(b[k][1] for k in ks) / len(ks)
        changed = sum(abs(a[k][1] - b[k][1]) > 1e-9 for k in ks)
        up = sum(b[k][1] > a[k][1] + 1e-9 for k in ks)
        rows.append(f"| {g} | {len(ks)} | {fa:.4f} | {fb:.4f} | {fb - fa:+.4f} | {changed} ({up}) |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["compare"]:
        cp = argparse.ArgumentParser(prog="python -m research.lexiconstudy compare")
        cp.add_argument("english", type=Path)
        cp.add_argument("multilingual", type=Path)
        cp.add_argument("--data", type=Path, default=DATA)
        c = cp.parse_args(argv[1:])
        print(compare(c.english, c.multilingual, c.data))
        return 0
    ap = argparse.ArgumentParser(prog="python -m research.lexiconstudy", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("which", choices=("english", "multilingual"))
    ap.add_argument("out", type=Path)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--cv", action="store_true", help="evaluate --cv on the trainable corpora")
    a = ap.parse_args(argv)
    from ce_filter import cli

    use(a.which)
    a.out.mkdir(parents=True, exist_ok=True)
    if a.cv:
        return cli.main(["evaluate", "--cv", *(f"{a.data}/{c}" for c in TRAIN + HELD),
                         "--config", SHIPPED, "--pages", str(a.out / "pages.tsv")])
    model = str(a.out / "content.json")
    rc = cli.main(["train", *(f"{a.data}/{c}" for c in TRAIN), "--target", "content",
                   "--config", SHIPPED, "--out", model])
    if rc:
        return rc
    for extra in ([], ["--precise"]):
        rc = cli.main(["evaluate", *(f"{a.data}/{c}" for c in HELD), "--model", model, *extra])
    return rc


if __name__ == "__main__":
    sys.exit(main())
