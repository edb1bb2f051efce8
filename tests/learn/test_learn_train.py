"""`duyun learn train` on tiny data: seeded, exported, reported (issue 35 item 2).

A few hundred positions and one pass with tiny layers: this checks the pipeline, not the
models' quality (docs/research/learned-models.md has the real run)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sklearn")

from duyun.learn.dataset import GenerateConfig, generate
from duyun.learn.models import load_models
from duyun.learn.train import TrainConfig, train_models


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("data")
    config = GenerateConfig(
        hands=12,
        seed=8,
        lineups=(("efficient", "efficient", "efficient", "random"),),
        hands_per_shard=3,
    )
    list(generate(config, out, workers=1))
    return out


def test_training_is_seeded_and_exports_numpy_models(data: Path, tmp_path: Path) -> None:
    config = TrainConfig(
        seed=3,
        epochs=1,
        holdout_shards=1,
        opponent_hidden=(16,),
        value_hidden=(8,),
        chunk_positions=100,
        batch_size=64,
    )
    lines: list[str] = []
    report = train_models(data, tmp_path / "a", config, lines.append)
    train_models(data, tmp_path / "b", config, lambda _: None)
    for name in ("opponent.npz", "value.npz"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    opponent, _ = load_models(tmp_path / "a")
    assert opponent.mlp.meta["train_config"]["seed"] == 3
    assert "--seed 3" in opponent.mlp.meta["command"]
    hold = report["holdout"]
    for head in ("ready", "waits", "deal_in", "concealed"):
        assert np.isfinite(hold[head]["model"]["log_loss"])
    assert hold["concealed"]["uniform"]["count"] == hold["concealed"]["model"]["count"]
    assert "value" in hold and any("epoch 1/1" in line for line in lines)


def test_the_linear_value_model_trains_alone(data: Path, tmp_path: Path) -> None:
    """The default value model is linear (ridge); ``only`` keeps the other model in OUT."""
    small = TrainConfig(seed=3, epochs=1, holdout_shards=1, opponent_hidden=(8,), batch_size=64)
    train_models(data, tmp_path, small, lambda _: None)
    before = (tmp_path / "opponent.npz").read_bytes()
    report = train_models(data, tmp_path, replace(small, only="value"), lambda _: None)
    assert (tmp_path / "opponent.npz").read_bytes() == before
    assert "--only value" in report["provenance"]["command"]
    _, value = load_models(tmp_path)
    assert len(value.mlp.weights) == 1  # one layer: linear
    assert np.isfinite(report["holdout"]["value"]["model"]["rmse"])
