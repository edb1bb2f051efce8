"""``duyun admin``: the operator's view of accounts and coins on a server's database.

Grant coins (house → player, ledgered), show a player's balance and ledger, list accounts,
audit the coin ledger (zero-sum, every balance equal to its rows) and show the house's net.
Players are named by account name or by ``#id``. Errors (unknown player, bad amount, no
database, a file that is not a duyun database) exit with status 2; a failed audit exits with
status 1 so scripts can alert on it. Admin commands never create or migrate a database: they
read and write only a duyun database already at the newest schema (``duyun serve`` migrates).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from duyun.cli.common import cut, fail, require_server_extra

if TYPE_CHECKING:  # the store (SQLAlchemy) loads only when an admin command runs
    from duyun.server.store import Account, CoinRow, Store

DEFAULT_DATABASE = "sqlite:///duyun.db"
EXIT_AUDIT_FAILED = 1
#: the most rows a listing shows (the store's own limit)
MAX_ROWS = 1_000_000

admin_app = typer.Typer(
    name="admin",
    help="Operator tools: grant coins, balances and ledgers, accounts, audit, house net.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


class _Out:
    """Standard output, looked up at print time (tests swap sys.stdout); when it is not a
    terminal (a pipe, a log file) tables get 160 columns instead of rich's default 80."""

    def _console(self) -> Console:
        return Console(highlight=False, width=None if sys.stdout.isatty() else 160)

    def print(self, *objects: Any) -> None:
        self._console().print(*objects)

    def print_json(self, data: str) -> None:
        self._console().print_json(data)


out = _Out()

