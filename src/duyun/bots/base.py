"""The Bot protocol: a policy that sees one seat's view and picks one of its legal actions.

Bots never see the Round itself -- only :class:`~duyun.engine.view.SeatView` -- so a bot cannot
cheat by reading other hands or the wall. A bot is deterministic given its seed.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from duyun.engine.actions import Action
from duyun.engine.view import SeatView


@runtime_checkable
class Bot(Protocol):
    """A player. ``choose`` must return an element of ``view.legal``."""

    name: str

    def choose(self, view: SeatView) -> Action:
        """Pick one action from ``view.legal`` (never empty when called)."""
        ...
