"""What the player types, turned into one of their legal actions.

The engine is the only judge of what is legal: the parser only maps words onto the
``view.legal`` list it is given, and every error names what *is* possible, so that a typo
never ends in a traceback or a silently wrong move.

Accepted forms (case-insensitive, Chinese verbs too)::

    5p  |  3  |  d 5p  |  d 3  |  discard 5p      discard a tile (by notation or hand position)
    b 5p  |  b 3  |  baoting 5p  |  報聽 5p        declare 報聽 with that discard (R25)
    p  |  pong  |  碰                              pong the discard
    k  |  kong  |  槓  [tile]                       any kong (direct, added, concealed)
    h  |  hu  |  胡                                 win
    g  |  pass  |  guo  |  過                       pass
    r  |  redraw  |  t  |  table                  show the table again
    ?  |  help                                    what to type
    0 discard 5p                                  the engine's own action notation
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from duyun.engine import Action, ActionKind, SeatView
from duyun.tiles import NotationError, Tile, tile_from_str, tile_to_str

KONG_KINDS = (ActionKind.KONG, ActionKind.ADDED_KONG, ActionKind.CONCEALED_KONG)

_VERBS: dict[str, str] = {
    "d": "discard",
    "discard": "discard",
    "打": "discard",
    "b": "baoting",
    "baoting": "baoting",
    "bt": "baoting",
    "報聽": "baoting",
    "报听": "baoting",
    "p": "pong",
    "pong": "pong",
    "peng": "pong",
    "碰": "pong",
    "k": "kong",
    "kong": "kong",
    "gang": "kong",
    "槓": "kong",
    "杠": "kong",
    "h": "hu",
    "hu": "hu",
    "win": "hu",
    "胡": "hu",
    "g": "pass",
    "pass": "pass",
    "guo": "pass",
    "x": "pass",
    "過": "pass",
    "过": "pass",
    "?": "help",
    "help": "help",
    "r": "redraw",
    "redraw": "redraw",
    "t": "redraw",
    "table": "redraw",
}

LABELS: dict[ActionKind, str] = {
    ActionKind.DISCARD: "discard",
    ActionKind.BAOTING: "報聽 baoting",
    ActionKind.PONG: "碰 pong",
    ActionKind.KONG: "槓 kong (直槓)",
    ActionKind.ADDED_KONG: "槓 kong (面下槓)",
    ActionKind.CONCEALED_KONG: "槓 kong (暗槓)",
    ActionKind.HU: "胡 hu",
    ActionKind.PASS: "過 pass",
}

SHORT: dict[ActionKind, str] = {
    ActionKind.DISCARD: "5p / 3",
    ActionKind.BAOTING: "b",
    ActionKind.PONG: "p",
    ActionKind.KONG: "k",
    ActionKind.ADDED_KONG: "k",
    ActionKind.CONCEALED_KONG: "k",
    ActionKind.HU: "h",
    ActionKind.PASS: "g",
}


class InputError(ValueError):
    """Input that is not one of the legal actions; the message says what to type instead."""


class HelpRequested(Exception):
    """The player typed ``?`` or ``help``."""


class RedrawRequested(Exception):
    """The player typed ``r`` (``redraw``, ``t``, ``table``): show the table again."""


@dataclass(frozen=True, slots=True)
class HandLayout:
    """The player's concealed tiles in display order: sorted, the drawn tile last and apart.

    Positions (1-based) are how a player names a tile without typing it; the layout is the
    one place that decides them, so the screen and the parser can never disagree.
    """

    tiles: tuple[Tile, ...]
    drawn: Tile | None

    @classmethod
    def of(cls, view: SeatView) -> HandLayout:
        tiles = list(view.hand)
        if view.drawn_tile is not None and view.drawn_tile in tiles:
            tiles.remove(view.drawn_tile)
            tiles.append(view.drawn_tile)
            return cls(tuple(tiles), view.drawn_tile)
        return cls(tuple(tiles), None)

    def tile_at(self, position: int) -> Tile:
        if not 1 <= position <= len(self.tiles):
            raise InputError(f"position {position} is not in your hand (1-{len(self.tiles)})")
        return self.tiles[position - 1]


CHINESE_RANKS = "一二三四五六七八九"
CHINESE_SUITS = {"萬": "m", "万": "m", "筒": "p", "條": "s", "条": "s"}
CHINESE_SUIT_OF = {"m": "萬", "p": "筒", "s": "條"}


def tile_word(tile: Tile, *, chinese: bool = False) -> str:
    """A tile as the table writes it: ``5p``, or ``五筒`` with ``--chinese``."""
    text = tile_to_str(tile)
    if not chinese:
        return text
    return f"{CHINESE_RANKS[int(text[0]) - 1]}{CHINESE_SUIT_OF[text[1]]}"


def describe_action(action: Action, *, chinese: bool = False) -> str:
    """Short human wording of one legal action, e.g. ``"槓 kong (暗槓) 5p"``."""
    label = LABELS[action.kind]
    return label if action.tile is None else f"{label} {tile_word(action.tile, chinese=chinese)}"


def summarize_legal(legal: Sequence[Action], *, chinese: bool = False) -> list[str]:
    """The legal actions as menu entries with their short forms, discards grouped in one line."""
    entries: list[str] = []
    discards = [a.tile for a in legal if a.kind is ActionKind.DISCARD and a.tile is not None]
    baoting = [a.tile for a in legal if a.kind is ActionKind.BAOTING and a.tile is not None]
    for action in legal:
        if action.kind in (ActionKind.DISCARD, ActionKind.BAOTING):
            continue
        tile = "" if action.tile is None else f" {tile_word(action.tile, chinese=chinese)}"
        entries.append(f"[{SHORT[action.kind]}{tile}] {describe_action(action, chinese=chinese)}")
    if baoting:
        tiles = " ".join(tile_word(t, chinese=chinese) for t in baoting)
        entries.append(f"[b TILE] 報聽 baoting with a discard of: {tiles}")
    if discards:
        entries.append("[TILE or position] discard")
    return entries


def _tile_argument(text: str, layout: HandLayout) -> Tile:
    """A tile as notation (``5p``), as shown with ``--chinese`` (``五筒``), or a position."""
    if text.isdigit():
        return layout.tile_at(int(text))
    if len(text) == 2 and text[0] in CHINESE_RANKS and text[1] in CHINESE_SUITS:
        text = f"{CHINESE_RANKS.index(text[0]) + 1}{CHINESE_SUITS[text[1]]}"
    try:
        return tile_from_str(text)
    except NotationError:
        raise InputError(
            f"{text!r} is neither a tile (like 5p) nor a hand position (1-{len(layout.tiles)})"
        ) from None


def _choose(
    legal: Sequence[Action],
    kinds: Sequence[ActionKind],
    tile: Tile | None,
    verb: str,
    chinese: bool = False,
) -> Action:
    """The one legal action of ``kinds`` (with ``tile`` when given), or an error saying why not."""
    matches = [a for a in legal if a.kind in kinds and (tile is None or a.tile == tile)]
    if len(matches) == 1:
        return matches[0]
    possible = [a for a in legal if a.kind in kinds]
    if not possible:
        raise InputError(f"you cannot {verb} now; you may: {_menu(legal, chinese)}")
    if not matches:
        name = tile_word(tile or 0, chinese=chinese)
        if kinds == (ActionKind.DISCARD,):
            raise InputError(f"you hold no {name}")
        options = ", ".join(describe_action(a, chinese=chinese) for a in possible)
        raise InputError(f"you cannot {verb} with {name}; possible: {options}")
    options = ", ".join(describe_action(a, chinese=chinese) for a in matches)
    raise InputError(f"which one? {options} (add the tile, e.g. '{verb[0]} 5p')")


def _menu(legal: Sequence[Action], chinese: bool = False) -> str:
    return "; ".join(summarize_legal(legal, chinese=chinese))


def parse_command(text: str, view: SeatView, *, chinese: bool = False) -> Action:
    """The legal action of ``view.seat`` that ``text`` names.

    Raises :class:`InputError` (with a message listing what is possible) for anything else, and
    :class:`HelpRequested` for ``?``.
    """
    legal = view.legal
    if not legal:
        raise InputError("you have no decision to make now")
    words = text.strip().lower().split()
    if not words:
        raise InputError(f"type an action; you may: {_menu(legal, chinese)}")
    layout = HandLayout.of(view)
    if len(words) >= 2 and words[0] in ("0", "1", "2", "3"):
        return _engine_notation(text, view, chinese)
    first, rest = words[0], words[1:]
    verb = _VERBS.get(first)
    if verb is None:
        # A bare tile or position means "discard it".
        if rest:
            raise InputError(f"unknown command {first!r}; you may: {_menu(legal, chinese)}")
        return _choose(
            legal, (ActionKind.DISCARD,), _tile_argument(first, layout), "discard", chinese
        )
    if verb == "help":
        raise HelpRequested
    if verb == "redraw":
        raise RedrawRequested
    if len(rest) > 1:
        raise InputError(f"too many words in {text.strip()!r}")
    tile = _tile_argument(rest[0], layout) if rest else None
    if verb == "discard":
        if tile is None:
            raise InputError("discard what? e.g. 'd 5p' or 'd 3' (hand position)")
        return _choose(legal, (ActionKind.DISCARD,), tile, "discard", chinese)
    if verb == "baoting":
        if tile is None:
            raise InputError("報聽 needs the discard that goes with it, e.g. 'b 5p' or 'b 3'")
        return _choose(legal, (ActionKind.BAOTING,), tile, "declare 報聽", chinese)
    if verb == "kong":
        return _choose(legal, KONG_KINDS, tile, "kong", chinese)
    if tile is not None:
        raise InputError(f"{first} takes no tile")
    kind = {"pong": ActionKind.PONG, "hu": ActionKind.HU, "pass": ActionKind.PASS}[verb]
    return _choose(legal, (kind,), None, verb, chinese)


def _engine_notation(text: str, view: SeatView, chinese: bool = False) -> Action:
    try:
        action = Action.parse(text.strip().lower())
    except (NotationError, ValueError) as error:
        raise InputError(str(error)) from None
    if action.seat != view.seat:
        raise InputError(f"you play seat {view.seat}, not seat {action.seat}")
    if action not in view.legal:
        raise InputError(f"{action} is not possible now; you may: {_menu(view.legal, chinese)}")
    return action
