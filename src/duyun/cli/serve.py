"""``duyun serve``: the online game server (uvicorn, SQLite by default, PostgreSQL when asked)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated

import typer

from duyun.cli.common import require_server_extra

DEFAULT_DATABASE = "sqlite:///duyun.db"


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)


def serve(
    host: Annotated[str, typer.Option("--host", help="Address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="Port")] = 8000,
    database_url: Annotated[
        str,
        typer.Option(
            "--database-url",
            envvar="DUYUN_DATABASE_URL",
            help="SQLAlchemy URL: sqlite:///path.db (created and migrated on start) or "
            "postgresql://user:password@host/db",
        ),
    ] = DEFAULT_DATABASE,
    config: Annotated[
        Path | None,
        typer.Option("--config", help="TOML config file: rooms, timers, limits (docs/deploy.md)"),
    ] = None,
    owner: Annotated[
        str | None,
        typer.Option(
            "--owner",
            help="Name of this process when several servers share one PostgreSQL database "
            "(docs/deploy.md): it restores and holds only its own matches",
        ),
    ] = None,
    forwarded_allow_ips: Annotated[
        str | None,
        typer.Option(
            "--forwarded-allow-ips",
            help="Proxies whose X-Forwarded-For/-Proto are believed (comma-separated addresses "
            "or networks, '*' = any); default: config forwarded_allow_ips (127.0.0.1)",
        ),
    ] = None,
    log_level: Annotated[str, typer.Option("--log-level", help="Log level")] = "info",
) -> None:
    """Run the online game server: the browser client at /, websockets at /ws, REST at /api."""
    require_server_extra("serve")
    import uvicorn

    from duyun.server.app import HTTP_HEADROOM, WS_MAX_FRAME, create_app
    from duyun.server.config import ConfigError, load_config

    try:
        settings = load_config(config)
    except ConfigError as error:
        typer.echo(f"duyun serve: {error}", err=True)
        raise typer.Exit(2) from None
    if forwarded_allow_ips is not None:
        settings = settings.with_overrides(forwarded_allow_ips=forwarded_allow_ips)
    logging.basicConfig(level=log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    app = create_app(settings, database_url, owner=owner)
    shown = database_url.split("@")[-1]  # never print a password
    typer.echo(f"duyun serve: http://{host}:{port}/ (database {shown})")
    uvicorn.run(
        app,
        host=host,
        port=port,
        log_level=log_level.lower(),
        ws_max_size=WS_MAX_FRAME,
        # past every websocket the app allows, HTTP gets a quick 503 instead of holding
        # descriptors until accept() fails for everyone (issue 20 item 10)
        limit_concurrency=settings.max_connections + HTTP_HEADROOM,
        # messages are small JSON; compressing each one costs more CPU than it saves
        ws_per_message_deflate=False,
        ws_ping_interval=20,
        ws_ping_timeout=20,
        # behind the documented proxy the client address (login and creation limits) comes
        # from X-Forwarded-For, believed only from these peers (docs/deploy.md)
        proxy_headers=True,
        forwarded_allow_ips=settings.forwarded_allow_ips,
    )
