"""The VIEW sent to clients is folded from the events a seat received; it must equal the
engine's own view of that seat whenever every event is out (and so can never show more)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from duyun.bots import make_bot
from duyun.engine import ActionKind, events_for, new_round
from duyun.rules import RuleSet
from duyun.server.config import ConfigError, config_from_mapping, load_config
from duyun.server.protocol import ProtocolError, fold_view, parse_client_message, view_to_json

_MELDS = (ActionKind.PONG, ActionKind.KONG, ActionKind.ADDED_KONG, ActionKind.CONCEALED_KONG)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    eager=st.floats(0.0, 1.0),
    quit_at=st.integers(0, 200),
    bloody=st.booleans(),
    skill=st.floats(0.0, 1.0),
)
def test_folded_view_equals_engine_view_at_every_step(
    seed: int, eager: float, quit_at: int, bloody: bool, skill: float
) -> None:
    """Normal and 血戰 rooms (R53-R57): wins that do not end the hand, winners leaving (R57),
    refused wins (R17, R9) and escapes at any step all fold to the engine's view."""
    rng = random.Random(seed)
    game = new_round(seed=seed, rules=RuleSet(bloody_battle=bloody, pass_blocks_ron=eager > 0.5))
    bots = [make_bot("efficient", seed=seed + s) for s in range(4)]  # they win: 血戰 play on
    step = 0

    def check() -> None:
        for seat in range(4):
            assert fold_view(events_for(game.events, seat), seat) == view_to_json(game.view(seat))
        spectator = fold_view(events_for(game.events, None), None)
        assert spectator["hand"] == [] and spectator["drawn_tile"] is None
        assert spectator["refused_win"] is None
        engine = view_to_json(game.view(0))
        for key in ("won", "left", "in_hand", "open_hands", "win_tiles", "off_table"):
            assert spectator[key] == engine[key]  # public facts (R53)

    while not game.is_over:
        check()
        if step == quit_at:
            # R45 in the middle of anything; a winner's is a leave (R57), once
            game.escape(rng.choice([s for s in range(4) if not game.left[s]]))
            step += 1
            continue
        winners = [s for s in range(4) if game.won[s] and not game.left[s]]
        if winners and rng.random() < 0.1:
            game.leave(rng.choice(winners))  # R57
            continue
        seat = game.to_act[0]
        legal = list(game.legal_actions(seat))
        wins = [a for a in legal if a.kind is ActionKind.HU]
        melds = [a for a in legal if a.kind in _MELDS or a.kind is ActionKind.BAOTING]
        if rng.random() < skill:
            game.apply(bots[seat].choose(game.view(seat)))
        elif wins and rng.random() < 0.7:
            game.apply(wins[0])
        else:
            game.apply(rng.choice(melds) if melds and rng.random() < eager else rng.choice(legal))
        step += 1
    check_end = [fold_view(events_for(game.events, s), s) for s in range(4)]
    assert check_end == [view_to_json(game.view(s)) for s in range(4)]


def test_config_file_keys_are_checked(tmp_path: object) -> None:
    config = config_from_mapping(
        {
            "claim_window": 2,
            "rooms": [{"id": "vip", "name": "VIP", "stake": 50, "entry": 50000}],
            "allowed_origins": ["https://a.example"],
        }
    )
    assert config.claim_window == 2.0 and config.room("vip") is not None
    assert config.room("novice") is None
    with pytest.raises(ConfigError, match="unknown config key 'claim_windw'"):
        config_from_mapping({"claim_windw": 1})
    with pytest.raises(ConfigError, match="turn_timer"):
        config_from_mapping({"turn_timer": "fast"})
    with pytest.raises(ConfigError, match="rooms\\[0\\]: missing key 'stake'"):
        config_from_mapping({"rooms": [{"id": "x"}]})
    with pytest.raises(ConfigError, match="default_bot"):
        config_from_mapping({"default_bot": "genius"})
    with pytest.raises(ConfigError, match="cannot read"):
        load_config("/nonexistent/duyun.toml")
    assert load_config(None).rooms[0].name == "新手場"


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(
    kind=st.sampled_from(["hello", "act", "join", "ready", "dissolve", "reaction", "zzz", 7]),
    fields=st.dictionaries(
        st.sampled_from(["action", "tile", "seat", "code", "ready", "agree", "id", "rid", "x"]),
        _JSON,
        max_size=4,
    ),
)
def test_any_json_message_is_parsed_or_refused_with_a_code(kind: object, fields: dict) -> None:
    import json

    text = json.dumps({"type": kind, **fields})
    try:
        parse_client_message(text)
    except ProtocolError as error:
        assert error.code in {"bad_json", "bad_message", "unknown_type"} and error.message
