"""``duyun simulate``: self-play between bots, with per-bot statistics, plots and event logs.

Examples::

    duyun simulate --bots efficient,random,random,random --hands 2000
    duyun simulate --bots strong,efficient,efficient,efficient --hands 5000 --duplicate
    duyun simulate --matches 100 --plot points.png --out hands.jsonl --json
    duyun simulate --rules bloody_battle --hands 2000      # 血戰 rooms (R52-R57)
    duyun simulate --bloody-battle --rules pass_blocks_ron,base_points=5
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO, Annotated

import typer
from rich import box
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from duyun.bots import BOT_NAMES
from duyun.cli.common import check_writable_file, cut, fail
from duyun.engine import dump_events
from duyun.rules import RuleSet
from duyun.sim import RULE_EVENTS, SimConfig, SimConfigError, Summary, default_workers, run
from duyun.sim.runner import Mode

DEFAULT_BOTS = "strong,efficient,efficient,efficient"
DEFAULT_HANDS = 1000

_stderr = Console(stderr=True, highlight=False)
_fail = fail


def _parse_bots(text: str) -> tuple[str, ...]:
    names = tuple(name.strip() for name in text.split(","))
    if len(names) != 4 or not all(names):
        _fail(f"--bots needs four comma-separated bot names (one per seat), got {cut(text)}")
    unknown = sorted({name for name in names if name not in BOT_NAMES})
    if unknown:
        _fail(
            f"--bots: unknown bot(s) {', '.join(cut(n) for n in unknown)}; "
            f"known bots: {', '.join(BOT_NAMES)}"
        )
    return names


def _parse_rules(text: str | None, bloody_battle: bool) -> RuleSet:
    """``--rules``: comma-separated rule options, ``name`` (switched on) or ``name=value``
    (an integer, or true/false); ``--bloody-battle`` is ``--rules bloody_battle``."""
    options: dict[str, bool | int] = {}
    for item in (text or "").split(","):
        item = item.strip()
        if not item:
            continue
        name, sep, value = item.partition("=")
        name, value = name.strip(), value.strip().lower()
        if not sep:
            options[name] = True
        elif value in ("true", "false"):
            options[name] = value == "true"
        else:
            try:
                options[name] = int(value)
            except ValueError:
                _fail(f"--rules {item!r}: a value is an integer, true or false")
    if bloody_battle:
        options["bloody_battle"] = True
    try:
        return RuleSet.from_mapping(options)
    except ValueError as error:
        _fail(f"--rules: {error}")


def _check_writable(path: Path | None, option: str) -> None:
    if path is not None:
        check_writable_file(path, option)


def _short(stats_label: str) -> str:
    """``P2`` of ``P2 efficient``: per-player columns are headed by the short label so that
    the tables fit 100 columns; the players table names each one in full."""
    return stats_label.split(" ", 1)[0]


def _players_table(summary: Summary) -> Table:
    table = Table(
        title=f"Results over {summary.hands} hands ({summary.units} units)",
        box=box.SIMPLE_HEAD,
        padding=(0, 0),
        pad_edge=False,
    )
    for column in ("player", "hands", "win%", "自摸%", "feed%", "pts/hand", "95% CI", "total"):
        # names never shrink: at 80 columns and wider nothing is cut
        table.add_column(
            column,
            justify="left" if column == "player" else "right",
            no_wrap=True,
            min_width=max(len(stats.label) for stats in summary.players)
            if column == "player"
            else None,
        )
    for stats in summary.players:
        low, high = stats.ci95
        ci = f"[{low:+.2f}, {high:+.2f}]" if stats.unit_means.count >= 2 else "n/a"
        table.add_row(
            stats.label,
            str(stats.hands),
            f"{100 * stats.rate(stats.wins):.1f}",
            f"{100 * stats.rate(stats.self_draws):.1f}",
            f"{100 * stats.rate(stats.feeds):.1f}",
            f"{stats.mean_points:+.2f}",
            ci,
            f"{stats.points:+d}",
        )
    table.caption = "feed = paid for a discard win or a robbed kong (點炮); CI over units"
    return table


def _patterns_table(summary: Summary) -> Table:
    table = Table(title="Winning patterns (% of each player's hands)", box=box.SIMPLE_HEAD)
    table.add_column("pattern", no_wrap=True)
    for stats in summary.players:
        table.add_column(_short(stats.label), justify="right", no_wrap=True)
    names = sorted(
        {name for stats in summary.players for name in stats.patterns},
        key=lambda name: -sum(stats.patterns[name] for stats in summary.players),
    )
    for name in names:
        table.add_row(
            name,
            *(f"{100 * stats.rate(stats.patterns[name]):.2f}" for stats in summary.players),
        )
    return table


def _events_table(summary: Summary) -> Table:
    table = Table(title="Rule events", box=box.SIMPLE_HEAD)
    table.caption = "per player: the winner (一炮多響: the discarder), who made a kong or 報聽"
    table.add_column("event", no_wrap=True)
    table.add_column("count", justify="right", no_wrap=True)
    table.add_column("/100 hands", justify="right", no_wrap=True)
    for stats in summary.players:
        table.add_column(_short(stats.label), justify="right", no_wrap=True)
    for key, label in RULE_EVENTS:
        count = summary.rule_events.get(key, 0)
        per_player = [str(stats.events.get(key, "")) for stats in summary.players]
        table.add_row(label, str(count), f"{100 * count / max(1, summary.hands):.2f}", *per_player)
    return table


def simulate_command(
    bots: Annotated[
        str, typer.Option("--bots", help=f"Four bots, one per seat, from: {', '.join(BOT_NAMES)}")
    ] = DEFAULT_BOTS,
    hands: Annotated[
        int | None,
        typer.Option("--hands", help=f"Independent hands to play (default: {DEFAULT_HANDS})"),
    ] = None,
    matches: Annotated[
        int | None, typer.Option("--matches", help="Matches to play instead of single hands")
    ] = None,
    hands_per_match: Annotated[
        int, typer.Option("--hands-per-match", help="Hands in each match (R35 dealer, R36 streak)")
    ] = 8,
    seed: Annotated[int, typer.Option("--seed", help="Master seed: same seed, same results")] = 0,
    duplicate: Annotated[
        bool,
        typer.Option("--duplicate", help="Play every wall four times with the seats rotated"),
    ] = False,
    workers: Annotated[
        int | None, typer.Option("--workers", help="Local worker processes (default: all cores)")
    ] = None,
    use_ray: Annotated[
        bool, typer.Option("--ray", help="Run on Ray (local or RAY_ADDRESS)")
    ] = False,
    ray_address: Annotated[
        str | None, typer.Option("--ray-address", help="Ray cluster address, e.g. ray://host:10001")
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Write every hand's event log (JSON Lines)")
    ] = None,
    plot: Annotated[
        Path | None, typer.Option("--plot", help="Write a PNG: points distribution, cumulative")
    ] = None,
    rules: Annotated[
        str | None,
        typer.Option(
            "--rules",
            help="Rule options, comma-separated: name or name=value "
            "(e.g. bloody_battle, pass_blocks_ron, base_points=5)",
        ),
    ] = None,
    bloody_battle: Annotated[
        bool,
        typer.Option("--bloody-battle", help="血戰 rooms: play on after a win (R52-R57)"),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print results as JSON")] = False,
    progress: Annotated[
        bool, typer.Option("--progress/--no-progress", help="Show a progress bar on stderr")
    ] = True,
) -> None:
    """Self-play between bots; prints per-bot results, patterns and rule events."""
    lineup = _parse_bots(bots)
    if hands is not None and matches is not None:
        _fail("give --hands or --matches, not both")
    mode: Mode = "matches" if matches is not None else "hands"
    units = matches if matches is not None else (hands if hands is not None else DEFAULT_HANDS)
    if units < 1:
        _fail(f"--{mode} must be at least 1, got {units}")
    if workers is not None and workers < 1:
        _fail(f"--workers must be at least 1, got {workers}")
    rule_set = _parse_rules(rules, bloody_battle)
    _check_writable(out, "--out")
    _check_writable(plot, "--plot")
    if plot is not None:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            _fail("--plot needs matplotlib: pip install 'duyun[sim]'")
    try:
        config = SimConfig(
            bots=lineup,
            units=units,
            seed=seed,
            mode=mode,
            hands_per_match=hands_per_match,
            duplicate=duplicate,
            rules=rule_set,
            keep_events=out is not None,
        )
    except SimConfigError as error:
        _fail(str(error))

    summary = Summary.empty(lineup, keep_points=plot is not None)
    try:
        stream: IO[str] | None = out.open("w", encoding="utf-8") if out is not None else None
    except OSError as error:
        _fail(f"--out {out}: cannot write ({error.strerror or error})")
    bar = Progress(
        TextColumn(f"[bold]{mode}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=_stderr,
        disable=not progress,
    )
    try:
        with bar:
            task = bar.add_task(mode, total=units)
            for records in run(
                config,
                workers=workers if workers is not None else default_workers(),
                use_ray=use_ray,
                ray_address=ray_address,
            ):
                summary.add_unit(records)
                if stream is not None:
                    for record in records:
                        if record.events is not None:
                            dump_events(record.events, stream)
                bar.advance(task)
    except SimConfigError as error:
        _fail(str(error))
    finally:
        if stream is not None:
            stream.close()

    if plot is not None:
        from duyun.sim.plot import plot_summary

        plot_summary(summary, plot)
    if as_json:
        data = {
            "config": {
                "bots": list(lineup),
                "mode": mode,
                "units": units,
                "seed": seed,
                "duplicate": duplicate,
                "hands_per_match": hands_per_match,
                "rules": rule_set.to_mapping(),
            },
            **summary.to_json(),
        }
        typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    console = Console(highlight=False)
    console.print(_players_table(summary))
    console.print(_patterns_table(summary))
    console.print(_events_table(summary))
    if out is not None:
        console.print(f"event logs: {out}")
    if plot is not None:
        console.print(f"plot: {plot}")


def register(app: typer.Typer) -> None:
    app.command("simulate")(simulate_command)
