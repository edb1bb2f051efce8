"""Pure rendering: engine values (a seat's view, events, a hand's result) → Rich renderables.

Nothing here reads input, prints, or decides anything about the game: every function takes
what the engine reports and returns something a :class:`rich.console.Console` can print. That
keeps the screen testable with ``Console(record=True)`` and keeps rules out of the UI.

Tiles are written in the project's notation (``5p``) or, with ``chinese=True``, as 五筒;
each suit has its own colour (萬 red, 筒 blue, 條 green) so a hand can be read at a glance.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from duyun.engine import HandResult, MeldView, SeatView
from duyun.hand import MeldKind
from duyun.tiles import SUIT_NAMES, SUITS, Tile, tile_from_str, tile_to_str
from duyun.tui.commands import HandLayout, summarize_legal
from duyun.tui.hints import Hints

SUIT_STYLES = ("bold red", "bold blue", "bold green")
CHINESE_RANKS = "一二三四五六七八九"
HIDDEN_STYLE = "dim"
WIN_HOW = {
    "self_draw": "自摸 self-draw",
    "discard": "點炮 on a discard",
    "rob_kong": "搶槓 robbing a kong",
}
MELD_NAMES = {
    MeldKind.PONG: "碰",
    MeldKind.DIRECT_KONG: "直槓",
    MeldKind.ADDED_KONG: "面下槓",
    MeldKind.CONCEALED_KONG: "暗槓",
}
KONG_NAMES = {
    "direct_kong": "直槓 direct kong",
    "added_kong": "面下槓 added kong",
    "concealed_kong": "暗槓 concealed kong",
}


@dataclass(frozen=True, slots=True)
class TableInfo:
    """What the screen needs besides the seat's view: names, match progress, scores, style."""

    names: tuple[str, ...]  # one per seat, e.g. ("You", "strong", ...)
    human: int
    hand_number: int = 1
    hands_total: int = 1
    match_points: tuple[int, ...] = (0, 0, 0, 0)  # before this hand
    stake: int = 1
    chinese: bool = False

    def seat_label(self, seat: int) -> str:
        """``"You"`` or ``"strong 2"``: short enough for an 80-column table."""
        return "You" if seat == self.human else f"{self.names[seat]} {seat}"

    def says(self, seat: int, verb: str, you_verb: str | None = None) -> str:
        """Subject and verb that agree: ``"strong 2 discards"`` but ``"You discard"``."""
        if seat == self.human:
            return f"You {you_verb if you_verb is not None else verb.removesuffix('s')}"
        return f"{self.seat_label(seat)} {verb}"


# ---------------------------------------------------------------------------- tiles


def tile_text(tile: Tile, *, chinese: bool = False) -> Text:
    """One tile, coloured by suit."""
    suit, rank = divmod(tile, 9)
    label = f"{CHINESE_RANKS[rank]}{SUIT_NAMES[suit]}" if chinese else tile_to_str(tile)
    return Text(label, style=SUIT_STYLES[suit])


def tiles_text(tiles: Iterable[Tile], *, chinese: bool = False, sep: str = " ") -> Text:
    """Tiles in the given order, separated by ``sep``."""
    return Text(sep).join(tile_text(t, chinese=chinese) for t in tiles)


def notation_text(text: str, *, chinese: bool = False) -> Text:
    """A tile written as in an event (``"5p"``, or ``"?"`` when hidden from this seat)."""
    if len(text) == 2 and text[1] in SUITS and text[0].isdigit():
        return tile_text(tile_from_str(text), chinese=chinese)
    return Text(text, style=HIDDEN_STYLE)


def meld_text(meld: MeldView, *, chinese: bool = False) -> Text:
    """A meld in R2 notation (``[555p]``, ``(5555p)``); another seat's 暗槓 shows face down."""
    if meld.tile is None:
        return Text("(暗槓 ????)", style=HIDDEN_STYLE)
    size = meld.kind.size
    if chinese:
        body = tile_text(meld.tile, chinese=True)
        inner = Text(f"{MELD_NAMES[meld.kind]}").append_text(body)
    else:
        suit, rank = divmod(meld.tile, 9)
        inner = Text(str(rank + 1) * size + SUITS[suit], style=SUIT_STYLES[suit])
    if meld.kind is MeldKind.CONCEALED_KONG:
        return Text("(").append_text(inner).append(")")
    return Text("[").append_text(inner).append("+]" if meld.kind is MeldKind.ADDED_KONG else "]")


