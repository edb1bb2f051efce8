"""Issue 13: the terminal game as a player finds it, point by point.

Rendering is checked at the two terminal sizes of the issue, 80×24 and 120×45, over every
decision of real bot-played hands (not one hand-picked position); the loop is checked with
scripted input. The pseudo-terminal side is in test_cli_play_pty.py.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console, RenderableType
from rich.text import Text

from duyun.bots import make_bot
from duyun.engine import Match, RefusedWin, SeatView
from duyun.hand import Hand
from duyun.tiles import tile_from_str as T
from duyun.tui.commands import InputError, RedrawRequested, parse_command
from duyun.tui.hints import compute_hints
from duyun.tui.render import (
    TableInfo,
    describe_event,
    measure_height,
    render_replay_note,
    render_settlement,
    render_table,
)
from duyun.tui.session import LOG_LINES, PlayOptions, Session
from scenario_helpers import play

SIZES = [(80, 24), (120, 45)]
R17_HANDS: list[str | None] = ["123456789m1234p1s", "111222444s3369p", "12m456m789s23s55p3m", None]


def lines_of(renderable: RenderableType, width: int) -> list[str]:
    console = Console(record=True, width=width, file=io.StringIO(), color_system=None)
    console.print(renderable)
    return console.export_text().splitlines()


def views_of_a_match(seed: int, hands: int = 2) -> Iterator[tuple[SeatView, TableInfo]]:
    """Seat 0's view at every decision it has, bots playing every seat (late hands too)."""
    match = Match(hands=hands, seed=seed, stake=3)
    bots = [make_bot("efficient", seed * 4 + seat) for seat in range(4)]
    while not match.is_over:
        game = match.next_hand()
        while not game.is_over:
            seat = game.to_act[0]
            view = game.view(seat)
            if seat == 0:
                info = TableInfo(
                    names=("You", "efficient", "efficient", "efficient"),
                    human=0,
                    hand_number=match.hands_played + 1,
                    hands_total=hands,
                    match_points=tuple(match.totals),
                    stake=3,
                )
                yield view, info
            game.apply(bots[seat].choose(view))
        match.record(game)


@pytest.mark.parametrize(
    ("width", "height", "chinese"), [*((w, h, False) for w, h in SIZES), (80, 24, True)]
)
def test_point2_the_table_with_hints_fits_the_terminal(
    width: int, height: int, chinese: bool
) -> None:
    budget = height - 1 - LOG_LINES  # the prompt and the last log lines stay visible
    checked = 0
    for seed in (1,):
        for view, plain in views_of_a_match(seed, hands=3):
            info = replace(plain, chinese=chinese)
            table = render_table(view, info, compute_hints(view), width=width, height=budget)
            lines = lines_of(table, width)
            assert len(lines) <= budget, "\n".join(lines)
            assert measure_height(table, width) == len(lines)
            assert all(len(line) <= width for line in lines)
            text = "\n".join(lines)
            # the whole table: header, every seat, the hand and the actions
            assert text.startswith(f"Hand {info.hand_number}/")
            for label in ("You 0", "efficient 1", "efficient 2", "efficient 3"):
                assert label in text
            assert "you may:" in text
            checked += 1
    assert checked > 20


def test_point2_late_in_a_hand_a_seat_takes_at_most_two_lines_at_80_columns() -> None:
    view, info = max(views_of_a_match(3, hands=1), key=lambda pair: sum(map(len, pair[0].rivers)))
    assert max(len(river) for river in view.rivers) >= 8  # a late position
    lines = lines_of(render_table(view, info), 80)
    labels = ("You 0", "efficient 1", "efficient 2", "efficient 3")
    starts = [index for index, line in enumerate(lines) if line.startswith(labels)]
    assert len(starts) == 4
    hand_row = next(i for i, line in enumerate(lines) if line.startswith("1  2  3"))
    # each seat's row wraps into its discards column at most once, never to three lines
    for start, end in zip(starts, [*starts[1:], hand_row], strict=True):
        assert end - start <= 2, "\n".join(lines)


