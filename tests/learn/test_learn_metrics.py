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


def test_paired_bootstrap_of_an_estimate_against_itself_is_exactly_zero() -> None:
    rng = np.random.default_rng(1)
    p = rng.random(400)
    y = (rng.random(400) < p).astype(float)
    groups = np.repeat(np.arange(40), 10)
    lead = metrics.paired_bootstrap(metrics.auc, p, p, y, groups, reps=50)
    assert (lead["difference"], lead["low"], lead["high"]) == (0.0, 0.0, 0.0)
    assert lead["reps"] == 50


def test_paired_bootstrap_puts_a_clearly_better_estimate_above_zero() -> None:
    rng = np.random.default_rng(2)
    y = (rng.random(2000) < 0.3).astype(float)
    informed = np.clip(0.6 * y + 0.2 + 0.1 * rng.standard_normal(2000), 0.01, 0.99)
    blind = rng.random(2000)
    groups = np.repeat(np.arange(200), 10)
    lead = metrics.paired_bootstrap(metrics.auc, informed, blind, y, groups, reps=200, seed=5)
    assert 0.0 < lead["low"] <= lead["difference"] <= lead["high"]
    loss = metrics.paired_bootstrap(metrics.log_loss, informed, blind, y, groups, reps=200)
    assert loss["high"] < 0.0  # lower is better: the informed estimate loses less
    # the same seed resamples the same hands
    again = metrics.paired_bootstrap(metrics.auc, informed, blind, y, groups, reps=200, seed=5)
    assert again == lead


def test_paired_bootstrap_resamples_whole_hands_so_correlated_positions_widen_it() -> None:
    """Forty hands of twenty identical positions each are forty observations, not 800: the
    interval over hands is wider than one that treated every position as its own hand."""
    rng = np.random.default_rng(3)
    hand_values = rng.standard_normal(40)
    truth = np.repeat(hand_values, 20)
    first = truth + np.repeat(rng.standard_normal(40), 20)
    second = truth + np.repeat(rng.standard_normal(40), 20)
    by_hand = metrics.paired_bootstrap(
        metrics.r_squared, first, second, truth, np.repeat(np.arange(40), 20), reps=300
    )
    by_position = metrics.paired_bootstrap(
        metrics.r_squared, first, second, truth, np.arange(800), reps=300
    )
    assert by_hand["difference"] == by_position["difference"]
    width = by_hand["high"] - by_hand["low"]
    assert width > 2 * (by_position["high"] - by_position["low"])


def test_paired_bootstrap_refuses_arrays_of_different_lengths() -> None:
    with np.testing.assert_raises_regex(ValueError, "one length"):
        metrics.paired_bootstrap(
            metrics.auc, np.ones(4), np.ones(4), np.ones(3), np.arange(4), reps=1
        )


def test_r_squared_is_regression_scores_r2() -> None:
    """The bootstrap's cheap R² is the same number the report's full scores give."""
    rng = np.random.default_rng(11)
    truth = rng.standard_normal(200)
    guess = truth + 0.5 * rng.standard_normal(200)
    assert metrics.r_squared(guess, truth) == metrics.regression_scores(guess, truth)["r2"]
    assert np.isnan(metrics.r_squared(guess, np.ones(200)))  # no spread: no R²
