"""How much one seat's view says about which tiles are still live (issue 35).

The search's ceiling (``benchmarks/oracle_search.py``) is offence: knowing the other hands
lets 大師 see which of the tiles it needs are still in the wall, to be drawn, and which are
locked in a hand. What a model could know of that is measured here directly, on the records
of ``duyun learn generate``: for every position and every kind the seat cannot see all of,
the number of its unseen copies that sit in the three other hands together (the rest are in
the wall). Three estimates of that count, scored by log loss on held-out hands:

- **uniform**: what the search's sampler assumes (every unseen tile is as likely in a hand as
  in the wall: hypergeometric, given how many tiles the hands hold);
- **opponent model**: the shipped network's concealed-tile outputs for the three seats
  (at least 1..4 copies each), made into a count per seat and added up, as if independent;
- **boosted trees**: scikit-learn's histogram gradient boosting fitted to this very target,
  on features of the kind and its neighbours read from the view (the counts a player reads:
  unseen copies, each opponent's discards of the kind, early and recent, of its neighbours
  and of its suit, melds, hand sizes, the turn).

"Share of the way" is (uniform - estimate) / uniform: 0 knows nothing beyond uniform dealing,
100 % is the truth (log loss 0). The trees are a measurement, not a shipped model: a better
model of the same view may do better, but a small share says the view holds little of what
the oracle's samples were worth.

usage: python benchmarks/live_tiles.py DATASET [--holdout 0.2] [--max-iter 150] [--seed 0]
(DATASET: a directory written by ``duyun learn generate``; needs the ``train`` extra)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy.special import gammaln
from sklearn.ensemble import HistGradientBoostingClassifier

from duyun.learn.dataset import DatasetError, load_shards
from duyun.learn.features import field_slice
from duyun.learn.models import load_models

KINDS = 27
LEVELS = 5  # 0..4 copies in the other hands together
Array = npt.NDArray[Any]


def _within_suit(counts: Array, offset: int) -> Array:
    """``counts[:, k + offset]`` where that kind is of k's suit, else 0."""
    out = np.zeros_like(counts)
    for kind in range(KINDS):
        other = kind + offset
        if 0 <= other < KINDS and other // 9 == kind // 9:
            out[:, kind] = counts[:, other]
    return out