DatabaseOption = Annotated[
    str,
    typer.Option(
        "--database-url",
        envvar="DUYUN_DATABASE_URL",
        help="the server's database: sqlite:///path.db or postgresql://user:pw@host/db",
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]


def register(app: typer.Typer) -> None:
    app.add_typer(admin_app, name="admin")


@contextmanager
def _store(database_url: str) -> Iterator[Store]:
    """Open the server's store, or exit with a clear error.

    Nothing is created or migrated: an SQLite file that does not exist, an empty file,
    another program's database or one whose schema is behind is an error here -- an operator
    who mistypes the path must not get a new database, nor duyun's tables in someone else's,
    and an audit must look at the database as it is."""
    require_server_extra("admin")
    from sqlalchemy.engine import make_url

    from duyun.server.store import Store, StoreError

    try:
        url = make_url(database_url)
    except Exception:
        fail(f"cannot parse database URL {database_url!r}")
    if url.get_backend_name() == "sqlite":
        path = url.database or ""
        if path in ("", ":memory:") or not Path(path).is_file():
            fail(f"no database file {path or '(none)'!r}; pass --database-url")
    try:
        store = Store.open(database_url, migrate=False)
    except StoreError as error:
        fail(str(error))
    try:
        yield store
    finally:
        store.close()


def _player(store: Store, who: str) -> Account:
    from duyun.server.store import NotFoundError, StoreError
    from duyun.server.store.base import MAX_ID

    try:
        if who.startswith("#") and who[1:].isdigit():
            if len(who) > 12 or int(who[1:]) > MAX_ID:
                fail(f"account id {cut(who)} is out of range (#1..#{MAX_ID})")
            return store.account(int(who[1:]))
        return store.account_by_name(who)
    except NotFoundError:
        fail(f"unknown player {cut(who)} (give an account name or #id)")
    except StoreError as error:
        fail(str(error))


def _account_json(account: Account) -> dict[str, Any]:
    return {
        "id": account.id,
        "name": account.name,
        "kind": account.kind,
        "balance": account.balance,
        "created": account.created.isoformat(),
    }


def _row_json(row: CoinRow) -> dict[str, Any]:
    return {
        "id": row.id,
        "payer": row.payer,
        "payee": row.payee,
        "coins": row.coins,
        "requested": row.requested,
        "cut": row.cut,
        "kind": row.kind,
        "rule": row.rule,
        "note": row.note,
        "hand": row.hand_id,
        "created": row.created.isoformat(),
    }


@admin_app.command("grant")
def grant(
    player: Annotated[str, typer.Argument(help="account name or #id")],
    coins: Annotated[str, typer.Argument(help="whole number of coins > 0")],
    note: Annotated[str, typer.Option("--note", help="why (kept on the ledger row)")] = "grant",
    database_url: DatabaseOption = DEFAULT_DATABASE,
) -> None:
    """Give a player coins from the house (one ledger row)."""
    require_server_extra("admin")
    from duyun.server.store import StoreError

    amount = coins.strip().replace(",", "").replace("_", "")
    if not amount.isdigit() or int(amount) <= 0:
        fail(f"coins must be a whole number greater than 0, not {coins!r}")
    with _store(database_url) as store:
        account = _player(store, player)
        try:
            row = store.grant(account.id, int(amount), note)
        except StoreError as error:
            fail(str(error))
        balance = store.account(account.id).balance
    out.print(f"granted {row.coins} coins to {account.name} (#{account.id}); balance {balance}")


@admin_app.command("balance")
def balance(
    player: Annotated[str, typer.Argument(help="account name or #id")],
    database_url: DatabaseOption = DEFAULT_DATABASE,
    as_json: JsonOption = False,
) -> None:
    """A player's coin balance."""
    with _store(database_url) as store:
        account = _player(store, player)
    if as_json:
        out.print_json(json.dumps(_account_json(account)))
    else:
        out.print(f"{account.name} (#{account.id}, {account.kind}): {account.balance} coins")


@admin_app.command("ledger")
def ledger(
    player: Annotated[str, typer.Argument(help="account name or #id")],
    limit: Annotated[
        int, typer.Option("--limit", min=1, max=MAX_ROWS, help="newest rows to show")
    ] = 50,
    database_url: DatabaseOption = DEFAULT_DATABASE,
    as_json: JsonOption = False,
) -> None:
    """A player's coin ledger, newest first (+ received, − paid; cut = what they could not pay)."""
    with _store(database_url) as store:
        account = _player(store, player)
        rows = store.coin_ledger(account.id, limit)
        others = {r.payer for r in rows} | {r.payee for r in rows}
        names = {i: store.account(i).name for i in others}
    if as_json:
        out.print_json(
            json.dumps({"account": _account_json(account), "rows": [_row_json(r) for r in rows]})
        )
        return
    table = Table(title=f"Ledger of {account.name} (#{account.id}): balance {account.balance}")
    for column in (
        "row",
        "when (UTC)",
        "coins",
        "cut",
        "other side",
        "kind",
        "rule",
        "note",
        "hand",
    ):
        table.add_column(
            column,
            justify="right" if column in ("row", "coins", "cut") else "left",
            no_wrap=column != "note",
            overflow="fold",
        )
    for row in rows:
        incoming = row.payee == account.id
        other = row.payer if incoming else row.payee
        table.add_row(
            str(row.id),
            row.created.strftime("%Y-%m-%d %H:%M"),
            f"{'+' if incoming else '-'}{row.coins}",
            str(row.cut) if row.cut else "",
            names.get(other, f"#{other}"),
            row.kind,
            row.rule,
            row.note,
            str(row.hand_id or ""),
        )
    out.print(table)


@admin_app.command("accounts")
def accounts(
    kind: Annotated[
        str | None, typer.Option("--kind", help="only guest, user or house accounts")
    ] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, max=MAX_ROWS)] = 1000,
    database_url: DatabaseOption = DEFAULT_DATABASE,
    as_json: JsonOption = False,
) -> None:
    """List accounts with their balances."""
    if kind is not None and kind not in ("guest", "user", "house"):
        fail(f"--kind must be guest, user or house, not {kind!r}")
    with _store(database_url) as store:
        found = store.accounts(kind, limit)
    if as_json:
        out.print_json(json.dumps([_account_json(a) for a in found]))
        return
    table = Table(title=f"{len(found)} account(s)")
    for column in ("id", "name", "kind", "balance", "created"):
        table.add_column(column, justify="right" if column in ("id", "balance") else "left")
    for account in found:
        table.add_row(
            str(account.id),
            account.name,
            account.kind,
            str(account.balance),
            account.created.strftime("%Y-%m-%d %H:%M"),
        )
    out.print(table)


