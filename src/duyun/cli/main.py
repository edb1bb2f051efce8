"""Entry point of the ``duyun`` command.

Each sub-command lives in its own module with a ``register(app)`` function, so that adding a
command touches one line here and nothing else.

:func:`main` runs the app itself instead of leaving errors to Typer: a usage error (an unknown
option, ``--hands abc``) is then one line on standard error like every other bad input
(:func:`duyun.cli.common.fail`), not a box drawn across the console.
"""

from __future__ import annotations

import importlib
import sys
from importlib import metadata
from typing import Annotated, Any

import typer
import typer.core

from duyun.cli.common import EXIT_BAD_INPUT, one_line

COMMAND_MODULES: tuple[str, ...] = (
    # one module per sub-command, each with register(app)
    "scenario",
    "replay",
    "review",
    "schema",
    "analyze",
    "play",
    "simulate",
    "learn",
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


def package_version() -> str:
    """The installed version (package metadata), or the source tree's when not installed."""
    try:
        return metadata.version("duyun")
    except metadata.PackageNotFoundError:
        return "0+unknown (not installed: run `make run` or `pip install -e .`)"


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"duyun {package_version()}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_show_version,
            is_eager=True,
            help="Print the installed version and exit.",
        ),
    ] = False,
) -> None:
    """Duyun mahjong (都勻麻將): analysis, scenarios, replays, self-play and games."""
    # An explicit callback keeps `duyun COMMAND` a group even while only one command exists;
    # without it Typer would run that single command as `duyun` itself.


def _flags_without_type() -> None:
    """Show boolean flags in ``--help`` as flags (``--hints``), not as ``--hints <bool>``.

    Some Typer/Click combinations label a flag with the type of its value although the flag
    takes none (``--hints true`` is refused); the label is dropped for flags only.
    """
    option_class: Any = getattr(typer.core, "TyperOption", None)
    original = getattr(option_class, "display_type_rich", None)
    if original is None or getattr(original, "_duyun_flags", False):
        return

    def display_type_rich(self: Any, ctx: Any) -> str | None:
        if getattr(self, "is_flag", False) and self.metavar is None:
            return None
        result: str | None = original(self, ctx)
        return result

    display_type_rich._duyun_flags = True  # type: ignore[attr-defined]
    option_class.display_type_rich = display_type_rich


def _register_all() -> None:
    for name in COMMAND_MODULES:
        importlib.import_module(f"duyun.cli.{name}").register(app)


_flags_without_type()
_register_all()


def _click_exceptions() -> Any:
    """Click's exception module as Typer uses it: newer Typer releases vendor Click, older
    ones use the ``click`` package; :class:`typer.BadParameter` is a Click exception in both."""
    for cls in typer.BadParameter.__mro__:
        if cls.__name__ == "ClickException":
            return sys.modules[cls.__module__]
    raise ImportError("Typer's Click exceptions not found")  # pragma: no cover


def main(argv: list[str] | None = None) -> None:
    """Run ``duyun``; usage errors are one line on stderr with exit status 2."""
    exceptions = _click_exceptions()
    try:
        status = app(args=argv, prog_name="duyun", standalone_mode=False)
    except exceptions.ClickException as error:
        if type(error).__name__ == "NoArgsIsHelpError":  # bare `duyun`: the help, as usual
            typer.echo(error.ctx.get_help() if error.ctx else "", err=True)
            sys.exit(EXIT_BAD_INPUT)
        command = error.ctx.command_path if getattr(error, "ctx", None) else "duyun"
        sys.stderr.write(f"error: {one_line(error.format_message())} (see: {command} --help)\n")
        sys.exit(error.exit_code)
    except typer.Abort:
        sys.stderr.write("\naborted\n")
        sys.exit(1)
    except BrokenPipeError:  # `duyun simulate | head`: the reader left, nothing to say
        sys.exit(1)
    sys.exit(status if isinstance(status, int) else 0)
