"""Tables: one asyncio task per table owning the match and its current engine Round.

The package in layers (issue 22 item 3):

- ``timers.py``: the names of a table's timers (:class:`~timers.TimerKey`);
- ``inbox.py``: a table's clients and the typed messages its task handles, one at a time;
- ``seats.py``: the data of a table (``Seat``, ``Prompt``, ``TableOptions``, ...);
- ``flow.py``: the hand flow (release of events, claim windows, prompts, bots' moves, claim
  resolution, acts) as synchronous code that returns effects;
- ``effects.py``: the table's effects and the answers that come back to it;
- ``ending.py``: a hand's settlement and the ``match_end`` message, as data;
- ``status.py``: the table's statuses and the one declared set of changes between them;
- ``board.py``, ``match.py``, ``state.py``: :class:`TableState`, the table as one pure state
  machine, in three layers: what a table is and shows; the match (its start, each hand's
  deal and settlement, its end, a restore); the inputs, the seats and the players' messages;
- ``table.py``: the async :class:`Table` that runs those effects (store before send) and
  feeds the answers back, and :class:`TableHost`, all a table needs from its host;
- ``manager.py``: :class:`TableManager`, the host of every table of the process.

Each module imports only those above it: no circle (tests/test_import_graph.py).
"""

from duyun.server.tables.flow import CLAIM_SETTLE, HandFlow
from duyun.server.tables.manager import TableManager
from duyun.server.tables.seats import (
    PRIVATE_TABLE_IDLE,
    SEATS,
    WIN_SUMMARY_KEYS,
    Client,
    HandSummary,
    Prompt,
    Seat,
    TableOptions,
    Viewer,
    dumps,
    hand_seed,
    win_summaries,
)
from duyun.server.tables.state import TableState
from duyun.server.tables.status import TRANSITIONS, Status
from duyun.server.tables.table import Table, TableHost

__all__ = [
    "CLAIM_SETTLE",
    "PRIVATE_TABLE_IDLE",
    "SEATS",
    "TRANSITIONS",
    "WIN_SUMMARY_KEYS",
    "Client",
    "HandFlow",
    "HandSummary",
    "Prompt",
    "Seat",
    "Status",
    "Table",
    "TableHost",
    "TableManager",
    "TableOptions",
    "TableState",
    "Viewer",
    "dumps",
    "hand_seed",
    "win_summaries",
]
