"""``duyun replay FILE [--json] [--step]``: a recorded hand step by step, or its final state."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from duyun.cli.common import ODD_INPUT, fail, read_hands, settlement_table, source_name
from duyun.describe import Narrator, chinese_tiles
from duyun.engine.ledger import net_points
from duyun.engine.replay import (
    ReplayError,
    replay,
    replay_steps,
    verify_replay,
)
from duyun.engine.round import Round
from duyun.tiles import tile_to_str


def _final_state(game: Round) -> dict[str, object]:
    return {**game.snapshot(), "events": len(game.events)}


def _hands_table(game: Round, title: str = "Hands at the end", *, chinese: bool = False) -> Table:
    """Every seat's hand, discards, 報聽 and points: the table as an onlooker sees it."""
    table = Table(title=title)
    table.add_column("seat")
    table.add_column("hand")
    table.add_column("discards")
    table.add_column("報聽")
    table.add_column("points", justify="right")
    points = net_points(game.ledger)
    for seat in range(4):
        river = " ".join(tile_to_str(t) for t in game.rivers[seat])
        hand_text = str(game.hand_of(seat))
        if chinese:
            river, hand_text = chinese_tiles(river), chinese_tiles(hand_text)
        mark = " 莊" if seat == game.dealer else ""
        table.add_row(
            f"{seat}{mark}",
            hand_text,
            river,
            "yes" if game.baoting[seat] else "",
            f"{points[seat]:+d}",
        )
    return table


def _step_through(
    console: Console, events: list[dict[str, Any]], pause: bool, *, chinese: bool = False
) -> Round:
    """Show the table after each decision; with ``pause`` wait for Enter (q stops)."""
    game: Round | None = None
    narrator = Narrator(chinese=chinese)
    for number, (game, produced) in enumerate(replay_steps(events)):
        for event in produced:
            line = narrator.text(event)
            if line is not None:
                console.print(line, markup=False)
        title = f"after step {number} — wall {game.wall_remaining}"
        console.print(_hands_table(game, title, chinese=chinese))
        if pause and not game.is_over:
            answer = typer.prompt("Enter: next step, q: stop", default="", show_default=False)
            if answer.strip().lower() in ("q", "quit"):
                raise typer.Exit(0)
    assert game is not None
    verify_replay(game, events)
    return game


def replay_command(
    file: Annotated[
        Path, typer.Argument(help="Event log (JSON Lines), one or more hands; - reads stdin")
    ],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print each hand's final state as one JSON line")
    ] = False,
    hand: Annotated[
        int | None, typer.Option("--hand", help="Only this hand of the file (1 = first)")
    ] = None,
    step: Annotated[
        bool,
        typer.Option(
            "--step",
            help="Show every seat's hand after each decision (waits for Enter on a terminal)",
        ),
    ] = False,
    chinese: Annotated[
        bool, typer.Option("--chinese", help="Write tiles as 五筒 instead of 5p")
    ] = False,
) -> None:
    """Replay a hand log: verifies it reproduces, then shows it step by step."""
    name = source_name(file)
    hands = read_hands(file, hand)
    console = Console(highlight=False)
    for number, events in enumerate(hands, start=1):
        if len(hands) > 1 and not as_json:
            console.rule(f"hand {number}")
        try:
            if step and not as_json:
                game = _step_through(console, events, sys.stdin.isatty(), chinese=chinese)
            else:
                game = replay(events)
        except ReplayError as error:
            fail(f"{name}, hand {number}: {error}")
        except ODD_INPUT as error:
            # The engine checks what it reads; this is the last line of defence so that no
            # log, however odd, ends in a traceback.
            fail(f"{name}, hand {number}: not a valid log ({type(error).__name__}: {error})")
        if as_json:
            typer.echo(json.dumps(_final_state(game), ensure_ascii=False))
            continue
        if not step:
            narrator = Narrator(chinese=chinese)
            for index, event in enumerate(game.events, start=1):
                line = narrator.text(event)
                if line is not None:
                    console.print(f"{index:4d}  {line}", markup=False)
            console.print(_hands_table(game, chinese=chinese))
        if game.result is not None:
            console.print(settlement_table(game.ledger, game.result.totals))


def register(app: typer.Typer) -> None:
    app.command("replay")(replay_command)
