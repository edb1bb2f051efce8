"""Bots: policies that see one seat's view and return one of its legal actions.

``make_bot(name, seed, rules)`` builds any of :data:`BOT_NAMES`:

- ``random``: a uniformly random legal action (baseline, fuzzer);
- ``efficient``: tile efficiency -- lowest shanten, then most live useful tiles;
- ``heuristic``: efficiency steered by Duyun rules (R17 beans, patterns, 報聽, defence) through
  fixed rules of thumb (the ``strong`` bot before issue 11);
- ``strong``: the expected value of each decision over the tiles still live for it (future
  draws, fan, R17, 報聽, beans and 黃豆, 查大叫, streak) and defence against each opponent;
- ``search``: the strong bot's close options searched by determinized rollouts (hidden tiles
  sampled from what the seat knows, each option played out to the end of the hand).

:data:`LEARNED_BOT_NAMES` (``strong-learned``, ``search-learned``) are the strong and search
bots reading the learned opponent model (:mod:`duyun.bots.learned`; NumPy needed).

:data:`DIFFICULTIES` maps the game's difficulty levels to these bots, with the labels the
server and ``duyun play`` show.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from duyun.bots.base import Bot
from duyun.bots.efficient import EfficientBot
from duyun.bots.heuristic import HeuristicBot
from duyun.bots.random_bot import RandomBot
from duyun.bots.search import SearchBot
from duyun.bots.strong import StrongBot
from duyun.rules import RuleSet

BOT_NAMES: tuple[str, ...] = ("random", "efficient", "heuristic", "strong", "search")

LEARNED_BOT_NAMES: tuple[str, ...] = ("strong-learned", "search-learned")
"""Bots that read the learned opponent model (:mod:`duyun.bots.learned`, issue 35): they need
NumPy (the ``rl`` or ``train`` extra), so they are built by :func:`make_bot` but are not among
:data:`BOT_NAMES`, which the core install, the server and its difficulty levels offer."""

_FACTORIES: dict[str, Callable[[int], Bot]] = {
    "random": RandomBot,
    "efficient": EfficientBot,
    "heuristic": HeuristicBot,
    "strong": StrongBot,
    "search": SearchBot,
}


@dataclass(frozen=True, slots=True)
class Difficulty:
    """A difficulty level offered to players: its key, the bot behind it and its labels."""

    key: str
    bot: str
    label: str
    label_zh: str


DIFFICULTY_LEVELS: tuple[Difficulty, ...] = (
    Difficulty("easy", "random", "Easy", "簡單"),
    Difficulty("normal", "efficient", "Normal", "普通"),
    Difficulty("hard", "heuristic", "Hard", "困難"),
    Difficulty("expert", "strong", "Expert", "高手"),
    Difficulty("master", "search", "Master", "大師"),
)
"""The levels in increasing strength (the order a menu should list them in)."""

DIFFICULTIES: dict[str, str] = {level.key: level.bot for level in DIFFICULTY_LEVELS}
"""Difficulty key -> bot name: ``{"easy": "random", ..., "expert": "strong", "master": "search"}``.

``master`` (大師, issue 23) was added above ``expert``, which keeps its name and bot."""


def make_bot(name: str, seed: int = 0, rules: RuleSet | None = None) -> Bot:
    """A new bot called ``name``, deterministic given ``seed``.

    ``rules`` is the room's RuleSet where the caller knows it. Only the search bot reads it:
    its rollouts play the hand under those rules (a 血戰 room's hand goes on after the first
    win, R53), which a view does not tell until a seat has won. Without it the bot assumes
    the normal room until a win shows otherwise.

    Raises ValueError naming the known bots for an unknown name, so a typo on the command line
    gets a useful message.
    """
    if name in LEARNED_BOT_NAMES:
        return _learned_bot(name, seed, rules)
    factory = _FACTORIES.get(name)
    if factory is None:
        raise ValueError(f"unknown bot {name!r}; known bots: {', '.join(BOT_NAMES)}")
    if factory is SearchBot:
        return SearchBot(seed, rules=rules)
    return factory(seed)


def _learned_bot(name: str, seed: int, rules: RuleSet | None) -> Bot:
    try:
        from duyun.bots import learned
    except ImportError as error:  # pragma: no cover - depends on the installation
        raise ImportError(
            f"the {name} bot reads the learned models with NumPy ({error.name} is missing): "
            "pip install 'duyun[rl]'"
        ) from error
    if name == "search-learned":
        return learned.LearnedSearchBot(seed, rules=rules)
    return learned.LearnedStrongBot(seed)


def resolve_bot(name_or_level: str) -> str:
    """The bot called ``name_or_level``, or the bot behind that difficulty level: players and
    clients choose "expert", tools and logs name "strong"; both are accepted wherever a bot is
    chosen. Raises ValueError naming the known bots and levels."""
    name = DIFFICULTIES.get(name_or_level, name_or_level)
    if name not in _FACTORIES:
        raise ValueError(
            f"unknown bot {name_or_level!r}; known bots: {', '.join(BOT_NAMES)}; "
            f"levels: {', '.join(DIFFICULTIES)}"
        )
    return name


def bot_for_difficulty(key: str, seed: int = 0, rules: RuleSet | None = None) -> Bot:
    """The bot behind difficulty ``key`` (``easy``/``normal``/``hard``/``expert``/``master``),
    told the room's ``rules`` when the caller knows them (:func:`make_bot`).

    Raises ValueError naming the known levels for an unknown key.
    """
    name = DIFFICULTIES.get(key)
    if name is None:
        raise ValueError(f"unknown difficulty {key!r}; known levels: {', '.join(DIFFICULTIES)}")
    return make_bot(name, seed, rules)


__all__ = [
    "BOT_NAMES",
    "DIFFICULTIES",
    "DIFFICULTY_LEVELS",
    "LEARNED_BOT_NAMES",
    "Bot",
    "Difficulty",
    "EfficientBot",
    "HeuristicBot",
    "RandomBot",
    "SearchBot",
    "StrongBot",
    "bot_for_difficulty",
    "make_bot",
]
