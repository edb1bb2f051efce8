"""Event logs: versioned JSON Lines, and replaying them (DESIGN: the log is the source of truth).

A log starts with a ``start`` event holding the complete starting position (hands, melds,
rivers, 報聽 flags, the wall order, rules, dealer, streak). The seats' decisions are the
``act`` events; everything else (draws, forced moves, claims resolution, payments) follows
from them. Replaying applies the decisions to the starting position and checks that the
same events come out, so a tampered or corrupt log is detected, not silently believed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from typing import IO, Any

from duyun.engine.actions import Action, ActionKind, EngineError
from duyun.engine.round import EVENT_LOG_VERSION, Round, Setup
from duyun.engine.view import copy_event
from duyun.hand import Hand
from duyun.rules import RuleSet
from duyun.tiles import NotationError, tile_from_str


class ReplayError(EngineError):
    """A log that cannot be read or does not replay to the events it records."""


def dump_events(events: Iterable[dict[str, Any]], stream: IO[str]) -> None:
    """Write events as JSON Lines (one event per line, UTF-8, no ASCII escaping)."""
    for event in events:
        stream.write(json.dumps(event, ensure_ascii=False, separators=(",", ":")) + "\n")


def load_events(lines: Iterable[str]) -> list[dict[str, Any]]:
    """Parse JSON Lines, naming the line of any error; blank lines are skipped."""
    events: list[dict[str, Any]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError as error:
            raise ReplayError(f"line {number}: not JSON ({error.msg})") from None
        if not isinstance(event, dict) or "type" not in event:
            raise ReplayError(f"line {number}: an event is a JSON object with a 'type'")
        events.append(event)
    if not events:
        raise ReplayError("the log is empty")
    return events


def split_hands(events: Sequence[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """A file may hold several hands (a match): each starts with a ``start`` event."""
    hands: list[list[dict[str, Any]]] = []
    for event in events:
        if event["type"] == "start":
            hands.append([])
        elif not hands:
            raise ReplayError("the log does not begin with a 'start' event")
        hands[-1].append(event)
    return hands


def setup_from_start(event: dict[str, Any]) -> tuple[Setup, RuleSet]:
    """Rebuild the starting position and rules of a ``start`` event."""
    if event.get("type") != "start":
        raise ReplayError("the first event of a hand must be 'start'")
    version = event.get("version")
    if version != EVENT_LOG_VERSION:
        raise ReplayError(
            f"event log version {version!r} is not supported (this program reads "
            f"version {EVENT_LOG_VERSION})"
        )
    try:
        rules = RuleSet.from_mapping(event["rules"])
        setup = Setup(
            hands=tuple(Hand.parse(text) if text else Hand(()) for text in event["hands"]),
            wall=tuple(tile_from_str(t) for t in event["wall"]),
            dealer=int(event["dealer"]),
            streak=int(event["streak"]),
            discards=tuple(tuple(tile_from_str(t) for t in river) for river in event["discards"]),
            baoting=tuple(bool(b) for b in event["baoting"]),
            turn=int(event["turn"]),
            drawn=bool(event["drawn"]),
            seed=event.get("seed"),
        )
    except (KeyError, TypeError, ValueError, NotationError) as error:
        raise ReplayError(f"bad 'start' event: {error}") from None
    return setup, rules


def action_from_event(event: dict[str, Any]) -> Action | None:
    """The decision an ``act`` event records, or None for ``quit`` (an escape)."""
    verb = event.get("action")
    if verb == "quit":
        return None
    try:
        kind = ActionKind(verb)
        tile = tile_from_str(event["tile"]) if "tile" in event else None
        return Action(int(event["seat"]), kind, tile)
    except (KeyError, TypeError, ValueError) as error:
        raise ReplayError(f"bad 'act' event {event!r}: {error}") from None


def replay_steps(events: Sequence[dict[str, Any]]) -> Iterator[tuple[Round, list[dict[str, Any]]]]:
    """Replay one hand decision by decision: yields the hand and the events each step caused.

    The first step is the start (the deal and any automatic opening moves); each further step
    is one ``act`` event of the log applied. The same Round object is yielded every time, so a
    viewer can show the table after each step.
    """
    if not events:
        raise ReplayError("no events to replay")
    setup, rules = setup_from_start(events[0])
    try:
        game = Round(setup, rules)
    except EngineError as error:
        raise ReplayError(f"bad starting position: {error}") from None
    yield game, [copy_event(event) for event in game.events]
    for index, event in enumerate(events):
        if event["type"] != "act":
            continue
        action = action_from_event(event)
        try:
            seat = int(event["seat"])
            produced = game.escape(seat) if action is None else game.apply(action)
        except EngineError as error:
            raise ReplayError(f"event {index + 1}: {error}") from None
        yield game, produced


def verify_replay(game: Round, events: Sequence[dict[str, Any]]) -> None:
    """Check that replaying produced exactly the logged events, naming the first difference."""
    produced = json.loads(json.dumps(game.events, ensure_ascii=False))
    for index, (got, want) in enumerate(zip(produced, events, strict=False)):
        if got != want:
            raise ReplayError(
                f"event {index + 1} differs on replay: log has {want}, replay gives {got}"
            )
    if len(produced) != len(events):
        raise ReplayError(f"the log has {len(events)} events but replaying gives {len(produced)}")


def replay(events: Sequence[dict[str, Any]], *, verify: bool = True) -> Round:
    """Replay one hand's events; with ``verify`` the regenerated events must match exactly."""
    steps = replay_steps(events)
    game, _ = next(steps)
    for _ in steps:
        pass  # each step advances the same Round
    if verify:
        verify_replay(game, events)
    return game
