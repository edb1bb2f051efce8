"""Entry point of the ``duyun`` command.

Each sub-command lives in its own module with a ``register(app)`` function, so that adding a
command touches one line here and nothing else.
"""

from __future__ import annotations

import importlib

import typer

COMMAND_MODULES: tuple[str, ...] = (
    # one module per sub-command, each with register(app)
    "scenario",
    "replay",
    "analyze",
    "play",
    "simulate",
    "serve",
    "admin",
)

app = typer.Typer(
    name="duyun",
    help="Duyun mahjong (都勻麻將): analysis, scenarios, replays, self-play and games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """Duyun mahjong (都勻麻將): analysis, scenarios, replays, self-play and games."""
    # An explicit callback keeps `duyun COMMAND` a group even while only one command exists;
    # without it Typer would run that single command as `duyun` itself.


def _register_all() -> None:
    for name in COMMAND_MODULES:
        importlib.import_module(f"duyun.cli.{name}").register(app)


_register_all()


def main() -> None:
    app()
