"""Replays of whole matches: hands linked to their match (R35, R36), unfinished logs reported,
version 1 logs still read."""

from __future__ import annotations

import io
import itertools
import json
import random
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from duyun.cli.main import app
from duyun.engine import (
    EVENT_LOG_VERSION,
    Match,
    ReplayError,
    Round,
    UnfinishedLogError,
    check_match_links,
    deal_setup,
    dump_events,
    load_events,
    replay,
    split_hands,
)

Hand = list[dict[str, Any]]


def _play(game: Round, seed: int) -> None:
    rng = random.Random(seed)
    while not game.is_over:
        game.apply(rng.choice(list(game.legal_actions(game.to_act[0]))))


def _match_hands(hands: int = 4, seed: int = 11) -> list[Hand]:
    match = Match(hands=hands, seed=seed)
    played: list[Hand] = []
    for index in range(hands):
        game = match.next_hand()
        _play(game, seed + index)
        match.record(game)
        played.append(json.loads(json.dumps(game.events)))
    return played


def test_each_hand_of_a_match_names_its_match() -> None:
    hands = _match_hands()
    links = [hand[0]["match"] for hand in hands]
    assert [link["hand"] for link in links] == [1, 2, 3, 4]
    assert {link["hands"] for link in links} == {4}
    assert len({link["id"] for link in links}) == 1
    assert all(hand[0]["version"] == EVENT_LOG_VERSION == 2 for hand in hands)
    check_match_links(hands)
    for hand in hands:
        replay(hand)


def test_r35_r36_each_hand_is_dealt_as_the_previous_one_ended() -> None:
    hands = _match_hands()
    for previous, current in itertools.pairwise(hands):
        end, start = previous[-1], current[0]
        assert (start["dealer"], start["streak"]) == (end["next_dealer"], end["next_streak"])


@pytest.mark.parametrize(
    ("edit", "error"),
    [
        (lambda h: [h[0], h[2], h[3]], "expected hand 2"),  # deleted
        (lambda h: [h[0], h[1], h[1], h[2], h[3]], "expected hand 3"),  # duplicated
        (lambda h: [h[0], h[2], h[1], h[3]], "expected hand 2"),  # reordered
        (lambda h: [h[1], h[2], h[3]], "earlier hands"),  # the first one deleted
    ],
)
def test_a_deleted_duplicated_or_reordered_hand_is_detected(edit: Any, error: str) -> None:
    hands = _match_hands()
    with pytest.raises(ReplayError, match=error):
        check_match_links(edit(hands))


def test_a_match_cut_short_is_unfinished() -> None:
    hands = _match_hands()
    with pytest.raises(UnfinishedLogError, match="after hand 3 of 4"):
        check_match_links(hands[:3])


def test_a_forged_dealer_or_streak_breaks_the_chain() -> None:
    hands = _match_hands()
    hands[2][0]["streak"] += 1
    with pytest.raises(ReplayError, match="R35, R36"):
        check_match_links(hands)


def test_two_matches_in_one_file_chain_separately() -> None:
    first, second = _match_hands(2, seed=1), _match_hands(3, seed=2)
    check_match_links(first + second)
    with pytest.raises(UnfinishedLogError, match="stops after hand 1 of 2"):
        check_match_links(first[:1] + second)


def test_a_hand_cut_anywhere_is_reported_unfinished() -> None:
    hand = _match_hands(1)[0]
    acts = [i for i, e in enumerate(hand) if e["type"] == "act"]
    for cut in (1, acts[len(acts) // 2] + 1, len(hand) - 1):
        with pytest.raises(UnfinishedLogError, match="unfinished"):
            replay(hand[:cut])
        replay(hand[:cut], verify=False)  # the position at the cut is still available


def test_version_1_logs_are_still_read() -> None:
    game = Round(deal_setup(21), log_version=1)
    _play(game, 21)
    stream = io.StringIO()
    dump_events(game.events, stream)
    events = load_events(stream.getvalue().splitlines())
    assert events[0]["version"] == 1 and "match" not in events[0]
    assert not any(e["type"] == "win_refused" for e in events)
    replayed = replay(events)
    assert replayed.snapshot() == game.snapshot()
    check_match_links(split_hands(events))


def test_an_unknown_version_is_refused() -> None:
    hand = _match_hands(1)[0]
    hand[0]["version"] = 3
    with pytest.raises(ReplayError, match="version 3"):
        replay(hand)


def test_duyun_replay_reports_an_unfinished_log(tmp_path: Path) -> None:
    hand = _match_hands(1)[0]
    path = tmp_path / "cut.jsonl"
    with path.open("w", encoding="utf-8") as stream:
        dump_events(hand[: len(hand) // 2], stream)
    result = CliRunner().invoke(app, ["replay", str(path)])
    assert result.exit_code == 2
    assert "unfinished" in result.output
    assert "Hands at the end" not in result.output


def test_duyun_replay_reports_a_missing_hand(tmp_path: Path) -> None:
    hands = _match_hands(3)
    path = tmp_path / "gap.jsonl"
    with path.open("w", encoding="utf-8") as stream:
        for hand in (hands[0], hands[2]):
            dump_events(hand, stream)
    result = CliRunner().invoke(app, ["replay", "--json", str(path)])
    assert result.exit_code == 2
    assert "expected hand 2" in result.output


def test_a_corrupted_log_is_a_replay_error_never_a_crash() -> None:
    hand = _match_hands(1)[0]
    rng = random.Random(5)
    values: list[Any] = [None, True, 1.5, -1, 4, 27, "x", "5p", [], {}, [None] * 4, 10**30]
    acts = [i for i, e in enumerate(hand) if e["type"] == "act"]
    for _ in range(300):
        events = json.loads(json.dumps(hand))
        index = rng.choice([0, *acts])
        key = rng.choice([k for k in events[index] if k != "type"])
        value = rng.choice(values)
        if (
            isinstance(events[index][key], list)
            and len(events[index][key]) == 4
            and rng.random() < 0.5
        ):
            events[index][key][rng.randrange(4)] = value
        else:
            events[index][key] = value
        try:
            replay(events)
        except ReplayError:
            continue


def test_a_match_log_cut_inside_a_hand_is_unfinished() -> None:
    hands = _match_hands(3)
    with pytest.raises(UnfinishedLogError, match="inside hand 3 of 3"):
        check_match_links([hands[0], hands[1], hands[2][:10]])
    with pytest.raises(ReplayError, match="no 'end' event"):
        check_match_links([hands[0], hands[1][:10], hands[2]])


def test_a_hand_in_progress_resumes_exactly_with_require_end_false() -> None:
    """A server restarted mid-hand resumes from its stored log: the prefix of a log up to any
    decision replays to the same position, while an edited prefix is still refused."""
    game = deal_setup(seed=5)
    live = Round(game)
    rng = random.Random(3)
    for _ in range(25):
        if live.is_over:
            break
        live.apply(rng.choice(list(live.legal_actions(live.to_act[0]))))
    assert not live.is_over
    log = json.loads(json.dumps(live.events, ensure_ascii=False))
    with pytest.raises(UnfinishedLogError):
        replay(log)  # the default still reports an unfinished hand
    resumed = replay(log, require_end=False)
    assert resumed.snapshot() == live.snapshot()
    assert resumed.to_act == live.to_act
    edited = [dict(event) for event in log]
    last_draw = max(i for i, event in enumerate(edited) if event["type"] == "draw")
    edited[last_draw]["tile"] = "1m" if edited[last_draw]["tile"] != "1m" else "2m"
    with pytest.raises(ReplayError, match="differs on replay"):
        replay(edited, require_end=False)