@admin_app.command("audit")
def audit(database_url: DatabaseOption = DEFAULT_DATABASE, as_json: JsonOption = False) -> None:
    """Check the coin ledger: it sums to zero, every balance equals its account's rows and
    every hand was settled exactly once. Exit status 1 when it does not."""
    with _store(database_url) as store:
        report = store.audit()
    if as_json:
        out.print_json(
            json.dumps(
                {
                    "ok": report.ok,
                    "ledger_sum": report.ledger_sum,
                    "rows": report.rows,
                    "accounts": report.accounts,
                    "mismatches": [
                        {"id": i, "name": n, "balance": b, "ledger": lg}
                        for i, n, b, lg in report.mismatches
                    ],
                    "hands": report.hands,
                    "settlements": [
                        {"hand": hand, "problem": problem} for hand, problem in report.settlements
                    ],
                }
            )
        )
    else:
        out.print(
            f"{report.rows} ledger rows, {report.accounts} accounts, {report.hands} hands; "
            f"sum of balances {report.ledger_sum}"
        )
        for account_id, name, held, ledger_sum in report.mismatches:
            out.print(f"MISMATCH {name} (#{account_id}): balance {held}, ledger says {ledger_sum}")
        for hand, problem in report.settlements:
            out.print(f"SETTLEMENT hand {hand}: {problem}")
        out.print("audit OK" if report.ok else "audit FAILED")
    if not report.ok:
        raise typer.Exit(EXIT_AUDIT_FAILED)


@admin_app.command("house")
def house(database_url: DatabaseOption = DEFAULT_DATABASE, as_json: JsonOption = False) -> None:
    """The house's position: coins granted out, net from bots' play, balance."""
    with _store(database_url) as store:
        report = store.house_report()
    if as_json:
        out.print_json(
            json.dumps(
                {
                    "balance": report.balance,
                    "granted": report.granted,
                    "hands_net": report.hands_net,
                    "bonuses": report.bonuses,
                    "hands_played": report.hands_played,
                }
            )
        )
        return
    out.print(f"granted to players (starting balances and grants): {report.granted}")
    out.print(f"daily gifts and top-ups paid: {report.bonuses}")
    out.print(f"net from hands with bots: {report.hands_net:+d} over {report.hands_played} hand(s)")
    out.print(f"house balance: {report.balance}")


@admin_app.command("processes")
def processes(database_url: DatabaseOption = DEFAULT_DATABASE, as_json: JsonOption = False) -> None:
    """The server processes sharing this database: address, heartbeat, draining, tables."""
    from duyun.server.store import cluster

    with _store(database_url) as store:
        rows = cluster.processes(store)
    if as_json:
        out.print_json(json.dumps(rows))
        return
    table = Table("owner", "url", "heartbeat", "state", "tables")
    for row in rows:
        state = "gone" if not row["alive"] else "draining" if row["draining"] else "serving"
        table.add_row(
            row["owner"], row["url"] or "-", f"{row['age']} s ago", state, str(row["tables"])
        )
    out.print(table)


@admin_app.command("drain")
def drain(
    owner: Annotated[str, typer.Argument(help="the process's --owner name")],
    undo: Annotated[bool, typer.Option("--undo", help="take new tables again")] = False,
    database_url: DatabaseOption = DEFAULT_DATABASE,
) -> None:
    """Stop a running process taking new tables (within one heartbeat, 2 s); its matches play
    to their end and /readyz answers 503. Stop it once `processes` shows 0 tables."""
    from duyun.server.store import cluster

    with _store(database_url) as store:
        if not cluster.set_draining(store, owner, not undo):
            known = ", ".join(row["owner"] for row in cluster.processes(store)) or "none"
            fail(f"no server process named {owner!r}; known: {known}")
    out.print(f"{owner}: {'taking new tables again' if undo else 'draining'}")


