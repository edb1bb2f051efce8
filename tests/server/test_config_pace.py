"""The pace settings (issue 21 items 1 and 4): claim pause per room and per table, the beat,
the bots' think time, the limit between hands; a wrong value is named, never a traceback."""

from __future__ import annotations

from typing import Any

import pytest

from duyun.server.config import ConfigError, ServerConfig, config_from_mapping


def test_defaults_give_the_pace_of_the_apps() -> None:
    config = ServerConfig()
    assert all(room.claim_pause == "natural" for room in config.rooms)
    assert config.claim_beat <= 1.0 and config.bot_delay < config.bot_delay_max <= 1.0
    assert config.bot_fill_wait <= 2.0  # quick match deals within 2 s
    assert config.next_hand_wait < config.next_hand_limit
    public = config.public()
    for key in ("claim_beat", "bot_delay_max", "next_hand_limit"):
        assert public[key] == getattr(config, key)


def test_a_room_may_choose_the_fixed_window() -> None:
    config = config_from_mapping(
        {"rooms": [{"id": "calm", "stake": 1, "claim_pause": "fixed"}, {"id": "quick", "stake": 1}]}
    )
    assert [room.claim_pause for room in config.rooms] == ["fixed", "natural"]
    assert config.rooms[0].to_json()["claim_pause"] == "fixed"


@pytest.mark.parametrize(
    ("data", "named"),
    [
        ({"rooms": [{"id": "a", "stake": 1, "claim_pause": "slow"}]}, "rooms[0].claim_pause"),
        ({"rooms": [{"id": "a", "stake": 1, "claim_pause": 1}]}, "rooms[0].claim_pause"),
        ({"claim_beat": -0.5}, "claim_beat"),
        ({"bot_delay_max": "fast"}, "bot_delay_max"),
        ({"next_hand_limit": float("inf")}, "next_hand_limit"),
    ],
)
def test_a_wrong_pace_setting_is_named(data: dict[str, Any], named: str) -> None:
    with pytest.raises(ConfigError, match=named.replace("[", r"\[").replace("]", r"\]")):
        config_from_mapping(data)


def test_a_private_table_chooses_its_claim_pause(live_server: Any) -> None:
    server = live_server()
    token = server.guest()["token"]
    made = server.http.post(
        "/api/tables", json={"claim_pause": "fixed"}, headers=server.auth(token)
    )
    assert made.status_code == 201, made.text
    assert made.json()["table"]["claim_pause"] == "fixed"
    default = server.http.post("/api/tables", json={}, headers=server.auth(token))
    assert default.json()["table"]["claim_pause"] == "natural"
    wrong = server.http.post(
        "/api/tables", json={"claim_pause": "slow"}, headers=server.auth(token)
    )
    assert wrong.status_code == 400 and "claim_pause" in wrong.text, wrong.text
