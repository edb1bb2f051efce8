"""``duyun review FILE --seat N`` (issue 36 item 2): the summary and every decision, ``--json``
for the documented form, and one-line errors (exit 2) for bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_review import MIRROR, READY, deal_around, first_act, play

from cli_helpers import assert_clean_error, run
from duyun.engine.replay import dump_events


@pytest.fixture(scope="module")
def hand_log(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    events = play(deal_around(READY, 1), ["0 discard 2m"])
    path = tmp_path_factory.mktemp("review") / "hand.jsonl"
    with path.open("w", encoding="utf-8") as stream:
        dump_events(events, stream)
    return path, events


def test_the_review_in_words(hand_log: tuple[Path, list[dict[str, Any]]]) -> None:
    path, events = hand_log
    first = first_act(events, 0)
    args = ["review", str(path), "--seat", "0", "--samples", "64", "--event", str(first)]
    status, out, err = run(args)
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0] == "seat 0, 1 decision, agreement with 大師 0%"
    assert "largest mistakes:" in out
    # the first decision: 2m played, 大師's 9p, as a mistake with its loss and error bar
    mistake = next(line for line in lines if line.startswith(f"  event {first}:"))
    assert "played discard 2m" in mistake and "9p" in mistake and "±" in mistake
    decision = next(line for line in lines if line.startswith(f"event {first} (turn)"))
    assert "(mistake)" in decision
    assert any(line.strip().endswith("played") and "discard 2m" in line for line in lines)
    status, chinese, _ = run([*args, "--chinese"])
    assert status == 0 and "played discard 二萬" in chinese and "九筒" in chinese


def test_the_review_as_json_is_the_librarys_form(
    hand_log: tuple[Path, list[dict[str, Any]]],
) -> None:
    path, _ = hand_log
    status, out, err = run(["review", str(path), "--seat", "1", "--samples", "4", "--json"])
    assert status == 0, err
    data = json.loads(out)
    assert data["seat"] == 1 and data["samples"] == 4 and data["version"] == 1
    assert data["summary"]["decisions"] == len(data["decisions"])
    status, again, _ = run(["review", str(path), "--seat", "1", "--samples", "4", "--json"])
    assert json.loads(again) == data  # deterministic


def test_a_match_file_is_reviewed_hand_by_hand(tmp_path: Path) -> None:
    hands = [play(deal_around(MIRROR, 2), ["0 discard 1p"]), play(deal_around(READY, 1), [])]
    path = tmp_path / "two.jsonl"
    with path.open("w", encoding="utf-8") as stream:
        for events in hands:
            dump_events(events, stream)
    status, out, err = run(["review", str(path), "--seat", "2", "--samples", "4", "--json"])
    assert status == 0, err
    data = json.loads(out)
    assert len(data["hands"]) == 2
    assert data["summary"]["decisions"] == sum(len(h["decisions"]) for h in data["hands"])
    # --hand picks one, with the review it has in the match
    status, out, _ = run(
        ["review", str(path), "--seat", "2", "--samples", "4", "--json", "--hand", "2"]
    )
    assert status == 0 and json.loads(out) == data["hands"][1]


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--seat", "4"], ["--seat 4"]),
        (["--seat", "0", "--samples", "3"], ["--samples 3"]),
        (["--seat", "0", "--hand", "3"], ["--hand 3"]),
    ],
)
def test_bad_options_are_one_line_errors(
    hand_log: tuple[Path, list[dict[str, Any]]], args: list[str], named: list[str]
) -> None:
    path, _ = hand_log
    status, _, err = run(["review", str(path), *args])
    assert_clean_error(status, err, *named)


def test_bad_logs_are_one_line_errors(tmp_path: Path) -> None:
    missing = tmp_path / "missing.jsonl"
    status, _, err = run(["review", str(missing), "--seat", "0"])
    assert_clean_error(status, err, "missing.jsonl")
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("not json\n", encoding="utf-8")
    status, _, err = run(["review", str(garbage), "--seat", "0"])
    assert_clean_error(status, err, "garbage.jsonl")
    events = play(deal_around(MIRROR, 2), ["0 discard 1p"])
    cut = tmp_path / "cut.jsonl"
    with cut.open("w", encoding="utf-8") as stream:
        dump_events(events[:-4], stream)
    status, _, err = run(["review", str(cut), "--seat", "0", "--samples", "4"])
    assert_clean_error(status, err, "cut.jsonl", "unfinished")
    status, _, err = run(["review", "-", "--seat", "0"], stdin=b'{"type": "draw"}\n')
    assert_clean_error(status, err, "stdin")
