"""``duyun scenario FILE.json [--json]``: set up a situation from notation and play it out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from duyun.cli.common import fail, read_json, settlement_table, source_name
from duyun.describe import Narrator
from duyun.engine.scenario import ScenarioError, parse_scenario, run_scenario, scenario_result


def scenario(
    file: Annotated[Path, typer.Argument(help="Scenario JSON file (see README), or - for stdin")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the result as one JSON object")
    ] = False,
    chinese: Annotated[
        bool, typer.Option("--chinese", help="Write tiles as 五筒 instead of 5p")
    ] = False,
) -> None:
    """Play a scenario: hands, wall and actions from JSON; prints the events and settlement."""
    data = read_json(file)
    name = source_name(file)
    try:
        game = run_scenario(parse_scenario(data))
    except ScenarioError as error:
        fail(f"{name}: {error}")
    except (TypeError, KeyError, IndexError, AttributeError, ValueError, RecursionError) as error:
        # The engine validates scenarios field by field; this is the last line of defence so
        # that no input, however odd, ends in a traceback.
        fail(f"{name}: not a valid scenario ({type(error).__name__}: {error})")
    result = scenario_result(game)
    if as_json:
        typer.echo(json.dumps(result, ensure_ascii=False))
        return
    console = Console(highlight=False)
    for line in Narrator(chinese=chinese).texts(game.events):
        console.print(line, markup=False)
    console.print(f"Result: {result['result']}", markup=False)
    if game.ledger:
        console.print(settlement_table(game.ledger, result["totals"]))


def register(app: typer.Typer) -> None:
    app.command("scenario")(scenario)