def render_hand(view: SeatView, *, chinese: bool = False) -> Table:
    """The player's concealed tiles with their positions above; the drawn tile set apart."""
    layout = HandLayout.of(view)
    grid = Table.grid(padding=(0, 1))
    count = len(layout.tiles)
    main = count - 1 if layout.drawn is not None else count
    for index in range(count):
        if layout.drawn is not None and index == main:
            grid.add_column(justify="center", min_width=1)  # the gap before the drawn tile
        grid.add_column(justify="center")
    positions: list[RenderableType] = []
    faces: list[RenderableType] = []
    for index, tile in enumerate(layout.tiles):
        if layout.drawn is not None and index == main:
            positions.append(Text(""))
            faces.append(Text("│", style=HIDDEN_STYLE))
        positions.append(Text(str(index + 1), style="dim"))
        faces.append(tile_text(tile, chinese=chinese))
    grid.add_row(*positions)
    grid.add_row(*faces)
    return grid


# ---------------------------------------------------------------------------- the table


def _seat_marks(view: SeatView, seat: int) -> Text:
    marks = Text()
    if seat == view.dealer:
        marks.append(" 莊", style="bold yellow")
        if view.streak:
            marks.append(f"+{view.streak}", style="yellow")  # R36: the dealer's bonus fan
    if view.baoting[seat]:
        marks.append(" 報聽", style="bold magenta")
    if view.has_bean[seat]:
        marks.append(" 豆", style="cyan")
    if seat in view.to_act:
        marks.append(" ◀", style="bold")
    return marks


def render_seats(view: SeatView, info: TableInfo) -> Table:
    """Each seat's name and marks, concealed count, melds, discards and scores."""
    table = Table(box=box.SIMPLE_HEAD, expand=True, pad_edge=False, show_edge=False)
    table.add_column("seat", no_wrap=True)
    table.add_column("tiles", justify="right", no_wrap=True)
    table.add_column("melds")
    table.add_column("discards", ratio=1)
    table.add_column("pts", justify="right", no_wrap=True)
    table.add_column("coins", justify="right", no_wrap=True)
    for seat in range(len(view.rivers)):
        name = Text(
            info.names[seat] if seat != info.human else "You",
            style="bold" if seat == info.human else "",
        )
        name.append(f" {seat}", style="dim")
        name.append_text(_seat_marks(view, seat))
        melds = Text(" ").join(meld_text(m, chinese=info.chinese) for m in view.melds[seat])
        if view.won[seat]:  # R53 血戰: a winner's hand lies open; it plays no more
            opened = Text("胡 ", style="bold green") + tiles_text(
                view.open_hands[seat], chinese=info.chinese
            )
            won_on = view.win_tiles[seat]
            if won_on is not None and len(view.open_hands[seat]) % 3 == 1:  # won on a claim
                opened.append(" +").append_text(tile_text(won_on, chinese=info.chinese))
            melds = opened.append(" ").append_text(melds)
        river = tiles_text(view.rivers[seat], chinese=info.chinese)
        if view.claim_tile is not None and view.claim_from == seat and not view.claim_is_rob:
            river.stylize(
                "reverse", len(river) - len(tile_text(view.claim_tile, chinese=info.chinese))
            )
        points = info.match_points[seat] + view.points[seat]
        table.add_row(
            name,
            str(view.concealed_sizes[seat]),
            melds,
            river,
            _signed(points),
            _signed(points * info.stake),
        )
    return table


def _signed(value: int) -> Text:
    return Text(f"{value:+d}", style="green" if value > 0 else "red" if value < 0 else "")


def render_header(view: SeatView, info: TableInfo) -> Text:
    header = Text(f"Hand {info.hand_number}/{info.hands_total}", style="bold")
    header.append(f"   dealer 莊: {info.seat_label(view.dealer)}")
    header.append(f"   streak 連莊: {view.streak}")
    header.append("   wall: ")
    header.append(
        str(view.wall_remaining), style="bold yellow" if view.wall_remaining <= 4 else "bold"
    )
    return header


def render_claim(view: SeatView, info: TableInfo) -> Text | None:
    """What the player is being asked to answer, if anything."""
    if view.claim_tile is None or view.claim_from is None or view.seat not in view.to_act:
        return None
    line = Text(f"{info.seat_label(view.claim_from)} ")
    line.append("adds a kong with " if view.claim_is_rob else "discards ")
    line.append_text(tile_text(view.claim_tile, chinese=info.chinese))
    return line


