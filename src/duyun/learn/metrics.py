"""Scores of probability estimates against what happened: log loss, Brier score, AUC and a
reliability (calibration) table. NumPy only."""

from __future__ import annotations

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
