"""Training of the opponent and value models (``duyun learn train``; the ``train`` extra).

Both are scikit-learn multilayer perceptrons (``MLPClassifier`` with one logistic output per
label, ``MLPRegressor``), trained with Adam by ``partial_fit`` over shuffled chunks of the
dataset so that the float rows of a million positions never sit in memory at once. Inputs are
standardised with the training set's mean and spread; the trained layers are exported as
NumPy arrays (:class:`~duyun.learn.models.Mlp`) and checked against scikit-learn's own
predictions before they are written. Everything random -- the shuffles, the initial weights,
the minibatches -- comes from ``TrainConfig.seed``: the same data, seed and settings give the
same weights (on the same machine and BLAS thread count).

The last ``holdout_shards`` shards of the dataset (whole hands) are never trained on; the
report gives the models' scores on them beside simple references (the base rate, and for
concealed tiles the chance uniform dealing gives). ``duyun learn evaluate`` sets the models
beside the bots' hand-written estimates on fresh self-play.
"""

from __future__ import annotations

import hashlib
import json
import platform
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from duyun.learn import metrics
from duyun.learn.dataset import DatasetError, load_shards, read_manifest, unpack_bits, write_npz
from duyun.learn.features import OPPONENT_SIZE, OWN_SIZE, field_slice
from duyun.learn.models import (
    COUNT_LEVELS,
    KINDS,
    OPPONENT_FILE,
    POINTS_SCALE,
    VALUE_FILE,
    Mlp,
    OpponentModel,
    ValueModel,
    opponent_rows,
    value_rows,
)

Log = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class TrainConfig:
    seed: int = 0
    epochs: int = 6
    max_positions: int | None = None  # the first positions of the training shards only
    holdout_shards: int = 4
    opponent_hidden: tuple[int, ...] = (256, 128)
    # () is a linear value model (ridge regression); hidden layers make it a network, which
    # overfit: a hand's positions share one outcome (docs/research/learned-models.md)
    value_hidden: tuple[int, ...] = ()
    value_ridge: float = 10.0  # the linear value model's L2 penalty
    value_positions: int = 400_000  # the linear value model fits the first this many
    only: str = "both"  # or "opponent", "value": train one model, keep the other in OUT
    chunk_positions: int = 40_000  # positions per partial_fit call
    batch_size: int = 512
    learning_rate: float = 1e-3
    alpha: float = 1e-5  # L2 penalty


def opponent_targets(data: dict[str, npt.NDArray[Any]]) -> npt.NDArray[np.uint8]:
    """Labels of the opponent model, one row per (position, other seat), in its output order:
    ready, waits (27), deal-in (27), at least j + 1 concealed copies (27 × 4, kind-major)."""
    n = data["ready"].shape[0]
    ready = data["ready"].reshape(n * 3, 1).astype(np.uint8)
    waits = unpack_bits(data["waits"]).reshape(n * 3, KINDS)
    deal_in = unpack_bits(data["deal_in"]).reshape(n * 3, KINDS)
    concealed = data["concealed"].reshape(n * 3, KINDS, 1)
    at_least = (concealed >= np.arange(1, COUNT_LEVELS + 1, dtype=np.uint8)).astype(np.uint8)
    return np.concatenate([ready, waits, deal_in, at_least.reshape(n * 3, KINDS * COUNT_LEVELS)], 1)


def uniform_concealed(features: npt.NDArray[Any]) -> npt.NDArray[np.float64]:
    """P(at least j + 1 copies of each kind among an other seat's concealed tiles) if the
    tiles the seat cannot see were dealt uniformly (the sampler's assumption, without its 報聽
    conditioning): hypergeometric over the unseen tiles. Shape ``(n * 3, 27 * 4)``."""
    from scipy.stats import hypergeom  # the train extra (scikit-learn depends on SciPy)

    data = np.asarray(features)
    n = data.shape[0]
    unseen = data[:, field_slice("unseen")].astype(np.int64)  # (n, 27)
    total = unseen.sum(axis=1)  # (n,)
    sizes = data[:, OWN_SIZE:].reshape(n, 3, OPPONENT_SIZE)[:, :, 5 * KINDS].astype(np.int64)
    big_n = np.broadcast_to(total[:, None, None], (n, 3, KINDS))
    big_k = np.broadcast_to(unseen[:, None, :], (n, 3, KINDS))
    draws = np.broadcast_to(np.minimum(sizes, total[:, None])[:, :, None], (n, 3, KINDS))
    levels = [hypergeom.sf(j, big_n, big_k, draws) for j in range(COUNT_LEVELS)]
    out = np.stack(levels, axis=-1)  # (n, 3, 27, 4)
    shares: npt.NDArray[np.float64] = np.nan_to_num(out, nan=0.0)
    return shares.reshape(n * 3, KINDS * COUNT_LEVELS)


