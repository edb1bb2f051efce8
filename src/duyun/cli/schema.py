"""``duyun schema``: print the JSON Schema of the engine's events (docs/protocol.md "Events")."""

from __future__ import annotations

import typer

from duyun.engine.events import schema_text


def schema() -> None:
    """Print the JSON Schema (draft 2020-12) of the events a hand's log holds."""
    typer.echo(schema_text(), nl=False)


def register(app: typer.Typer) -> None:
    app.command("schema")(schema)
