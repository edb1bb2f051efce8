"""Plots of a self-play summary: the points distribution and the cumulative score per player.

matplotlib is imported here only, with the non-interactive Agg backend, so that self-play on
a server never needs a display and the rest of the package never pays for the import.
"""

from __future__ import annotations

from itertools import accumulate
from pathlib import Path

from duyun.sim.stats import Summary


def plot_summary(summary: Summary, path: Path) -> None:
    """Write a two-panel PNG: per-hand points histogram, cumulative points by hand index."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (histogram, cumulative) = plt.subplots(1, 2, figsize=(12, 4.5))
    labels = [stats.label for stats in summary.players]
    series = [[points[player] for points in summary.points_by_hand] for player in range(4)]
    low = min((min(s) for s in series if s), default=-1)
    high = max((max(s) for s in series if s), default=1)
    bins = min(60, max(10, (high - low) // 6 + 1))
    histogram.hist(series, bins=bins, label=labels, log=True)
    histogram.set_title("Points per hand")
    histogram.set_xlabel("points")
    histogram.set_ylabel("hands (log scale)")
    histogram.legend()
    for label, values in zip(labels, series, strict=True):
        cumulative.plot(list(accumulate(values)), label=label, linewidth=1)
    cumulative.axhline(0, color="grey", linewidth=0.5)
    cumulative.set_title("Cumulative points")
    cumulative.set_xlabel("hand")
    cumulative.set_ylabel("points")
    cumulative.legend()
    figure.suptitle(f"Duyun self-play: {summary.hands} hands")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
