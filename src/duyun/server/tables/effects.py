"""What a table's state machine asks its shell to do, and the answers that come back.

The table (``state.py``) is a pure state machine: each transition returns a list of these
effects, and the async :class:`~duyun.server.tables.table.Table` runs them in order. Some of
them are questions (a store call whose answer the match needs: the match's id, the hand's
id, the settlement's coin rows, the new ratings, the 再來一局 table's code): the shell answers
with the :data:`Result` named on the effect, and hands it to
:meth:`~duyun.server.tables.state.TableState.on_result`, whose effects run next, before the
rest of the list (as the awaited call of the code this replaced did). The shell runs one such
loop per inbox message and never calls back into a transition from inside an effect.

The hand's own effects (``flow.py``) are taken into these by the state: events to store become
:class:`AppendEvents` with the hand's id and lease, events to send become the text each
connected client gets, while timers, the claim settle, a bot's thought and the end of the hand
pass through. Everything here is a small frozen dataclass (``slots``): a decision makes a
handful of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from duyun.engine import Payment, Round
from duyun.server.store import Account, CoinRow, Lease, MatchSpec, RatingChange
from duyun.server.tables.flow import CancelTimer, DropThought, SetTimer, SettleUntil, Think
from duyun.server.tables.inbox import Client, InboxMessage, TableRef
from duyun.server.tables.seats import Prompt

# ---------------------------------------------------------------------------- to clients


@dataclass(frozen=True, slots=True)
class Send:
    """``message`` to one client (``Client.send``)."""

    client: Client
    message: dict[str, Any]


@dataclass(frozen=True, slots=True)
class SendText:
    """One message serialised once, to several clients (``Client.send_text``)."""

    clients: tuple[Client, ...]
    text: str


@dataclass(frozen=True, slots=True)
class SendPrompt:
    """A decision asked of a seat's client. The prompt is rendered when it is sent, so its
    ``deadline`` is what is left of it then (after the stores before it)."""

    client: Client
    prompt: Prompt
    hand_id: int


@dataclass(frozen=True, slots=True)
class SendSnapshot:
    """A ``snapshot`` to one client; its ``prompt``, if any, is rendered when it is sent."""

    client: Client
    message: dict[str, Any]
    prompt: Prompt | None
    hand_id: int


@dataclass(frozen=True, slots=True)
class PostTo:
    """Post ``item`` to another table's inbox (a spectator moving to this table)."""

    table: TableRef
    item: InboxMessage


# ---------------------------------------------------------------------------- timers


@dataclass(frozen=True, slots=True)
class CancelAllTimers:
    """The match is over: no timer of the table may fire any more."""


# ---------------------------------------------------------------------------- the store


@dataclass(frozen=True, slots=True)
class AppendEvents:
    """Append the hand's ``events`` from sequence number ``first`` (the group-committing
    writer); what follows waits for the commit."""

    hand_id: int
    first: int
    events: list[dict[str, Any]]
    lease: Lease | None


@dataclass(frozen=True, slots=True)
class StoreMatchStart:
    """Create the match in the store, leased to this process; answered by
    :class:`MatchCreated`."""

    spec: MatchSpec
    owner: str | None
    lease_seconds: float


@dataclass(frozen=True, slots=True)
class StoreHandStart:
    """Record the hand about to be dealt; answered by :class:`HandStarted`, which carries
    ``game`` (the dealt round) back."""

    match_id: int
    hand_index: int
    seed: int
    dealer: int
    streak: int
    lease: Lease | None
    game: Round


@dataclass(frozen=True, slots=True)
class StoreTuoguan:
    """Keep seat ``seat``'s 托管 as it is now, so a restart does not undo it (issue 37)."""

    match_id: int
    seat: int
    on: bool
    lease: Lease | None


@dataclass(frozen=True, slots=True)
class StoreForcedTuoguan:
    """Mark (or clear, a player back between hands) seat ``seat`` as played by its bot to the
    end of the match (an escape, R45, or a leave)."""

    match_id: int
    seat: int
    lease: Lease | None
    forced: bool = True


@dataclass(frozen=True, slots=True)
class StoreSettlement:
    """Store the hand's result and payments; answered by :class:`HandSettled`."""

    hand_id: int
    payments: list[Payment]
    end: dict[str, Any]
    lease: Lease | None


@dataclass(frozen=True, slots=True)
class ReadBalances:
    """The seated people's balances after a settlement; answered by :class:`BalancesRead`."""

    account_ids: list[int]


@dataclass(frozen=True, slots=True)
class StoreMatchEnd:
    """Store the match's end (and its ratings); answered by :class:`MatchFinished`."""

    match_id: int
    reason: str
    lease: Lease | None