def test_point2_optional_parts_give_way_first() -> None:
    view, info = next(views_of_a_match(4, hands=1))
    hints = compute_hints(view)
    full = lines_of(render_table(view, info, hints), 80)
    tight = lines_of(render_table(view, info, hints, width=80, height=len(full) - 1), 80)
    assert len(tight) < len(full)
    assert any(line.startswith("you may:") for line in tight)


def test_point3_redraw_is_a_command() -> None:
    view, _ = next(views_of_a_match(5, hands=1))
    for typed in ("r", "redraw", "t", "table", "R"):
        with pytest.raises(RedrawRequested):
            parse_command(typed, view)


def _reader(answers: list[str]) -> Callable[[str], str]:
    """Answers in order, then end of input (Ctrl-D: quit)."""
    iterator = iter(answers)

    def read_line(prompt: str) -> str:
        try:
            return next(iterator)
        except StopIteration:
            raise EOFError from None

    return read_line


def scripted_session(
    tmp_path: Path, answers: list[str], **options: object
) -> tuple[Session, io.StringIO, list[str]]:
    """A session at 80×24 whose input is ``answers``; the list records typeahead flushes."""
    out = io.StringIO()
    console = Console(file=out, width=80, color_system=None)
    flushes: list[str] = []
    settings = PlayOptions(
        bots=("efficient", "efficient", "efficient"),
        seed=9,
        replay_dir=tmp_path,
        **options,  # type: ignore[arg-type]
    )
    session = Session(
        settings,
        console,
        make_bot,
        read_line=_reader(answers),
        discard_typeahead=lambda: flushes.append("flush"),
        screen_size=lambda: (80, 24),
    )
    return session, out, flushes


def test_point3_redraw_shows_the_table_again_and_typeahead_is_dropped(tmp_path: Path) -> None:
    session, out, flushes = scripted_session(tmp_path, ["r"], hands=1)
    assert session.run() == 0
    text = out.getvalue()
    assert text.count("Hand 1/1 ·") == 2  # drawn, then drawn again on `r`
    # input is flushed before every prompt: the one answered `r`, the one answered Ctrl-D
    assert len(flushes) == 2


def test_point4_quit_confirmation_states_the_r45_cost_first(tmp_path: Path) -> None:
    session, out, _ = scripted_session(tmp_path, [], hands=1, stake=2)
    prompts: list[str] = []

    def read_line(prompt: str) -> str:
        prompts.append(prompt)
        if prompt.startswith("your move"):
            raise KeyboardInterrupt
        return "y"

    session.read_line = read_line
    assert session.run() == 0
    text = out.getvalue()
    before = text[: text.index("強退 escape, penalty")]
    assert "you pay 16 × 6 = 96 points to each other player (288 points, 576 coins)" in before
    assert "Quit the match? [y/N] " in prompts


def test_point4_settlement_shows_the_discard_winner_with_the_winning_tile() -> None:
    match = Match(hands=6, seed=21)
    bots = [make_bot("efficient", seat) for seat in range(4)]
    for _ in range(6):
        game = match.next_hand()
        while not game.is_over:
            seat = game.to_act[0]
            game.apply(bots[seat].choose(game.view(seat)))
        result = match.record(game)
        wins = [e for e in game.events if e["type"] == "win"]
        if result.win_kind is not None and result.win_kind.value == "discard":
            break
    else:
        pytest.fail("no discard win in six hands")
    end = game.events[-1]
    info = TableInfo(names=("a", "b", "c", "d"), human=0, stake=2)
    text = "\n".join(
        lines_of(
            render_settlement(
                result, info, hands=end["hands"], wins=wins, match_points=match.totals
            ),
            100,
        )
    )
    winner = wins[0]
    label = info.seat_label(winner["seat"])
    row = [line for line in text.splitlines() if line.startswith(label)][-1]  # result table
    assert f"胡 {winner['tile']}" in row
    won = Hand.parse(winner["hand"])
    assert won.tile_count == 14  # the winning tile is part of the hand shown
    assert str(won).split(" ")[0] in row
    assert str(won) != end["hands"][winner["seat"]]  # the end event lists 13 tiles only
    header = next(line for line in text.splitlines() if line.startswith("seat"))
    # the two coin columns have distinct names
    assert header.split()[:6] == ["seat", "pts", "coins", "match", "pts", "match"]
    assert "match coins" in header


