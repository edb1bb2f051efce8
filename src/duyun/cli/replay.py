"""``duyun replay FILE [--json]``: show a recorded hand step by step, or its final state."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from duyun.cli.common import fail, settlement_table
from duyun.describe import describe_event
from duyun.engine.replay import ReplayError, load_events, replay, split_hands
from duyun.engine.round import Round


def _final_state(game: Round) -> dict[str, object]:
    return {**game.snapshot(), "events": len(game.events)}


def _hands_table(game: Round) -> Table:
    table = Table(title="Hands at the end")
    table.add_column("seat")
    table.add_column("hand")
    table.add_column("discards")
    table.add_column("報聽")
    for seat in range(4):
        river = " ".join(f"{t % 9 + 1}{'mps'[t // 9]}" for t in game.rivers[seat])
        table.add_row(
            str(seat), str(game.hand_of(seat)), river, "yes" if game.baoting[seat] else ""
        )
    return table


def replay_command(
    file: Annotated[Path, typer.Argument(help="Event log (JSON Lines), one or more hands")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print each hand's final state as one JSON line")
    ] = False,
    hand: Annotated[
        int | None, typer.Option("--hand", help="Only this hand of the file (1 = first)")
    ] = None,
) -> None:
    """Replay a hand log: verifies it reproduces, then shows it step by step."""
    try:
        lines = file.read_text("utf-8").splitlines()
    except OSError as error:
        fail(f"cannot read {file}: {error.strerror}")
    except UnicodeDecodeError:
        fail(f"{file} is not a UTF-8 text file")
    try:
        hands = split_hands(load_events(lines))
    except ReplayError as error:
        fail(f"{file}: {error}")
    if hand is not None:
        if not 1 <= hand <= len(hands):
            fail(f"--hand {hand}: the file holds {len(hands)} hand(s)")
        hands = [hands[hand - 1]]
    console = Console(highlight=False)
    for number, events in enumerate(hands, start=1):
        try:
            game = replay(events)
        except ReplayError as error:
            fail(f"{file}, hand {number}: {error}")
        if as_json:
            typer.echo(json.dumps(_final_state(game), ensure_ascii=False))
            continue
        if len(hands) > 1:
            console.rule(f"hand {number}")
        for step, event in enumerate(game.events, start=1):
            line = describe_event(event)
            if line is not None:
                console.print(f"{step:4d}  {line}", markup=False)
        console.print(_hands_table(game))
        if game.result is not None:
            console.print(settlement_table(game.ledger, game.result.totals))


def register(app: typer.Typer) -> None:
    app.command("replay")(replay_command)
