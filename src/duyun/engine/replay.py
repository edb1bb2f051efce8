"""Event logs: versioned JSON Lines, and replaying them: the log is the source of truth.

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
from duyun.engine.round import (
    READABLE_LOG_VERSIONS,
    MatchLink,
    Round,
    Setup,
)
from duyun.engine.view import copy_event
from duyun.hand import Hand
from duyun.rules import RuleSet
from duyun.tiles import NotationError, tile_from_str


class ReplayError(EngineError):
    """A log that cannot be read or does not replay to the events it records."""


class UnfinishedLogError(ReplayError):
    """A log that stops before its hand (or its match) ended: what it holds replays, but it is
    not a whole hand (or match), so it is not reported as one."""


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


def log_version(event: dict[str, Any]) -> int:
    """The event-log version of a ``start`` event (this program reads versions 1 and 2)."""
    version = event.get("version")
    if type(version) is not int or version not in READABLE_LOG_VERSIONS:
        readable = " and ".join(map(str, READABLE_LOG_VERSIONS))
        raise ReplayError(
            f"event log version {version!r:.20} is not supported (this program reads "
            f"versions {readable})"
        )
    return version


def match_link(event: dict[str, Any]) -> MatchLink | None:
    """The ``match`` link of a ``start`` event (None: a hand on its own, or a version 1 log)."""
    if log_version(event) == 1:
        return None
    if "match" not in event:
        raise ReplayError("bad 'start' event: a version 2 start names its match (or null)")
    data = event["match"]
    if data is None:
        return None
    if not isinstance(data, dict):
        raise ReplayError("bad 'start' event: 'match' must be an object or null")
    try:
        return MatchLink(data["id"], data["hand"], data["hands"])
    except (KeyError, TypeError, ValueError) as error:
        raise ReplayError(f"bad 'start' event: 'match' {error}") from None


def setup_from_start(event: dict[str, Any]) -> tuple[Setup, RuleSet]:
    """Rebuild the starting position and rules of a ``start`` event."""
    if event.get("type") != "start":
        raise ReplayError("the first event of a hand must be 'start'")
    link = match_link(event)
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
            match=link,
        )
    except (KeyError, TypeError, ValueError, NotationError) as error:
        raise ReplayError(f"bad 'start' event: {error}") from None
    return setup, rules


def action_from_event(event: dict[str, Any]) -> Action | None:
    """The decision an ``act`` event records, or None for ``quit`` (an escape) and ``leave``
    (a winner leaving a 血戰 table, R57): those are not :class:`Action` values."""
    verb = event.get("action")
    if verb in ("quit", "leave"):
        return None
    try:
        kind = ActionKind(verb)
        tile = tile_from_str(event["tile"]) if "tile" in event else None
        return Action(event["seat"], kind, tile)  # Action checks the seat's type and range
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
        game = Round(setup, rules, log_version=log_version(events[0]))
    except (EngineError, TypeError) as error:
        raise ReplayError(f"bad starting position: {error}") from None
    yield game, [copy_event(event) for event in game.events]
    for index, event in enumerate(events):
        if event["type"] != "act":
            continue
        action = action_from_event(event)
        try:
            # escape() and leave() check the seat's type and range, as Action does
            if action is not None:
                produced = game.apply(action)
            elif event.get("action") == "leave":
                produced = game.leave(event["seat"])
            else:
                produced = game.escape(event["seat"])
        except KeyError:
            verb = event.get("action")
            raise ReplayError(f"event {index + 1}: a '{verb}' names no seat") from None
        except (EngineError, TypeError) as error:
            raise ReplayError(f"event {index + 1}: {error}") from None
        yield game, produced


def verify_replay(
    game: Round, events: Sequence[dict[str, Any]], *, require_end: bool = True
) -> None:
    """Check that replaying produced exactly the logged events, naming the first difference.

    A log that reproduces but stops before the hand ended raises :class:`UnfinishedLogError`,
    unless ``require_end`` is false: a server resuming a hand in progress after a restart
    needs the same exact check on a log that is unfinished by nature.
    """
    produced = json.loads(json.dumps(game.events, ensure_ascii=False))
    for index, (got, want) in enumerate(zip(produced, events, strict=False)):
        if got != want:
            raise ReplayError(
                f"event {index + 1} differs on replay: log has {want}, replay gives {got}"
            )
    if len(produced) < len(events):
        raise ReplayError(f"the log has {len(events)} events but replaying gives {len(produced)}")
    if len(produced) > len(events):  # a true prefix: cut short
        raise UnfinishedLogError(
            f"unfinished: the log stops after {len(events)} events, in the middle of the "
            f"events of its last decision (replaying gives {len(produced)})"
        )
    if require_end and not game.is_over:
        raise UnfinishedLogError(
            f"unfinished: the log stops after {len(events)} events, before the hand ended "
            f"(seats to act: {', '.join(map(str, game.to_act))})"
        )


def replay(
    events: Sequence[dict[str, Any]], *, verify: bool = True, require_end: bool = True
) -> Round:
    """Replay one hand's events; with ``verify`` the regenerated events must match exactly and
    (with ``require_end``) the hand must have ended (see :func:`verify_replay`). Without
    ``verify``, a log cut anywhere gives the position at its end."""
    steps = replay_steps(events)
    game, _ = next(steps)
    for _ in steps:
        pass  # each step advances the same Round
    if verify:
        verify_replay(game, events, require_end=require_end)
    return game


def check_match_links(hands: Sequence[Sequence[dict[str, Any]]]) -> None:
    """Check that the hands of a file chain into whole matches: a log is evidence, so a hand
    missing, repeated or moved is refused.

    Hands that name a match (``start`` → ``match``, version 2) must come as hand 1, 2, ..., n
    of the same match id, each dealt by the dealer and with the streak that the previous hand's
    ``end`` announced (R35, R36), the first with streak 0; a new match starts at its hand 1. A
    deleted, duplicated or reordered hand breaks the chain and raises :class:`ReplayError`; a
    file that stops before a match's last hand raises :class:`UnfinishedLogError`. Hands that
    name no match (a single hand, a version 1 log) are not chained.
    """
    current: MatchLink | None = None
    previous_end: dict[str, Any] | None = None
    for number, events in enumerate(hands, start=1):
        if not events or events[0].get("type") != "start":
            raise ReplayError(f"hand {number}: does not begin with a 'start' event")
        start = events[0]
        link = match_link(start)
        where = f"hand {number} of the file"
        if current is not None and current.hand < current.hands:
            expected = MatchLink(current.match_id, current.hand + 1, current.hands)
            if link != expected:
                if link is None or link.hand == 1:
                    raise UnfinishedLogError(
                        f"unfinished: match {_short(current.match_id)} stops after hand "
                        f"{current.hand} of {current.hands}; {where} starts another"
                    )
                other = "" if link.match_id == current.match_id else " of another match"
                raise ReplayError(
                    f"{where} is hand {link.hand}{other}, expected hand {expected.hand} of "
                    f"{expected.hands}: a hand is missing, repeated or out of order"
                )
        elif link is not None and link.hand != 1:
            raise ReplayError(
                f"{where} is hand {link.hand} of {link.hands} of match {_short(link.match_id)}, "
                "but its earlier hands are not before it: missing, repeated or out of order"
            )
        if link is None:
            current = previous_end = None
            continue
        if link.hand == 1:
            previous_end = None
        _check_dealer_and_streak(where, start, link, previous_end)
        end = events[-1] if events[-1].get("type") == "end" else None
        if end is None:
            if number < len(hands):
                raise ReplayError(f"{where} has no 'end' event, but the file goes on")
            raise UnfinishedLogError(
                f"unfinished: the log stops inside hand {link.hand} of {link.hands} of its match"
            )
        current, previous_end = link, end
    if current is not None and current.hand < current.hands:
        raise UnfinishedLogError(
            f"unfinished: match {_short(current.match_id)} stops after hand {current.hand} of "
            f"{current.hands}"
        )


def _short(match_id: str) -> str:
    """A match id as messages show it: quoted, and cut if it is long."""
    return repr(match_id if len(match_id) <= 24 else match_id[:21] + "...")


def _check_dealer_and_streak(
    where: str, start: dict[str, Any], link: MatchLink, previous_end: dict[str, Any] | None
) -> None:
    dealer, streak = start.get("dealer"), start.get("streak")
    if previous_end is None:
        if streak != 0:
            raise ReplayError(f"{where} opens a match with streak {streak!r:.12}, not 0 (R36)")
        return
    expected = (previous_end.get("next_dealer"), previous_end.get("next_streak"))
    if (dealer, streak) != expected:
        raise ReplayError(
            f"{where} is dealt by seat {dealer!r:.12} with streak {streak!r:.12}; the hand "
            f"before announced seat {expected[0]!r:.12}, streak {expected[1]!r:.12} (R35, R36)"
        )