def _standardiser(rows: npt.NDArray[np.float32]) -> tuple[npt.NDArray[np.float32], ...]:
    mean = rows.mean(axis=0, dtype=np.float64)
    spread = rows.std(axis=0, dtype=np.float64)
    spread[spread < 1e-6] = 1.0
    return mean.astype(np.float32), spread.astype(np.float32)


def _export(model: Any, mean: Any, scale: Any, output: str, meta: dict[str, Any]) -> Mlp:
    return Mlp(
        mean=mean,
        scale=scale,
        weights=tuple(np.asarray(w, dtype=np.float32) for w in model.coefs_),
        biases=tuple(np.asarray(b, dtype=np.float32) for b in model.intercepts_),
        output=output,
        meta=meta,
    )


def _fit(
    model: Any,
    make_rows: Callable[[npt.NDArray[np.int64]], tuple[npt.NDArray[Any], npt.NDArray[Any]]],
    positions: int,
    config: TrainConfig,
    name: str,
    log: Log,
    classes: npt.NDArray[Any] | None = None,
) -> float:
    """Epochs of partial_fit over shuffled chunks; returns the CPU seconds it took."""
    rng = np.random.default_rng(config.seed)
    started = time.process_time()
    first = True
    for epoch in range(config.epochs):
        order = rng.permutation(positions)
        for start in range(0, positions, config.chunk_positions):
            rows, targets = make_rows(np.sort(order[start : start + config.chunk_positions]))
            if first and classes is not None:
                model.partial_fit(rows, targets, classes=classes)
            else:
                model.partial_fit(rows, targets)
            first = False
        log(
            f"{name}: epoch {epoch + 1}/{config.epochs}, loss {model.loss_:.4f}, "
            f"{time.process_time() - started:.0f} s CPU"
        )
    return time.process_time() - started


def train_models(data_dir: Path, out: Path, config: TrainConfig, log: Log) -> dict[str, Any]:
    """Train both models on ``data_dir``, write them to ``out``, return the report."""
    if config.only not in ("both", "opponent", "value"):
        raise DatasetError(f"train only 'opponent', 'value' or both, not {config.only!r}")
    manifest = read_manifest(data_dir)
    names = [shard["file"] for shard in manifest["shards"]]
    if len(names) <= config.holdout_shards:
        raise DatasetError(
            f"{data_dir} has {len(names)} shards: need more than the {config.holdout_shards} "
            "held out (--holdout-shards)"
        )
    train_names = names[: len(names) - config.holdout_shards]
    hold_names = names[len(names) - config.holdout_shards :]
    data = load_shards(data_dir, train_names)
    hold = load_shards(data_dir, hold_names)
    if config.max_positions is not None:
        data = {key: value[: config.max_positions] for key, value in data.items()}
    positions = int(data["features"].shape[0])
    log(f"training on {positions:,} positions, {hold['features'].shape[0]:,} held out")
    out.mkdir(parents=True, exist_ok=True)
    manifest_digest = hashlib.sha256((data_dir / "manifest.json").read_bytes()).hexdigest()
    provenance = {
        "train_config": asdict(config),
        "dataset": {
            "seed": manifest["config"]["seed"],
            "hands": manifest["config"]["hands"],
            "lineups": manifest["config"]["lineups"],
            "manifest_sha256": manifest_digest,
            "train_shards": len(train_names),
            "holdout_shards": len(hold_names),
            "train_positions": positions,
        },
        "sklearn": __import__("sklearn").__version__,
        "numpy": np.__version__,
        "python": platform.python_version(),
    }
    provenance["command"] = (  # the dataset's own command is in its manifest
        f"duyun learn train DATA OUT --seed {config.seed} --epochs {config.epochs}"
        + (f" --max-positions {config.max_positions}" if config.max_positions else "")
        + f" --holdout-shards {config.holdout_shards}"
        + (f" --only {config.only}" if config.only != "both" else "")
    )

    features = data["features"]
    in_hand = data["in_hand"].reshape(-1).astype(bool)
    targets_all = opponent_targets(data)
    points = data["points_now"]
    final = data["final_points"].astype(np.float32) / POINTS_SCALE
    cpu: dict[str, float] = {}
    if config.only in ("both", "opponent"):
        opponent_mlp, cpu["opponent"] = _train_opponent(data, targets_all, config, provenance, log)
        write_npz(out / OPPONENT_FILE, opponent_mlp.arrays())
    else:
        opponent_mlp = Mlp.load(out / OPPONENT_FILE)
    if config.only in ("both", "value"):
        value_mlp, cpu["value"] = _train_value(data, config, provenance, log)
        write_npz(out / VALUE_FILE, value_mlp.arrays())
    else:
        value_mlp = Mlp.load(out / VALUE_FILE)
    del features, points
    report = {
        "provenance": provenance,
        "cpu_seconds": cpu,
        "file_bytes": {
            OPPONENT_FILE: (out / OPPONENT_FILE).stat().st_size,
            VALUE_FILE: (out / VALUE_FILE).stat().st_size,
        },
        "holdout": holdout_report(
            OpponentModel(opponent_mlp),
            ValueModel(value_mlp),
            hold,
            base_rates=targets_all[in_hand].mean(axis=0),
            mean_value=float(final.mean() * POINTS_SCALE),
        ),
    }
    (out / "report.json").write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    return report


