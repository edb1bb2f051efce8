"""Scores of probability estimates (issue 35 item 2)."""

from __future__ import annotations

import math

import numpy as np

from duyun.learn import metrics


def test_auc_counts_ranked_pairs_and_ties_half() -> None:
    assert metrics.auc(np.array([0.1, 0.4, 0.35, 0.8]), np.array([0, 0, 1, 1])) == 0.75
    assert metrics.auc(np.array([0.5, 0.5]), np.array([0, 1])) == 0.5
    assert math.isnan(metrics.auc(np.array([0.2, 0.3]), np.array([1, 1])))


def test_log_loss_brier_and_reliability() -> None:
    p = np.array([0.9, 0.1, 0.8, 0.3])
    y = np.array([1, 0, 1, 0])
    expected = -np.mean(np.log([0.9, 0.9, 0.8, 0.7]))
    assert abs(metrics.log_loss(p, y) - expected) < 1e-12
    assert abs(metrics.brier(p, y) - np.mean([0.01, 0.01, 0.04, 0.09])) < 1e-12
    table = metrics.reliability(p, y)
    assert sum(row["count"] for row in table) == 4
    assert [(row["low"], row["count"]) for row in table] == [(0.1, 1), (0.3, 1), (0.7, 1), (0.9, 1)]
    assert table[2]["observed"] == 1.0 and abs(table[2]["predicted"] - 0.8) < 1e-9


def test_regression_scores() -> None:
    truth = np.array([1.0, 2.0, 3.0])
    assert metrics.regression_scores(truth, truth)["r2"] == 1.0
    assert metrics.regression_scores(np.full(3, 2.0), truth)["r2"] == 0.0
