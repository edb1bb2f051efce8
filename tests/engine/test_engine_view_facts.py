"""Facts the clients show: refused wins (R17, R9) and 報聽 declarations that leave only
self-draw (R17, R25, R26, R27)."""

from __future__ import annotations

from duyun.engine import Action, ActionKind, RefusedWin, events_for, redact_event
from duyun.engine.round import Phase
from duyun.tiles import tile_from_str as T
from scenario_helpers import play

R17_HANDS: list[str | None] = ["123456789m1234p1s", "111222444s3369p", "12m456m789s23s55p3m", None]


def _refusals(events: list[dict[str, object]]) -> list[dict[str, object]]:
    return [e for e in events if e["type"] == "win_refused"]


def test_r17_a_refused_pinghu_is_told_to_that_seat_only() -> None:
    game, result = play(R17_HANDS, ["0 discard 1s"])
    refused = _refusals(result["events"])
    assert refused == [
        {
            "type": "win_refused",
            "seat": 2,
            "tile": "1s",
            "from": 0,
            "reason": "R17",
            "pattern": "平胡",
        }
    ]
    assert _refusals(events_for(result["events"], 2)) == refused
    for other in (0, 1, 3, None):
        assert _refusals(events_for(result["events"], other)) == []
        assert redact_event(refused[0], other) is None
    # no claim window for it: seat 1 drew at once and is to play
    assert game.phase is Phase.TURN and game.to_act == (1,)
    assert game.view(2).refused_win == RefusedWin(T("1s"), 0, "R17", "平胡")
    assert game.view(1).refused_win is None


def test_r17_the_refusal_is_kept_until_the_seats_next_draw() -> None:
    game, _ = play(R17_HANDS, ["0 discard 1s"])
    discard = next(a for a in game.legal_actions(1) if a.kind is ActionKind.DISCARD)
    game.apply(discard)
    while game.phase is Phase.CLAIMS:
        seat = game.to_act[0]
        assert game.view(2).refused_win is not None
        game.apply(Action(seat, ActionKind.PASS))
    draws = [e for e in game.events if e["type"] == "draw" and e["seat"] == 2]
    assert draws  # seat 2 drew: the refusal is gone
    assert game.view(2).refused_win is None


def test_r17_replay_reproduces_the_refusal() -> None:
    from duyun.engine import replay

    game, _ = play(R17_HANDS, ["0 discard 1s"])
    again = replay(game.events, verify=False)  # the hand goes on: an unfinished log
    assert again.events == game.events
    assert _refusals(again.events) == _refusals(game.events) != []


def test_r9_a_blocked_win_is_refused_with_r9() -> None:
    hands: list[str | None] = ["123456789m1234p", "111222444s3355p", None, "2468m13579p1357s5p"]
    game, result = play(
        hands,
        ["3 discard 5p", "1 pass", "0 discard 3p"],
        wall="9s",
        turn=3,
        drawn=True,
        rules={"pass_blocks_ron": True},
    )
    refused = _refusals(result["events"])
    assert [(e["seat"], e["tile"], e["from"], e["reason"], e["pattern"]) for e in refused] == [
        (1, "3p", 0, "R9", "對對胡")
    ]
    assert game.result is None or 1 not in game.result.winners


def test_r9_without_the_option_no_refusal() -> None:
    hands: list[str | None] = ["123456789m1234p", "111222444s3355p", None, "2468m13579p1357s5p"]
    _, result = play(
        hands, ["3 discard 5p", "1 pass", "0 discard 3p"], wall="9s", turn=3, drawn=True
    )
    assert _refusals(result["events"]) == []


def test_r26_r17_a_baoting_seat_is_told_its_pinghu_was_refused() -> None:
    _game, result = play(
        ["123456789m12344p", "123456789s1144p", None, None],
        ["0 discard 4p"],
        baoting=[False, True, False, False],
        discards=["", "7m", "", ""],
    )
    assert [(e["seat"], e["reason"]) for e in _refusals(result["events"])] == [(1, "R17")]
    assert not any(e["type"] == "win" for e in result["events"])


def test_r26_r17_baoting_discard_leaving_only_pinghu_waits_is_self_draw_only() -> None:
    game, _ = play(["123456789m1134p9s", None, None, None], [])
    # 9s leaves 123 456 789m 11p 34p waiting 2p 5p: 平胡 only, and a frozen hand gets no bean
    assert game.view(0).baoting_self_draw_only == (T("9s"),)
    assert game.view(1).baoting_self_draw_only == ()


def test_r25_baoting_discard_leaving_a_seven_pairs_wait_is_not_self_draw_only() -> None:
    game, _ = play(["1122m3344p5566s78s", None, None, None], [])
    declarable = {a.tile for a in game.legal_actions(0) if a.kind is ActionKind.BAOTING}
    assert declarable == {T("7s"), T("8s")}
    assert game.view(0).baoting_self_draw_only == ()


def test_r25_mixed_declarations_list_only_the_pinghu_ones() -> None:
    game, _ = play(["111m222m333p556s77s", None, None, None], [])
    view = game.view(0)
    declarable = {a.tile for a in view.legal if a.kind is ActionKind.BAOTING}
    assert declarable == {T(t) for t in ("1m", "2m", "3p", "5s", "6s", "7s")}
    # only 6s leaves 111m 222m 333p 55s 77s, whose waits 5s and 7s score 對對胡 (3 fan)
    assert set(view.baoting_self_draw_only) == declarable - {T("6s")}
