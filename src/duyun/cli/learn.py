"""``duyun learn``: labelled positions from self-play, learned models, and their evaluation.

Examples::

    duyun learn generate /tmp/learn/data --hands 28000 --seed 1 --workers 2
    duyun learn train /tmp/learn/data /tmp/learn/models --seed 1
    duyun learn evaluate /tmp/learn/models --hands 300 --seed 99

NumPy (and, for ``train`` and ``evaluate``, scikit-learn) come with the ``train`` extra:
``pip install 'duyun[train]'``. They are imported only when a command runs, so ``duyun``
itself needs neither.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from duyun.bots import BOT_NAMES
from duyun.cli.common import cut, fail

learn_app = typer.Typer(
    help="Labelled positions from self-play, learned opponent and value models (issue 35).",
    no_args_is_help=True,
)

_LINEUP_HELP = (
    "Lineups of four bots, ';' between lineups, cycled over the hands (hand u plays lineup "
    f"u mod n, rotated one seat further every n hands); bots from: {', '.join(BOT_NAMES)}"
)


def _need(module: str) -> None:
    try:
        __import__(module)
    except ImportError:
        fail(f"duyun learn needs {module}: pip install 'duyun[train]'")


def _parse_lineups(text: str) -> tuple[tuple[str, ...], ...]:
    lineups = []
    for part in text.split(";"):
        names = tuple(name.strip() for name in part.split(","))
        if len(names) != 4 or not all(names):
            fail(f"--bots: a lineup is four comma-separated bots, got {cut(part)}")
        unknown = sorted({name for name in names if name not in BOT_NAMES})
        if unknown:
            fail(f"--bots: unknown bot(s) {', '.join(unknown)}; known bots: {', '.join(BOT_NAMES)}")
        lineups.append(names)
    return tuple(lineups)


@learn_app.command("generate")
def generate_command(
    out: Annotated[Path, typer.Argument(help="Directory for the shards and manifest.json")],
    hands: Annotated[int, typer.Option("--hands", help="Hands to play")] = 28_000,
    seed: Annotated[int, typer.Option("--seed", help="Master seed: same seed, same files")] = 0,
    bots: Annotated[
        str, typer.Option("--bots", help=_LINEUP_HELP)
    ] = "strong,efficient,efficient,efficient;strong,efficient,strong,efficient",
    hands_per_shard: Annotated[
        int, typer.Option("--hands-per-shard", help="Hands per .npz shard")
    ] = 250,
    workers: Annotated[
        int | None, typer.Option("--workers", help="Worker processes (default: all cores)")
    ] = None,
    resume: Annotated[
        bool, typer.Option("--resume", help="Keep shards already written, play the others")
    ] = False,
) -> None:
    """Play self-play hands and write every own-turn position, from the seat's view, with the
    hidden truth as labels (docs/rl.md, "Learned models")."""
    _need("numpy")
    from duyun.learn.dataset import DatasetError, GenerateConfig, generate
    from duyun.sim import default_workers

    lineups = _parse_lineups(bots)
    count = default_workers() if workers is None else workers
    try:
        config = GenerateConfig(
            hands=hands, seed=seed, lineups=lineups, hands_per_shard=hands_per_shard
        )
        if out.exists() and not out.is_dir():
            fail(f"{out} exists and is not a directory")
        started = time.monotonic()
        positions = 0
        cpu = 0.0
        for done, summary in enumerate(generate(config, out, count, skip_existing=resume), 1):
            positions += summary["positions"]
            cpu += summary.get("cpu_seconds", 0.0)
            elapsed = time.monotonic() - started
            sys.stderr.write(
                f"\rshard {done}/{config.shards}: {positions:,} positions, "
                f"{elapsed:.0f} s, {positions / max(elapsed, 1e-9) * 60:,.0f} positions/min"
            )
            sys.stderr.flush()
    except DatasetError as error:
        fail(str(error))
    elapsed = time.monotonic() - started
    sys.stderr.write("\n")
    typer.echo(
        f"{positions:,} positions from {hands:,} hands in {elapsed:.1f} s wall clock "
        f"({positions / max(elapsed, 1e-9) * 60:,.0f} positions/min, {count} processes, "
        f"{cpu:.1f} s CPU in the workers) -> {out}"
    )


@learn_app.command("train")
def train_command(
    data: Annotated[Path, typer.Argument(help="A dataset directory (duyun learn generate)")],
    out: Annotated[Path, typer.Argument(help="Directory for opponent.npz and value.npz")],
    seed: Annotated[int, typer.Option("--seed", help="Seed of the training run")] = 0,
    epochs: Annotated[int, typer.Option("--epochs", help="Passes over the training data")] = 6,
    max_positions: Annotated[
        int | None, typer.Option("--max-positions", help="Use at most this many positions")
    ] = None,
    holdout_shards: Annotated[
        int, typer.Option("--holdout-shards", help="Last shards kept out of training")
    ] = 4,
    only: Annotated[
        str,
        typer.Option("--only", help="Train only 'opponent' or 'value' (the other stays in OUT)"),
    ] = "both",
) -> None:
    """Train the opponent model and the value model (scikit-learn MLPs, seeded) and export
    them as NumPy arrays."""
    _need("numpy")
    _need("sklearn")
    from duyun.learn.dataset import DatasetError
    from duyun.learn.train import TrainConfig, train_models

    if only not in ("both", "opponent", "value"):
        fail(f"--only takes 'opponent' or 'value', not {cut(only)}")
    config = TrainConfig(
        seed=seed,
        epochs=epochs,
        max_positions=max_positions,
        holdout_shards=holdout_shards,
        only=only,
    )
    try:
        report = train_models(data, out, config, log=lambda line: typer.echo(line, err=True))
    except DatasetError as error:
        fail(str(error))
    typer.echo(json.dumps(report, indent=1, sort_keys=True))


@learn_app.command("evaluate")
def evaluate_command(
    models: Annotated[
        Path | None,
        typer.Argument(help="Directory with opponent.npz and value.npz (default: shipped)"),
    ] = None,
    hands: Annotated[int, typer.Option("--hands", help="Held-out hands to play")] = 200,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the held-out hands")] = 99,
    every: Annotated[
        int, typer.Option("--every", help="Evaluate every n-th own-turn position")
    ] = 3,
    samples: Annotated[
        int, typer.Option("--samples", help="Uniform samples per position (the baseline)")
    ] = 64,
    rollouts: Annotated[
        int, typer.Option("--rollouts", help="Rollouts per position for the value baseline")
    ] = 16,
    bootstrap: Annotated[
        int,
        typer.Option(
            "--bootstrap",
            min=0,
            max=10_000,
            help="Resamples of the hands for the intervals of the model's lead (0: none)",
        ),
    ] = 500,
    bots: Annotated[
        str, typer.Option("--bots", help=_LINEUP_HELP)
    ] = "strong,efficient,efficient,efficient;strong,efficient,strong,efficient",
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON")] = False,
) -> None:
    """Held-out self-play: the models beside the hand-written estimates they would replace
    (the strong bot's danger reading, uniform sampling, rollouts)."""
    _need("numpy")
    from duyun.learn.evaluate import EvalConfig, evaluate, format_report
    from duyun.learn.models import load_models

    opponent, value = load_models(models)
    config = EvalConfig(
        hands=hands,
        seed=seed,
        every=every,
        samples=samples,
        rollouts=rollouts,
        bootstrap=bootstrap,
        lineups=_parse_lineups(bots),
    )
    report = evaluate(config, opponent, value, log=lambda line: typer.echo(line, err=True))
    typer.echo(json.dumps(report, indent=1, sort_keys=True) if as_json else format_report(report))


def register(app: typer.Typer) -> None:
    app.add_typer(learn_app, name="learn")