#: the room name calibration matches are stored under (no player can queue for it)
CALIBRATION_ROOM = "calibration"


@admin_app.command("rate-bots")
def rate_bots(
    bot: Annotated[
        str, typer.Option("--bot", help="the bot level to rate (a bot name)")
    ] = "search",
    against: Annotated[
        str, typer.Option("--against", help="the level that fills the other three seats")
    ] = "strong",
    matches: Annotated[int, typer.Option("--matches", help="matches to play, 1-200")] = 4,
    hands: Annotated[int, typer.Option("--hands", help="hands per match, 1-64")] = 8,
    seed: Annotated[int, typer.Option("--seed", help="the matches' seed (reproducible)")] = 1,
    database_url: DatabaseOption = DEFAULT_DATABASE,
    as_json: JsonOption = False,
) -> None:
    """Rate a bot level by rated matches against another (issue 32).

    A level is rated only by the rated matches it plays, and quick match seats 高手 alone: 大師
    would have no rating for the lobby to show. Here BOT plays rated room matches against three
    AGAINST bots, stored as any match is (hands, logs, the house's coin rows, rating history),
    so its rating is measured against a level that people's matches rate. BOT moves round the
    seats from match to match."""
    require_server_extra("admin")
    from duyun.bots import BOT_NAMES, make_bot
    from duyun.engine import Match
    from duyun.server.store import MatchSpec, SeatSpec, StoreError
    from duyun.sim.runner import derive_seed, play_round

    for name, what in ((bot, "--bot"), (against, "--against")):
        if name not in BOT_NAMES:
            fail(f"{what} {name!r} is not a bot; known: {', '.join(BOT_NAMES)}")
    if not 1 <= matches <= 200 or not 1 <= hands <= 64:
        fail("--matches must be 1-200 and --hands 1-64")
    if not 0 <= seed < 2**63:
        fail("--seed must be a whole number from 0 to 2^63 - 1")
    played: list[dict[str, Any]] = []
    with _store(database_url) as store:
        for number in range(matches):
            at = number % 4  # BOT's seat
            names = [bot if seat == at else against for seat in range(4)]
            match_seed = derive_seed(seed, "rate-bots", number)
            spec = MatchSpec(
                kind="room",
                room=CALIBRATION_ROOM,
                stake=1,
                hands=hands,
                seats=tuple(SeatSpec(None, name) for name in names),
                seed=match_seed,
            )
            bots = [
                make_bot(name, derive_seed(match_seed, seat)) for seat, name in enumerate(names)
            ]
            engine_match = Match(hands=hands, seed=match_seed)
            try:
                match_id = store.create_match(spec)
                hand_ids: list[int] = []
                for index in range(hands):
                    game = engine_match.next_hand()
                    hand_id = store.start_hand(
                        match_id, index, game.setup.seed or 0, game.setup.dealer, game.setup.streak
                    )
                    hand_ids.append(hand_id)
                    play_round(game, bots)
                    engine_match.record(game)
                    store.append_events(hand_id, 0, list(game.events))
                    result = game.result
                    assert result is not None
                    end = next(e for e in reversed(game.events) if e["type"] == "end")
                    wins = [e for e in game.events if e["type"] == "win"]
                    store.finish_hand(hand_id, list(result.payments), {**end, "wins": wins})
                changes = store.finish_match(match_id, "completed")
            except StoreError as error:
                fail(str(error))
            mine = next(c for c in changes if c.seat == at)
            played.append(
                {
                    "match": match_id,
                    "hands": hand_ids,
                    "seat": at,
                    "place": mine.place,
                    "rating": mine.after,
                }
            )
            if not as_json:
                out.print(
                    f"match #{match_id}: {bot} at seat {at} placed {mine.place}; {bot} {mine.after}"
                )
        ratings = store.bot_ratings()
    if as_json:
        out.print_json(json.dumps({"matches": played, "ratings": ratings}))
        return
    out.print(", ".join(f"{name} {rating}" for name, rating in ratings.items()))
