"""The terminal game loop: a :class:`~duyun.engine.Match` between one person and three bots.

The loop only routes decisions: it asks ``game.to_act`` who must decide, asks that seat's bot
or the player (offering exactly ``view.legal``), and hands the answer to ``game.apply``. The
engine does everything else (draws, forced moves, claims, payments), so the terminal game
plays by the very same rules as self-play and the server.

Ctrl-C is a request to leave, not a crash: the player is asked to confirm, and leaving in the
middle of a hand is an escape (R45) settled by the engine. A SIGINT that arrives while a bot
thinks or the engine applies a move is held back until that step is done, so the engine is
never interrupted half-way through a move. End of input (Ctrl-D) means "quit".
"""

from __future__ import annotations

import datetime as _dt
import itertools
import signal
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from rich.console import Console
from rich.text import Text

from duyun.bots.base import Bot
from duyun.engine import (
    Action,
    EngineError,
    Match,
    Round,
    SeatView,
    dump_events,
    events_for,
)
from duyun.engine.round import LAST_TILES
from duyun.rules import DUYUN, RuleSet
from duyun.tui.commands import (
    HelpRequested,
    InputError,
    RedrawRequested,
    parse_command,
    summarize_legal,
)
from duyun.tui.hints import Hints, compute_hints
from duyun.tui.render import (
    TableInfo,
    describe_event,
    render_match_end,
    render_replay_note,
    render_settlement,
    render_table,
)

SEATS = 4
BotFactory = Callable[[str, int], Bot]
ReadLine = Callable[[str], str]
ScreenSize = Callable[[], tuple[int, int]]

HELP = """\
Type one of the actions listed under "you may":
  5p  or  3          discard 5p, or the tile at hand position 3 (also: d 5p, d 3)
  b 5p               declare 報聽 (ready) together with the discard of 5p (also: b 3)
  p / pong / 碰      pong the discarded tile
  k / kong / 槓      kong (add the tile when several kongs are possible: k 5p)
  h / hu / 胡        win
  g / pass / 過      pass
  r / redraw         show the table again (also: t, table)
Ctrl-C or Ctrl-D: leave the match (leaving during a hand costs the escape penalty)."""
#: Lines of the running log that stay visible above the table at the terminal's height.
LOG_LINES = 3


class QuitRequested(Exception):
    """The player confirmed that they want to leave the match."""


def bot_seed(seed: int, seat: int) -> int:
    """Each bot's seed, derived from the match seed so the whole match is reproducible."""
    return (seed * 1_000_003 + 7919 * (seat + 1)) % (1 << 63)


@dataclass(frozen=True, slots=True)
class PlayOptions:
    """The settings of one terminal match (the ``duyun play`` options)."""

    bots: tuple[str, str, str] = ("strong", "strong", "strong")
    hands: int = 8
    seed: int = 0
    stake: int = 1
    seat: int = 0
    hints: bool = False
    replay_dir: Path = Path("replays")
    chinese: bool = False
    #: how the player runs this program, for the replay hint (``duyun`` or ``.venv/bin/duyun``)
    command: str = "duyun"
    rules: RuleSet = DUYUN  # e.g. RuleSet(bloody_battle=True): 血戰 rooms, R52-R57

    def bot_seats(self) -> list[int]:
        return [s for s in range(SEATS) if s != self.seat]


class InterruptGate:
    """SIGINT handling: raise at a prompt, otherwise remember it for the next safe point."""

    def __init__(self) -> None:
        self.at_prompt = False
        self.pending = False
        self._previous: Any = None

    def _handler(self, signum: int, frame: FrameType | None) -> None:
        if self.at_prompt:
            raise KeyboardInterrupt
        self.pending = True

    def __enter__(self) -> InterruptGate:
        self._previous = signal.signal(signal.SIGINT, self._handler)
        return self

    def __exit__(self, *exc: object) -> None:
        signal.signal(signal.SIGINT, self._previous)

    @contextmanager
    def prompt(self) -> Iterator[None]:
        self.at_prompt = True
        try:
            if self.pending:  # a Ctrl-C just before the prompt is answered here
                self.pending = False
                raise KeyboardInterrupt
            yield
        finally:
            self.at_prompt = False


