"""Bots: policies that see one seat's view and return one of its legal actions.

``make_bot(name, seed)`` builds any of :data:`BOT_NAMES`:

- ``random``: a uniformly random legal action (baseline, fuzzer);
- ``efficient``: tile efficiency -- lowest shanten, then most live useful tiles;
- ``strong``: plays for points under Duyun rules (R17 beans, patterns, 報聽, defence).
"""

from __future__ import annotations

from collections.abc import Callable

from duyun.bots.base import Bot
from duyun.bots.efficient import EfficientBot
from duyun.bots.random_bot import RandomBot
from duyun.bots.strong import StrongBot

BOT_NAMES: tuple[str, ...] = ("random", "efficient", "strong")

_FACTORIES: dict[str, Callable[[int], Bot]] = {
    "random": RandomBot,
    "efficient": EfficientBot,
    "strong": StrongBot,
}


def make_bot(name: str, seed: int = 0) -> Bot:
    """A new bot called ``name``, deterministic given ``seed``.

    Raises ValueError naming the known bots for an unknown name, so a typo on the command line
    gets a useful message.
    """
    factory = _FACTORIES.get(name)
    if factory is None:
        raise ValueError(f"unknown bot {name!r}; known bots: {', '.join(BOT_NAMES)}")
    return factory(seed)


__all__ = ["BOT_NAMES", "Bot", "EfficientBot", "RandomBot", "StrongBot", "make_bot"]
