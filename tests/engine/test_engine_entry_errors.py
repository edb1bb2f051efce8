"""A bad argument at any public entry of the engine gets the engine's own clear message, on the
compiled build as on the pure one (issue 23 item 5).

The compiled round (mypyc) checks the declared type of every argument and field itself, with
messages such as "int object expected; got str (at round.py:240)": every value from outside is
therefore checked before it reaches a typed place. These tests run on whichever build is
installed (``make build`` compiles, ``make pure`` removes the compiled modules), and assert the
same messages on both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import duyun
from duyun.engine import Action, Match, Round, Setup, deal_setup, events_for, new_round
from duyun.engine.round import Round as RoundFromRound
from duyun.hand import Hand
from duyun.tiles import full_set, tile_to_str

MYPYC_WORDS = ("object expected", "expected; got", "(at ")


def _message(call: Callable[[], object]) -> tuple[type[BaseException], str]:
    with pytest.raises((TypeError, ValueError)) as caught:
        call()
    return caught.type, str(caught.value)


def _game() -> Round:
    return new_round(seed=3)


def _setup(**changes: Any) -> Callable[[], object]:
    fields = {
        "hands": deal_setup(3).hands,
        "wall": deal_setup(3).wall,
    }
    fields.update(changes)
    return lambda: Setup(**fields)


WALL_OF_NAMES = [tile_to_str(tile) for tile in full_set()]

# (call, exception type, the start of the message); each is one public entry with a value of
# the wrong type, or out of range
CASES: list[tuple[str, Callable[[], object], type[BaseException], str]] = [
    (
        "new_round wall_order of tile names",
        lambda: new_round(wall_order=WALL_OF_NAMES),
        TypeError,
        "wall tile must be an integer 0..26, not str '1m'",
    ),
    (
        "new_round wall_order a string",
        lambda: new_round(wall_order="1m" * 108),
        TypeError,
        "wall_order must be a sequence of 108 tile numbers",
    ),
    ("new_round seed a string", lambda: new_round("7"), TypeError, "seed must be an integer"),
    ("new_round seed a float", lambda: new_round(1.5), TypeError, "seed must be an integer"),
    ("new_round dealer a string", lambda: new_round(dealer="0"), TypeError, "dealer must be"),
    ("new_round dealer out of range", lambda: new_round(dealer=4), ValueError, "dealer 4 out"),
    ("new_round streak a float", lambda: new_round(streak=1.0), TypeError, "streak must be"),
    ("new_round rules a dict", lambda: new_round(rules={}), TypeError, "rules must be a RuleSet"),
    ("deal_setup seed a list", lambda: deal_setup([1]), TypeError, "seed must be an integer"),
    ("deal_setup match a str", lambda: deal_setup(match="m"), TypeError, "match must be"),
    ("Round of a dict", lambda: Round({}), TypeError, "Round needs a Setup"),
    ("Round rules a str", lambda: Round(deal_setup(1), "duyun"), TypeError, "rules must be"),
    (
        "Setup wall of names",
        _setup(wall=("1m",) * 55),
        TypeError,
        "wall tile must be an integer 0..26, not str '1m'",
    ),
    ("Setup hands of strings", _setup(hands=("1m",) * 4), TypeError, "setup hands[0] must be"),
    ("Setup dealer a string", _setup(dealer="0"), TypeError, "setup dealer must be an integer"),
    ("Setup streak a float", _setup(streak=0.0), TypeError, "setup streak must be an integer"),
    ("Setup turn a string", _setup(turn="1"), TypeError, "setup turn must be a seat"),
    ("Setup drawn an int", _setup(drawn=1), TypeError, "setup drawn must be true or false"),
    ("Setup baoting of ints", _setup(baoting=(0, 0, 0, 0)), TypeError, "setup baoting[0] must"),
    (
        "Setup discards of names",
        _setup(discards=(("5p",), (), (), ())),
        TypeError,
        "discards[0] tile must be an integer",
    ),
    ("Setup seed a string", _setup(seed="1"), TypeError, "setup seed must be an integer"),
    ("Setup discards a string", _setup(discards="5p"), TypeError, "setup discards must be"),
    ("apply a string", lambda: _game().apply("0 discard 5p"), TypeError, "apply() takes an"),
    ("legal_actions a str", lambda: _game().legal_actions("0"), TypeError, "seat must be"),
    ("legal_actions True", lambda: _game().legal_actions(True), TypeError, "seat must be"),
    ("view a float", lambda: _game().view(0.0), TypeError, "seat must be an integer"),
    ("view out of range", lambda: _game().view(4), ValueError, "seat 4 out of range"),
    ("escape a str", lambda: _game().escape("1"), TypeError, "seat must be an integer"),
    ("leave None", lambda: _game().leave(None), TypeError, "seat must be an integer"),
    ("in_hand a str", lambda: _game().in_hand("1"), TypeError, "seat must be an integer"),
    ("hand_of a str", lambda: _game().hand_of("1"), TypeError, "seat must be an integer"),
    ("held_counts a float", lambda: _game().held_counts(1.0), TypeError, "seat must be"),
    ("waits_of a str", lambda: _game().waits_of("1"), TypeError, "seat must be an integer"),
    ("ready_waits None", lambda: _game().ready_waits(None), TypeError, "seat must be"),
    ("da_jiao a str", lambda: _game().da_jiao("1"), TypeError, "seat must be an integer"),
    ("da_jiao out of range", lambda: _game().da_jiao(9), ValueError, "seat 9 out of range"),
    (
        "baoting_self_draw_only a str",
        lambda: _game().baoting_self_draw_only("0"),
        TypeError,
        "seat must be an integer",
    ),
    ("events_for a str", lambda: events_for(_game().events, "0"), TypeError, "seat must be"),
    ("Action seat a str", lambda: Action("0", Action.parse("0 pass").kind), TypeError, "action"),
    ("Match hands a str", lambda: Match(hands="8"), TypeError, "hands must be an integer"),
    ("Match seed a float", lambda: Match(seed=1.5), TypeError, "seed must be an integer"),
    ("Match rules a str", lambda: Match(rules="duyun"), TypeError, "rules must be a RuleSet"),
    ("Match dealer a str", lambda: Match(first_dealer="0"), TypeError, "first dealer must be"),
    ("Match record a str", lambda: Match().record("hand"), TypeError, "record() takes a Round"),
]


@pytest.mark.parametrize(
    ("call", "kind", "start"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_bad_argument_is_named_in_the_engines_words(
    call: Callable[[], object], kind: type[BaseException], start: str
) -> None:
    raised, message = _message(call)
    assert issubclass(raised, kind), (raised, message)
    assert start in message, message
    assert not any(word in message for word in MYPYC_WORDS), message


def test_a_numpy_like_integer_is_accepted_where_an_int_is() -> None:
    """``__index__`` values (numpy integers, as the RL environment passes) are seats and
    tiles, on both builds: the checks above refuse types, not integer-likes."""

    class Index:
        def __init__(self, value: int) -> None:
            self.value = value

        def __index__(self) -> int:
            return self.value

    game = new_round(Index(5), dealer=Index(1), streak=Index(2))
    assert game.dealer == 1 and game.streak == 2
    assert game.hand_of(Index(1)) == game.hand_of(1)
    assert game.waits_of(Index(2)) == game.waits_of(2)
    assert game.view(Index(0)).seat == 0
    wall = deal_setup(5).hands[1].concealed
    assert Setup(hands=(Hand(()),) * 4, wall=[Index(t) for t in wall]).wall == wall  # type: ignore[misc]


def test_a_list_setup_is_read_as_tuples() -> None:
    """Lists where a Setup declares tuples are accepted (they always were on the pure build)
    and stored as tuples, so the compiled round reads the declared types."""
    dealt = deal_setup(11)
    setup = Setup(
        hands=list(dealt.hands),  # type: ignore[arg-type]
        wall=list(dealt.wall),  # type: ignore[arg-type]
        discards=[[], [], [], []],  # type: ignore[arg-type]
        baoting=[False] * 4,  # type: ignore[arg-type]
    )
    assert setup == dealt.__class__(dealt.hands, dealt.wall)
    assert Round(setup).snapshot() == Round(dealt).snapshot()


def test_the_round_is_the_same_class_from_both_modules() -> None:
    assert RoundFromRound is Round
    assert isinstance(duyun.compiled_modules(), tuple)
