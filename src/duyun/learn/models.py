"""Learned models at play time: NumPy only (issue 35 item 2).

Both models are small multilayer perceptrons (ReLU hidden layers) trained by
``duyun learn train`` (scikit-learn, :mod:`duyun.learn.train`) and exported as plain arrays in
an ``.npz`` file; this module runs them with NumPy matrix products and imports no training
library. The package ships one trained pair (``duyun/learn/weights``, with the command and
seed that made them in their metadata); :func:`load_models` reads it, or any directory.

**Opponent model** (:class:`OpponentModel`): for each of the three other seats of a position,
in relative order (+1 下家, +2 對家, +3 上家):

- ``ready``: the chance it is ready (R11);
- ``waits[k]``: the chance kind ``k`` completes its hand;
- ``deal_in[k]``: the chance that the observing seat's discard of ``k`` *now* would be a win
  it may take (R17: a pattern, a bean or our 報聽): the deal-in danger of each discard;
- ``concealed[k, j]``: the chance it holds at least ``j + 1`` copies of ``k`` concealed
  (j = 0..3), from which ``expected_concealed`` (the expected count per kind) follows.

**Value model** (:class:`ValueModel`): the seat's expected net points for the whole hand
(R40), from its view at its own turn: its points so far plus what the network expects still to
come (the network's target).

Cost: :func:`~duyun.learn.features.encode_view` takes about 40 µs per view; the models are
evaluated on batches (``predict`` takes any number of positions), so a search that values
many sampled positions pays one matrix product per layer for all of them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from duyun.engine.view import SeatView
from duyun.learn.features import (
    FEATURE_SIZE,
    FEATURES_VERSION,
    OPPONENT_SIZE,
    OWN_SIZE,
    encode_view,
)

Array = npt.NDArray[np.float32]
OPPONENT_FILE = "opponent.npz"
VALUE_FILE = "value.npz"
KINDS = 27
COUNT_LEVELS = 4  # at least 1, 2, 3, 4 copies
# the opponent model's outputs, in order
HEAD_READY = slice(0, 1)
HEAD_WAITS = slice(1, 1 + KINDS)
HEAD_DEAL_IN = slice(1 + KINDS, 1 + 2 * KINDS)
HEAD_CONCEALED = slice(1 + 2 * KINDS, 1 + 2 * KINDS + KINDS * COUNT_LEVELS)
OPPONENT_OUTPUTS = 1 + 2 * KINDS + KINDS * COUNT_LEVELS
OPPONENT_INPUTS = OWN_SIZE + 3 * OPPONENT_SIZE + 3
VALUE_INPUTS = FEATURE_SIZE + 4
POINTS_SCALE = 6.0  # points per fan (R40): the value model works in fan


class ModelError(ValueError):
    """A model file that does not fit this code (another feature layout, a missing array)."""


def opponent_rows(features: npt.NDArray[Any]) -> npt.NDArray[np.float32]:
    """The opponent model's input rows: for every position and every other seat r = +1, +2,
    +3, the seat's own block, r's block first, then the two others in play order after r,
    then r as one-hot. Shape ``(n * 3, OPPONENT_INPUTS)``, rows position-major."""
    data = np.asarray(features)
    if data.ndim == 1:
        data = data[None, :]
    n = data.shape[0]
    own = data[:, :OWN_SIZE].astype(np.float32)
    blocks = data[:, OWN_SIZE:].reshape(n, 3, OPPONENT_SIZE).astype(np.float32)
    rows = np.empty((n, 3, OPPONENT_INPUTS), dtype=np.float32)
    eye = np.eye(3, dtype=np.float32)
    for rel in range(3):
        order = [(rel + shift) % 3 for shift in range(3)]
        rows[:, rel, :OWN_SIZE] = own
        rows[:, rel, OWN_SIZE : OWN_SIZE + 3 * OPPONENT_SIZE] = blocks[:, order, :].reshape(
            n, 3 * OPPONENT_SIZE
        )
        rows[:, rel, OWN_SIZE + 3 * OPPONENT_SIZE :] = eye[rel]
    return rows.reshape(n * 3, OPPONENT_INPUTS)


def value_rows(features: npt.NDArray[Any], points_now: npt.NDArray[Any]) -> npt.NDArray[np.float32]:
    """The value model's input rows: the features and the four seats' points so far (in
    fan, relative seats 0..3). Shape ``(n, VALUE_INPUTS)``."""
    data = np.asarray(features)
    points = np.asarray(points_now)
    if data.ndim == 1:
        data, points = data[None, :], points[None, :]
    rows = np.empty((data.shape[0], VALUE_INPUTS), dtype=np.float32)
    rows[:, :FEATURE_SIZE] = data
    rows[:, FEATURE_SIZE:] = points.astype(np.float32) / POINTS_SCALE
    return rows


@dataclass(frozen=True, slots=True)
class Mlp:
    """A ReLU multilayer perceptron as arrays: inputs standardised by ``mean`` and ``scale``,
    hidden layers ReLU, the last layer ``logistic`` or ``identity``."""

    mean: Array
    scale: Array
    weights: tuple[Array, ...]
    biases: tuple[Array, ...]
    output: str
    meta: dict[str, Any]

    def forward(self, rows: npt.NDArray[np.float32]) -> Array:
        hidden: Array = ((rows - self.mean) / self.scale).astype(np.float32, copy=False)
        last = len(self.weights) - 1
        for index, (weight, bias) in enumerate(zip(self.weights, self.biases, strict=True)):
            hidden = hidden @ weight + bias
            if index < last:
                np.maximum(hidden, 0.0, out=hidden)
        if self.output == "logistic":
            np.clip(hidden, -40.0, 40.0, out=hidden)
            hidden = (1.0 / (1.0 + np.exp(-hidden))).astype(np.float32)
        return hidden

    @property
    def size_bytes(self) -> int:
        arrays = (self.mean, self.scale, *self.weights, *self.biases)
        return sum(int(a.nbytes) for a in arrays)

    def arrays(self) -> dict[str, npt.NDArray[Any]]:
        """The model as named arrays (for :func:`duyun.learn.dataset.write_npz`)."""
        out: dict[str, npt.NDArray[Any]] = {"mean": self.mean, "scale": self.scale}
        for index, (weight, bias) in enumerate(zip(self.weights, self.biases, strict=True)):
            out[f"w{index}"] = weight
            out[f"b{index}"] = bias
        meta = dict(self.meta, output=self.output, features_version=FEATURES_VERSION)
        out["meta"] = np.frombuffer(json.dumps(meta, sort_keys=True).encode(), dtype=np.uint8)
        return out

    @classmethod
    def from_arrays(cls, data: Any, source: str) -> Mlp:
        try:
            meta = json.loads(bytes(np.asarray(data["meta"], dtype=np.uint8)).decode())
            layers = sum(1 for name in data if str(name).startswith("w"))
            weights = tuple(np.asarray(data[f"w{i}"], dtype=np.float32) for i in range(layers))
            biases = tuple(np.asarray(data[f"b{i}"], dtype=np.float32) for i in range(layers))
            mean = np.asarray(data["mean"], dtype=np.float32)
            scale = np.asarray(data["scale"], dtype=np.float32)
        except KeyError as error:
            raise ModelError(f"{source}: not a duyun model ({error} missing)") from error
        if meta.get("features_version") != FEATURES_VERSION:
            raise ModelError(
                f"{source} was trained on features version {meta.get('features_version')}, "
                f"this code makes version {FEATURES_VERSION}: train it again"
            )
        return cls(mean, scale, weights, biases, str(meta["output"]), meta)

    @classmethod
    def load(cls, path: Path) -> Mlp:
        with np.load(path, allow_pickle=False) as data:
            return cls.from_arrays({name: data[name] for name in data.files}, str(path))


@dataclass(frozen=True, slots=True)
class OpponentPrediction:
    """Per position (axis 0) and other seat +1, +2, +3 (axis 1)."""

    ready: Array  # (n, 3)
    waits: Array  # (n, 3, 27)
    deal_in: Array  # (n, 3, 27)
    concealed: Array  # (n, 3, 27, 4): P(at least j + 1 copies concealed)

    @property
    def expected_concealed(self) -> Array:
        """Expected concealed copies of each kind, (n, 3, 27)."""
        ordered = np.minimum.accumulate(self.concealed, axis=-1)  # P(>= j) never grows with j
        expected: Array = ordered.sum(axis=-1).astype(np.float32)
        return expected

    def danger(self) -> Array:
        """Deal-in chance of each discard over the three others, (n, 27): the chance that at
        least one of them wins on it, as if they were independent."""
        safe = np.prod(1.0 - self.deal_in, axis=1)
        danger: Array = (1.0 - safe).astype(np.float32)
        return danger


def sample_log_weights(
    pred: OpponentPrediction,
    rel: int,
    unseen: npt.ArrayLike,
    hands: npt.ArrayLike,
    ready: npt.ArrayLike | None = None,
    row: int = 0,
) -> npt.NDArray[np.float64]:
    """Log importance weights of sampled hands of other seat ``rel`` (0, 1, 2 for +1, +2, +3)
    drawn uniformly from the unseen tiles (:func:`~duyun.engine.determinize.sample_round`),
    towards the opponent model's beliefs: for a search that weights its uniform samples
    instead of drawing them anew.

    ``hands`` is ``(m, 27)`` concealed counts of the seat in the ``m`` samples, ``unseen`` the
    observing seat's unseen copies per kind (the pool the samples came from). The weight of a
    hand is the model's chance of it -- the product over kinds of its marginal chance of
    holding that many copies -- over its chance under uniform dealing (multivariate
    hypergeometric). With ``ready`` (``(m,)`` booleans: the sampled hand is ready) each
    sample is also weighted by the model's chance of that readiness over its share among
    the samples. The weights are relative (normalise them over the samples): the product of
    marginals is not a distribution over hands."""
    counts = np.asarray(hands, dtype=np.int64)
    pool = np.asarray(unseen, dtype=np.int64)
    at_least = np.minimum.accumulate(pred.concealed[row, rel].astype(np.float64), axis=-1)
    cumulative = np.concatenate(
        [np.ones((KINDS, 1)), at_least, np.zeros((KINDS, 1))], axis=1
    )  # P(>= 0) .. P(>= 5)
    exactly = np.clip(cumulative[:, :-1] - cumulative[:, 1:], 1e-6, 1.0)  # (27, 5)
    kinds = np.arange(KINDS)
    model = np.log(exactly[kinds, np.clip(counts, 0, COUNT_LEVELS)]).sum(axis=1)
    log_comb = _LOG_COMB[np.clip(pool, 0, 4)[None, :], np.clip(counts, 0, 4)]
    uniform = log_comb.sum(axis=1)  # the common C(N, n) cancels in normalised weights
    weights: npt.NDArray[np.float64] = model - uniform
    if ready is not None:
        flags = np.asarray(ready, dtype=bool)
        p_ready = float(np.clip(pred.ready[row, rel], 1e-4, 1 - 1e-4))
        share = float(np.clip(flags.mean(), 0.5 / flags.size, 1 - 0.5 / flags.size))
        weights += np.where(flags, np.log(p_ready / share), np.log((1 - p_ready) / (1 - share)))
    return weights


# log C(n, k) for n, k in 0..4 (C(n, k) = 0 for k > n: impossible, a very low log weight)
_LOG_COMB = np.array(
    [
        [np.log(float(_comb)) if _comb else -1e9 for _comb in row]
        for row in (
            [1, 0, 0, 0, 0],
            [1, 1, 0, 0, 0],
            [1, 2, 1, 0, 0],
            [1, 3, 3, 1, 0],
            [1, 4, 6, 4, 1],
        )
    ]
)


class OpponentModel:
    """Ready, waits, deal-in danger and concealed tiles of the three other seats."""

    def __init__(self, mlp: Mlp) -> None:
        if mlp.weights[0].shape[0] != OPPONENT_INPUTS or mlp.weights[-1].shape[1] != (
            OPPONENT_OUTPUTS
        ):
            raise ModelError("not an opponent model: its inputs or outputs do not fit")
        self.mlp = mlp

    def predict(self, features: npt.NDArray[Any]) -> OpponentPrediction:
        """Predictions for ``features`` (``(n, FEATURE_SIZE)`` or one vector)."""
        out = self.mlp.forward(opponent_rows(features))
        n = out.shape[0] // 3
        out = out.reshape(n, 3, OPPONENT_OUTPUTS)
        return OpponentPrediction(
            ready=out[:, :, 0],
            waits=out[:, :, HEAD_WAITS],
            deal_in=out[:, :, HEAD_DEAL_IN],
            concealed=out[:, :, HEAD_CONCEALED].reshape(n, 3, KINDS, COUNT_LEVELS),
        )

    def predict_view(self, view: SeatView) -> OpponentPrediction:
        return self.predict(np.frombuffer(bytes(encode_view(view)), dtype=np.uint8))


class ValueModel:
    """The seat's expected points for the hand, from its view."""

    def __init__(self, mlp: Mlp) -> None:
        if mlp.weights[0].shape[0] != VALUE_INPUTS or mlp.weights[-1].shape[1] != 1:
            raise ModelError("not a value model: its inputs or outputs do not fit")
        self.mlp = mlp

    def predict(self, features: npt.NDArray[Any], points_now: npt.NDArray[Any]) -> Array:
        """Expected net points of the hand (R40 points, not fan), one per position: the
        seat's points so far plus what the network expects still to come."""
        points = np.asarray(points_now)
        if points.ndim == 1:
            points = points[None, :]
        to_come = self.mlp.forward(value_rows(features, points))[:, 0] * POINTS_SCALE
        total: Array = (points[:, 0] + to_come).astype(np.float32)
        return total

    def predict_view(self, view: SeatView) -> float:
        points = np.array([view.points[(view.seat + rel) % 4] for rel in range(4)])
        features = np.frombuffer(bytes(encode_view(view)), dtype=np.uint8)
        return float(self.predict(features, points)[0])


def shipped_dir() -> Path:
    """Where the package's own trained models are."""
    return Path(str(resources.files("duyun.learn").joinpath("weights")))


_SHIPPED: list[tuple[OpponentModel, ValueModel]] = []


def shipped_models() -> tuple[OpponentModel, ValueModel]:
    """The package's trained models, loaded once per process (0.7 MB of weights): every bot
    that reads them (大師's samples, the learned bots) shares one copy."""
    if not _SHIPPED:
        _SHIPPED.append(load_models())
    return _SHIPPED[0]


def load_models(directory: Path | None = None) -> tuple[OpponentModel, ValueModel]:
    """The opponent and value models in ``directory`` (default: the shipped ones)."""
    where = shipped_dir() if directory is None else directory
    opponent, value = where / OPPONENT_FILE, where / VALUE_FILE
    for path in (opponent, value):
        if not path.is_file():
            raise ModelError(f"no model at {path} (duyun learn train writes it)")
    return OpponentModel(Mlp.load(opponent)), ValueModel(Mlp.load(value))
