"""The VIEW sent to clients is folded from the events a seat received; it must equal the
engine's own view of that seat whenever every event is out (and so can never show more)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from duyun.engine import ActionKind, events_for, new_round
from duyun.server.config import ConfigError, config_from_mapping, load_config
from duyun.server.protocol import ProtocolError, fold_view, parse_client_message, view_to_json

_MELDS = (ActionKind.PONG, ActionKind.KONG, ActionKind.ADDED_KONG, ActionKind.CONCEALED_KONG)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), eager=st.floats(0.0, 1.0), quit_at=st.integers(0, 200))
def test_folded_view_equals_engine_view_at_every_step(
    seed: int, eager: float, quit_at: int
) -> None:
    rng = random.Random(seed)
    game = new_round(seed=seed)
    step = 0
    while not game.is_over:
        for seat in range(4):
            assert fold_view(events_for(game.events, seat), seat) == view_to_json(game.view(seat))
        spectator = fold_view(events_for(game.events, None), None)
        assert spectator["hand"] == [] and spectator["drawn_tile"] is None
        if step == quit_at:
            game.escape(rng.randrange(4))  # R45 in the middle of anything
            break
        seat = game.to_act[0]
        legal = list(game.legal_actions(seat))
        melds = [a for a in legal if a.kind in _MELDS or a.kind is ActionKind.BAOTING]
        game.apply(rng.choice(melds) if melds and rng.random() < eager else rng.choice(legal))
        step += 1
    for seat in range(4):
        assert fold_view(events_for(game.events, seat), seat) == view_to_json(game.view(seat))


def test_client_messages_are_validated_with_clear_errors() -> None:
    assert parse_client_message('{"type": "ping"}').type == "ping"  # type: ignore[attr-defined]
    for text, code, words in (
        ("{", "bad_json", "not JSON"),
        ('"hi"', "bad_json", "object"),
        ("{}", "bad_message", "type"),
        ('{"type": "x"}', "unknown_type", "'x'"),
        ('{"type": "join", "code": "12"}', "bad_message", "code"),
        ('{"type": "act", "action": "chow"}', "bad_message", "action"),
        ('{"type": "ready", "ready": "yes"}', "bad_message", "ready"),
        ('{"type": "ping", "extra": 1}', "bad_message", "extra"),
    ):
        with pytest.raises(ProtocolError) as caught:
            parse_client_message(text)
        assert caught.value.code == code and words in caught.value.message


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
