"""``duyun play`` driven through a pseudo-terminal, as a person would play it.

The program runs as the installed console script next to the test's interpreter (the
``duyun`` of ``.venv/bin``), falling back to the same ``main()`` via ``python -c`` when the
script is not installed. Every step waits for a prompt (``expect``), never for a clock.
``TERM=dumb`` switches colours off so the text can be matched exactly.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

from duyun.engine import load_events, replay, split_hands

pexpect = pytest.importorskip("pexpect")

pytestmark = pytest.mark.slow

SRC = Path(__file__).resolve().parents[2] / "src"
PROMPT = "your move> "
TIMEOUT = 20
SETTLED = r"Replay saved to (\S+\.jsonl)"


def command() -> tuple[str, list[str]]:
    script = Path(sys.executable).with_name("duyun")
    if script.exists():
        return str(script), []
    return sys.executable, ["-c", "from duyun.cli.main import main; main()"]


def spawn(
    tmp_path: Path, *args: str, term: str = "dumb", size: tuple[int, int] = (50, 100)
) -> pexpect.spawn:
    program, prefix = command()
    env = {
        **os.environ,
        "TERM": term,
        "LANG": "C.UTF-8",
        "PYTHONIOENCODING": "utf-8",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")])),
    }
    env.pop("COLUMNS", None)
    env.pop("LINES", None)
    env.pop("NO_COLOR", None)
    child = pexpect.spawn(
        program,
        [*prefix, "play", "--bots", "efficient,random,strong", "--seed", "7", *args],
        cwd=str(tmp_path),
        env=env,
        encoding="utf-8",
        timeout=TIMEOUT,
        dimensions=size,
    )
    return child


def choose(screen: str) -> str:
    """The first of: win, pass, discard the tile at position 1 -- always legal for some case."""
    menu = screen[screen.rfind("you may:") :]
    if "[h]" in menu:
        return "h"
    if "[g]" in menu:
        return "g"
    return "1"


def play_to_the_end(child: pexpect.spawn, hands: int = 1) -> str:
    """At a prompt: answer every prompt until the match ends; returns the replay's path."""
    answer = choose(child.before)
    for _ in range(300 * hands):
        child.sendline(answer)
        index = child.expect(
            [
                PROMPT,
                r"Press Enter for hand \d+/\d+ \(q to quit\): ",
                f"Settlement of hand {hands}/{hands}",
            ]
        )
        answer = choose(child.before) if index == 0 else ""
        if index == 2:
            child.expect(rf"Match over after {hands} hand\(s\)")
            child.expect(SETTLED)
            return str(child.match.group(1))
    raise AssertionError("the match did not end within 300 decisions")


def check_replay(tmp_path: Path, path: str) -> list[list[dict[str, object]]]:
    hands = split_hands(load_events((tmp_path / path).read_text("utf-8").splitlines()))
    for events in hands:
        replay(events)
    return hands


def test_full_hand_to_settlement(tmp_path: Path) -> None:
    child = spawn(tmp_path, "--hands", "1", "--stake", "2", "--hints")
    child.expect("seed 7")
    child.expect(PROMPT)
    screen = child.before
    for seen in ("Hand 1/1", "wall 55", "莊", "hint: shanten", "you may:", "efficient 1"):
        assert seen in screen
    path = play_to_the_end(child)
    assert path.startswith("replays/")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert len(check_replay(tmp_path, path)) == 1


def test_two_hands_with_a_pause_between(tmp_path: Path) -> None:
    child = spawn(tmp_path, "--hands", "2", "--bots", "random")
    child.expect(PROMPT)
    path = play_to_the_end(child, hands=2)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert len(check_replay(tmp_path, path)) == 2


