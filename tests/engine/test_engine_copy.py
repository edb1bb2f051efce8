"""Copying a hand in play (issue 23 item 1): ``Round.copy()``, ``copy.copy``,
``copy.deepcopy`` and pickle give an independent game that plays on exactly like the original,
on the compiled build and the pure one alike (``make pure`` runs this file on the source)."""

from __future__ import annotations

import copy
import pickle
import random
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from duyun.bots import make_bot
from duyun.engine import ActionKind, Round, new_round
from duyun.rules import RuleSet

BLOODY = RuleSet(bloody_battle=True)

COPIERS: dict[str, Callable[[Round], Round]] = {
    "copy": lambda game: game.copy(),
    "copy.copy": copy.copy,
    "copy.deepcopy": copy.deepcopy,
    "pickle": lambda game: pickle.loads(pickle.dumps(game)),
    "pickle protocol 2": lambda game: pickle.loads(pickle.dumps(game, protocol=2)),
}


def advance(game: Round, rng: random.Random, steps: int) -> None:
    """Mostly sensible play (so hands reach kongs, 報聽 and wins), sometimes random."""
    bots = [make_bot("efficient", seat) for seat in range(4)]
    for _ in range(steps):
        if game.is_over:
            return
        seat = rng.choice(game.to_act)
        legal = game.legal_actions(seat)
        if rng.random() < 0.7:
            game.apply(bots[seat].choose(game.view(seat)))
        else:
            game.apply(legal[rng.randrange(len(legal))])


def play_out(game: Round, rng: random.Random) -> list[str]:
    """Play to the end with ``rng``'s choices; the actions taken, as text."""
    taken = []
    while not game.is_over:
        seat = game.to_act[0]
        legal = game.legal_actions(seat)
        action = legal[rng.randrange(len(legal))]
        taken.append(str(action))
        game.apply(action)
    return taken


@pytest.mark.parametrize("how", list(COPIERS))
@settings(max_examples=25)
@given(seed=st.integers(0, 10**6), steps=st.integers(0, 120), bloody=st.booleans())
def test_a_copy_plays_on_exactly_like_the_original(
    how: str, seed: int, steps: int, bloody: bool
) -> None:
    game = new_round(seed, rules=BLOODY if bloody else RuleSet())
    advance(game, random.Random(seed), steps)
    before = game.snapshot()
    events_before = len(game.events)
    twin = COPIERS[how](game)
    assert twin is not game and twin.snapshot() == before
    assert twin.events == game.events
    for seat in range(4):
        assert twin.view(seat) == game.view(seat)
    # the same choices on both: the same events, the same result
    assert play_out(twin, random.Random(seed + 1)) == play_out(game, random.Random(seed + 1))
    assert twin.events == game.events
    assert twin.result == game.result
    assert twin.tile_total() == game.tile_total() == 108
    assert len(game.events) >= events_before


@pytest.mark.parametrize("how", list(COPIERS))
@settings(max_examples=25)
@given(seed=st.integers(0, 10**6), steps=st.integers(0, 100))
def test_playing_the_copy_leaves_the_original_unchanged(how: str, seed: int, steps: int) -> None:
    game = new_round(seed)
    advance(game, random.Random(seed), steps)
    before = game.snapshot()
    events = [dict(event) for event in game.events]
    views = [game.view(seat) for seat in range(4)]
    twin = COPIERS[how](game)
    play_out(twin, random.Random(seed))
    if not game.is_over:  # also the copy's own edits of its state
        twin.counts[0][0] += 1
        twin.rivers[1].append(5)
    assert game.snapshot() == before
    assert game.events == events
    assert [game.view(seat) for seat in range(4)] == views


def test_a_copy_in_a_claim_window_keeps_the_answers_apart() -> None:
    """The open window's answers are per game: a seat answering in the copy is still asked in
    the original."""
    for seed in range(200):
        game = new_round(seed)
        rng = random.Random(seed)
        while not game.is_over and not game.claims:
            legal = game.legal_actions(game.to_act[0])
            game.apply(legal[rng.randrange(len(legal))])
        if game.claims is None:
            continue
        seat = game.to_act[0]
        twin = game.copy()
        passing = [a for a in twin.legal_actions(seat) if a.kind is ActionKind.PASS]
        twin.apply(passing[0])
        assert (seat in game.to_act and seat not in twin.to_act[:1]) or twin.is_over
        assert game.legal_actions(seat)
        return
    pytest.fail("no claim window in 200 random hands")


def test_a_finished_hand_copies_with_its_result() -> None:
    game = new_round(7)
    play_out(game, random.Random(7))
    for how, copier in COPIERS.items():
        twin = copier(game)
        assert twin.result == game.result, how
        assert twin.is_over and twin.events == game.events


def test_copying_names_every_field_the_round_sets() -> None:
    """Round.copy, Round._state (pickle) and Round.__setstate__ name every field one by one: a
    field the round gains must be named there too, or a copy would silently lack it."""
    import re
    from pathlib import Path

    engine = Path(__file__).resolve().parents[2] / "src" / "duyun" / "engine"
    round_source = (engine / "round.py").read_text(encoding="utf-8")

    def method(name: str) -> str:
        code = round_source[round_source.index(f"    def {name}(") :]
        return re.split(r"\n(?:    )?def ", code[1:], maxsplit=1)[0]

    fields = set(re.findall(r"self\.(\w+)(?::[^=\n]+)? = ", method("__init__")))
    copied = set(re.findall(r"copy\.(\w+) = ", method("copy")))
    stored = set(re.findall(r'"(\w+)": self\.', method("_state")))
    restored = set(re.findall(r"self\.(\w+) = ", method("__setstate__")))
    assert fields, "no field found in Round.__init__"
    assert fields == copied, fields ^ copied
    caches = {"_self_draw_only", "_waits_cache", "_turn_legal", "meld_views", "ledger_view"}
    assert fields - caches == stored, (fields - caches) ^ stored
    assert fields == restored, fields ^ restored