@dataclass
class Session:
    """One match in the terminal; :meth:`run` plays it and returns the exit status."""

    options: PlayOptions
    console: Console
    bot_factory: BotFactory
    read_line: ReadLine = input
    #: Drops what was typed before a prompt appeared (a terminal's pending input), so that a
    #: fast key press never answers a question the player has not seen.
    discard_typeahead: Callable[[], None] = lambda: None
    #: The terminal's (width, height); None: the table is drawn without a height limit.
    screen_size: ScreenSize | None = None
    match: Match = field(init=False)
    bots: dict[int, Bot] = field(init=False)
    replay_path: Path = field(init=False)
    finished_events: list[dict[str, Any]] = field(init=False, default_factory=list)
    game: Round | None = field(init=False, default=None)
    gate: InterruptGate = field(init=False, default_factory=InterruptGate)

    def __post_init__(self) -> None:
        options = self.options
        self.match = Match(
            hands=options.hands, seed=options.seed, stake=options.stake, rules=options.rules
        )
        self.bots = {
            seat: self.bot_factory(name, bot_seed(options.seed, seat))
            for seat, name in zip(options.bot_seats(), options.bots, strict=True)
        }
        stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
        base = f"duyun-{stamp}-seed{options.seed}"
        self.replay_path = options.replay_dir / f"{base}.jsonl"
        for number in itertools.count(2):  # two matches in one second must not overwrite
            if not self.replay_path.exists():
                break
            self.replay_path = options.replay_dir / f"{base}-{number}.jsonl"

    # ------------------------------------------------------------------ info for the screen

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(
            "You" if seat == self.options.seat else self.bots[seat].name for seat in range(SEATS)
        )

    def info(self, match_points: Sequence[int] | None = None) -> TableInfo:
        played = self.match.hands_played
        in_hand = self.game is not None and not self.game.is_over
        return TableInfo(
            names=self.names,
            human=self.options.seat,
            hand_number=played + 1 if in_hand or played == 0 else played,
            hands_total=self.match.hands,
            match_points=tuple(self.match.totals if match_points is None else match_points),
            stake=self.options.stake,
            chinese=self.options.chinese,
            rules=self.game.events[0].get("rules") if self.game is not None else None,
        )

    # ------------------------------------------------------------------ the match

    def run(self) -> int:
        """Play the match; returns 0, also after the player left it (their choice)."""
        self.console.print(
            Text(
                # one line at 80 columns
                f"Duyun mahjong 都勻麻將 · seed {self.options.seed} (--seed: same deal) "
                "· ? help · r redraw",
                style="bold",
            )
        )
        status = 0
        with self.gate:  # also shields the final save from a stray Ctrl-C
            try:
                while not self.match.is_over:
                    self.play_hand()
                    if not self.match.is_over:
                        self.pause()
            except QuitRequested:
                self.leave()
            except EngineError as error:
                # A bot or engine bug: say so plainly and keep the log that reproduces it.
                self.console.print(Text(f"internal error: {error}", style="bold red"))
                status = 1
            finally:
                # Even an unexpected crash (re-raised, with its traceback) keeps the replay.
                self.save_replay()
            self.console.print(
                render_match_end(
                    self.match.totals, self.info(), hands_played=self.match.hands_played
                )
            )
            if self.replay_path.exists():
                self.console.print(
                    render_replay_note(
                        self.replay_path, self.options.command, chinese=self.options.chinese
                    ),
                    soft_wrap=True,
                )
        return status

    def play_hand(self) -> None:
        game = self.game = self.match.next_hand()
        self.show_events(game.events)
        while not game.is_over:
            self.check_interrupt()
            to_act = game.to_act
            seat = self.options.seat if self.options.seat in to_act else to_act[0]
            action = (
                self.ask_player(game) if seat == self.options.seat else self.ask_bot(game, seat)
            )
            self.show_events(game.apply(action))
        self.finish_hand(game)

    def finish_hand(self, game: Round) -> None:
        before = tuple(self.match.totals)
        result = self.match.record(game)
        end = game.events[-1]
        hands = end.get("hands") if end.get("type") == "end" else None
        self.console.print(
            render_settlement(
                result,
                self.info(before),
                hands=hands,
                match_points=self.match.totals,
                wins=[event for event in game.events if event.get("type") == "win"],
            )
        )
        self.finished_events.extend(game.events)
        self.save_replay()

    def leave(self) -> None:
        """R45: leaving during a hand is an escape, settled by the engine."""
        game = self.game
        if game is None or game.is_over:
            return
        self.show_events(game.escape(self.options.seat))
        # R57: a player who has won a 血戰 hand leaves without penalty and the hand goes on;
        # the bots play it out so that the match records a whole hand
        while not game.is_over:
            seat = game.to_act[0]
            self.show_events(game.apply(self.ask_bot(game, seat)))
        self.finish_hand(game)

    def check_interrupt(self) -> None:
        if self.gate.pending:
            self.gate.pending = False
            if self.confirm_quit():
                raise QuitRequested
            self.console.print("Resuming.")

    def pause(self) -> None:
        while True:
            answer = self.read(
                f"Press Enter for hand {self.match.hands_played + 1}"
                f"/{self.match.hands} (q to quit): "
            )
            if answer.strip().lower() in ("q", "quit", "exit"):
                if self.confirm_quit():
                    raise QuitRequested
                continue
            return

    # ------------------------------------------------------------------ decisions

    def ask_bot(self, game: Round, seat: int) -> Action:
        action = self.bots[seat].choose(game.view(seat))
        if action not in game.legal_actions(seat):
            raise EngineError(
                f"bot {self.bots[seat].name} at seat {seat} chose {action}, "
                "which is not one of its legal actions"
            )
        return action

    def draw_table(self, view: SeatView, hints: Hints | None) -> None:
        """The table at the foot of the screen; at the terminal's size it leaves room for the
        prompt and the last lines of the running log (80×24 included)."""
        if self.screen_size is None:
            self.console.print(render_table(view, self.info(), hints))
            return
        width, height = self.screen_size()
        table = render_table(
            view, self.info(), hints, width=width, height=max(8, height - 1 - LOG_LINES)
        )
        self.console.print(table)

    def ask_player(self, game: Round) -> Action:
        view = game.view(self.options.seat)
        hints = compute_hints(view) if self.options.hints else None
        chinese = self.options.chinese
        self.draw_table(view, hints)
        while True:
            text = self.read("your move> ")
            try:
                return parse_command(text, view, chinese=chinese)
            except HelpRequested:
                self.console.print(HELP, markup=False, highlight=False)
                self.console.print(
                    "you may: " + " · ".join(summarize_legal(view.legal, chinese=chinese)),
                    markup=False,
                    highlight=False,
                )
            except RedrawRequested:
                self.draw_table(view, hints)
            except InputError as error:
                # one line of text: the terminal wraps it, Rich does not break it
                self.console.print(Text(f"✗ {error}", style="bold red"), soft_wrap=True)

    def read(self, prompt: str) -> str:
        """One line from the player. Ctrl-C asks to confirm quitting; end of input quits."""
        while True:
            try:
                self.discard_typeahead()
                with self.gate.prompt():
                    return self.read_line(prompt)
            except EOFError:
                self.console.print()
                raise QuitRequested from None
            except KeyboardInterrupt:
                self.console.print()
                if self.confirm_quit():
                    raise QuitRequested from None
                self.console.print("Resuming.")

    def quit_cost(self) -> str:
        """What quitting costs at this moment (R45), in the words of the confirmation.

        Only what the player may know: the flat penalty is exact; when the wall holds four
        tiles or fewer the 查大叫 alternative depends on the others' concealed hands, so it is
        named, not computed.
        """
        game = self.game
        if game is None or game.is_over:
            left = self.match.hands - self.match.hands_played
            return f"Between hands quitting costs nothing ({left} hand(s) not played)."
        if game.won[self.options.seat]:
            return "You have won this hand: leaving the table now costs nothing."
        rules = self.match.rules
        each = rules.escape_penalty_units * rules.base_points
        # R45 (a), R57: each other player still in the hand is paid
        others = sum(1 for s in range(SEATS) if s != self.options.seat and not game.won[s])
        total = each * others
        coins = f", {total * self.options.stake} coins" if self.options.stake != 1 else ""
        text = (
            f"Quitting now is an escape (強退): you pay {rules.escape_penalty_units} × "
            f"{rules.base_points} = {each} points to each other player ({total} points{coins})"
        )
        if game.wall_remaining <= LAST_TILES:
            text += ", or 查大叫 to each ready player if that is more"
        return text + "."

    def confirm_quit(self) -> bool:
        try:
            # soft_wrap: the terminal wraps it, so the sentence stays one line of text
            self.console.print(Text(self.quit_cost(), style="bold"), soft_wrap=True)
            self.discard_typeahead()
            with self.gate.prompt():
                answer = self.read_line("Quit the match? [y/N] ")
        except (EOFError, KeyboardInterrupt):
            self.console.print()
            return True
        return answer.strip().lower() in ("y", "yes", "q", "quit")

    # ------------------------------------------------------------------ output

    def show_events(self, events: Sequence[dict[str, Any]]) -> None:
        info = self.info()
        for event in events_for(events, self.options.seat):
            line = describe_event(event, info)
            if line is not None:
                self.console.print(line)

    def save_replay(self) -> None:
        """Write every hand played so far (an unfinished one included) as JSON Lines."""
        events = list(self.finished_events)
        if self.game is not None and not self.game.is_over:
            events.extend(self.game.events)
        if not events:
            return
        try:
            self.replay_path.parent.mkdir(parents=True, exist_ok=True)
            with self.replay_path.open("w", encoding="utf-8") as stream:
                dump_events(events, stream)
        except OSError as error:  # a full disk or a folder removed mid-match: keep playing
            self.console.print(
                Text(f"could not save the replay to {self.replay_path}: {error}", style="red")
            )