def test_ctrl_c_asks_then_escape_settles(tmp_path: Path) -> None:
    child = spawn(tmp_path, "--hands", "2")
    child.expect(PROMPT)
    child.sendintr()
    # R45: the cost is stated before the question
    child.expect(re.escape("you pay 16 × 6 = 96 points to each other player (288 points)"))
    child.expect(re.escape("Quit the match? [y/N]"))
    child.sendline("n")
    child.expect("Resuming.")
    child.expect(PROMPT)
    child.sendintr()
    child.expect(re.escape("[y/N]"))
    child.sendline("y")
    child.expect("You quit the hand: 強退 escape")
    child.expect("Settlement of hand 1/2")
    child.expect("escape penalty")  # the R45 row, in words
    child.expect(r"Match over after 1 hand\(s\)")
    child.expect(SETTLED)
    path = str(child.match.group(1))
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    events = check_replay(tmp_path, path)[0]
    assert {"type": "act", "seat": 0, "action": "quit"} in events


def test_ctrl_d_quits(tmp_path: Path) -> None:
    child = spawn(tmp_path, "--hands", "1")
    child.expect(PROMPT)
    child.sendeof()
    child.expect("強退 escape")
    child.expect(SETTLED)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_bad_input_reprompts(tmp_path: Path) -> None:
    child = spawn(tmp_path, "--hands", "1", "--seat", "1")
    child.expect(PROMPT)
    child.sendline("xyz")
    child.expect(re.escape("✗ 'xyz' is neither a tile (like 5p) nor a hand position"))
    child.expect(PROMPT)
    child.sendline("99")
    child.expect(re.escape("✗ position 99 is not in your hand"))
    child.expect(PROMPT)
    child.sendline("?")
    child.expect("Type one of the actions")
    child.expect(PROMPT)
    assert "Traceback" not in child.before
    path = play_to_the_end(child)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    check_replay(tmp_path, path)


def test_colours_in_a_real_terminal(tmp_path: Path) -> None:
    child = spawn(tmp_path, "--hands", "1", term="xterm-256color")
    child.expect(PROMPT)
    assert "\x1b[" in child.before  # Rich styles the tiles by suit
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_unknown_bot_is_a_clean_error(tmp_path: Path) -> None:
    program, prefix = command()
    child = pexpect.spawn(
        program,
        [*prefix, "play", "--bots", "genius"],
        cwd=str(tmp_path),
        encoding="utf-8",
        timeout=TIMEOUT,
        env={**os.environ, "TERM": "dumb"},
    )
    child.expect("unknown bot 'genius'")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2


def screen_lines(before: str) -> list[str]:
    """The lines of the last table drawn before a prompt (from its header line on)."""
    lines = before.replace("\r\n", "\n").split("\n")
    start = max(index for index, line in enumerate(lines) if re.match(r"Hand \d+/\d+ ·", line))
    return lines[start:]


def test_issue13_80x24_the_table_log_and_prompt_fit(tmp_path: Path) -> None:
    from rich.cells import cell_len

    from duyun.tui.session import LOG_LINES

    child = spawn(tmp_path, "--hands", "1", "--hints", size=(24, 80))
    child.expect(PROMPT)
    prompts = 0
    for _ in range(300):
        table = screen_lines(child.before)
        # the table, LOG_LINES lines of the running log above it, and the prompt line
        assert len(table) + LOG_LINES + 1 <= 24, "\n".join(table)
        assert all(cell_len(line) <= 80 for line in table), "\n".join(table)
        prompts += 1
        child.sendline(choose(child.before))
        index = child.expect([PROMPT, "Settlement of hand 1/1"])
        if index == 1:
            break
    child.expect(SETTLED)
    child.expect(pexpect.EOF)
    assert prompts > 5


def test_issue13_redraw_and_typeahead_in_a_terminal(tmp_path: Path) -> None:
    child = spawn(tmp_path, "--hands", "1", size=(24, 80))
    child.expect(PROMPT)
    child.sendline("r")
    child.expect(r"Hand 1/1 · dealer")  # the table again
    child.expect(PROMPT)
    # two answers typed at once: the first is rejected, the second was typed before the new
    # prompt appeared and is dropped instead of answering a question nobody has read
    child.send("zzz\rzzz\r")
    child.expect(re.escape("✗ 'zzz' is neither"))
    child.expect(PROMPT)
    child.sendline("?")
    child.expect("Type one of the actions")
    assert "zzz" not in child.before
    child.expect(PROMPT)
    child.sendeof()
    child.expect(SETTLED)
    child.expect(pexpect.EOF)
