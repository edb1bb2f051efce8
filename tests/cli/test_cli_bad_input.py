"""Issue 8 (CLI) and issue 13 point 8: bad input to ``duyun`` is one line on stderr, exit 2.

Every class of bad input named in the issues, for ``scenario``, ``replay`` and ``analyze``
(and options of ``play``/``simulate``), run through :func:`duyun.cli.main.main` exactly as the
console script runs it, plus a Hypothesis test feeding random bytes and random JSON. The
assertions are the contract: exit status 2, a single ``error: ...`` line on stderr that names
the problem, echoed input cut short, and never a traceback.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cli_helpers import assert_clean_error, run
from duyun.cli.common import ECHO_LIMIT, cut, one_line
from duyun.engine import dump_events, new_round

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def write(tmp_path: Path, name: str, data: bytes | str) -> Path:
    path = tmp_path / name
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data, encoding="utf-8")
    return path


def finished_log() -> list[dict[str, Any]]:
    game = new_round(seed=3)
    while not game.is_over:
        seat = game.to_act[0]
        game.apply(game.legal_actions(seat)[-1])
    return json.loads(json.dumps(game.events))  # type: ignore[no-any-return]


def log_text(events: list[dict[str, Any]]) -> str:
    stream = io.StringIO()
    dump_events(events, stream)
    return stream.getvalue()


# ------------------------------------------------------------------ files and streams


@pytest.mark.parametrize("command", ["scenario", "replay"])
def test_missing_file_and_directory(tmp_path: Path, command: str) -> None:
    status, _, err = run([command, str(tmp_path / "nope.json")])
    assert_clean_error(status, err, "cannot read", "no such file")
    status, _, err = run([command, str(tmp_path)])
    assert_clean_error(status, err, "is a directory")


@pytest.mark.parametrize("command", ["scenario", "replay"])
def test_binary_and_non_utf8_files_and_stdin(tmp_path: Path, command: str) -> None:
    binary = write(tmp_path, "x.bin", bytes(range(256)))
    status, _, err = run([command, str(binary)])
    assert_clean_error(status, err, "binary")
    latin1 = write(tmp_path, "x.json", '{"hands": "é"}'.encode("latin-1"))
    status, _, err = run([command, str(latin1)])
    assert_clean_error(status, err, "not UTF-8", "line 1")
    status, _, err = run([command, "-"], stdin=b"\xff\xfe\x00garbage")
    assert_clean_error(status, err, "stdin")


def test_deeply_nested_json(tmp_path: Path) -> None:
    deep = write(tmp_path, "deep.json", "[" * 100_000 + "]" * 100_000)
    status, _, err = run(["scenario", str(deep)])
    assert_clean_error(status, err, "nested more than")
    status, _, err = run(["replay", str(deep)])
    assert_clean_error(status, err, "nested more than")


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_not_json(tmp_path: Path, constant: str) -> None:
    path = write(tmp_path, "nan.json", f'{{"hands": ["", "", "", ""], "dealer": {constant}}}')
    status, _, err = run(["scenario", str(path)])
    assert_clean_error(status, err, constant.lstrip("-"), "not a JSON number")
    log = write(tmp_path, "nan.jsonl", f'{{"type": "start", "streak": {constant}}}\n')
    status, _, err = run(["replay", str(log)])
    assert_clean_error(status, err, "line 1")


def test_a_10_mb_wall_is_not_echoed_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    hands = ["11123456789999m", "1112345678999p", "1112345678999s", "2345678m2345678p"]
    data = {"hands": hands, "wall": "x" * 10_000_000, "actions": []}
    write(tmp_path, "big.json", json.dumps(data))
    status, _, err = run(["scenario", "big.json"])
    line = assert_clean_error(status, err, "wall:", "unexpected character 'x'")
    assert len(line) < 200
    assert "characters)" in line  # says how long the cut input was


def test_analyze_echo_is_cut() -> None:
    status, _, err = run(["analyze", "x" * 5000])
    line = assert_clean_error(status, err, "unexpected character 'x'", "(5000 characters)")
    assert len(line) < 200


# ------------------------------------------------------------------ replayed logs


def test_replay_act_with_wrong_types_or_missing_seat(tmp_path: Path) -> None:
    events = finished_log()
    act = next(index for index, event in enumerate(events) if event["type"] == "act")
    for broken in (
        {k: v for k, v in events[act].items() if k != "seat"},  # missing seat
        {**events[act], "seat": "zero"},
        {**events[act], "seat": 7},
        {**events[act], "seat": 1.5},
        {**events[act], "seat": None},
        {**events[act], "tile": 5},
        {**events[act], "action": ["discard"]},
    ):
        edited = [*events[:act], broken, *events[act + 1 :]]
        path = write(tmp_path, "edited.jsonl", log_text(edited))
        status, _, err = run(["replay", str(path)])
        assert_clean_error(status, err, "hand 1")


def test_replay_of_lines_that_are_not_events(tmp_path: Path) -> None:
    for text, named in (
        ("", "no events"),
        ("[1, 2]\n", "line 1"),
        ('{"type": 5}\n', "string 'type'"),
        ('{"type": "start"\n', "not valid JSON"),
        ('{"type": "draw"}\n', "start"),
    ):
        path = write(tmp_path, "bad.jsonl", text)
        status, _, err = run(["replay", str(path)])
        assert_clean_error(status, err, named)


def test_an_unfinished_log_is_reported_not_shown(tmp_path: Path) -> None:
    events = finished_log()
    path = write(tmp_path, "half.jsonl", log_text(events[: len(events) // 2]))
    status, out, err = run(["replay", str(path)])
    assert_clean_error(status, err, "unfinished")
    assert "Hands at the end" not in out


def test_replay_reads_stdin(tmp_path: Path) -> None:
    status, out, err = run(["replay", "-", "--json"], stdin=log_text(finished_log()).encode())
    assert status == 0, err
    assert json.loads(out)["events"] > 0


# ------------------------------------------------------------------ options and usage


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["play", "--hands", "abc"], "--hands"),
        (["play", "--bots", "genius" * 100], "unknown bot"),
        (["play", "--hints", "true"], "unexpected extra argument"),
        (["simulate", "--bots", "x" * 1000], "--bots"),
        (["simulate", "--hands", "0"], "--hands"),
        (["analyze"], "Missing argument"),
        (["nosuch"], "No such command"),
    ],
)
def test_bad_options_are_one_line(args: list[str], named: str) -> None:
    status, _, err = run(args)
    line = assert_clean_error(status, err, named)
    assert len(line) < 200


def test_unwritable_outputs_fail_before_any_work(tmp_path: Path) -> None:
    a_file = write(tmp_path, "taken", "x")
    for args, named in (
        (["simulate", "--hands", "1", "--out", str(tmp_path)], "is a directory"),
        (["simulate", "--hands", "1", "--plot", str(tmp_path / "no" / "p.png")], "does not exist"),
        (["play", "--replay-dir", str(a_file)], "is a file, not a folder"),
    ):
        status, out, err = run(args)
        assert_clean_error(status, err, named)
        assert out == ""  # nothing was played


def test_version_from_package_metadata() -> None:
    from importlib import metadata

    status, out, _ = run(["--version"])
    assert status == 0
    assert out.strip() == f"duyun {metadata.version('duyun')}"


def test_flags_are_flags_in_help() -> None:
    status, out, _ = run(["play", "--help"])
    assert status == 0
    hints = next(line for line in out.splitlines() if "--hints" in line)
    assert "<bool>" not in hints and "BOOLEAN" not in hints
    text = " ".join(out.replace("│", " ").split())
    assert "written after every hand" in text  # docs/play.md says the same
    # every default in full (a "[default ...]" in a help text was eaten as Rich markup)
    assert "(default: a random seed, printed at the start)" in text
    assert "(default: replays, in the current folder)" in text
    status, out, _ = run(["simulate", "--help"])
    text = " ".join(out.replace("│", " ").split())
    assert "(default: 1000)" in text and "(default: all cores)" in text


# ------------------------------------------------------------------ helpers


def test_cut_and_one_line() -> None:
    assert cut("short") == "'short'"
    long = cut("y" * 1000)
    assert len(long) <= ECHO_LIMIT + 20 and "1002 characters" in long
    assert one_line("a\nb   c") == "a b c"
    quoted = one_line("bad '" + "z" * 5000 + "' here")
    assert "(5000 characters)" in quoted and quoted.endswith("here")


# ------------------------------------------------------------------ fuzz

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=20,
)
_scenario_like = st.fixed_dictionaries(
    {
        "hands": st.lists(st.text("123456789mps []()+", max_size=20), min_size=3, max_size=5),
        "wall": st.text("123456789mps", max_size=20) | st.integers(),
        "actions": st.lists(st.text("0123 discardpongkhu5ps", max_size=14), max_size=3),
    },
    optional={"dealer": _json, "turn": _json, "rules": _json, "fill": _json, "drawn": _json},
)


@settings(max_examples=60, deadline=None)
@given(
    command=st.sampled_from(["scenario", "replay"]),
    payload=st.one_of(
        st.binary(max_size=200),
        _json.map(lambda value: json.dumps(value).encode()),
        _scenario_like.map(lambda value: json.dumps(value).encode()),
    ),
)
def test_fuzz_scenario_and_replay_never_trace(command: str, payload: bytes) -> None:
    status, _, err = run([command, "-"], stdin=payload)
    assert "Traceback" not in err
    if status != 0:
        assert_clean_error(status, err)


@settings(max_examples=60, deadline=None)
@given(hand=st.text(max_size=60))
def test_fuzz_analyze_never_traces(hand: str) -> None:
    status, _, err = run(["analyze", hand])
    assert "Traceback" not in err
    if status != 0:
        assert_clean_error(status, err)


@settings(max_examples=40, deadline=None)
@given(data=st.binary(max_size=300))
def test_fuzz_analyze_batch_never_traces(data: bytes) -> None:
    status, out, err = run(["analyze", "-"], stdin=data)
    assert "Traceback" not in err and status in (0, 1)
    for line in out.splitlines():
        json.loads(line)  # every output line is one JSON object
