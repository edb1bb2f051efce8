"""`duyun learn evaluate`: the models beside the hand-written estimates on held-out self-play,
with the model's lead over each and its interval over resampled hands (issue 35 item 2)."""

from __future__ import annotations

import json

from cli_helpers import assert_clean_error, run

TINY = ["learn", "evaluate", "--hands", "3", "--samples", "2", "--rollouts", "1", "--seed", "7"]


def test_the_report_scores_every_estimate_and_gives_the_models_lead_an_interval() -> None:
    status, stdout, stderr = run([*TINY, "--bootstrap", "40", "--json"])
    assert status == 0, stderr
    report = json.loads(stdout)
    assert report["positions"] > 0 and report["config"]["hands"] == 3
    for head in ("ready", "waits", "deal_in"):
        assert set(report[head]) == {"model", "strong", "uniform", "base_rate"}
    intervals = report["intervals"]
    assert intervals["reps"] == 40
    for head in ("ready", "deal_in", "deal_in_held"):
        for name in ("log_loss", "auc"):
            row = intervals[head][name]
            assert row["reps"] == 40 and row["low"] <= row["high"], (head, name, row)
    # the value's lead is over the rollouts, and a lead is a difference of the report's scores
    value = intervals["value"]["r2"]
    expected = report["value"]["model"]["r2"] - report["value"]["rollouts"]["r2"]
    assert abs(value["difference"] - expected) < 1e-9
    ready = intervals["ready"]["auc"]
    expected = report["ready"]["model"]["auc"] - report["ready"]["strong"]["auc"]
    assert abs(ready["difference"] - expected) < 1e-9


def test_the_text_report_names_the_lead_and_no_intervals_are_asked_with_zero() -> None:
    status, stdout, stderr = run([*TINY, "--bootstrap", "20"])
    assert status == 0, stderr
    assert "the model's lead, 95 % interval over 20 resamples of the hands" in stdout
    assert "ready / auc, model - strong:" in stdout
    status, stdout, stderr = run([*TINY, "--bootstrap", "0", "--json"])
    assert status == 0, stderr
    assert "intervals" not in json.loads(stdout)


def test_a_negative_bootstrap_is_refused_by_name() -> None:
    status, _, stderr = run([*TINY, "--bootstrap", "-1"])
    assert_clean_error(status, stderr, "--bootstrap")
