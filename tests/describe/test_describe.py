"""One place turns events into words (duyun.describe): the terminal's running log and the CLI's
replay and scenario output are its lines, and the figures a RuleSet can change (R45's escape
penalty, R40's base points) come from the hand's ``start`` event, never a hard-coded 16."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from duyun.cli.main import app
from duyun.describe import (
    RECORD,
    Narrator,
    Voice,
    describe,
    describe_event,
    escape_penalty,
    payment_reason,
)
from duyun.engine import Round, dump_events, events_for, new_round
from duyun.rules import RuleSet
from duyun.tui import render
from duyun.tui.render import TableInfo

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
runner = CliRunner()


def _hand(seed: int, rules: RuleSet, *, escape_at: int | None = None) -> Round:
    """A self-played hand (random legal actions, wins taken), escaping at ``escape_at``."""
    rng = random.Random(seed)
    game = new_round(seed=seed, rules=rules)
    step = 0
    while not game.is_over:
        if step == escape_at:
            game.escape(game.to_act[0])
            break
        legal = list(game.legal_actions(game.to_act[0]))
        wins = [a for a in legal if a.kind.value == "hu"]
        game.apply(wins[0] if wins else rng.choice(legal))
        step += 1
    return game


def _replay_lines(tmp_path: Path, events: list[dict[str, Any]]) -> list[str]:
    path = tmp_path / "hand.jsonl"
    with path.open("w", encoding="utf-8") as stream:
        dump_events(events, stream)
    result = runner.invoke(app, ["replay", str(path)], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    # "   7  seat 1 discards 5p": the numbered event lines, before the hands table
    return [
        line[6:]
        for line in result.stdout.splitlines()
        if line[:4].strip().isdigit() and line[4:6] == "  "
    ]


@pytest.mark.parametrize("seed", [3, 8])
def test_cli_replay_prints_the_record_lines_of_describe(tmp_path: Path, seed: int) -> None:
    game = _hand(seed, RuleSet(bloody_battle=seed % 2 == 0), escape_at=25)
    expected = Narrator().texts(game.events)
    assert len(expected) > 10
    assert _replay_lines(tmp_path, game.events) == expected


def test_cli_scenario_prints_the_record_lines_of_describe() -> None:
    from duyun.cli.common import read_json
    from duyun.engine.scenario import parse_scenario, run_scenario

    path = EXAMPLES / "baoting-discard.json"
    game = run_scenario(parse_scenario(read_json(path)))
    result = runner.invoke(app, ["scenario", str(path)], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    expected = Narrator().texts(game.events)
    assert lines[: len(expected)] == expected


@pytest.mark.parametrize("seed", [1, 4, 6])
def test_terminal_log_is_describes_table_voice(seed: int) -> None:
    """Every line of the terminal's running log, for the player at seat 2, is describe's line
    in the table's voice, with the same words, for every event the player receives."""
    game = _hand(seed, RuleSet(bloody_battle=seed == 4), escape_at=30 if seed == 6 else None)
    info = TableInfo(
        names=("east", "south", "You", "north"),
        human=2,
        hand_number=2,
        hands_total=4,
        rules=game.events[0]["rules"],
    )
    shown = 0
    for event in events_for(game.events, 2):
        text = render.describe_event(event, info)
        line = describe(event, Voice(info.names, 2), rules=info.rules, hand_number=2, hands_total=4)
        assert (text is None) == (line is None), event
        if text is not None and line is not None:
            assert text.plain == line.text()
            shown += 1
    assert shown > 5


def test_terminal_and_record_voices_differ_only_in_who_is_told() -> None:
    discard = {"type": "discard", "seat": 2, "tile": "5p", "auto": True}
    assert describe_event(discard) == "seat 2 discards 5p (automatic, 報聽 R26)"
    info = TableInfo(names=("a", "b", "You", "c"), human=2)
    assert render.describe_event(discard, info).plain == "You discard 5p (automatic)"  # type: ignore[union-attr]
    assert describe(discard, RECORD) is not None
    assert describe_event({**discard, "tile": "5p"}, chinese=True) == (
        "seat 2 discards 五筒 (automatic, 報聽 R26)"
    )


