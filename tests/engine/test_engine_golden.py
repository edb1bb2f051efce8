"""Golden-behaviour guard of the engine (issue 12): the speed work must change nothing.

The server stores event logs and replays them, and held-out reference checks compare engine
output, so an optimisation of :mod:`duyun.engine.round` must keep every observable result
exactly: the legal actions (same actions, same order), the events (same dicts, same keys and
values, same order) both as ``apply`` returns them and as the log holds them, every seat's view,
the result and the ledger, for every seed, rule option and event-log version.

Each case plays seeded hands with seeded choices among the legal actions -- uniformly at random,
or "eager" (mostly taking a win, kong, pong or 報聽 when one is offered, so that kongs, robbed
kongs, 報聽 and its forced moves, refused wins and the R9 block all occur), with escapes (R45)
and, in 血戰 rooms, winners leaving the table (R57) in some hands -- and folds everything
observable into one SHA-256 digest.

How the expected digests were made: :func:`digest` run on the engine of commit 895ba7b (main
before the speed work of issue 12), with ``PYTHONPATH=src:. python -c "from
tests.test_engine_golden import digest, CASES; [print(n, digest(n)) for n in CASES]"``.
A digest that changes means that the engine's behaviour changed; if that change is intended
(a rule fix), the new digests must be regenerated the same way and the reason given in the
commit.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

import pytest

from duyun.analysis import shanten
from duyun.engine import Action, ActionKind, LegalActions, Round, deal_setup
from duyun.rules import RuleSet

HANDS = 40  # per case and policy

CASES: dict[str, tuple[RuleSet, int]] = {
    # name: (rules, event-log version)
    "normal": (RuleSet(), 2),
    "bloody": (RuleSet(bloody_battle=True), 2),
    "pass_blocks_ron": (RuleSet(pass_blocks_ron=True), 2),
    "dihu_on_discard": (RuleSet(dihu_on_discard=True), 2),
    "dead_waits_off": (RuleSet(dead_waits_count=False, base_points=1), 2),
    "bloody_all_options": (
        RuleSet(
            bloody_battle=True, pass_blocks_ron=True, dihu_on_discard=True, dead_waits_count=False
        ),
        2,
    ),
    "log_version_1": (RuleSet(pass_blocks_ron=True), 1),
}

EXPECTED: dict[str, str] = {
    "normal": "875a353653fc09cb6bb86d08c133652a83023ab6328f49692c65e2aeaa17c463",
    "bloody": "e86d30efea71b7750b5782cfcf20681219454dacff7e8f95ca0696cf44407f33",
    "pass_blocks_ron": "a64d4bcbc2bfc7dbbd6e6015212f5e47b5626d885c047ca4288634e9cc8d88d9",
    "dihu_on_discard": "8cdb6d0043bfc1c3c2d1b62a0c4d0e56444434b3af03c7749e7cb8a8963a5af4",
    "dead_waits_off": "3eecde049c72a7f83f28092cc9965fb0e774a5b58b381af7f482393acb57372a",
    "bloody_all_options": "4d57cdfd368db0e2d516ba4c9aa4788718d281ae6ed96311fa78dbd05144cf74",
    "log_version_1": "a30e645af959849b7a4a63f3bfac29febba2df4e4f7e0e5abf5a028956431acb",
}

_EAGER_KINDS = frozenset(
    {
        ActionKind.HU,
        ActionKind.PONG,
        ActionKind.KONG,
        ActionKind.CONCEALED_KONG,
        ActionKind.ADDED_KONG,
        ActionKind.BAOTING,
    }
)


def _dump(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, ensure_ascii=False).encode()


def _choose(game: Round, seat: int, legal: LegalActions, rng: random.Random) -> Action:
    """The eager policy: mostly claim or declare what is offered, else mostly discard towards
    a win (lowest shanten), else anything."""
    roll = rng.random()
    choices = [a for a in legal if a.kind in _EAGER_KINDS]
    if choices and roll < 0.8:
        return choices[rng.randrange(len(choices))]
    discards = [a for a in legal if a.kind is ActionKind.DISCARD]
    if discards and roll < 0.9:
        counts = game.counts[seat]
        best: list[Action] = []
        lowest = 99
        for action in discards:
            assert action.tile is not None
            counts[action.tile] -= 1
            value = shanten(counts)
            counts[action.tile] += 1
            if value < lowest:
                best, lowest = [action], value
            elif value == lowest:
                best.append(action)
        return best[rng.randrange(len(best))]
    return legal[rng.randrange(len(legal))]


def _play(game: Round, rng: random.Random, *, eager: bool, escape_at: int | None) -> list[bytes]:
    """Play ``game`` to its end; return the records of everything observable on the way."""
    out: list[bytes] = []
    step = 0
    while not game.is_over:
        to_act = game.to_act
        seat = to_act[0]
        legal = game.legal_actions(seat)
        out.append(repr((to_act, [str(a) for a in legal])).encode())
        out.append(repr(game.view(seat)).encode())
        if escape_at is not None and step == escape_at:
            out.append(_dump(game.escape(seat)))
            break
        if game.bloody and any(game.won) and rng.random() < 0.05:
            leaver = next((s for s in range(4) if game.won[s] and not game.left[s]), None)
            if leaver is not None:
                out.append(_dump(game.leave(leaver)))
        action = _choose(game, seat, legal, rng) if eager else legal[rng.randrange(len(legal))]
        out.append(_dump(game.apply(action)))
        step += 1
    out.append(_dump(game.events))
    out.append(_dump(game.snapshot()))
    out.append(repr(game.result).encode())
    for seat in range(4):
        out.append(repr(game.view(seat)).encode())
    return out


def digest(case: str, hands: int = HANDS) -> str:
    """The SHA-256 of every observable result of ``hands`` seeded hands per policy of ``case``."""
    rules, version = CASES[case]
    sha = hashlib.sha256()
    for eager in (False, True):
        for seed in range(hands):
            rng = random.Random(seed * 2 + eager)
            dealer = seed % 4
            streak = 0 if rules.bloody_battle else seed % 3
            game = Round(deal_setup(seed, dealer=dealer, streak=streak), rules, log_version=version)
            escape_at = rng.randrange(60) if seed % 9 == 4 else None
            for record in _play(game, rng, eager=eager, escape_at=escape_at):
                sha.update(len(record).to_bytes(4, "little"))
                sha.update(record)
    return sha.hexdigest()


@pytest.mark.parametrize("case", sorted(CASES))
def test_engine_output_matches_golden_digest(case: str) -> None:
    """Legal actions, events, views, results and ledgers equal those of the engine before
    the speed work, for every rule option exercised (R9, R11, R20, R53-R57; log version 1)."""
    assert digest(case) == EXPECTED[case]