def kind_features(features: Array) -> tuple[Array, list[str]]:
    """One row of features per (position, kind): shape ``(n * 27, F)``, position-major."""
    n = len(features)
    data = features.astype(np.int64)

    def field(name: str) -> Array:
        return data[:, field_slice(name)]

    unseen = field("unseen")
    kinds = np.arange(KINDS)
    columns: list[Array] = []
    names: list[str] = []

    def add(name: str, values: Array) -> None:
        columns.append(np.broadcast_to(values, (n, KINDS)).astype(np.float32))
        names.append(name)

    hidden_in_hands = sum(field(f"opp{o}_size") for o in (1, 2, 3))
    add("unseen", unseen)
    add("unseen_total", unseen.sum(axis=1, keepdims=True))
    add("in_hands_total", hidden_in_hands)
    add("wall", field("wall"))
    add("rank", (kinds % 9)[None, :])
    add("suit", (kinds // 9)[None, :])
    add("own", field("hand"))
    add("own_melds", field("own_melds"))
    for offset in (-2, -1, 1, 2):
        add(f"unseen{offset:+d}", _within_suit(unseen, offset))
    for o in (1, 2, 3):
        river = field(f"opp{o}_river")
        early = field(f"opp{o}_early")
        for name in ("river", "early", "recent", "melds", "after_baoting"):
            add(f"opp{o}_{name}", field(f"opp{o}_{name}"))
        for name in ("size", "discards", "pongs", "baoting", "bean"):
            add(f"opp{o}_{name}", field(f"opp{o}_{name}"))
        by_suit = river.reshape(n, 3, 9).sum(axis=2)
        add(
            f"opp{o}_suit_share",
            by_suit[:, kinds // 9] / np.maximum(river.sum(1, keepdims=True), 1),
        )
        add(f"opp{o}_early_near", sum(_within_suit(early, d) for d in (-2, -1, 1, 2)))
        add(f"opp{o}_river_near", _within_suit(river, -1) + _within_suit(river, 1))
    return np.stack(columns, axis=2).reshape(n * KINDS, len(columns)), names


def uniform_log_probs(unseen: Array, in_hands: Array, unseen_total: Array) -> Array:
    """log P(c copies of a kind in the hands), c = 0..4, when the unseen tiles are dealt
    uniformly: hypergeometric (``unseen`` copies among ``unseen_total`` tiles, ``in_hands``
    of them drawn into the hands). Impossible counts get -inf."""
    c = np.arange(LEVELS)[None, :]
    u, h, t = unseen[:, None], in_hands[:, None], unseen_total[:, None]
    possible = (c <= u) & (h - c >= 0) & (h - c <= t - u)

    def log_choose(a: Array, b: Array) -> Array:
        return np.asarray(gammaln(a + 1) - gammaln(b + 1) - gammaln(a - b + 1))

    with np.errstate(invalid="ignore"):
        logp = (
            log_choose(u, np.minimum(c, u))
            + log_choose(t - u, np.clip(h - c, 0, None))
            - log_choose(t, h)
        )
    return np.where(possible, logp, -np.inf)


def model_probs(features: Array, unseen: Array) -> Array:
    """P(c copies in the hands) from the shipped opponent model: its at-least-j outputs per
    seat made monotone, a count distribution per seat, the three convolved as independent,
    cut at the unseen copies. Shape ``(n, 27, 5)``."""
    opponent, _ = load_models()
    n = len(features)
    at_least = np.asarray(opponent.predict(features).concealed, dtype=np.float64)
    at_least = np.minimum.accumulate(at_least.reshape(n, 3, KINDS, 4), axis=3)
    per_seat = np.empty((n, 3, KINDS, LEVELS))
    per_seat[..., 0] = 1 - at_least[..., 0]
    per_seat[..., 1:4] = at_least[..., :3] - at_least[..., 1:]
    per_seat[..., 4] = at_least[..., 3]
    per_seat = np.clip(per_seat, 1e-6, 1)
    total = np.zeros((n, KINDS, 3 * 4 + 1))
    total[..., :LEVELS] = per_seat[:, 0]
    for seat in (1, 2):
        mixed = np.zeros_like(total)
        for c in range(LEVELS):
            mixed[..., c:] += total[..., : total.shape[2] - c] * per_seat[:, seat, :, c : c + 1]
        total = mixed
    probs = total[..., :LEVELS] * (np.arange(LEVELS)[None, None, :] <= unseen[..., None])
    return np.asarray(probs / probs.sum(axis=2, keepdims=True))


def log_loss_of(probs: Array, truth: Array) -> float:
    chosen = np.take_along_axis(probs, truth[:, None], axis=1)[:, 0]
    return float(-np.log(np.clip(chosen, 1e-9, 1)).mean())


def measure(directory: Path, holdout: float, max_iter: int, seed: int) -> dict[str, Any]:
    """Fit the trees on the first hands, score the three estimates on the held-out rest."""
    data = load_shards(directory)
    features = data["features"]
    n = len(features)
    truth = np.minimum(data["concealed"].astype(np.int64).sum(axis=1), 4)  # n, 27
    unseen = features[:, field_slice("unseen")].astype(np.int64)
    hands = data["hand_index"]
    rows, names = kind_features(features)
    cut = np.quantile(hands, 1 - holdout)
    held_positions = hands > cut
    relevant = (unseen > 0).reshape(-1)  # a kind the seat sees all of has nothing to guess
    train = relevant & np.repeat(~held_positions, KINDS)
    test = relevant & np.repeat(held_positions, KINDS)
    if not train.any() or not test.any():
        raise SystemExit(f"{directory}: too few hands to hold {holdout:.0%} out")
    started = time.process_time()
    trees = HistGradientBoostingClassifier(
        max_iter=max_iter, learning_rate=0.1, max_leaf_nodes=63, random_state=seed
    )
    trees.fit(rows[train], truth.reshape(-1)[train])
    fit_seconds = time.process_time() - started
    test_truth = truth.reshape(-1)[test]
    test_unseen = unseen.reshape(-1)[test]
    tree_probs = np.zeros((int(test.sum()), LEVELS))
    tree_probs[:, trees.classes_] = trees.predict_proba(rows[test])
    tree_probs *= np.arange(LEVELS)[None, :] <= test_unseen[:, None]
    tree_probs /= tree_probs.sum(axis=1, keepdims=True)
    in_hands = rows[test, names.index("in_hands_total")].astype(np.int64)
    unseen_total = rows[test, names.index("unseen_total")].astype(np.int64)
    uniform = np.exp(uniform_log_probs(test_unseen, in_hands, unseen_total))
    network = model_probs(features[held_positions], unseen[held_positions])
    network = network.reshape(-1, LEVELS)[relevant[np.repeat(held_positions, KINDS)]]
    estimates = {"uniform": uniform, "opponent model": network, "boosted trees": tree_probs}
    held = rows[test, names.index("own")] > 0
    wall = rows[test, names.index("wall")]
    subsets = {
        "every kind": np.ones(len(test_truth), dtype=bool),
        "kinds the seat holds": held,
        "wall 40 or more": wall >= 40,
        "wall 20-39": (wall >= 20) & (wall < 40),
        "wall under 20": wall < 20,
    }
    subsets = {subset: mask for subset, mask in subsets.items() if mask.any()}
    table = {
        subset: {
            name: log_loss_of(probs[mask], test_truth[mask]) for name, probs in estimates.items()
        }
        for subset, mask in subsets.items()
    }
    expected = {name: (probs * np.arange(LEVELS)).sum(axis=1) for name, probs in estimates.items()}
    return {
        "positions": n,
        "held_out_rows": int(test.sum()),
        "train_rows": int(train.sum()),
        "fit_cpu_seconds": fit_seconds,
        "log_loss": table,
        "rows_per_subset": {subset: int(mask.sum()) for subset, mask in subsets.items()},
        "squared_error": {
            name: float(((e - test_truth) ** 2).mean()) for name, e in expected.items()
        },
    }


def format_report(report: dict[str, Any]) -> str:
    lines = [
        f"{report['positions']:,} positions; (position, kind) rows: "
        f"{report['train_rows']:,} fitted, {report['held_out_rows']:,} held out; "
        f"trees fitted in {report['fit_cpu_seconds']:.0f} s of CPU",
        "",
        "copies of a kind in the other hands together: log loss on held-out hands "
        "(share of the way from uniform to the truth)",
        "",
        "| rows | n | uniform | opponent model | boosted trees |",
        "|---|---|---|---|---|",
    ]
    for subset, scores in report["log_loss"].items():
        base = scores["uniform"]
        cells = [f"{base:.4f}"] + [
            f"{scores[name]:.4f} ({100 * (base - scores[name]) / base:+.1f} %)"
            for name in ("opponent model", "boosted trees")
        ]
        lines.append(
            f"| {subset} | {report['rows_per_subset'][subset]:,} | " + " | ".join(cells) + " |"
        )
    errors = report["squared_error"]
    lines += [
        "",
        "mean squared error of the expected count: "
        + ", ".join(f"{name} {value:.4f}" for name, value in errors.items()),
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--holdout", type=float, default=0.2, help="share of hands held out")
    parser.add_argument("--max-iter", type=int, default=150, help="boosting rounds")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if not 0 < args.holdout < 1:
        raise SystemExit("--holdout must lie between 0 and 1")
    if args.max_iter < 1:
        raise SystemExit("--max-iter must be at least 1")
    try:
        report = measure(args.dataset, args.holdout, args.max_iter, args.seed)
    except DatasetError as error:
        print(f"{args.dataset}: {error}", file=sys.stderr)
        return 2
    print(format_report(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