def _train_opponent(
    data: dict[str, npt.NDArray[Any]],
    targets_all: npt.NDArray[Any],
    config: TrainConfig,
    provenance: dict[str, Any],
    log: Log,
) -> tuple[Mlp, float]:
    from sklearn.neural_network import MLPClassifier

    features = data["features"]
    positions = int(features.shape[0])
    in_hand = data["in_hand"].reshape(-1).astype(bool)
    sample = features[: min(positions, 100_000)]
    mean, scale = _standardiser(opponent_rows(sample))

    def opponent_chunk(index: npt.NDArray[np.int64]) -> tuple[Any, Any]:
        rows = (opponent_rows(features[index]) - mean) / scale
        row_index = (index[:, None] * 3 + np.arange(3)).reshape(-1)
        keep = in_hand[row_index]
        return rows[keep], targets_all[row_index[keep]]

    opponent = MLPClassifier(
        hidden_layer_sizes=config.opponent_hidden,
        batch_size=config.batch_size,
        learning_rate_init=config.learning_rate,
        alpha=config.alpha,
        random_state=config.seed,
    )
    cpu_opponent = _fit(
        opponent,
        opponent_chunk,
        positions,
        config,
        "opponent model",
        log,
        classes=np.arange(targets_all.shape[1]),
    )
    opponent_mlp = _export(opponent, mean, scale, "logistic", dict(provenance, model="opponent"))
    check_rows, _ = opponent_chunk(np.arange(min(positions, 200), dtype=np.int64))
    theirs = opponent.predict_proba(check_rows)
    ours = opponent_mlp.forward((check_rows * scale + mean).astype(np.float32))
    if not np.allclose(theirs, ours, atol=1e-4):
        raise RuntimeError("the exported opponent model does not match scikit-learn's")
    return opponent_mlp, cpu_opponent


