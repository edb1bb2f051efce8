"""Helpers shared by the sub-commands: clean errors (exit status 2) and settlement tables."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NoReturn

import typer
from rich.console import Console
from rich.table import Table

from duyun.engine.ledger import Payment

stderr = Console(stderr=True, highlight=False)


def fail(message: str) -> NoReturn:
    """Print a clear error on standard error and exit with status 2 (bad input)."""
    stderr.print(f"[bold red]error:[/] {message}", markup=True, highlight=False)
    raise typer.Exit(2)


def settlement_table(payments: Sequence[Payment], totals: Sequence[int], stake: int = 1) -> Table:
    """Who paid whom, fan, reason, points (and coins when a stake is set)."""
    table = Table(title="Settlement", show_lines=False)
    for column in ("payer", "payee", "fan", "points", "rule", "reason"):
        table.add_column(column, justify="right" if column in ("fan", "points") else "left")
    if stake != 1:
        table.add_column("coins", justify="right")
    for row in payments:
        cells = [
            str(row.payer),
            str(row.payee),
            str(row.fan),
            str(row.points),
            row.rule,
            row.reason,
        ]
        if stake != 1:
            cells.append(str(row.points * stake))
        table.add_row(*cells)
    table.caption = "net: " + ", ".join(f"seat {i} {t:+d}" for i, t in enumerate(totals))
    return table
