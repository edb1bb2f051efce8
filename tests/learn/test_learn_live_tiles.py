"""benchmarks/live_tiles.py on tiny data: how much a view says about which tiles are live
(issue 35). Checks the measurement, not the figures (docs/research/learned-models.md has
the real run)."""

from __future__ import annotations

import importlib.util
import sys
from math import comb
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

pytest.importorskip("sklearn")

from duyun.learn.dataset import GenerateConfig, generate, load_shards
from duyun.learn.features import field_slice

ROOT = Path(__file__).resolve().parents[2]


def load_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "live_tiles", ROOT / "benchmarks" / "live_tiles.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["live_tiles"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("live")
    config = GenerateConfig(
        hands=8, seed=11, lineups=(("efficient", "efficient", "efficient", "strong"),)
    )
    list(generate(config, out, workers=1))
    return out


def test_uniform_dealing_is_hypergeometric() -> None:
    """The baseline is the sampler's assumption: u unseen copies among t unseen tiles, h of
    them in the hands; impossible counts have no chance."""
    tool = load_tool()
    cases = [(3, 20, 50), (4, 1, 10), (0, 13, 40), (2, 39, 40), (4, 48, 50)]
    unseen, hands, total = (np.array(column) for column in zip(*cases, strict=True))
    probs = np.exp(tool.uniform_log_probs(unseen, hands, total))
    for (u, h, t), row in zip(cases, probs, strict=True):
        expected = [comb(u, c) * comb(t - u, h - c) / comb(t, h) if c <= h else 0 for c in range(5)]
        assert row == pytest.approx(expected, abs=1e-12)
        assert row.sum() == pytest.approx(1)


def test_the_target_is_the_unseen_copies_in_the_other_hands(data: Path) -> None:
    """Every count the tool scores lies between 0 and the copies the seat cannot see, and the
    hands' counts add up to the tiles the opponents hold (the view's hand sizes)."""
    shards = load_shards(data)
    features = shards["features"].astype(np.int64)
    pooled = shards["concealed"].astype(np.int64).sum(axis=1)
    unseen = features[:, field_slice("unseen")]
    assert (pooled <= unseen).all()
    sizes = sum(features[:, field_slice(f"opp{o}_size")][:, 0] for o in (1, 2, 3))
    assert (pooled.sum(axis=1) == sizes).all()


def test_the_report_scores_all_three_estimates_on_held_out_hands(data: Path) -> None:
    tool = load_tool()
    report = tool.measure(data, holdout=0.5, max_iter=3, seed=0)
    assert report["train_rows"] > 0 and report["held_out_rows"] > 0
    for subset, scores in report["log_loss"].items():
        assert set(scores) == {"uniform", "opponent model", "boosted trees"}, subset
        assert report["rows_per_subset"][subset] > 0, subset
        assert all(np.isfinite(value) and value >= 0 for value in scores.values())
    text = tool.format_report(report)
    assert "| every kind |" in text and "boosted trees" in text
