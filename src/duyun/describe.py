"""Engine events in words, for people: the one place that turns events into text.

Two voices tell a hand. The *record* (``duyun replay``, ``duyun scenario``) writes every event
with seat numbers and the rules that apply, for someone checking a log. The *table* (the
terminal's running log, :func:`duyun.tui.render.describe_event`) tells a player what just
happened at their table: "You discard 5p", other seats by name, only what needs a line. Both
take their vocabulary and every figure from here, and the figures a RuleSet can change
(R45's escape penalty, R40's base points) from the ``rules`` of the hand's ``start`` event.

A :class:`Line` keeps tiles apart from words (:class:`Tiles`), so a terminal can colour them
and ``--chinese`` can write them 五筒; ``tone`` says how loud the line is, not how it looks.
Pure functions of the event dicts: no I/O, no third-party imports.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from duyun.rules import RuleSet

SEAT_NAMES = ("East 0", "South 1", "West 2", "North 3")

_ACTION_WORDS = {
    "discard": "discards",
    "baoting": "declares 報聽 and discards",
    "pong": "claims 碰 pong",
    "kong": "claims 直槓 kong",
    "added_kong": "declares 面下槓 added kong of",
    "concealed_kong": "declares 暗槓 concealed kong",
    "hu": "declares 胡",
    "pass": "passes 過",
    "quit": "quits (escape)",
    "leave": "leaves the table (R57)",
}

WIN_HOW = {
    "self_draw": "自摸 self-draw",
    "discard": "點炮 on a discard",
    "rob_kong": "搶槓 robbing a kong",
}
_WIN_HOW = WIN_HOW
KONG_NAMES = {
    "direct_kong": "直槓 direct kong",
    "added_kong": "面下槓 added kong",
    "concealed_kong": "暗槓 concealed kong",
}
# why a tile that completes a hand is no win (the ``win_refused`` event's ``reason``), told to
# the player at the table: the words, never the rule number
REFUSAL_REASONS = {
    "R17": "平胡 wins on a discard only with a bean 豆 or from a 報聽 player",
    "R9": "you passed a win since your last turn: 過水 blocks wins on discards until then",
}
_RECORD_REFUSALS = {
    "R17": "平胡 on a discard needs a bean or a 報聽 discarder",
    "R9": "過水: a win was passed since the seat's last turn",
}


CHINESE_RANKS = "一二三四五六七八九"
CHINESE_SUITS = {"m": "萬", "p": "筒", "s": "條"}
_RUN = re.compile(r"([1-9]+)([mps])")


def seat_name(seat: int | None) -> str:
    return "-" if seat is None else f"seat {seat}"


def chinese_tiles(text: str) -> str:
    """Tiles in R2 notation written as the table writes them with ``--chinese``:
    ``5p`` → 五筒, ``123m`` → 一萬 二萬 三萬, melds keep their brackets (``[五筒×3]``)."""

    def run(match: re.Match[str]) -> str:
        ranks, suit = match.group(1), CHINESE_SUITS[match.group(2)]
        return " ".join(f"{CHINESE_RANKS[int(r) - 1]}{suit}" for r in ranks)

    def meld(match: re.Match[str]) -> str:
        open_, ranks, suit, added, close = match.groups()
        size = len(ranks)
        return (
            f"{open_}{CHINESE_RANKS[int(ranks[0]) - 1]}{CHINESE_SUITS[suit]}×{size}{added}{close}"
        )

    text = re.sub(r"([\[(])([1-9]{3,4})([mps])(\+?)([\])])", meld, text)
    text = _RUN.sub(run, text)
    return re.sub("([萬筒條])(?=[一二三四五六七八九])", r"\1 ", text)  # 三萬 五筒, not 三萬五筒


Tone = Literal["plain", "bold", "quiet", "notice", "baoting", "win", "alert"]


@dataclass(frozen=True, slots=True)
class Tiles:
    """Tiles as an event writes them: R2 notation (``5p``, a hand), or ``?`` when hidden."""

    text: str


@dataclass(frozen=True, slots=True)
class Line:
    """One line about an event: words and :class:`Tiles` in order, then an ``aside`` (the
    why of a refused win) told more quietly than the line's ``tone``."""

    parts: tuple[str | Tiles, ...]
    tone: Tone = "plain"
    aside: str = ""

    def text(self, *, chinese: bool = False) -> str:
        """The line as plain text; with ``chinese`` every tile written 五筒 (R2 → Chinese)."""
        body = "".join(part if isinstance(part, str) else part.text for part in self.parts)
        body += self.aside
        return chinese_tiles(body) if chinese else body


