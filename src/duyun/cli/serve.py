"""``duyun serve``: the online game server (uvicorn, SQLite by default, PostgreSQL when asked).

Every bad operator input -- config file, database URL, host, port, log level, owner name --
is one line ``error: ...`` on standard error with exit status 2, and nothing is created. The
checks run in the order that keeps it so: the config and the options first, then the port is
bound (a port in use is found before any database is touched), then the database is opened
and migrated, and only then is the address printed and the server started on the socket
already bound.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import socket
from pathlib import Path
from typing import Annotated, Any

import typer

from duyun.cli.common import cut, fail, require_server_extra

DEFAULT_DATABASE = "sqlite:///duyun.db"
LOG_LEVELS = ("critical", "error", "warning", "info", "debug", "trace")
#: ``matches.lease_owner`` is VARCHAR(128)
MAX_OWNER = 128


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
            "(docs/deploy.md): it restores and holds only its own matches. On PostgreSQL "
            "without it, a unique name is made up (host, pid, random) and printed.",
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
    public_url: Annotated[
        str | None,
        typer.Option(
            "--public-url",
            help="This process's address as browsers reach it (https://s1.play.example); "
            "other processes send clients of its tables here (with --owner, docs/deploy.md)",
        ),
    ] = None,
    metrics_token: Annotated[
        str | None,
        typer.Option(
            "--metrics-token",
            envvar="DUYUN_METRICS_TOKEN",
            show_envvar=True,
            help="Turn GET /metrics on for scrapers sending 'Authorization: Bearer TOKEN' "
            "(16+ characters). Prefer the environment variable or the config file's "
            "metrics_token: a command line is visible to every user of the machine",
        ),
    ] = None,
    log_level: Annotated[
        str, typer.Option("--log-level", help=f"Log level: {', '.join(LOG_LEVELS)}")
    ] = "info",
    log_format: Annotated[
        str,
        typer.Option("--log-format", help="text, or json: one JSON object per line"),
    ] = "text",
) -> None:
    """Run the online game server: the browser client at /, websockets at /ws, REST at /api."""
    require_server_extra("serve")
    import uvicorn

    from duyun.server.app import create_app, uvicorn_config
    from duyun.server.config import ConfigError, load_config
    from duyun.server.store import Store, StoreError
    from duyun.server.store.database import normalize_url

    if log_format not in ("text", "json"):
        fail(f"--log-format must be text or json, not {cut(log_format)}")
    try:
        settings = load_config(config)
        if public_url is not None:
            settings = settings.with_overrides(public_url=public_url)
        if metrics_token is not None:
            settings = settings.with_overrides(metrics_token=metrics_token)
    except ConfigError as error:
        fail(str(error))
    if forwarded_allow_ips is not None:
        try:
            settings = settings.with_overrides(forwarded_allow_ips=forwarded_allow_ips)
        except ConfigError as error:
            fail(str(error))
    level = log_level.strip().lower()
    if level not in LOG_LEVELS:
        fail(f"--log-level must be one of {', '.join(LOG_LEVELS)}, not {cut(log_level)}")
    try:
        postgres = normalize_url(database_url).startswith("postgresql")
    except StoreError as error:
        fail(str(error))
    owner = _owner(owner, postgres)
    if settings.public_url is not None and owner is None:
        fail("--public-url needs --owner (several processes share one PostgreSQL database)")
    listener = _bind(host, port)
    try:
        try:
            Store.open(database_url).close()  # create and migrate now, not inside uvicorn
        except StoreError as error:
            fail(str(error))
        except Exception as error:  # a driver error the store did not name
            fail(f"cannot open database: {type(error).__name__}: {error}")
        logging.basicConfig(
            level=logging.DEBUG if level == "trace" else level.upper(),
            format="%(levelname)s %(name)s: %(message)s",
        )
        if log_format == "json":
            from duyun.server.metrics import use_json_logs

            use_json_logs(owner)
        app = create_app(settings, database_url, owner=owner)
        bound_host, bound_port = listener.getsockname()[:2]
        shown = database_url.split("@")[-1]  # never print a password
        shown_host = f"[{bound_host}]" if ":" in bound_host else bound_host
        typer.echo(f"duyun serve: http://{shown_host}:{bound_port}/ (database {shown})")
        if owner is not None:
            typer.echo(f"duyun serve: owner {owner}")
        server = _server_class()(
            uvicorn_config(
                app,
                settings,
                host=host,
                port=bound_port,
                log_level=level,
                # json: keep the handlers set above instead of uvicorn's text formatters
                log_config=None if log_format == "json" else uvicorn.config.LOGGING_CONFIG,
            )
        )
        server.run(sockets=[listener])
    finally:
        listener.close()


def _owner(owner: str | None, postgres: bool) -> str | None:
    """The lease owner name (docs/deploy.md "leases"). On PostgreSQL a process without one
    would restore and play every live match, also those other processes are playing; rather
    than refuse, it gets a name no other process can have. SQLite serves one process."""
    if owner is not None:
        name = owner.strip()
        if not name or len(name) > MAX_OWNER or not name.isprintable():
            fail(f"--owner must be 1..{MAX_OWNER} printable characters, not {cut(owner)}")
        return name
    if not postgres:
        return None
    return f"{socket.gethostname()[:80]}-{os.getpid()}-{secrets.token_hex(4)}"


def _bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port``, or exit with the reason: a bad host name, an
    address this machine does not have, a port in use or not allowed."""
    if not host.strip():
        fail("--host is empty; give an address such as 127.0.0.1 or 0.0.0.0")
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except (socket.gaierror, UnicodeError) as error:
        fail(f"bad --host {cut(host)}: {getattr(error, 'strerror', None) or error}")
    listener = socket.socket(family, kind, proto)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(address)
        listener.listen(2048)
    except OSError as error:
        listener.close()
        fail(f"cannot listen on {cut(host)} port {port}: {error.strerror or error}")
    listener.set_inheritable(True)
    return listener


def _server_class() -> type[Any]:
    import uvicorn

    class Server(uvicorn.Server):
        """uvicorn on a socket bound beforehand says where it listens once it is ready, as it
        does when it binds itself (scripts and tests read the line for ``--port 0``)."""

        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            if self.started and sockets:
                address = sockets[0].getsockname()
                host = f"[{address[0]}]" if ":" in address[0] else address[0]
                logging.getLogger("uvicorn.error").info(
                    "Uvicorn running on http://%s:%d (Press CTRL+C to quit)", host, address[1]
                )
            if self.started:
                # uvicorn picks its event loop and HTTP parser by itself from what is installed
                # (uvloop, httptools) and falls back quietly; say which, since the loop is most
                # of a decision's CPU and was measured on asyncio's (docs/deploy.md)
                loop = type(asyncio.get_running_loop()).__module__.partition(".")[0]
                parser = getattr(self.config, "http_protocol_class", None)
                logging.getLogger("uvicorn.error").info(
                    "duyun serve: event loop %s, HTTP parser %s",
                    loop,
                    getattr(parser, "__name__", "?").removesuffix("Protocol").lower(),
                )

    return Server
