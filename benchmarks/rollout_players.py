"""The search's rollout policy as a player: how well its own seat plays the rest of a hand.

大師 values each candidate by playing the rest of the hand with a fast policy
(``duyun.bots.rollout.fast_action``); its own seat there plays the efficient rules with a
few touches of value. A continuation that plays much worse than 大師 itself values the
candidates as that weaker player would, and the judge (``change_judge.py``) cannot see
this, as it plays the same continuation. Here the policy plays P1 for real, on the round's
own counts (only its own seat's tiles, as in a rollout), against three bots, in duplicate
on the same walls as ``paired_bots.py``; a run of 3,000 walls takes about a minute on two
cores, so variants of the policy are measured directly.

Players (``--players``, the first is the base of the paired differences):

- ``plain``: the efficient rules, as the rollouts' other seats play;
- ``value``: the value-aware variant (``SearchBot.VALUE_ROLLOUTS``, 大師's own seat);
- ``routes``: ``value`` with the pattern routes (``SearchBot.ROUTES``);
- ``sharp``: ``value`` with kongs that cost a step and the best-paying wait
  (``SearchBot.SHARP_ROLLOUTS``);
- ``strong``: the strong bot itself, the player 大師 starts from;
- ``value+strong-claims``, ``value+strong-kongs``, ``value+strong-baoting``,
  ``value+strong-discards`` (and the same after ``sharp+``): the policy with the strong
  bot's choice at one kind of decision (a claim on a discard; a turn where a kong is offered;
  a turn where 報聽 is offered; a turn where both choose a plain discard). They say where
  the strong bot's edge over the policy lies.

usage: python benchmarks/rollout_players.py --walls 3000 --seed S
       [--players value,sharp,strong] [--opponents efficient] [--workers 2]
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

from duyun.bots import BOT_NAMES, make_bot
from duyun.bots.base import Bot
from duyun.bots.rollout import fast_action
from duyun.bots.strong import StrongBot
from duyun.engine import Action, ActionKind, Round, SeatView
from paired_bots import p1_wall_points, paired_difference

POLICIES = {
    "plain": (False, False, False),
    "value": (True, False, False),
    "routes": (True, True, False),
    "sharp": (True, False, True),
}
_KONGS = (ActionKind.CONCEALED_KONG, ActionKind.ADDED_KONG)


def _strong_claims(view: SeatView, advice: Action, own: Action) -> bool:
    return view.claim_tile is not None


def _strong_kongs(view: SeatView, advice: Action, own: Action) -> bool:
    return view.claim_tile is None and any(a.kind in _KONGS for a in view.legal)


def _strong_baoting(view: SeatView, advice: Action, own: Action) -> bool:
    return view.claim_tile is None and any(a.kind is ActionKind.BAOTING for a in view.legal)


def _strong_discards(view: SeatView, advice: Action, own: Action) -> bool:
    return (
        view.claim_tile is None
        and advice.kind is ActionKind.DISCARD
        and own.kind is ActionKind.DISCARD
    )


HYBRIDS: dict[str, Callable[[SeatView, Action, Action], bool]] = {
    "strong-claims": _strong_claims,
    "strong-kongs": _strong_kongs,
    "strong-baoting": _strong_baoting,
    "strong-discards": _strong_discards,
}


class PolicyPlayer:
    """P1 playing the rollout policy on the real round (its own seat's counts, the public
    rivers and melds: what a rollout's own seat reads), optionally with the strong bot's
    choice at the decisions ``use_strong`` picks. The strong bot sees every view, so that
    its memory of the hand is what it would be as a player."""

    def __init__(
        self,
        game: Round,
        policy: tuple[bool, bool, bool],
        use_strong: Callable[[SeatView, Action, Action], bool] | None = None,
    ) -> None:
        self.game = game
        self.policy = policy
        self.use_strong = use_strong
        self.strong = StrongBot(0) if use_strong is not None else None

    def choose(self, view: SeatView) -> Action:
        value_aware, routes, sharp = self.policy
        own = fast_action(self.game, view.seat, value_aware, routes, sharp)
        if self.strong is None or self.use_strong is None:
            return own
        advice = self.strong.choose(view)
        return advice if self.use_strong(view, advice, own) else own


def player_factory(name: str) -> Callable[[int, Round], Bot]:
    """``(bot_seed, game) -> P1`` for a player name (module docstring)."""
    if name == "strong":
        return lambda seed, _game: make_bot("strong", seed)
    policy_name, _, hybrid = name.partition("+")
    if policy_name not in POLICIES or (hybrid and hybrid not in HYBRIDS):
        known = [*POLICIES, "strong"] + [f"{p}+{h}" for p in ("value", "sharp") for h in HYBRIDS]
        raise SystemExit(f"unknown player {name!r}: use one of {', '.join(known)}")
    policy = POLICIES[policy_name]
    use_strong = HYBRIDS[hybrid] if hybrid else None
    return lambda _seed, game: PolicyPlayer(game, policy, use_strong)


def wall_points(job: tuple[str, str, int, int]) -> int:
    """P1's points over the four rotations of one wall for player ``name``."""
    name, opponents, seed, unit = job
    return p1_wall_points(player_factory(name), opponents, seed, unit)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="value,sharp,strong")
    parser.add_argument("--walls", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--opponents", default="efficient", choices=BOT_NAMES)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    names = [name.strip() for name in args.players.split(",") if name.strip()]
    if len(names) < 1 or args.walls < 2:
        raise SystemExit("give at least one player and two walls")
    for name in names:
        player_factory(name)  # a bad name fails here, not in every worker
    points: dict[str, list[int]] = {}
    with ProcessPoolExecutor(args.workers) as pool:
        for name in names:
            jobs = [(name, args.opponents, args.seed, unit) for unit in range(args.walls)]
            points[name] = list(pool.map(wall_points, jobs, chunksize=20))
            per_hand = sum(points[name]) / (4 * args.walls)
            print(f"{name:28} {per_hand:+.3f} points per hand", flush=True)
    base = names[0]
    print(f"three {args.opponents}, seed {args.seed}, {args.walls} walls; paired with {base}:")
    for name in names[1:]:
        mean, half_width = paired_difference(points[name], points[base])
        print(f"  {name} - {base}: {mean:+.3f} ± {half_width:.3f} per hand")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