@dataclass(frozen=True, slots=True)
class Voice:
    """Who tells the hand: ``names`` (one per seat) and ``you`` make the table's voice, told
    to the player at seat ``you``; without names it is the record, with seat numbers."""

    names: tuple[str, ...] | None = None
    you: int | None = None

    @property
    def is_table(self) -> bool:
        return self.names is not None

    def label(self, seat: int) -> str:
        """``"You"``, ``"strong 2"`` at the table; ``"seat 2"`` in the record."""
        if self.names is None:
            return seat_name(seat)
        return "You" if seat == self.you else f"{self.names[seat]} {seat}"

    def says(self, seat: int, verb: str, you_verb: str | None = None) -> str:
        """Subject and verb that agree: ``"strong 2 discards"`` but ``"You discard"``."""
        if self.names is not None and seat == self.you:
            return f"You {you_verb if you_verb is not None else verb.removesuffix('s')}"
        return f"{self.label(seat)} {verb}"


RECORD = Voice()


def hand_rules(rules: Mapping[str, Any] | RuleSet | None) -> RuleSet:
    """The rules of a hand from its ``start`` event's ``rules`` (a log written before the
    rules were recorded played the defaults)."""
    if isinstance(rules, RuleSet):
        return rules
    defaults = RuleSet()
    if not isinstance(rules, Mapping):
        return defaults
    units = rules.get("escape_penalty_units", defaults.escape_penalty_units)
    base = rules.get("base_points", defaults.base_points)
    if type(units) is not int or type(base) is not int:
        return defaults
    return RuleSet(escape_penalty_units=units, base_points=base)


def escape_penalty(rules: Mapping[str, Any] | RuleSet | None) -> str:
    """R45 (a)'s flat penalty with this hand's figures: ``16 × base (96 points)``."""
    ruleset = hand_rules(rules)
    units, base = ruleset.escape_penalty_units, ruleset.base_points
    return f"{units} × base ({units * base} points)"


_FAN_ITEM = re.compile(r"^(\S+) (\d+)$")


def _fan_items(reason: str) -> str:
    """The fan list after a reason's colon (``點炮: 清一色 2 + 報聽 1``) as `` (清一色 2 + 報聽 1
    fan)``; empty when the text after the colon is no fan list."""
    _, colon, detail = reason.partition(":")
    items = [item.strip() for item in detail.split("+")] if colon else []
    if not items or not all(_FAN_ITEM.match(item) for item in items):
        return ""
    return f" ({' + '.join(items)} fan)"


def payment_reason(rule: str, reason: str) -> str:
    """A settlement row's why, for a player: the engine's ``reason`` is written for the record
    (``點炮: 清一色 2``, ``R12`` ``暗槓``) and its ``rule`` is a number players do not read, so
    the table says what happened in words (the web page's settlement says the same)."""
    fans = _fan_items(reason)
    if rule == "R28":
        if reason.startswith("槓上炮"):
            return "槓上炮: the kong's income handed over to the winner"
        return f"點炮 win on a discard{fans}"
    if rule == "R29":
        for name, words in (
            ("搶槓", "搶槓 robbing a kong"),
            ("槓上花", "槓上花 self-draw after a kong"),
        ):
            if reason.startswith(name):
                return words + fans
        return f"自摸 self-draw{fans}"
    if rule == "R12":
        return f"bean 豆 for a {_kong_words(reason)}"
    if rule == "R14":
        kong = reason.removeprefix("黃豆: returns ").strip()
        return f"黃豆: not ready at the draw, hands back the bean for a {_kong_words(kong)}"
    if rule == "R30":
        return f"查大叫: not ready at the draw, pays a ready player{fans}"
    if rule == "R45":
        flat = re.search(r"(\d+) × base", reason)
        if flat and not fans:
            return f"escape penalty: {flat.group(1)} × base"
        return f"escape, paid as 查大叫{fans}"
    return reason


def _kong_words(kind: str) -> str:
    """``直槓 銀豆`` (the engine's bean reason) as ``直槓 direct kong (銀豆)``."""
    name, _, bean = kind.strip().partition(" ")
    words = next((w for w in KONG_NAMES.values() if name and w.startswith(name)), name or "kong")
    return f"{words} ({bean})" if bean else words


def refusal_line(
    tile: str, from_label: str, reason: str, pattern: str, *, whose: str = "your"
) -> Line:
    """Why a tile that completes ``whose`` hand is no win (R17, R9), in the table's voice."""
    return Line(
        ("✗ ", Tiles(tile), f" from {from_label} completes {whose} hand ({pattern}), but no win: "),
        "notice",
        REFUSAL_REASONS.get(reason, reason),
    )