def render_hints(hints: Hints, *, chinese: bool = False) -> Text:
    text = Text("hint: ", style="italic")
    if hints.can_win:
        text.append("you can win: h 胡")
    elif hints.shanten < 0:
        text.append("complete shape, but no win now (after a pong: discard, R7)")
    elif hints.shanten == 0 and hints.waits:
        text.append("ready 聽; waits ")
        text.append_text(_waits_text(hints.waits, chinese))
    else:
        text.append(f"shanten 向聽 {hints.shanten}")
    for option in hints.discards:
        text.append("\n  discard ")
        text.append_text(tile_text(option.tile, chinese=chinese))
        if option.waits:
            text.append(" → ready, waits ")
            text.append_text(_waits_text(option.waits, chinese))
        else:
            text.append(f" → shanten {option.shanten}, {option.useful_count} useful tiles left")
    waits = [*hints.waits, *(w for option in hints.discards for w in option.waits)]
    if not hints.has_bean and any(fan == 1 for _, _, fan in waits):
        text.append(
            "\n  (平胡 wins on a discard only with a bean 豆 or from a 報聽 player, R17)",
            style="dim",
        )
    return text


def _waits_text(waits: Sequence[tuple[Tile, str, int]], chinese: bool) -> Text:
    parts = []
    for tile, pattern, fan in waits:
        part = tile_text(tile, chinese=chinese)
        part.append(f" {pattern} {fan}", style="dim")
        parts.append(part)
    return Text(", ").join(parts)


def render_actions(view: SeatView) -> Text:
    """The legal actions with the short forms that select them."""
    return Text("you may: ", style="bold").append(" · ".join(summarize_legal(view.legal)))


def render_table(view: SeatView, info: TableInfo, hints: Hints | None = None) -> RenderableType:
    """Everything a player sees at the table, from their own view only."""
    parts: list[RenderableType] = [render_header(view, info), render_seats(view, info)]
    own = Text("Your hand", style="bold")
    if view.own_melds:
        own.append("   melds: ")
        own.append_text(Text(" ").join(meld_text(m, chinese=info.chinese) for m in view.own_melds))
    parts += [own, render_hand(view, chinese=info.chinese)]
    claim = render_claim(view, info)
    if claim is not None:
        parts.append(claim)
    if hints is not None:
        parts.append(render_hints(hints, chinese=info.chinese))
    if view.legal:
        parts.append(render_actions(view))
    return Panel(Group(*parts), box=box.ROUNDED, padding=(0, 1))


# ---------------------------------------------------------------------------- the running log


def describe_event(event: Mapping[str, Any], info: TableInfo) -> Text | None:
    """One line of the running log for an event (already redacted for the player), or None
    for events that need no line of their own (decisions, other seats' draws, the end)."""
    kind = event["type"]
    chinese = info.chinese
    seat = event.get("seat")
    auto = " (automatic)" if event.get("auto") else ""
    if kind == "start":
        return Text(
            f"— hand {info.hand_number}/{info.hands_total}: "
            f"{info.says(event['dealer'], 'deals')}, streak {event['streak']} —",
            style="bold",
        )
    if kind == "payment":
        return Text(
            f"  {info.says(event['payer'], 'pays')} {info.seat_label(event['payee'])} "
            f"{event['points']} pts ({event['reason']})",
            style="dim",
        )
    if kind == "exhaustive_draw":
        return Text("The wall is empty: 流局 exhaustive draw, 查叫", style="bold yellow")
    if not isinstance(seat, int):
        return None
    if kind == "draw":
        if seat != info.human:
            return None
        line = Text("You draw ")
        line.append_text(notation_text(event["tile"], chinese=chinese))
        return line.append(" (kong replacement)" if event.get("replacement") else "")
    if kind == "discard":
        line = Text(f"{info.says(seat, 'discards')} ")
        line.append_text(notation_text(event["tile"], chinese=chinese))
        return line.append(auto)
    if kind == "baoting":
        return Text(f"{info.says(seat, 'declares')} 報聽 (ready)!", style="bold magenta")
    if kind == "pong":
        line = Text(f"{info.says(seat, 'pongs')} 碰 ", style="bold")
        line.append_text(notation_text(event["tile"], chinese=chinese))
        return line.append(f" from {info.seat_label(event['from'])}")
    if kind == "kong":
        line = Text(
            f"{info.says(seat, 'makes')} {KONG_NAMES.get(event['kind'], '')} ", style="bold"
        )
        line.append_text(notation_text(event["tile"], chinese=chinese))
        if event.get("from") is not None:
            line.append(f" from {info.seat_label(event['from'])}")
        return line
    if kind == "claim":
        return Text(f"{info.says(seat, 'claims')} 胡{auto}", style="bold")
    if kind == "win":
        how = WIN_HOW.get(event["how"], event["how"])
        line = Text(f"{info.says(seat, 'wins', 'win')} 胡 by {how}", style="bold green")
        if event.get("from") is not None:
            line.append(f" from {info.seat_label(event['from'])}")
        if event.get("tile"):
            line.append(" on ")
            line.append_text(notation_text(event["tile"], chinese=chinese))
        return line.append(f": {event['pattern']} {event['fan']} fan{auto}")
    if kind == "escape":
        penalty = "查大叫" if event.get("penalty") == "da_jiao" else "16 × base each"
        return Text(
            f"{info.says(seat, 'quits', 'quit')} the hand: 強退 escape, penalty {penalty} (R45)",
            style="bold red",
        )
    return None


