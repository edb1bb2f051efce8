"""``duyun review FILE --seat N [--json]``: 大師 reviews one seat's decisions (牌譜解析).

The library (:mod:`duyun.review`) values every decision from the seat's view at that moment;
this command reads a log (one hand, or a match's hands), prints the summary, the largest
mistakes and every decision with its options, or the documented JSON form (docs/review.md).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from duyun.cli.common import ODD_INPUT, fail, read_hands, source_name
from duyun.describe import chinese_tiles
from duyun.engine.actions import Action
from duyun.review import (
    DEFAULT_SAMPLES,
    MAX_SAMPLES,
    MIN_SAMPLES,
    Decision,
    HandReview,
    ReviewError,
    review_match,
)
from duyun.tiles import tile_to_str


def _action_text(action: Action, chinese: bool) -> str:
    verb = action.kind.value
    if action.tile is None:
        return verb
    tile = tile_to_str(action.tile)
    return f"{verb} {chinese_tiles(tile) if chinese else tile}"


def _tiles(text: str, chinese: bool) -> str:
    return chinese_tiles(text) if chinese else text


def _signed(value: float) -> str:
    return f"{value:+.1f}" if value == value and abs(value) != float("inf") else "?"


def _print_hand(console: Console, review: HandReview, number: int | None, chinese: bool) -> None:
    title = f"hand {number}: " if number is not None else ""
    agreement = review.agreement
    console.print(
        f"{title}seat {review.seat}, {len(review.decisions)} "
        f"decision{'' if len(review.decisions) == 1 else 's'}, "
        f"agreement with 大師 {agreement:.0%}"
        if agreement is not None
        else f"{title}seat {review.seat}: no decision to review",
        markup=False,
    )
    if not review.decisions:
        return
    console.print(
        f"expected points lost {review.expected_loss:+.1f}; points in the hand {review.points:+d}; "
        f"{review.samples} deals per decision, seed {review.seed}",
        markup=False,
    )
    mistakes = review.mistakes()
    if mistakes:
        console.print("largest mistakes:", markup=False)
        for decision in mistakes:
            console.print(f"  {_mistake_line(decision, chinese)}", markup=False)
    for decision in review.decisions:
        _print_decision(console, decision, chinese)


#: options listed per decision (the played one is always listed)
SHOWN_OPTIONS = 6


def _print_decision(console: Console, decision: Decision, chinese: bool) -> None:
    offered = (
        f", offered {_tiles(tile_to_str(decision.claim_tile), chinese)}"
        if decision.claim_tile is not None
        else ""
    )
    hand = _tiles("".join(tile_to_str(t) for t in decision.hand), chinese)
    if decision.agrees:
        verdict = "as 大師"
    else:
        verdict = (
            f"大師 {_action_text(decision.best, chinese)}, loss {decision.loss:.1f} ± "
            f"{decision.loss_error:.1f}" + (" (mistake)" if decision.mistake else "")
        )
    console.print(
        f"event {decision.event} ({decision.kind}{offered}) {hand}: played "
        f"{_action_text(decision.chosen, chinese)}; {verdict}",
        markup=False,
    )
    shown = list(decision.options[:SHOWN_OPTIONS])
    shown += [o for o in decision.options[SHOWN_OPTIONS:] if o.action == decision.chosen]
    for option in shown:
        marks = [
            mark
            for mark, action in (("played", decision.chosen), ("大師", decision.best))
            if option.action == action
        ]
        console.print(
            f"    {_action_text(option.action, chinese):<14} {_signed(option.value):>7} ± "
            f"{option.error:4.1f}  {' '.join(marks)}".rstrip(),
            markup=False,
        )
    hidden = len(decision.options) - len(shown)
    if hidden > 0:
        console.print(f"    ... {hidden} more (--json lists every option)", markup=False)


def _mistake_line(decision: Decision, chinese: bool) -> str:
    return (
        f"event {decision.event}: played {_action_text(decision.chosen, chinese)}, 大師 "
        f"{_action_text(decision.best, chinese)}: {decision.loss:.1f} ± "
        f"{decision.loss_error:.1f} points"
    )


def review_command(
    file: Annotated[
        Path, typer.Argument(help="Event log (JSON Lines), one hand or a match; - reads stdin")
    ],
    seat: Annotated[int, typer.Option("--seat", help="The seat to review (0-3)")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the review as JSON (docs/review.md)")
    ] = False,
    hand: Annotated[
        int | None, typer.Option("--hand", help="Only this hand of the file (1 = first)")
    ] = None,
    samples: Annotated[
        int,
        typer.Option(
            "--samples", help="Deals per decision: more narrow the error bars, cost more time"
        ),
    ] = DEFAULT_SAMPLES,
    seed: Annotated[int, typer.Option("--seed", help="The review's seed (deterministic)")] = 0,
    event: Annotated[
        list[int] | None,
        typer.Option(
            "--event", help="Only the decision of this act event (as numbered here; repeatable)"
        ),
    ] = None,
    chinese: Annotated[
        bool, typer.Option("--chinese", help="Write tiles as 五筒 instead of 5p")
    ] = False,
) -> None:
    """大師 reviews one seat's decisions: each option's value in points, from the seat's view."""
    name = source_name(file)
    if not 0 <= seat <= 3:
        fail(f"--seat {seat}: a seat is 0, 1, 2 or 3")
    if not MIN_SAMPLES <= samples <= MAX_SAMPLES:
        fail(f"--samples {samples}: between {MIN_SAMPLES} and {MAX_SAMPLES} deals per decision")
    hands = read_hands(file, hand)
    try:
        review = review_match(hands, seat, samples=samples, seed=seed, only=event or None)
    except ReviewError as error:
        fail(f"{name}: {error}")
    except ODD_INPUT as error:
        fail(f"{name}: not a valid log ({type(error).__name__}: {error})")
    if as_json:
        data = review.to_json() if len(hands) > 1 else review.hands[0].to_json()
        typer.echo(json.dumps(data, ensure_ascii=False))
        return
    console = Console(highlight=False, soft_wrap=True)
    for number, hand_review in enumerate(review.hands, start=1):
        if len(review.hands) > 1:
            console.rule(f"hand {number}")
        _print_hand(console, hand_review, number if len(review.hands) > 1 else None, chinese)


def register(app: typer.Typer) -> None:
    app.command("review")(review_command)
