"""``duyun schema``: print the JSON Schema of the engine's events (docs/protocol.md "Events"),
or with ``--messages`` of every message the server sends ("Server messages")."""

from __future__ import annotations

from typing import Annotated

import typer

from duyun.engine.events import schema_text


def schema(
    messages: Annotated[
        bool,
        typer.Option(
            "--messages", help="the server's websocket messages instead of the engine's events"
        ),
    ] = False,
) -> None:
    """Print the JSON Schema (draft 2020-12) of the events a hand's log holds."""
    if messages:
        # the server's schema imports nothing of the server's machinery, only its definitions
        from duyun.server.schema import message_schema_text

        typer.echo(message_schema_text(), nl=False)
        return
    typer.echo(schema_text(), nl=False)


def register(app: typer.Typer) -> None:
    app.command("schema")(schema)
