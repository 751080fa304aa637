"""The speed-vs-quality picture: every tool's pages/s against its mean F1 on the same pages."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.transforms import Bbox

    from .measure import ChildResult


def speed_quality_png(results: dict[str, ChildResult], path: str | Path, title: str) -> list[str]:
    """Draw the tools that ran (pages/s on a log axis, mean per-page token F1) into the PNG
    ``path``; returns the tools drawn. Needs matplotlib (the bench extra)."""
    import matplotlib

    matplotlib.use("Agg")  # no display: a file only
    import matplotlib.pyplot as plt

    ok = {n: r for n, r in results.items() if r.get("ok") and r.get("pps") and r.get("f1") is not None}
    fig, ax = plt.subplots(figsize=(7.5, 4.8), dpi=120)
    try:
        for name, r in ok.items():
            ours = name.startswith("ce-filter")
            ax.scatter(r["pps"], r["f1"], s=90 if ours else 55, zorder=3,
                       color="#d62728" if ours else "#1f77b4", edgecolor="black", linewidth=0.6)
        ax.set_xscale("log")
        ax.set_xlabel("pages per second, one core (log scale; right is faster)")
        ax.set_ylabel("mean per-page token F1 (up is better)")
        ax.set_title(title, fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        if ok:
            xs = [r["pps"] for r in ok.values()]
            ys = [r["f1"] for r in ok.values()]
            ax.set_xlim(min(xs) / 1.6, max(xs) * 2.2)  # room for the labels on the right
            ax.set_ylim(max(0.0, min(ys) - 0.05), min(1.0, max(ys) + 0.04))
        _labels(fig, ax, ok)
        fig.tight_layout()
        fig.savefig(path)
    finally:
        plt.close(fig)
    return list(ok)


def _labels(fig: Figure, ax: Axes, points: dict[str, ChildResult]) -> None:
    """Each tool's name beside its point; a label that would overlap one already placed is
    moved down (then up) a line at a time, so close tools stay readable."""
    renderer = cast("FigureCanvasAgg", fig.canvas).get_renderer()  # the Agg backend's (speed_quality_png)
    placed: list[Bbox] = []
    for name, r in sorted(points.items(), key=lambda kv: -kv[1]["f1"]):
        ours = name.startswith("ce-filter")
        for dy in (5, -13, -27, 19, 33, -41):
            t = ax.annotate(name, (r["pps"], r["f1"]), xytext=(8, dy), textcoords="offset points",
                            fontsize=10, fontweight="bold" if ours else "normal")
            box = t.get_window_extent(renderer).expanded(1.05, 1.15)
            if not any(box.overlaps(b) for b in placed):
                break
            t.remove()
        else:  # no free place: keep the first one
            t = ax.annotate(name, (r["pps"], r["f1"]), xytext=(8, 5), textcoords="offset points",
                            fontsize=10, fontweight="bold" if ours else "normal")
            box = t.get_window_extent(renderer)
        placed.append(box)
