"""Tables: one asyncio task per table owning the match and its current engine Round.

The package in layers (issue 22 item 3):

- ``seats.py``: the data of a table (``Seat``, ``Prompt``, ``TableOptions``, ...);
- ``inbox.py``: the typed messages a table's task handles, one at a time;
- ``flow.py``: the hand flow (release of events, claim windows, prompts, bots' moves, claim
  resolution, acts) as synchronous code that returns effects;
- ``table.py``: the async :class:`Table` that executes those effects (store before send),
  with ``seating.py`` (joins, leaves, escapes), ``messages.py`` (the players' table
  messages), ``ending.py`` (settling a hand, ending the match) and ``restore.py`` (a table
  rebuilt from the store);
- ``host.py``: :class:`TableHost`, all a table needs from its host;
- ``manager.py``: :class:`TableManager`, the host of every table of the process.
"""

from duyun.server.tables.flow import CLAIM_SETTLE, HandFlow
from duyun.server.tables.host import TableHost
from duyun.server.tables.manager import TableManager
from duyun.server.tables.seats import (
    PRIVATE_TABLE_IDLE,
    SEATS,
    WIN_SUMMARY_KEYS,
    Client,
    HandSummary,
    Prompt,
    Seat,
    Status,
    TableOptions,
    Viewer,
    dumps,
    hand_seed,
    win_summaries,
)
from duyun.server.tables.table import Table

__all__ = [
    "CLAIM_SETTLE",
    "PRIVATE_TABLE_IDLE",
    "SEATS",
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
    "Viewer",
    "dumps",
    "hand_seed",
    "win_summaries",
]
