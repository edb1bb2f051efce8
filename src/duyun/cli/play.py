"""``duyun play``: a match in the terminal, one person against three bots (issue #5)."""

from __future__ import annotations

import contextlib
import secrets
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.text import Text

from duyun.cli.common import check_writable_dir, cut, fail

if TYPE_CHECKING:
    from duyun.bots import Difficulty


def _parse_bots(
    text: str, known: tuple[str, ...], levels: Mapping[str, str]
) -> tuple[str, str, str]:
    """Bot names or difficulty levels (a key such as ``master`` or its Chinese label 大師), one
    for all or one per seat."""
    names = [name.strip().lower() for name in text.split(",") if name.strip()]
    if len(names) == 1:
        names *= 3
    if len(names) != 3:
        fail(f"--bots needs one name or three comma-separated names, got {cut(text)}")
    names = [levels.get(name, name) for name in names]
    for name in names:
        if name not in known:
            fail(
                f"--bots: unknown bot {cut(name)}; bots: {', '.join(known)}; "
                f"levels: {', '.join(levels)}"
            )
    return names[0], names[1], names[2]


def level_names(levels: Sequence[Difficulty]) -> dict[str, str]:
    """Each difficulty's key and its Chinese label (as the web lobby shows it) -> its bot."""
    names = {level.key: level.bot for level in levels}
    names.update({level.label_zh: level.bot for level in levels})
    return names


def play_command(
    bots: Annotated[
        str,
        typer.Option(
            "--bots",
            help="Bots of the three other seats (in seat order), or one for all: random, "
            "efficient, heuristic, strong, search, or a level easy/normal/hard/expert/master "
            "(簡單/普通/困難/高手/大師)",
        ),
    ] = "strong,strong,strong",
    hands: Annotated[int, typer.Option("--hands", min=1, help="Hands in the match")] = 8,
    seed: Annotated[
        int | None,
        typer.Option(
            "--seed",
            min=0,
            help="Seed of the walls and bots (default: a random seed, printed at the start)",
            show_default=False,
        ),
    ] = None,
    stake: Annotated[int, typer.Option("--stake", min=0, help="Coins per point")] = 1,
    seat: Annotated[int, typer.Option("--seat", min=0, max=3, help="Your seat, 0-3")] = 0,
    hints: Annotated[
        bool,
        typer.Option("--hints", help="Show shanten, waits with their fan, and the best discards"),
    ] = False,
    replay_dir: Annotated[
        Path,
        typer.Option(
            "--replay-dir",
            help="Folder for the replay (JSON Lines), written after every hand "
            "(default: replays, in the current folder)",
            show_default=False,
        ),
    ] = Path("replays"),
    chinese: Annotated[
        bool,
        typer.Option("--chinese", help="Tiles as 五筒 instead of 5p"),
    ] = False,
    bloody_battle: Annotated[
        bool,
        typer.Option("--bloody-battle", help="A 血戰 room: winners leave play, the others play on"),
    ] = False,
) -> None:
    """Play a match in the terminal against bots; the replay is written after every hand."""
    # Imported here so that `duyun --help` and the other commands start without the bots.
    from duyun.bots import BOT_NAMES, DIFFICULTY_LEVELS, make_bot
    from duyun.rules import RuleSet
    from duyun.tui.session import PlayOptions, Session

    check_writable_dir(replay_dir, "--replay-dir")
    options = PlayOptions(
        bots=_parse_bots(bots, BOT_NAMES, level_names(DIFFICULTY_LEVELS)),
        hands=hands,
        seed=secrets.randbelow(1 << 31) if seed is None else seed,
        stake=stake,
        seat=seat,
        hints=hints,
        replay_dir=replay_dir,
        chinese=chinese,
        command=command_as_typed(),
        rules=RuleSet(bloody_battle=bloody_battle),
    )
    console = Console(highlight=False)
    notice = uniform_master_notice() if "search" in options.bots else None
    if notice is not None:
        console.print(Text(notice, style="yellow"))
    # The prompt is plain text, never markup: "[y/N]" must print as typed.
    interactive = sys.stdin.isatty() and console.is_terminal
    session = Session(
        options,
        console,
        make_bot,
        read_line=lambda p: console.input(Text(p)),
        discard_typeahead=discard_typeahead if interactive else lambda: None,
        screen_size=(lambda: (console.size.width, console.size.height)) if interactive else None,
    )
    raise typer.Exit(session.run())


def uniform_master_notice() -> str | None:
    """The line that tells a player 大師 plays its weaker self here, or None where it does not.

    大師 deals the hands it cannot see as ready as the learned opponent model reads them, and
    the model runs on NumPy, which the core install does not bring: there its samples stay
    uniform, a measurably weaker bot (docs/simulate.md). Said once at the start, so that
    nobody takes that bot for the one the online game seats. Loading the model here also keeps
    its quarter-second import out of 大師's first move."""
    from duyun.bots.search import load_learned_hands

    if load_learned_hands():
        return None
    return (
        "大師 (search) plays its weaker version here: NumPy is not installed, so it cannot "
        "read the learned opponent model (pip install numpy, or 'duyun[server]')."
    )


def command_as_typed() -> str:
    """How to run ``duyun`` again from here: ``duyun`` when that name on PATH is this very
    program, else its path (``.venv/bin/duyun`` after ``make run``, which does not put the
    virtualenv on PATH), relative to the current folder when it is below it."""
    script = Path(sys.argv[0])
    if script.name != "duyun":
        return "duyun"  # run as `python -c ...` or under a test runner: the documented name
    found = shutil.which("duyun")
    try:
        if found is not None and Path(found).resolve() == script.resolve():
            return "duyun"
        return str(script.resolve().relative_to(Path.cwd().resolve()))
    except (OSError, ValueError):
        return str(script)


def discard_typeahead() -> None:
    """Throw away keys typed before the prompt appeared (POSIX terminals; elsewhere a no-op).

    A player who types fast answers the next question before it is shown: a discard meant for
    one turn lands on the next. Each prompt therefore starts from an empty input queue.
    """
    try:
        import termios
    except ImportError:  # pragma: no cover - Windows
        return
    with contextlib.suppress(OSError, ValueError, termios.error):
        termios.tcflush(sys.stdin.fileno(), termios.TCIFLUSH)


def register(app: typer.Typer) -> None:
    app.command("play")(play_command)