def describe(
    event: Mapping[str, Any],
    voice: Voice = RECORD,
    *,
    rules: Mapping[str, Any] | RuleSet | None = None,
    hand_number: int = 1,
    hands_total: int = 1,
) -> Line | None:
    """The line for ``event`` in ``voice``, or None when it needs no line of its own.

    ``rules`` are the hand's (its ``start`` event's ``rules``; :class:`Narrator` keeps them
    for a stream of events); ``hand_number``/``hands_total`` head the table's hand line.
    """
    if voice.is_table:
        return _table(event, voice, rules, hand_number, hands_total)
    return _record(event, rules)


def describe_event(
    event: Mapping[str, Any],
    *,
    chinese: bool = False,
    rules: Mapping[str, Any] | RuleSet | None = None,
) -> str | None:
    """One record line for an event, or None for events that only repeat another line; with
    ``chinese`` the tiles are written 五筒 instead of 5p. A ``start`` event's own rules
    override ``rules``."""
    line = _record(event, rules)
    return None if line is None else line.text(chinese=chinese)


class Narrator:
    """Tells a stream of events (one or more hands) in one voice, keeping each hand's rules
    from its ``start`` event for the lines that quote them."""

    def __init__(self, voice: Voice = RECORD, *, chinese: bool = False) -> None:
        self.voice = voice
        self.chinese = chinese
        self.rules: Mapping[str, Any] | None = None

    def line(self, event: Mapping[str, Any]) -> Line | None:
        if event.get("type") == "start":
            rules = event.get("rules")
            self.rules = rules if isinstance(rules, Mapping) else None
        return describe(event, self.voice, rules=self.rules)

    def text(self, event: Mapping[str, Any]) -> str | None:
        line = self.line(event)
        return None if line is None else line.text(chinese=self.chinese)

    def texts(self, events: Iterable[Mapping[str, Any]]) -> list[str]:
        return [text for event in events if (text := self.text(event)) is not None]


def _tile(event: Mapping[str, Any], key: str = "tile") -> Tiles:
    return Tiles(str(event[key]))


def _record(event: Mapping[str, Any], rules: Mapping[str, Any] | RuleSet | None) -> Line | None:
    kind = event["type"]
    seat = event.get("seat")
    who = seat_name(seat)
    if kind == "start":
        hands = " | ".join(f"{i}: {h}" for i, h in enumerate(event["hands"]))
        wall = event["wall"]
        size = wall if isinstance(wall, int) else len(wall)
        return Line(
            (
                f"Hand starts: dealer seat {event['dealer']}, streak {event['streak']}, "
                f"wall {size} tiles. Hands ",
                Tiles(hands),
            )
        )
    if kind == "act":
        if event["action"] in ("discard", "baoting", "leave"):
            return None  # the discard (or leave) event says it
        words = _ACTION_WORDS.get(event["action"], event["action"])
        if "tile" in event:
            return Line((f"{who} {words} ", _tile(event)))
        return Line((f"{who} {words}",))
    if kind == "draw":
        source = "replacement tile" if event["replacement"] else "tile"
        last = " (one of the last four, R19)" if event["last_four"] else ""
        return Line((f"{who} draws {source} ", _tile(event), last))
    if kind == "discard":
        auto = " (automatic, 報聽 R26)" if event["auto"] else ""
        return Line((f"{who} discards ", _tile(event), auto))
    if kind == "baoting":
        return Line((f"{who} declares 報聽 (R25)",), "baoting")
    if kind == "win_refused":
        reason = _RECORD_REFUSALS.get(event["reason"], event["reason"])
        return Line(
            (
                f"{who} is refused a win on ",
                _tile(event),
                f" from seat {event['from']} ({event['pattern']}): {reason} ({event['reason']})",
            ),
            "notice",
        )
    if kind == "claim":
        return Line((f"{who} must win on it (R19/R26)",))
    if kind == "pong":
        return Line((f"{who} pongs ", _tile(event), f" from seat {event['from']}"))
    if kind == "kong":
        name = KONG_NAMES[event["kind"]].split()[0]
        return Line((f"{who} makes {name} of ", _tile(event)))
    if kind == "win":
        how = WIN_HOW.get(event["how"], event["how"])
        source = f" from seat {event['from']}" if event["from"] is not None else ""
        auto = " (automatic)" if event["auto"] else ""
        extras = "".join(f" + {extra}" for extra in event.get("extras", ()))
        return Line(
            (
                f"{who} wins by {how}{source} on ",
                _tile(event),
                f"{auto}: {event['pattern']} {event['fan']} fan{extras} — ",
                _tile(event, "hand"),
            ),
            "win",
        )
    if kind == "leave":
        return Line((f"{who} has won and leaves the table (R57); the hand goes on",))
    if kind == "payment":
        return Line(
            (
                f"  seat {event['payer']} pays seat {event['payee']} {event['points']} points "
                f"({event['fan']} × base, {event['rule']} {event['reason']})",
            ),
            "quiet",
        )
    if kind == "exhaustive_draw":
        ready = ", ".join(
            f"seat {i} {'won' if r is None else 'ready' if r else 'not ready'}"
            for i, r in enumerate(event["ready"])
        )  # null: a 血戰 winner, no longer in the hand (R56)
        return Line((f"Exhaustive draw (流局): {ready}",), "notice")
    if kind == "escape":
        penalty = _escape_words(event, rules)
        return Line((f"{who} escapes: penalty {penalty} (R45)",), "alert")
    if kind == "end":
        totals = ", ".join(f"{i}: {t:+d}" for i, t in enumerate(event["totals"]))
        winners = event.get("winners") or []
        won = f" Winners in order: {', '.join(map(str, winners))}." if "wins" in event else ""
        return Line(
            (
                f"Hand ends ({event['result']}).{won} Totals {totals}. Next dealer seat "
                f"{event['next_dealer']}, streak {event['next_streak']}",
            ),
            "bold",
        )
    return None


