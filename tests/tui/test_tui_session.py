"""The terminal game loop in-process: scripted input, a recording console, real bots.

The pseudo-terminal tests (test_cli_play_pty.py) drive the real program; these cover the loop's
branches (quit, resume, end of input, a Ctrl-C while a bot thinks, a buggy bot) quickly.
"""

from __future__ import annotations

import io
import itertools
import os
import signal
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pytest
from rich.console import Console

from duyun.bots import Bot, make_bot
from duyun.engine import Action, ActionKind, SeatView, load_events, replay, split_hands
from duyun.tui.session import PlayOptions, Session


def script(answers: Iterable[str | BaseException]) -> Callable[[str], str]:
    """A ``read_line`` that gives the answers in order (raising the exceptions)."""
    iterator: Iterator[str | BaseException] = iter(answers)

    def read_line(prompt: str) -> str:
        answer = next(iterator)
        if isinstance(answer, BaseException):
            raise answer
        return answer

    return read_line


def autoplay() -> Iterator[str]:
    """Win when possible, else pass, else discard position 1 (errors re-prompt on the way)."""
    return itertools.cycle(["h", "g", "1"])


def session(
    tmp_path: Path,
    answers: Iterable[str | BaseException],
    *,
    factory: Callable[[str, int], Bot] = make_bot,
    **options: object,
) -> tuple[Session, io.StringIO]:
    out = io.StringIO()
    console = Console(file=out, width=100, color_system=None)
    settings = PlayOptions(
        bots=("efficient", "random", "strong"), seed=5, replay_dir=tmp_path / "replays", **options
    )  # type: ignore[arg-type]
    return Session(settings, console, factory, read_line=script(answers)), out


def replayed_hands(path: Path) -> list[list[dict[str, object]]]:
    hands = split_hands(load_events(path.read_text("utf-8").splitlines()))
    for events in hands:
        replay(events)  # raises if the log does not reproduce itself
    return hands


def test_full_match(tmp_path: Path) -> None:
    play, out = session(tmp_path, autoplay(), hands=2, stake=2)
    assert play.run() == 0
    text = out.getvalue()
    assert "Settlement of hand 1/2" in text and "Settlement of hand 2/2" in text
    assert "Match over after 2 hand(s)" in text
    assert "✗ you cannot" in text  # bad answers re-prompted, no traceback
    assert f"Replay saved to {play.replay_path}" in text
    assert len(replayed_hands(play.replay_path)) == 2
    assert play.match.is_over
    assert sum(play.match.totals) == 0


def test_same_seed_same_match(tmp_path: Path) -> None:
    first, _ = session(tmp_path / "a", autoplay(), hands=2)
    second, _ = session(tmp_path / "b", autoplay(), hands=2)
    assert first.run() == second.run() == 0
    assert first.replay_path.read_text() == second.replay_path.read_text()


def test_other_seat(tmp_path: Path) -> None:
    play, out = session(tmp_path, autoplay(), hands=1, seat=2)
    assert play.run() == 0
    assert play.names[2] == "You"
    assert "You" in out.getvalue()


def test_ctrl_c_no_resumes_then_yes_escapes(tmp_path: Path) -> None:
    play, out = session(tmp_path, [KeyboardInterrupt(), "n", KeyboardInterrupt(), "y"], hands=3)
    assert play.run() == 0
    text = out.getvalue()
    assert "Resuming." in text
    assert "You quit the hand: 強退 escape" in text
    result = play.match.results[-1]
    assert result.result == "escape" and result.loser == 0
    assert play.match.hands_played == 1  # the match ends with the escape
    assert sum(row.points for row in result.payments if row.rule == "R45") == 3 * 16 * 6
    events = replayed_hands(play.replay_path)[-1]
    assert {"type": "act", "seat": 0, "action": "quit"} in events


def test_end_of_input_quits(tmp_path: Path) -> None:
    play, out = session(tmp_path, [EOFError()])
    assert play.run() == 0
    assert play.match.results[-1].result == "escape"
    assert "Match over after 1 hand(s)" in out.getvalue()


def test_quit_between_hands_costs_nothing(tmp_path: Path) -> None:
    moves = autoplay()

    def read_line(prompt: str) -> str:
        if prompt.startswith("Press Enter"):
            return "q"
        if prompt.startswith("Quit the match?"):
            return "y"
        return next(moves)

    play, out = session(tmp_path, [], hands=2)
    play.read_line = read_line
    assert play.run() == 0
    assert play.match.hands_played == 1
    assert play.match.results[0].result != "escape"
    text = out.getvalue()
    assert "Match over after 1 hand(s)" in text
    # R45: what quitting costs is said before the question; between hands, nothing
    assert "Between hands quitting costs nothing (1 hand(s) not played)." in text
    assert "escape (強退" not in text


def test_ctrl_c_while_a_bot_thinks_waits_for_a_safe_point(tmp_path: Path) -> None:
    calls = itertools.count()

    def factory(name: str, seed: int) -> Bot:
        bot = make_bot(name, seed)

        class Interrupting:
            def __init__(self) -> None:
                self.name = bot.name

            def choose(self, view: SeatView) -> Action:
                if next(calls) == 2:
                    os.kill(os.getpid(), signal.SIGINT)  # held back until the move is applied
                return bot.choose(view)

        return Interrupting()

    moves = autoplay()
    asked: list[str] = []

    def read_line(prompt: str) -> str:
        asked.append(prompt)
        return "y" if prompt.startswith("Quit the match?") else next(moves)

    play, _ = session(tmp_path, [], factory=factory)
    play.read_line = read_line
    assert play.run() == 0
    assert any(prompt.startswith("Quit the match?") for prompt in asked)
    assert play.match.results[-1].result == "escape"
    replayed_hands(play.replay_path)  # the engine was never cut off mid-move


def test_buggy_bot_is_reported_not_hidden(tmp_path: Path) -> None:
    class Cheater:
        name = "cheater"

        def choose(self, view: SeatView) -> Action:
            missing = next(tile for tile in range(27) if tile not in view.hand)
            return Action(view.seat, ActionKind.DISCARD, missing)  # never legal

    play, out = session(tmp_path, autoplay(), factory=lambda name, seed: Cheater())
    assert play.run() == 1
    text = out.getvalue()
    assert "internal error: bot cheater" in text
    assert play.replay_path.exists()


@pytest.fixture(autouse=True)
def _restore_sigint() -> Iterator[None]:
    handler = signal.getsignal(signal.SIGINT)
    yield
    signal.signal(signal.SIGINT, handler)