# ---------------------------------------------------------------------------- the host


@dataclass(frozen=True, slots=True)
class RegisterMatch:
    match_id: int


@dataclass(frozen=True, slots=True)
class HostSeat:
    """The account sits at this table (``TableHost.seat``)."""

    account_id: int


@dataclass(frozen=True, slots=True)
class HostUnseat:
    account_id: int


@dataclass(frozen=True, slots=True)
class AttachClient:
    """Route what ``client`` sends next to this table (``here``) or to none."""

    client: Client
    here: bool


@dataclass(frozen=True, slots=True)
class DetachClient:
    client: Client


@dataclass(frozen=True, slots=True)
class Watch:
    """``client`` spectates this table now (``here``), or nothing."""

    client: Client
    here: bool


@dataclass(frozen=True, slots=True)
class QuickMatch:
    """Seat ``client`` at another table of ``room`` (this one filled up, or is not fair)."""

    client: Client
    room: str


@dataclass(frozen=True, slots=True)
class Rematch:
    """再來一局: the host opens the next waiting table under this code; answered by
    :class:`Rematched`."""


@dataclass(frozen=True, slots=True)
class SetBotRating:
    """A bot level's rating after a rated match, which every table shows from now on."""

    bot: str
    rating: int


@dataclass(frozen=True, slots=True)
class SetAccount:
    """The client's account as it is now (a new rating): the next table this connection sits
    at by code shows it."""

    client: Client
    account: Account


@dataclass(frozen=True, slots=True)
class DropTable:
    """Forget this table and stop its task."""


@dataclass(frozen=True, slots=True)
class Resume:
    """Go on with ``step`` of the transition that asked for it, once everything before it in
    the list has run, the answers to its questions included: what the code after an ``await``
    did before the table was a state machine. The shell hands ``step`` straight back to
    :meth:`~duyun.server.tables.state.TableState.on_result`."""

    step: Step


Effect = (
    Send
    | SendText
    | SendPrompt
    | SendSnapshot
    | PostTo
    | SetTimer
    | CancelTimer
    | CancelAllTimers
    | SettleUntil
    | Think
    | DropThought
    | AppendEvents
    | StoreMatchStart
    | StoreHandStart
    | StoreTuoguan
    | StoreForcedTuoguan
    | StoreSettlement
    | ReadBalances
    | StoreMatchEnd
    | RegisterMatch
    | HostSeat
    | HostUnseat
    | AttachClient
    | DetachClient
    | Watch
    | QuickMatch
    | Rematch
    | SetBotRating
    | SetAccount
    | DropTable
    | Resume
)


# ---------------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True)
class MatchCreated:
    match_id: int


@dataclass(frozen=True, slots=True)
class HandStarted:
    hand_id: int
    game: Round


@dataclass(frozen=True, slots=True)
class HandSettled:
    """The hand's coin rows in ledger order, one per engine payment (R41)."""

    rows: Sequence[CoinRow]


@dataclass(frozen=True, slots=True)
class BalancesRead:
    balances: dict[int, int]


@dataclass(frozen=True, slots=True)
class MatchFinished:
    reason: str
    changes: list[RatingChange]


@dataclass(frozen=True, slots=True)
class Rematched:
    code: str


@dataclass(frozen=True, slots=True)
class Settled:
    """The claim settle (:class:`SettleUntil`) is over."""


# ---------------------------------------------------------------------------- resumed steps


@dataclass(frozen=True, slots=True)
class Reprompt:
    """After a change of 托管 (and the next hand it may have dealt): the seat's pending turn
    decision is asked anew under its new driver."""

    seat: int


@dataclass(frozen=True, slots=True)
class ShowState:
    """A player back at its seat (回到牌桌) is sent the table as it is now."""

    client: Client
    seat: int


@dataclass(frozen=True, slots=True)
class LeaveSeat:
    """A seat left during a match, after its escape (if any): its player goes.
    ``may_return``: it left between hands (None: it had escaped before, unchanged)."""

    seat: int
    may_return: bool | None


@dataclass(frozen=True, slots=True)
class AfterGrace:
    """A grace ran out and the seat went to 托管 or escaped: the table is shown anew (an
    escape) and the next hand is looked at."""

    broadcast: bool


@dataclass(frozen=True, slots=True)
class Deal:
    """The new hand's deal is stored: the hand is on, its first event goes out as a
    snapshot and play runs on (on the clock of that moment: prompts' deadlines and timers
    count from it)."""


Step = Reprompt | ShowState | LeaveSeat | AfterGrace | Deal

Result = (
    MatchCreated
    | HandStarted
    | HandSettled
    | BalancesRead
    | MatchFinished
    | Rematched
    | Settled
    | Step
)
