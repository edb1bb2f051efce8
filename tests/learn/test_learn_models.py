"""The learned models at play time: NumPy only, exported arrays, shipped weights (issue 35)."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest

from duyun.engine import Round, deal_setup
from duyun.learn.dataset import write_npz
from duyun.learn.features import FEATURE_SIZE, OPPONENT_SIZE, OWN_SIZE, encode_view
from duyun.learn.models import (
    OPPONENT_INPUTS,
    OPPONENT_OUTPUTS,
    VALUE_INPUTS,
    Mlp,
    ModelError,
    OpponentModel,
    ValueModel,
    opponent_rows,
)

ROOT = Path(__file__).resolve().parents[2]


def _mlp(inputs: int, outputs: int, output: str, seed: int = 0) -> Mlp:
    rng = np.random.default_rng(seed)
    sizes = (inputs, 8, outputs)
    return Mlp(
        mean=rng.normal(size=inputs).astype(np.float32),
        scale=(1.0 + rng.random(inputs)).astype(np.float32),
        weights=tuple(rng.normal(size=(a, b)).astype(np.float32) * 0.1 for a, b in pairwise(sizes)),
        biases=tuple(rng.normal(size=b).astype(np.float32) for b in sizes[1:]),
        output=output,
        meta={"model": "test"},
    )


def test_opponent_rows_put_each_other_seat_first() -> None:
    features = np.arange(FEATURE_SIZE, dtype=np.int64) % 251
    rows = opponent_rows(features[None, :].astype(np.uint8))
    assert rows.shape == (3, OPPONENT_INPUTS)
    blocks = [
        features[OWN_SIZE + r * OPPONENT_SIZE : OWN_SIZE + (r + 1) * OPPONENT_SIZE]
        for r in range(3)
    ]
    for rel in range(3):
        row = rows[rel]
        assert np.array_equal(row[:OWN_SIZE], features[:OWN_SIZE])
        for place in range(3):
            start = OWN_SIZE + place * OPPONENT_SIZE
            assert np.array_equal(row[start : start + OPPONENT_SIZE], blocks[(rel + place) % 3])
        assert list(row[-3:]) == [float(rel == r) for r in range(3)]


def test_forward_is_the_mlp_and_survives_a_round_trip(tmp_path: Path) -> None:
    mlp = _mlp(5, 2, "logistic")
    x = np.random.default_rng(1).normal(size=(4, 5)).astype(np.float32)
    h = np.maximum((x - mlp.mean) / mlp.scale @ mlp.weights[0] + mlp.biases[0], 0)
    expected = 1 / (1 + np.exp(-(h @ mlp.weights[1] + mlp.biases[1])))
    assert np.allclose(mlp.forward(x), expected, atol=1e-6)
    write_npz(tmp_path / "m.npz", mlp.arrays())
    again = Mlp.load(tmp_path / "m.npz")
    assert np.array_equal(again.forward(x), mlp.forward(x))
    assert again.meta["model"] == "test" and again.output == "logistic"


def test_models_predict_from_a_view(tmp_path: Path) -> None:
    opponent = OpponentModel(_mlp(OPPONENT_INPUTS, OPPONENT_OUTPUTS, "logistic"))
    value = ValueModel(_mlp(VALUE_INPUTS, 1, "identity"))
    game = Round(deal_setup(3))
    view = game.view(game.to_act[0])
    pred = opponent.predict_view(view)
    assert pred.ready.shape == (1, 3) and pred.deal_in.shape == (1, 3, 27)
    assert pred.concealed.shape == (1, 3, 27, 4)
    assert ((pred.deal_in >= 0) & (pred.deal_in <= 1)).all()
    assert pred.danger().shape == (1, 27) and pred.expected_concealed.shape == (1, 3, 27)
    features = np.frombuffer(bytes(encode_view(view)), dtype=np.uint8)
    batch = np.stack([features] * 5)
    assert np.allclose(opponent.predict(batch).deal_in[4], pred.deal_in[0])
    assert isinstance(value.predict_view(view), float)
    with pytest.raises(ModelError):
        OpponentModel(_mlp(VALUE_INPUTS, 1, "identity"))
    arrays = _mlp(3, 1, "identity").arrays()
    arrays["meta"] = np.frombuffer(
        json.dumps({"output": "identity", "features_version": 0}).encode(), dtype=np.uint8
    )
    write_npz(tmp_path / "old.npz", arrays)
    with pytest.raises(ModelError, match="features version"):
        Mlp.load(tmp_path / "old.npz")


def test_sample_weights_favour_the_hands_the_model_believes() -> None:
    """Uniform samples reweighted by the model: a hand holding what the model expects weighs
    more than one that does not, and a ready hand more when the model believes it ready."""
    from duyun.learn.models import OpponentPrediction, sample_log_weights

    concealed = np.zeros((1, 3, 27, 4), dtype=np.float32)
    concealed[0, 0, 4] = [0.95, 0.8, 0.1, 0.0]  # it very likely holds a pair of 5m
    concealed[0, 0, :4] = 0.3
    concealed[0, 0, 5:] = 0.3
    pred = OpponentPrediction(
        ready=np.full((1, 3), 0.9, dtype=np.float32),
        waits=np.zeros((1, 3, 27), dtype=np.float32),
        deal_in=np.zeros((1, 3, 27), dtype=np.float32),
        concealed=concealed,
    )
    unseen = np.full(27, 3)
    pair = np.zeros(27, dtype=int)
    pair[4] = 2
    pair[10] = 1
    without = np.zeros(27, dtype=int)
    without[9] = 2
    without[10] = 1
    weights = sample_log_weights(pred, 0, unseen, np.stack([pair, without]))
    assert weights[0] > weights[1] + 2
    ready = sample_log_weights(pred, 0, unseen, np.stack([pair, pair]), ready=[True, False])
    assert ready[0] > ready[1]  # the model believes it ready
