"""Scores of probability estimates against what happened: log loss, Brier score, AUC and a
reliability (calibration) table. NumPy only."""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise
from typing import Any

import numpy as np
import numpy.typing as npt

EPS = 1e-6
# bins of a reliability table: deal-in chances are mostly small, so the low end is finer
RELIABILITY_EDGES = (0.0, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 1.0)


def log_loss(p: npt.NDArray[Any], y: npt.NDArray[Any]) -> float:
    """Mean binary cross-entropy in nats, probabilities clipped to [1e-6, 1 - 1e-6]."""
    q = np.clip(np.asarray(p, dtype=np.float64).ravel(), EPS, 1.0 - EPS)
    t = np.asarray(y, dtype=np.float64).ravel()
    return float(-np.mean(t * np.log(q) + (1.0 - t) * np.log(1.0 - q)))


def brier(p: npt.NDArray[Any], y: npt.NDArray[Any]) -> float:
    q = np.asarray(p, dtype=np.float64).ravel()
    t = np.asarray(y, dtype=np.float64).ravel()
    return float(np.mean((q - t) ** 2))


def auc(p: npt.NDArray[Any], y: npt.NDArray[Any]) -> float:
    """Area under the ROC curve (the chance a random positive ranks above a random
    negative, ties counted half); NaN without both classes."""
    score = np.asarray(p, dtype=np.float64).ravel()
    truth = np.asarray(y).ravel().astype(bool)
    positives = int(truth.sum())
    negatives = truth.size - positives
    if positives == 0 or negatives == 0:
        return float("nan")
    order = np.argsort(score, kind="mergesort")
    ranks = np.empty(score.size, dtype=np.float64)
    sorted_scores = score[order]
    # average ranks over ties
    starts = np.flatnonzero(np.r_[True, sorted_scores[1:] != sorted_scores[:-1]])
    ends = np.r_[starts[1:], score.size]
    average = (starts + ends + 1) / 2.0  # 1-based ranks
    ranks[order] = np.repeat(average, ends - starts)
    return float((ranks[truth].sum() - positives * (positives + 1) / 2.0) / (positives * negatives))


def reliability(
    p: npt.NDArray[Any], y: npt.NDArray[Any], edges: tuple[float, ...] = RELIABILITY_EDGES
) -> list[dict[str, float]]:
    """Per bin of predicted chance: how many predictions, their mean, and the observed rate."""
    q = np.asarray(p, dtype=np.float64).ravel()
    t = np.asarray(y, dtype=np.float64).ravel()
    rows = []
    for low, high in pairwise(edges):
        inside = (q >= low) & ((q < high) if high < 1.0 else (q <= high))
        count = int(inside.sum())
        if count == 0:
            continue
        rows.append(
            {
                "low": low,
                "high": high,
                "count": count,
                "predicted": float(q[inside].mean()),
                "observed": float(t[inside].mean()),
            }
        )
    return rows


def scores(p: npt.NDArray[Any], y: npt.NDArray[Any], table: bool = False) -> dict[str, Any]:
    """Log loss, Brier score, AUC and the base rate of one estimate (and its table)."""
    out: dict[str, Any] = {
        "log_loss": log_loss(p, y),
        "brier": brier(p, y),
        "auc": auc(p, y),
        "mean_predicted": float(np.mean(p)),
        "observed_rate": float(np.mean(y)),
        "count": int(np.asarray(y).size),
    }
    if table:
        out["reliability"] = reliability(p, y)
    return out


def regression_scores(pred: npt.NDArray[Any], truth: npt.NDArray[Any]) -> dict[str, float]:
    """Mean squared error, mean absolute error, R² and correlation of a value estimate."""
    x = np.asarray(pred, dtype=np.float64).ravel()
    t = np.asarray(truth, dtype=np.float64).ravel()
    mse = float(np.mean((x - t) ** 2))
    variance = float(np.var(t))
    corr = float(np.corrcoef(x, t)[0, 1]) if np.std(x) > 0 and np.std(t) > 0 else 0.0
    return {
        "mse": mse,
        "rmse": mse**0.5,
        "mae": float(np.mean(np.abs(x - t))),
        "r2": 1.0 - mse / variance if variance > 0 else float("nan"),
        "corr": corr,
        "count": int(t.size),
    }


def paired_bootstrap(
    metric: Callable[[npt.NDArray[Any], npt.NDArray[Any]], float],
    first: npt.NDArray[Any],
    second: npt.NDArray[Any],
    truth: npt.NDArray[Any],
    groups: npt.NDArray[Any],
    *,
    reps: int,
    seed: int = 0,
) -> dict[str, float]:
    """``metric(first) - metric(second)`` against the same truth, with a 95 % percentile
    interval from ``reps`` resamples of whole groups (hands) with replacement.

    Why groups. The positions of one hand share its deal, its players and its ending: they
    are not independent draws, and an interval over positions would be too narrow. Resampling
    hands keeps each hand's positions together, and both estimates are scored on the same
    resample, so what the two share (the hands' difficulty) cancels in the difference.
    ``first``, ``second``, ``truth`` and ``groups`` are flat and of one length."""
    a = np.asarray(first).ravel()
    b = np.asarray(second).ravel()
    y = np.asarray(truth).ravel()
    g = np.asarray(groups).ravel()
    if not (a.size == b.size == y.size == g.size):
        raise ValueError("estimates, truth and groups must have one length")
    difference = metric(a, y) - metric(b, y)
    order = np.argsort(g, kind="stable")
    _, counts = np.unique(g[order], return_counts=True)
    members = np.split(order, np.cumsum(counts)[:-1])
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(reps):
        picked = rng.integers(0, len(members), size=len(members))
        index = np.concatenate([members[i] for i in picked])
        draws.append(metric(a[index], y[index]) - metric(b[index], y[index]))
    finite = np.array([d for d in draws if np.isfinite(d)], dtype=np.float64)
    low, high = (
        (float(np.quantile(finite, 0.025)), float(np.quantile(finite, 0.975)))
        if finite.size
        else (float("nan"), float("nan"))
    )
    return {"difference": float(difference), "low": low, "high": high, "reps": reps}


def r_squared(pred: npt.NDArray[Any], truth: npt.NDArray[Any]) -> float:
    """R² of a value estimate (``regression_scores``' ``r2``), as a metric to bootstrap: a
    bootstrap calls it thousands of times, so it computes R² alone."""
    x = np.asarray(pred, dtype=np.float64).ravel()
    t = np.asarray(truth, dtype=np.float64).ravel()
    variance = float(np.var(t))
    return 1.0 - float(np.mean((x - t) ** 2)) / variance if variance > 0 else float("nan")