@pytest.mark.parametrize(("units", "base"), [(10, 5), (16, 6), (0, 2)])
def test_r45_escape_is_described_with_the_rulesets_penalty(
    tmp_path: Path, units: int, base: int
) -> None:
    """A RuleSet with another escape_penalty_units (and base_points, R40) is described with
    its numbers: in the record, in ``duyun replay`` and in the terminal's log."""
    rules = RuleSet(escape_penalty_units=units, base_points=base)
    game = _hand(2, rules, escape_at=12)
    escape = next(e for e in game.events if e["type"] == "escape")
    assert escape["penalty"] == "flat"
    figure = f"{units} × base ({units * base} points) to each other player in the hand"
    assert escape_penalty(rules) == f"{units} × base ({units * base} points)"
    record = Narrator().texts(game.events)
    assert any(figure in line for line in record), record
    assert sum(figure in line for line in _replay_lines(tmp_path, game.events)) == 1
    info = TableInfo(names=("You", "a", "b", "c"), human=0, rules=game.events[0]["rules"])
    text = render.describe_event(escape, info)
    assert text is not None and figure in text.plain
    if units != 16:
        assert "16 × base" not in " ".join(record) and "16 × base" not in text.plain


def test_a_log_without_recorded_rules_reads_the_defaults() -> None:
    escape = {"type": "escape", "seat": 1, "penalty": "flat"}
    defaults = RuleSet()
    figure = f"{defaults.escape_penalty_units} × base"
    assert figure in (describe_event(escape) or "")
    assert figure in (describe_event(escape, rules={"base_points": "odd"}) or "")
    assert "查大叫" in (describe_event({**escape, "penalty": "da_jiao"}) or "")


def test_changing_describes_words_changes_the_terminal_and_the_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Neither the terminal nor ``duyun replay`` keeps a copy of the words: a word changed in
    describe.py shows in both."""
    from duyun import describe as words

    hands = (_hand(seed, RuleSet()) for seed in range(60))
    game = next(g for g in hands if any(e["type"] == "win" for e in g.events))
    win = next(e for e in game.events if e["type"] == "win")
    monkeypatch.setitem(words.WIN_HOW, win["how"], "WORDS-TEST")
    info = TableInfo(names=("a", "b", "c", "d"), human=0)
    text = render.describe_event(win, info)
    assert text is not None and "WORDS-TEST" in text.plain
    assert sum("wins by WORDS-TEST" in line for line in _replay_lines(tmp_path, game.events)) == 1


def test_r12_r14_r28_r29_r30_r45_every_payment_reads_in_words_without_rule_numbers() -> None:
    """The terminal's settlement and running log say why each row is paid in words: the
    engine's reason is written for the record (a fan list after a colon, a bean's kind) and
    its rule number is for the code, not for a player."""
    from payment_rows import every_kind_of_payment_row

    rows = every_kind_of_payment_row()
    said = {(row.rule, row.reason): payment_reason(row.rule, row.reason) for row in rows}
    for (rule, reason), words in said.items():
        assert words and not re.search(r"\bR[0-9]", words), (rule, reason, words)
        assert "base" in words or words != reason, f"{rule} {reason!r} read raw"
    texts = set(said.values())
    expected = {
        "點炮 win on a discard (對對胡 3 fan)",
        "槓上炮: the kong's income handed over to the winner",
        "搶槓 robbing a kong (對對胡 3 fan)",
        "bean 豆 for a 暗槓 concealed kong (金豆)",
        "黃豆: not ready at the draw, hands back the bean for a 直槓 direct kong (銀豆)",
        "escape penalty: 12 × base",
    }
    assert expected <= texts, sorted(texts)
    assert any(t.startswith("槓上花 self-draw after a kong (") for t in texts)
    assert any(t.startswith("自摸 self-draw (") for t in texts)
    assert any(t.startswith("查大叫: not ready at the draw, pays a ready player (") for t in texts)
    assert any(t.startswith("escape, paid as 查大叫 (") for t in texts)


def test_the_table_voice_tells_payments_escapes_and_refusals_without_rule_numbers() -> None:
    info = TableInfo(names=("a", "b", "You", "c"), human=2)
    payment = {
        "type": "payment", "payer": 2, "payee": 0, "fan": 3, "points": 3,
        "rule": "R28", "reason": "點炮: 對對胡 3",
    }  # fmt: skip
    escape = {"type": "escape", "seat": 1, "penalty": "flat"}
    refusals = [
        {"type": "win_refused", "seat": 2, "tile": "5p", "from": 1, "reason": reason,
         "pattern": "平胡"}
        for reason in ("R17", "R9")
    ]  # fmt: skip
    lines = [render.describe_event(event, info) for event in (payment, escape, *refusals)]
    texts = [line.plain for line in lines if line is not None]
    assert len(texts) == 4
    assert texts[0] == "  You pay a 0 3 pts (點炮 win on a discard (對對胡 3 fan))"
    assert "強退 escape" in texts[1] and "bean" in texts[2] and "過水" in texts[3]
    assert not any(re.search(r"\bR[0-9]", text) for text in texts), texts