# ---------------------------------------------------------------------------- settlement


def _headline(result: HandResult, info: TableInfo) -> Text:
    if len(result.wins) > 1 or (result.wins and result.result == "escape"):
        # a 血戰 hand (R53): every win in order, then how the hand ended
        text = Text(
            "; ".join(
                f"{info.seat_label(seat)} won by {WIN_HOW.get(win.kind.value, '')}"
                for win in result.wins
                for seat in win.seats
            ),
            style="bold green",
        )
        if result.result == "escape" and result.loser is not None:
            text.append(f"; {info.seat_label(result.loser)} escaped (強退)", style="bold red")
        return text
    if result.result == "win":
        winners = ", ".join(info.seat_label(s) for s in result.winners)
        how = WIN_HOW.get(result.win_kind.value, "") if result.win_kind else ""
        text = Text(f"{winners} won by {how}", style="bold green")
        if result.loser is not None:
            text.append(f", paid by {info.seat_label(result.loser)}")
        return text
    if result.result == "escape" and result.loser is not None:
        return Text(f"{info.seat_label(result.loser)} escaped (強退)", style="bold red")
    return Text("Exhaustive draw (流局)", style="bold yellow")


def render_settlement(
    result: HandResult,
    info: TableInfo,
    *,
    hands: Sequence[str] | None = None,
    match_points: Sequence[int] | None = None,
) -> RenderableType:
    """A hand's settlement: who paid whom, why (pattern and extras), fan, points and coins;
    then every seat's net for the hand and, when given, the match totals and revealed hands."""
    rows = Table(title="Payments", box=box.SIMPLE_HEAVY, expand=False, title_justify="left")
    for column, justify in (
        ("payer", "left"),
        ("payee", "left"),
        ("rule", "left"),
        ("reason", "left"),
        ("fan", "right"),
        ("points", "right"),
        ("coins", "right"),
    ):
        # Only the reason may wrap: names and numbers stay on one line each.
        rows.add_column(column, justify=justify, no_wrap=column != "reason")  # type: ignore[arg-type]
    for row in result.payments:
        rows.add_row(
            info.seat_label(row.payer),
            info.seat_label(row.payee),
            row.rule,
            row.reason,
            str(row.fan),
            str(row.points),
            str(row.points * info.stake),
        )
    if not result.payments:
        rows.add_row("—", "—", "", "no payments", "", "", "")
    net = Table(title="Result (points / coins)", box=box.SIMPLE_HEAVY, title_justify="left")
    net.add_column("seat", no_wrap=True)
    net.add_column("hand", justify="right", no_wrap=True)
    net.add_column("coins", justify="right", no_wrap=True)
    if match_points is not None:
        net.add_column("match", justify="right", no_wrap=True)
        net.add_column("coins", justify="right", no_wrap=True)
    net.add_column("tiles at the end")
    for seat, points in enumerate(result.totals):
        cells: list[RenderableType] = [
            info.seat_label(seat),
            _signed(points),
            _signed(points * info.stake),
        ]
        if match_points is not None:
            cells += [_signed(match_points[seat]), _signed(match_points[seat] * info.stake)]
        cells.append(Text(hands[seat]) if hands is not None else Text(""))
        net.add_row(*cells)
    return Panel(
        Group(_headline(result, info), rows, net),
        title=f"Settlement of hand {info.hand_number}/{info.hands_total}",
        box=box.DOUBLE,
    )


def render_match_end(totals: Sequence[int], info: TableInfo, *, hands_played: int) -> Table:
    """The final standings, best first, in points and coins."""
    table = Table(title=f"Match over after {hands_played} hand(s)", box=box.SIMPLE_HEAVY)
    table.add_column("seat")
    table.add_column("points", justify="right")
    table.add_column(f"coins (×{info.stake})", justify="right")
    order = sorted(range(len(totals)), key=lambda s: -totals[s])
    for seat in order:
        table.add_row(
            info.seat_label(seat), _signed(totals[seat]), _signed(totals[seat] * info.stake)
        )
    return table


def render_replay_note(replay: Path) -> Text:
    """Where the replay went; print it with ``soft_wrap=True`` so the path stays one piece."""
    text = Text(f"Replay saved to {replay}", style="bold")
    return text.append(f"\nWatch it with: duyun replay {replay}", style="dim")