def test_point1_a_refused_win_is_told_to_the_player() -> None:
    game, result = play(R17_HANDS, ["0 discard 1s"])
    info = TableInfo(names=("a", "b", "You", "c"), human=2)
    refused = [e for e in result["events"] if e["type"] == "win_refused"]
    line = describe_event(refused[0], info)
    assert line is not None
    assert "1s from a 0 completes your hand (平胡), but no win" in line.plain
    assert "bean" in line.plain and "R17" not in line.plain  # the rule in words, not its number
    # while it lasts, the table shows it too
    view = game.view(2)
    assert view.refused_win == RefusedWin(T("1s"), 0, "R17", "平胡")
    assert "but no win" in "\n".join(lines_of(render_table(view, info), 80))


def test_point1_r9_refusal_wording() -> None:
    info = TableInfo(names=("a", "b", "You", "c"), human=2)
    event = {
        "type": "win_refused",
        "seat": 2,
        "tile": "5p",
        "from": 1,
        "reason": "R9",
        "pattern": "對對胡",
    }
    line = describe_event(event, info)
    assert line is not None and "過水" in line.plain and "R9" not in line.plain


def test_point1_the_baoting_offer_says_when_only_self_draw_could_win() -> None:
    game, _ = play(R17_HANDS, [])
    view = game.view(0)
    assert T("1s") in view.baoting_self_draw_only
    info = TableInfo(names=("You", "a", "b", "c"), human=0)
    text = " ".join(" ".join(lines_of(render_table(view, info, compute_hints(view)), 80)).split())
    assert "報聽 with" in text and "win only by self-draw 自摸" in text
    assert text.index("win only by self-draw") < text.index("you may:")
    assert "平胡 wins on a discard only" not in text  # the note says it once, not twice


def test_point5_chinese_throughout_the_table_menu_and_errors() -> None:
    game, _ = play(R17_HANDS, [])
    view = game.view(0)
    info = TableInfo(names=("You", "a", "b", "c"), human=0, chinese=True)
    text = "\n".join(lines_of(render_table(view, info, compute_hints(view)), 120))
    assert "一萬" in text and "一條" in text
    menu = next(line for line in text.splitlines() if line.startswith("you may:"))
    assert "一條" in menu and "1s" not in menu
    with pytest.raises(InputError, match="you hold no 九筒"):
        parse_command("9p", view, chinese=True)


def test_point6_the_replay_hint_names_the_command_as_typed() -> None:
    note = render_replay_note(Path("replays/x.jsonl"), ".venv/bin/duyun")
    assert "Watch it with: .venv/bin/duyun replay replays/x.jsonl" in note.plain
    assert isinstance(note, Text)


def test_hint_at_a_pong_offer_says_what_the_pong_does() -> None:
    from duyun.analysis import shanten
    from duyun.engine import ActionKind
    from duyun.tiles import to_counts

    view, info = next(
        (view, info)
        for seed in (6, 7, 8)
        for view, info in views_of_a_match(seed, hands=2)
        if any(action.kind is ActionKind.PONG for action in view.legal)
    )
    hints = compute_hints(view)
    assert view.claim_tile is not None
    after = to_counts(view.hand)
    after[view.claim_tile] -= 2
    assert hints.pong_shanten == shanten(after)
    text = " ".join(lines_of(render_table(view, info, hints), 80))
    assert f"碰 pong → shanten {hints.pong_shanten}" in text