def _train_value(
    data: dict[str, npt.NDArray[Any]], config: TrainConfig, provenance: dict[str, Any], log: Log
) -> tuple[Mlp, float]:
    """The value model learns what is still to come: the hand's points less those so far
    (in fan). Linear (ridge regression) by default, a network with ``value_hidden``."""
    from sklearn.linear_model import Ridge
    from sklearn.neural_network import MLPRegressor

    features = data["features"]
    points = data["points_now"]
    positions = int(features.shape[0])
    final = data["final_points"].astype(np.float32) / POINTS_SCALE
    to_come = final - points[:, 0].astype(np.float32) / POINTS_SCALE
    sample = features[: min(positions, 100_000)]
    vmean, vscale = _standardiser(value_rows(sample, points[: sample.shape[0]]))

    def value_chunk(index: npt.NDArray[np.int64]) -> tuple[Any, Any]:
        rows = (value_rows(features[index], points[index]) - vmean) / vscale
        return rows, to_come[index]

    meta = dict(provenance, model="value")
    if not config.value_hidden:
        started = time.process_time()
        used = np.arange(min(positions, config.value_positions), dtype=np.int64)
        rows, targets = value_chunk(used)
        linear = Ridge(alpha=config.value_ridge).fit(rows, targets)
        cpu_value = time.process_time() - started
        log(f"value model: ridge on {used.size:,} positions, {cpu_value:.0f} s CPU")
        value_mlp = Mlp(
            mean=vmean,
            scale=vscale,
            weights=(np.asarray(linear.coef_, dtype=np.float32).reshape(-1, 1),),
            biases=(np.asarray([linear.intercept_], dtype=np.float32),),
            output="identity",
            meta=meta,
        )
        check_rows = rows[:200]
        theirs = linear.predict(check_rows)
    else:
        value = MLPRegressor(
            hidden_layer_sizes=config.value_hidden,
            batch_size=config.batch_size,
            learning_rate_init=config.learning_rate,
            alpha=config.alpha,
            random_state=config.seed,
        )
        cpu_value = _fit(value, value_chunk, positions, config, "value model", log)
        value_mlp = _export(value, vmean, vscale, "identity", meta)
        check_rows, _ = value_chunk(np.arange(min(positions, 200), dtype=np.int64))
        theirs = value.predict(check_rows)
    ours = value_mlp.forward((check_rows * vscale + vmean).astype(np.float32))[:, 0]
    if not np.allclose(theirs, ours, atol=1e-3):  # the network alone: no points so far added
        raise RuntimeError("the exported value model does not match scikit-learn's")
    return value_mlp, cpu_value


def holdout_report(
    opponent: OpponentModel,
    value: ValueModel,
    hold: dict[str, npt.NDArray[Any]],
    base_rates: npt.NDArray[Any],
    mean_value: float,
) -> dict[str, Any]:
    """The models' scores on held-out shards beside the base rate (a constant) and, for the
    concealed tiles, uniform dealing."""
    features = hold["features"]
    targets = opponent_targets(hold)
    keep = hold["in_hand"].reshape(-1).astype(bool)
    pred = opponent.predict(features)
    n = features.shape[0]
    model_out = np.concatenate(
        [
            pred.ready.reshape(n * 3, 1),
            pred.waits.reshape(n * 3, KINDS),
            pred.deal_in.reshape(n * 3, KINDS),
            pred.concealed.reshape(n * 3, KINDS * COUNT_LEVELS),
        ],
        axis=1,
    )[keep]
    targets = targets[keep]
    base = np.broadcast_to(np.asarray(base_rates, dtype=np.float64), targets.shape)
    uniform = uniform_concealed(features)[keep]
    heads = {"ready": slice(0, 1), "waits": slice(1, 28), "deal_in": slice(28, 55)}
    report: dict[str, Any] = {"positions": int(n), "opponent_rows": int(keep.sum())}
    for head, cols in heads.items():
        report[head] = {
            "model": metrics.scores(model_out[:, cols], targets[:, cols], table=True),
            "base_rate": metrics.scores(base[:, cols], targets[:, cols]),
        }
    cols = slice(55, 55 + KINDS * COUNT_LEVELS)
    report["concealed"] = {
        "model": metrics.scores(model_out[:, cols], targets[:, cols], table=True),
        "uniform": metrics.scores(uniform, targets[:, cols], table=True),
        "base_rate": metrics.scores(base[:, cols], targets[:, cols]),
    }
    truth = hold["final_points"].astype(np.float64)
    guess = value.predict(features, hold["points_now"])
    report["value"] = {
        "model": metrics.regression_scores(guess, truth),
        "mean": metrics.regression_scores(np.full_like(truth, mean_value), truth),
        "points_so_far": metrics.regression_scores(
            hold["points_now"][:, 0].astype(np.float64), truth
        ),
    }
    return report
