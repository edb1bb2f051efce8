"""The pause after a discard tells nothing hidden, on the hand flow's own clock (issue 20 item 2,
issue 21 item 1, issue 30 item 4; docs/protocol.md "Timing").

``test_play_timing`` plays the same seven stacked hands on a real server and reads the times
its send path recorded; on a loaded machine those times carry the scheduler's noise, so there
it checks only what load cannot fake (nothing comes early). Here the flow runs on a fake clock
(``test_tables_flow.Shell``), so the pause after every discard is exact: each class of what
the window held -- a win refused (R17) with a person, a bot or nobody able to claim, a claim
only the bot may make, a forced win (R19, R26), a tile nobody may claim -- costs the same
pause to the microsecond, a person offered a claim is asked in the same instant as the
discard goes out, and at a ``natural`` table the wait for that person ends with their answer.
"""

from __future__ import annotations

from typing import Any

import pytest
from test_play_timing import HANDS, ORDER, classify, stacked
from test_tables_flow import CONFIG, Shell, seats_for

from duyun.engine import Action, ActionKind, redact_event
from duyun.server.config import ServerConfig
from duyun.server.tables.flow import CLAIM_SETTLE, Effect, SendEvents, SendPrompt, SendSnapshot

#: how long the people think over a claim before passing: longer than the beat, shorter than
#: the claim timer, so a ``natural`` table's wait for them shows as their own time
THINK = 1.5


class TimedShell(Shell):
    """The flow's shell, noting the fake time of everything it sends a seat."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.sent: list[tuple[float, Effect]] = []
        super().__init__(*args, **kwargs)

    def run(self, effects: list[Effect]) -> None:
        for effect in effects:
            if isinstance(effect, SendEvents | SendPrompt | SendSnapshot):
                self.sent.append((self.now, effect))
            super().run([effect])


def _answer(shell: TimedShell, seat: int, think: float) -> None:
    """Discard 5p when holding it, else the highest tile; pass claims after ``think``."""
    prompt = shell.flow.prompts[seat]
    if prompt.kind == "claim":
        due = shell.now + think
        if shell.timers and min(at for at, _ in shell.timers.values()) <= due:
            shell.advance()  # the window ends first: the person did not answer in time
            return
        shell.now = due
        shell.act(seat, Action(seat, ActionKind.PASS))
        return
    legal = [a for a in shell.game.legal_actions(seat) if a.kind is ActionKind.DISCARD]
    five = [a for a in legal if a.tile is not None and a.tile == 13]  # 5p
    shell.act(seat, five[0] if five else max(legal, key=lambda a: a.tile or 0))


def _gaps(
    claim_pause: str, think: float, config: ServerConfig = CONFIG
) -> tuple[dict[str, list[float]], list[float]]:
    """Each hand of ``HANDS`` played out by three people (seats 0-2) and a bot: the gap
    after every discard, as each person's seat was sent it, by what the window held, and
    the delay of every claim prompt after the discard it is about."""
    gaps: dict[str, list[float]] = {}
    prompt_delays: list[float] = []
    for name in ORDER:
        shell = TimedShell(
            stacked(name), seats_for(people=(0, 1, 2)), claim_pause=claim_pause, config=config
        )
        for _ in range(2000):
            if shell.finished:
                break
            waiting = sorted(shell.flow.prompts)
            if waiting:
                _answer(shell, waiting[0], think)
            else:
                shell.advance()
        assert shell.finished, name
        log = shell.game.events
        for seat in (0, 1, 2):
            positions = [i for i, e in enumerate(log) if redact_event(e, seat) is not None]
            seen = 0
            held: tuple[float, int] | None = None
            for at, effect in shell.sent:
                if isinstance(effect, SendPrompt):
                    # (a turn prompt goes out with the events after the window, in the same
                    # instant; only a claim prompt is about the held discard)
                    if effect.seat == seat and held is not None and effect.prompt.kind == "claim":
                        prompt_delays.append(at - held[0])
                    continue
                if effect.viewer != seat:
                    continue
                if isinstance(effect, SendSnapshot):  # the deal: its start event
                    seen = len(effect.events)
                    continue
                if held is not None:
                    gaps.setdefault(classify(log, held[1]), []).append(at - held[0])
                    held = None
                seen += len(effect.events)
                notices = [p for p in positions[:seen] if log[p]["type"] != "win_refused"]
                last = log[notices[-1]]
                if last["type"] == "discard" or last.get("action") == "added_kong":
                    held = (at, notices[-1])
    assert {"refused+person", "refused+bot", "refused", "bot", "person", "forced", "free"} <= set(
        gaps
    ), sorted(gaps)
    return gaps, prompt_delays


def test_a_fixed_table_holds_every_discard_for_the_same_window_r17_r19_r26() -> None:
    gaps, prompt_delays = _gaps("fixed", THINK)
    pause = CONFIG.claim_window + CLAIM_SETTLE
    for name, values in gaps.items():
        assert values and all(v == pytest.approx(pause, abs=1e-9) for v in values), (name, values)
    assert prompt_delays and set(prompt_delays) == {0.0}  # asked with the discard


def test_a_natural_table_beats_once_unless_a_person_is_asked_r17_r19_r26() -> None:
    gaps, prompt_delays = _gaps("natural", THINK)
    assert CONFIG.claim_beat < THINK < CONFIG.claim_window
    # waited for the person's answer (not for the claim timer), else the one beat
    waits = {True: THINK + CLAIM_SETTLE, False: CONFIG.claim_beat + CLAIM_SETTLE}
    for name, values in gaps.items():
        expected = waits["person" in name]
        assert all(v == pytest.approx(expected, abs=1e-9) for v in values), (name, values)
    assert prompt_delays and set(prompt_delays) == {0.0}
    assert len(HANDS) == len(ORDER)


@pytest.mark.parametrize("think", [0.0, 0.1, 5.0], ids=["at-once", "within", "timed-out"])
def test_a_claim_timer_shorter_than_the_beat_never_shortens_the_pause(think: float) -> None:
    """Issue 33 item 4: with ``claim_window`` 0.3 s under the 0.6 s beat, a person asked who
    answers at once, within the timer or not at all costs the beat, as a tile nobody may claim
    does; a shorter pause would show that a person could claim."""
    config = ServerConfig(claim_window=0.3, claim_beat=0.6, turn_timer=15.0)
    gaps, prompt_delays = _gaps("natural", think, config)
    pause = config.claim_beat + CLAIM_SETTLE
    for name, values in gaps.items():
        assert values and all(v == pytest.approx(pause, abs=1e-9) for v in values), (name, values)
    assert prompt_delays and set(prompt_delays) == {0.0}