def _escape_words(event: Mapping[str, Any], rules: Mapping[str, Any] | RuleSet | None) -> str:
    """R45: 查大叫 near the end of the wall, else the flat penalty to each other player
    still in the hand, with this hand's figures."""
    if event.get("penalty") == "da_jiao":
        return "查大叫"
    return f"{escape_penalty(rules)} to each other player in the hand"


def _table(
    event: Mapping[str, Any],
    voice: Voice,
    rules: Mapping[str, Any] | RuleSet | None,
    hand_number: int,
    hands_total: int,
) -> Line | None:
    kind = event["type"]
    seat = event.get("seat")
    auto = " (automatic)" if event.get("auto") else ""
    if kind == "start":
        return Line(
            (
                f"— hand {hand_number}/{hands_total}: "
                f"{voice.says(event['dealer'], 'deals')}, streak {event['streak']} —",
            ),
            "bold",
        )
    if kind == "payment":
        return Line(
            (
                f"  {voice.says(event['payer'], 'pays')} {voice.label(event['payee'])} "
                f"{event['points']} pts ({payment_reason(event['rule'], event['reason'])})",
            ),
            "quiet",
        )
    if kind == "exhaustive_draw":
        return Line(("The wall is empty: 流局 exhaustive draw, 查叫",), "notice")
    if not isinstance(seat, int):
        return None
    if kind == "win_refused":
        whose = "your" if seat == voice.you else f"{voice.label(seat)}'s"
        return refusal_line(
            event["tile"],
            voice.label(event["from"]),
            event["reason"],
            event["pattern"],
            whose=whose,
        )
    if kind == "draw":
        if seat != voice.you:
            return None  # another seat's draw is on the table already
        replacement = " (kong replacement)" if event.get("replacement") else ""
        return Line(("You draw ", _tile(event), replacement))
    if kind == "discard":
        return Line((f"{voice.says(seat, 'discards')} ", _tile(event), auto))
    if kind == "baoting":
        return Line((f"{voice.says(seat, 'declares')} 報聽 (ready)!",), "baoting")
    if kind == "pong":
        return Line(
            (
                f"{voice.says(seat, 'pongs')} 碰 ",
                _tile(event),
                f" from {voice.label(event['from'])}",
            ),
            "bold",
        )
    if kind == "kong":
        source = f" from {voice.label(event['from'])}" if event.get("from") is not None else ""
        name = KONG_NAMES.get(event["kind"], "")
        return Line((f"{voice.says(seat, 'makes')} {name} ", _tile(event), source), "bold")
    if kind == "claim":
        return Line((f"{voice.says(seat, 'claims')} 胡{auto}",), "bold")
    if kind == "win":
        how = WIN_HOW.get(event["how"], event["how"])
        parts: list[str | Tiles] = [f"{voice.says(seat, 'wins', 'win')} 胡 by {how}"]
        if event.get("from") is not None:
            parts.append(f" from {voice.label(event['from'])}")
        if event.get("tile"):
            parts += [" on ", _tile(event)]
        parts.append(f": {event['pattern']} {event['fan']} fan{auto}")
        return Line(tuple(parts), "win")
    if kind == "escape":
        quits = voice.says(seat, "quits", "quit")
        penalty = _escape_words(event, rules)
        return Line(
            (f"{quits} the hand: 強退 escape, penalty {penalty}",),
            "alert",
        )
    return None
