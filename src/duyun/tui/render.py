"""Pure rendering: engine values (a seat's view, events, a hand's result) → Rich renderables.

Nothing here reads input, prints, or decides anything about the game: every function takes
what the engine reports and returns something a :class:`rich.console.Console` can print. That
keeps the screen testable with ``Console(record=True)`` and keeps rules out of the UI.

Tiles are written in the project's notation (``5p``) or, with ``chinese=True``, as 五筒;
each suit has its own colour (萬 red, 筒 blue, 條 green) so a hand can be read at a glance.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console, Group, RenderableType
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from duyun.describe import (
    WIN_HOW,
    Line,
    Tiles,
    Tone,
    Voice,
    describe,
    payment_reason,
    refusal_line,
)
from duyun.engine import HandResult, MeldView, SeatView
from duyun.hand import Hand, MeldKind
from duyun.tiles import SUIT_NAMES, SUITS, NotationError, Tile, tile_from_str, tile_to_str
from duyun.tui.commands import HandLayout, summarize_legal
from duyun.tui.hints import Hints

SUIT_STYLES = ("bold red", "bold blue", "bold green")
CHINESE_RANKS = "一二三四五六七八九"
HIDDEN_STYLE = "dim"
MELD_NAMES = {
    MeldKind.PONG: "碰",
    MeldKind.DIRECT_KONG: "直槓",
    MeldKind.ADDED_KONG: "面下槓",
    MeldKind.CONCEALED_KONG: "暗槓",
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
    # the hand's rules as its ``start`` event records them: the running log quotes their
    # figures (R45's escape penalty); None reads as the defaults
    rules: Mapping[str, Any] | None = None

    @property
    def voice(self) -> Voice:
        """How the running log (duyun.describe) names the seats at this table."""
        return Voice(self.names, self.human)

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


def render_seats(view: SeatView, info: TableInfo, *, river_tail: int | None = None) -> Table:
    """Each seat's name and marks, concealed count, melds, discards and match points.

    One line per seat where the discards fit; the discards wrap within their column (never
    the whole row) late in a hand at 80 columns. Coins get a column only when the stake
    makes them differ from points (R41). ``river_tail`` keeps only the latest discards of
    each river (``…7 5m 3p``: seven earlier ones left out) when the screen is short.
    """
    table = Table(box=None, expand=True, pad_edge=False, padding=(0, 1), show_edge=False)
    table.add_column("seat", no_wrap=True)
    table.add_column("n", justify="right", no_wrap=True)
    table.add_column("melds", no_wrap=False)
    table.add_column("discards", ratio=1)
    table.add_column("pts", justify="right", no_wrap=True)
    if info.stake != 1:
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
        shown = view.rivers[seat]
        river = Text()
        if river_tail is not None and len(shown) > river_tail:
            river.append(f"…{len(shown) - river_tail} ", style=HIDDEN_STYLE)
            shown = shown[-river_tail:]
        river.append_text(tiles_text(shown, chinese=info.chinese))
        if view.claim_tile is not None and view.claim_from == seat and not view.claim_is_rob:
            river.stylize(
                "reverse", len(river) - len(tile_text(view.claim_tile, chinese=info.chinese))
            )
        points = info.match_points[seat] + view.points[seat]
        cells: list[RenderableType] = [
            name,
            str(view.concealed_sizes[seat]),
            melds,
            river,
            _signed(points),
        ]
        if info.stake != 1:
            cells.append(_signed(points * info.stake))
        table.add_row(*cells)
    return table


def _signed(value: int) -> Text:
    return Text(f"{value:+d}", style="green" if value > 0 else "red" if value < 0 else "")


def render_header(view: SeatView, info: TableInfo) -> Text:
    header = Text(f"Hand {info.hand_number}/{info.hands_total}", style="bold")
    header.append(f" · dealer 莊 {info.seat_label(view.dealer)}")
    header.append(f" · streak 連莊 {view.streak}")
    header.append(" · wall ")
    header.append(
        str(view.wall_remaining), style="bold yellow" if view.wall_remaining <= 4 else "bold"
    )
    if info.stake != 1:
        header.append(f" · {info.stake} coins/point")
    return header


def render_claim(view: SeatView, info: TableInfo) -> Text | None:
    """What the player is being asked to answer, if anything."""
    if view.claim_tile is None or view.claim_from is None or view.seat not in view.to_act:
        return None
    line = Text(f"{info.seat_label(view.claim_from)} ")
    line.append("adds a kong with " if view.claim_is_rob else "discards ")
    line.append_text(tile_text(view.claim_tile, chinese=info.chinese))
    return line


#: Settlement tables: no frame and no blank edge lines, so a settlement fits 80×24.
_COMPACT: dict[str, Any] = {
    "box": box.SIMPLE_HEAD,
    "show_edge": False,
    "pad_edge": False,
    "padding": (0, 1),
    "expand": False,
}

# R17, told in words: players read the rule, not its number
BEAN_NOTE = "(平胡 wins on a discard only with a bean 豆 or from a 報聽 player)"


def render_hints(hints: Hints, *, chinese: bool = False, note: bool = True) -> Text:
    """The hint in two or three short lines: the state of the hand, the best discards (with
    the waits each leaves), and the R17 reminder when a 平胡 wait depends on a bean."""
    text = Text("hint: ", style="italic")
    if hints.can_win:
        text.append("you can win: h 胡")
    elif hints.shanten < 0:
        text.append("complete shape, but no win now (after a pong you discard first)")
    elif hints.shanten == 0 and hints.waits:
        text.append("ready 聽; waits ")
        text.append_text(_waits_text(hints.waits, chinese))
    elif hints.discards and hints.shanten == 0:
        text.append("one discard from ready 聽")
    else:
        text.append(f"shanten 向聽 {hints.shanten}")
    if hints.pong_shanten is not None:
        change = hints.pong_shanten - hints.shanten
        effect = "keeps it" if change == 0 else "lowers it" if change < 0 else "raises it"
        text.append(f"; 碰 pong → shanten {hints.pong_shanten} ({effect})")
    if hints.discards:
        text.append("\n  best discards: " if not hints.can_win else "\n  else discard: ")
        parts = []
        for option in hints.discards:
            part = tile_text(option.tile, chinese=chinese)
            if option.waits:
                part.append(" → waits ")
                part.append_text(_waits_text(option.waits, chinese))
            else:
                part.append(f" ({option.useful_count} useful)", style="dim")
            parts.append(part)
        text.append_text(Text(" · ").join(parts))
    waits = [*hints.waits, *(w for option in hints.discards for w in option.waits)]
    if note and not hints.has_bean and any(fan == 1 for _, _, fan in waits):
        text.append("\n  " + BEAN_NOTE, style="dim")
    return text


def _waits_text(waits: Sequence[tuple[Tile, str, int]], chinese: bool) -> Text:
    parts = []
    for tile, pattern, fan in waits:
        part = tile_text(tile, chinese=chinese)
        part.append(f" {pattern}{fan}", style="dim")
        parts.append(part)
    return Text(" ").join(parts)


def render_actions(view: SeatView, *, chinese: bool = False) -> Text:
    """The legal actions with the short forms that select them."""
    return Text("you may: ", style="bold").append(
        " · ".join(summarize_legal(view.legal, chinese=chinese))
    )


def _rule(title: Text) -> Rule:
    return Rule(title, align="left", style="dim")


def render_table(
    view: SeatView,
    info: TableInfo,
    hints: Hints | None = None,
    *,
    width: int = 80,
    height: int | None = None,
) -> RenderableType:
    """Everything a player sees at the table, from their own view only.

    With ``height`` (the lines the table may take: the terminal's height less the prompt and
    a few lines of the running log) the optional parts give way, least useful first, until
    the table fits: the R17 reminder, then the detail of the hints, then the older discards
    of long rivers (counted, ``…7``). The seats, the hand, the question being asked and the
    legal actions always stay.
    """
    options: list[tuple[bool, bool, int | None]] = [
        (True, True, None),
        (False, True, None),
        (False, False, None),
        *((False, False, tail) for tail in (12, 8, 5)),
    ]
    if height is None:
        options = options[:1]
    renderable: RenderableType = Text("")
    for note, detail, tail in options:
        renderable = _table(view, info, hints, note=note, detail=detail, river_tail=tail)
        if height is None or measure_height(renderable, width) <= height:
            break
    return renderable


def _table(
    view: SeatView,
    info: TableInfo,
    hints: Hints | None,
    *,
    note: bool,
    detail: bool,
    river_tail: int | None = None,
) -> RenderableType:
    parts: list[RenderableType] = [
        _rule(render_header(view, info)),
        render_seats(view, info, river_tail=river_tail),
        render_hand(view, chinese=info.chinese),
    ]
    claim = render_claim(view, info)
    if claim is not None:
        parts.append(claim)
    for line in render_notices(view, info):
        parts.append(line)
    baoting_note = render_baoting_note(view, info)
    if hints is not None:
        # the 報聽 note already says what the R17 reminder would
        text = render_hints(hints, chinese=info.chinese, note=note and baoting_note is None)
        if not detail:
            text = text.split("\n")[0]
        parts.append(text)
    if baoting_note is not None:
        parts.append(baoting_note)
    if view.legal:
        parts.append(render_actions(view, chinese=info.chinese))
    return Group(*parts)


def refusal_text(
    tile: str, from_seat: int, reason: str, pattern: str, info: TableInfo, *, you: str = "your"
) -> Text:
    """Why a tile that completes the player's hand is no win (the engine's ``win_refused``)."""
    line = refusal_line(tile, info.seat_label(from_seat), reason, pattern, whose=you)
    return line_text(line, chinese=info.chinese)


def render_notices(view: SeatView, info: TableInfo) -> list[Text]:
    """A win just refused (R17, R9): the fact the player must not miss on the table."""
    refused = view.refused_win
    if refused is None:
        return []
    return [
        refusal_text(
            tile_to_str(refused.tile), refused.from_seat, refused.reason, refused.pattern, info
        )
    ]


def render_baoting_note(view: SeatView, info: TableInfo) -> Text | None:
    """Part of the 報聽 offer: the discards after which the hand could win only by self-draw
    (every wait 平胡, no bean, and a 報聽 hand never gains one: R17, R26)."""
    if not view.baoting_self_draw_only:
        return None
    line = Text("note: 報聽 with ", style="magenta")
    line.append_text(tiles_text(view.baoting_self_draw_only, chinese=info.chinese, sep="/"))
    line.append(
        " leaves only 平胡 waits and no bean: you could then win only by self-draw 自摸, "
        "搶槓 or a 報聽 player's discard",
        style="magenta",
    )
    return line


def measure_height(renderable: RenderableType, width: int) -> int:
    """The lines ``renderable`` takes at ``width`` columns (rendered off-screen)."""
    console = Console(width=width, file=io.StringIO(), color_system=None, legacy_windows=False)
    return len(console.render_lines(renderable, console.options, pad=False))


# ---------------------------------------------------------------------------- the running log


# how loud a line of duyun.describe is, in the terminal's styles
TONE_STYLES: dict[Tone, str] = {
    "plain": "",
    "bold": "bold",
    "quiet": "dim",
    "notice": "bold yellow",
    "baoting": "bold magenta",
    "win": "bold green",
    "alert": "bold red",
}
# an aside is told in the line's colour without its weight
_ASIDE_STYLES: dict[Tone, str] = {"notice": "not bold yellow"}


def line_text(line: Line, *, chinese: bool = False) -> Text:
    """A line of :mod:`duyun.describe` with its tiles coloured by suit."""
    text = Text(style=TONE_STYLES[line.tone])
    for part in line.parts:
        if isinstance(part, Tiles):
            text.append_text(notation_text(part.text, chinese=chinese))
        else:
            text.append(part)
    if line.aside:
        text.append(line.aside, style=_ASIDE_STYLES.get(line.tone, ""))
    return text


def describe_event(event: Mapping[str, Any], info: TableInfo) -> Text | None:
    """One line of the running log for an event (already redacted for the player), or None
    for events that need no line of their own (decisions, other seats' draws, the end).
    The words are :mod:`duyun.describe`'s, in the table's voice."""
    line = describe(
        event,
        info.voice,
        rules=info.rules,
        hand_number=info.hand_number,
        hands_total=info.hands_total,
    )
    return None if line is None else line_text(line, chinese=info.chinese)


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


def hand_notation_text(notation: str, *, chinese: bool = False) -> Text:
    """A hand written in R2 notation (as events carry it), coloured, in the table's style."""
    try:
        hand = Hand.parse(notation)
    except NotationError:
        return Text(notation)
    concealed = sorted(hand.concealed)
    parts = [tiles_text(concealed, chinese=True) if chinese else _compact_tiles(concealed)]
    parts += [meld_text(MeldView(m.kind, m.tile), chinese=chinese) for m in hand.melds]
    return Text(" ").join(p for p in parts if p.plain)


def _compact_tiles(tiles: Sequence[Tile]) -> Text:
    """``123m55p`` with each suit in its colour: the notation of R2."""
    text = Text()
    for suit in range(3):
        ranks = "".join(str(t % 9 + 1) for t in sorted(tiles) if t // 9 == suit)
        if ranks:
            text.append(ranks + SUITS[suit], style=SUIT_STYLES[suit])
    return text


def render_settlement(
    result: HandResult,
    info: TableInfo,
    *,
    hands: Sequence[str] | None = None,
    match_points: Sequence[int] | None = None,
    wins: Sequence[Mapping[str, Any]] = (),
) -> RenderableType:
    """A hand's settlement: who paid whom, why (pattern and extras), fan, points and coins;
    then every seat's net for the hand and, when given, the match totals and revealed hands.

    ``wins`` are the hand's ``win`` events: a winner's hand is shown as it won, the winning
    tile included (the end of a hand lists a discard winner's 13 tiles only) and named.
    Coins get their own columns only when the stake makes them differ from points (R41).
    """
    coins = info.stake != 1
    rows = Table(title="Payments", title_justify="left", **_COMPACT)
    columns = [("payer", "left"), ("payee", "left"), ("why", "left")]
    columns += [("fan", "right"), ("points", "right")]
    if coins:
        columns.append(("coins", "right"))
    for column, justify in columns:
        # Only the why may wrap: names and numbers stay on one line each.
        rows.add_column(
            column,
            justify=justify,  # type: ignore[arg-type]
            no_wrap=column != "why",
            overflow="fold",  # never an ellipsis in the middle of a reason
        )
    for row in result.payments:
        cells = [
            info.seat_label(row.payer),
            info.seat_label(row.payee),
            payment_reason(row.rule, row.reason),
            str(row.fan),
            str(row.points),
        ]
        if coins:
            cells.append(str(row.points * info.stake))
        rows.add_row(*cells)
    if not result.payments:
        rows.add_row("—", "—", "no payments", "", "", *([""] if coins else []))
    title = "Result: this hand, the match" + (f" (coins = points × {info.stake})" if coins else "")
    net = Table(title=title, title_justify="left", **_COMPACT)
    net.add_column("seat", no_wrap=True)
    net.add_column("pts", justify="right", no_wrap=True)
    if coins:
        net.add_column("coins", justify="right", no_wrap=True)
    if match_points is not None:
        net.add_column("match pts", justify="right", no_wrap=True)
        if coins:
            net.add_column("match coins", justify="right", no_wrap=True)
    net.add_column("tiles at the end")
    won = {int(event["seat"]): event for event in wins if isinstance(event.get("seat"), int)}
    for seat, points in enumerate(result.totals):
        cells_: list[RenderableType] = [info.seat_label(seat), _signed(points)]
        if coins:
            cells_.append(_signed(points * info.stake))
        if match_points is not None:
            cells_.append(_signed(match_points[seat]))
            if coins:
                cells_.append(_signed(match_points[seat] * info.stake))
        cells_.append(_end_hand(seat, hands, won.get(seat), info.chinese))
        net.add_row(*cells_)
    heading = Text(f"Settlement of hand {info.hand_number}/{info.hands_total}", style="bold")
    return Group(
        Rule(heading, characters="═"), _headline(result, info), rows, net, Rule(characters="═")
    )


def _end_hand(
    seat: int, hands: Sequence[str] | None, win: Mapping[str, Any] | None, chinese: bool
) -> Text:
    if win is not None and isinstance(win.get("hand"), str):
        text = hand_notation_text(win["hand"], chinese=chinese)
        if isinstance(win.get("tile"), str):
            text.append("  胡 ", style="bold green")
            text.append_text(notation_text(win["tile"], chinese=chinese))
        return text
    if hands is None:
        return Text("")
    return hand_notation_text(hands[seat], chinese=chinese)


def render_match_end(
    totals: Sequence[int], info: TableInfo, *, hands_played: int
) -> RenderableType:
    """The final standings, best first, in points and coins."""
    table = Table(box=box.SIMPLE_HEAVY)
    table.add_column("seat")
    table.add_column("points", justify="right")
    if info.stake != 1:  # with 1 coin per point the coins repeat the points
        table.add_column(f"coins (× {info.stake})", justify="right")
    order = sorted(range(len(totals)), key=lambda s: -totals[s])
    for seat in order:
        cells: list[RenderableType] = [info.seat_label(seat), _signed(totals[seat])]
        if info.stake != 1:
            cells.append(_signed(totals[seat] * info.stake))
        table.add_row(*cells)
    # the title as a line of its own: a narrow table would wrap it
    return Group(Text(f"Match over after {hands_played} hand(s)", style="bold"), table)


def render_replay_note(replay: Path, command: str = "duyun", *, chinese: bool = False) -> Text:
    """Where the replay went and the command that shows it, as it can be typed here
    (``command``: ``duyun`` when it is on PATH, else e.g. ``.venv/bin/duyun``); print it with
    ``soft_wrap=True`` so the path stays one piece."""
    text = Text(f"Replay saved to {replay}", style="bold")
    option = " --chinese" if chinese else ""
    return text.append(f"\nWatch it with: {command} replay{option} {replay}", style="dim")
