"""One event schema (issue 22 item 1): every event the engine emits validates against the JSON
Schema generated from ``duyun.engine.events``, as written and as redacted for each seat and for
spectators; docs/protocol.md publishes exactly that schema; and the readers of the log -- the
browser's fold (static/js/state.js) and the RL encoder (rl/incremental.py) -- read only event
types, fields and values the schema defines.
"""

from __future__ import annotations

import ast
import json
import random
import re
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from duyun.engine import ActionKind, Round, Setup, deal_setup, events_for
from duyun.engine.events import event_schema, event_types, schema_text
from duyun.hand import Hand
from duyun.rules import RuleSet
from duyun.tiles import full_set

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = event_schema()
VALIDATOR = Draft202012Validator(SCHEMA)
DEFS = SCHEMA["$defs"]
TYPES = {name: DEFS[cls.__name__] for name, cls in event_types().items()}


def _properties(event_type: str) -> dict[str, Any]:
    props: dict[str, Any] = TYPES[event_type]["properties"]
    return props


def _allowed(prop: dict[str, Any]) -> list[Any] | None:
    """The values a property may take when the schema lists them (const, enum), else None."""
    if "const" in prop:
        return [prop["const"]]
    if "enum" in prop:
        return list(prop["enum"])
    return None


# ---------------------------------------------------------------- self-played hands


def _ready_tiles(pool: list[int], rng: random.Random) -> list[int] | None:
    """13 tiles of ``pool`` one short of four sets and a pair (a ready hand, R10, R11)."""
    counts = [pool.count(t) for t in range(27)]
    tiles: list[int] = []
    for _ in range(100):
        start = rng.randrange(27)
        group = [start, start + 1, start + 2] if start % 9 <= 6 else [start] * 3
        if len(tiles) < 12 and all(counts[t] >= group.count(t) for t in group):
            for tile in group:
                counts[tile] -= 1
            tiles += group
    pairs = [t for t in range(27) if counts[t] >= 2]
    if len(tiles) != 12 or not pairs:
        return None
    tiles += [rng.choice(pairs)] * 2
    tiles.remove(rng.choice(tiles))
    for tile in tiles:
        pool.remove(tile)
    return tiles


def _ready_position(rng: random.Random, rules: RuleSet) -> Round | None:
    """A position where the dealer may declare 報聽 with its first discard (R25) and other
    seats have declared it: their forced discards and wins (R26) bring the ``baoting`` and
    ``claim`` events and forced ``discard``s, rare in random play."""
    pool = full_set()
    rng.shuffle(pool)
    baoting = (False, True, rng.random() < 0.5, rng.random() < 0.5)
    hands: list[Hand] = []
    for seat in range(4):
        tiles = _ready_tiles(pool, rng) if baoting[seat] or seat == 0 else None
        if tiles is None:
            return None
        if seat == 0:
            tiles.append(pool.pop())
        hands.append(Hand(tuple(tiles)))
    discards = ((), *((pool.pop(),) for _ in range(3)))
    return Round(Setup(tuple(hands), tuple(pool), discards=discards, baoting=baoting), rules)


def _hand(seed: int, bloody: bool) -> Round:
    """A seeded hand of random decisions; some seats quit (R45) or, having won a 血戰 hand,
    leave (R57); odd seeds start from 報聽 positions."""
    rng = random.Random(seed)
    rules = RuleSet(bloody_battle=bloody)
    game: Round | None = None
    if seed % 2:
        game = _ready_position(rng, rules)
    if game is None:
        game = Round(deal_setup(seed), rules)
    while not game.is_over:
        winners = [s for s in range(4) if game.won[s] and not game.left[s]]
        if winners and rng.random() < 0.2:
            game.leave(winners[0])
            continue
        if rng.random() < 0.003:
            game.escape(rng.choice([s for s in range(4) if not game.won[s]]))
            break
        seat = game.to_act[0]
        legal = game.legal_actions(seat)
        wins = [a for a in legal if a.kind is ActionKind.HU]
        declarations = [a for a in legal if a.kind is ActionKind.BAOTING]
        action = legal[rng.randrange(len(legal))]
        if wins and rng.random() < 0.7:
            action = wins[0]
        elif declarations and rng.random() < 0.5:  # R25: rare at random; a 報聽 seat plays itself
            action = declarations[0]
        game.apply(action)
    return game


HANDS = [_hand(seed, bloody) for bloody in (False, True) for seed in range(40)]


# One validator per event type, for speed: an event of a known type is valid under the whole
# schema (oneOf) exactly when it is valid under its own definition, every other definition
# requiring another ``type``. The whole schema is used on one hand's log of each room below.
_BY_TYPE = {
    name: Draft202012Validator({"$ref": f"#/$defs/{cls.__name__}", "$defs": DEFS})
    for name, cls in event_types().items()
}


def _errors(event: dict[str, Any], whole: bool = False) -> list[str]:
    validator = VALIDATOR if whole or event.get("type") not in _BY_TYPE else _BY_TYPE[event["type"]]
    return [error.message for error in validator.iter_errors(event)]


def test_the_schema_is_a_valid_draft_2020_12_schema() -> None:
    Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"


@pytest.mark.parametrize("bloody", [False, True], ids=["normal", "bloody"])
def test_every_event_of_self_played_hands_fits_the_schema(bloody: bool) -> None:
    """Normal hands and 血戰 hands (R52-R57), the log as written and as each seat and a
    spectator receive it (events_for)."""
    checked = 0
    games = [game for game in HANDS if game.bloody is bloody]
    for event in games[0].events + games[1].events:
        assert not _errors(event, whole=True), (event, _errors(event, whole=True))
    for game in games:
        for viewer in (0, 1, 2, 3, None, "log"):
            events = game.events if viewer == "log" else events_for(game.events, viewer)
            for event in events:
                assert not _errors(event), (viewer, event, _errors(event))
                checked += 1
    assert checked > 10_000


def test_the_sample_meets_every_event_type() -> None:
    """So that no event type of the schema goes untested (and none is missing from it)."""
    seen = {event["type"] for game in HANDS for event in game.events}
    assert seen == set(TYPES)


def test_an_event_off_the_schema_is_refused() -> None:
    draw = next(e for e in HANDS[0].events if e["type"] == "draw")
    assert _errors({**draw, "tile": "0m"})  # no such tile
    assert _errors({**draw, "seat": 4})
    assert _errors({**draw, "extra": 1})  # every field is defined
    assert _errors({key: value for key, value in draw.items() if key != "last_four"})
    assert _errors({**draw, "type": "drew"})


def test_the_rule_options_are_the_rulesets() -> None:
    assert list(DEFS["RuleOptions"]["properties"]) == [f.name for f in fields(RuleSet)]


def test_every_field_is_documented() -> None:
    for name, definition in DEFS.items():
        assert definition["description"], name
        for field_name, prop in definition["properties"].items():
            if field_name != "type":
                assert prop.get("description"), (name, field_name)


# ---------------------------------------------------------------- published and printed


def _published_schema() -> str:
    text = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    section = text[text.index("### Events") :]
    match = re.search(r"```json\n(.*?)```", section, re.S)
    assert match is not None, "docs/protocol.md: no JSON block in 'Events'"
    return match.group(1)


def test_docs_publish_the_generated_schema() -> None:
    """Regenerate with ``duyun schema`` (or ``python -m duyun.engine.events``)."""
    assert _published_schema() == schema_text()


def test_the_cli_prints_the_schema() -> None:
    from typer.testing import CliRunner

    from duyun.cli.main import app

    result = CliRunner().invoke(app, ["schema"])
    assert result.exit_code == 0
    assert json.loads(result.output) == SCHEMA


# ---------------------------------------------------------------- the readers of the log


def _js_cases(source: str) -> list[tuple[str, str]]:
    """(case label, its code) for every ``switch (ev.type)``: stacked labels share the code."""
    found: list[tuple[str, str]] = []
    for match in re.finditer(r"switch \(ev\.type\) \{", source):
        depth, end = 1, match.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(source[end], 0)
            end += 1
        body = source[match.end() : end - 1]
        pieces = re.split(r'(\bcase "\w+":|\bdefault:)', body)
        labels: list[str] = []
        for piece in pieces[1:]:
            label = re.fullmatch(r'case "(\w+)":|default:', piece)
            if label is not None:
                labels.append(label.group(1) or "default")
                continue
            if piece.strip():
                found += [(name, piece) for name in labels]
                labels = []
    return found


def test_the_browser_fold_reads_only_what_the_schema_defines() -> None:
    """static/js/state.js (applyEvent and describeEvent): every event type it handles is in the
    schema, every ``ev.field`` it reads is a field of that event, and every value it compares a
    field with is one the schema allows."""
    source = (ROOT / "src" / "duyun" / "server" / "static" / "js" / "state.js").read_text()
    cases = _js_cases(source)
    assert {name for name, _ in cases} >= set(TYPES) - {"act"} and cases
    every_field = {field for props in TYPES.values() for field in props["properties"]}
    for name, code in cases:
        reads = set(re.findall(r"\bev\??\.(\w+)", code))
        if name == "default":  # events it does not know are shown as notices
            assert reads <= every_field, reads - every_field
            continue
        assert name in TYPES, f"state.js handles an event type the engine never emits: {name}"
        props = _properties(name)
        assert reads <= set(props), (name, reads - set(props))
        for field, value in re.findall(r'\bev\??\.(\w+) [!=]== "([^"]*)"', code):
            allowed = _allowed(props[field])
            if allowed is not None:
                assert value in allowed, (name, field, value)
    # the field read before the switch, for every event
    assert "const seat = ev.seat;" in source and "seat" in every_field


def _branches(function: ast.FunctionDef) -> dict[str, list[ast.AST]]:
    """The ``if kind == "X"`` branches of a function, by X (``or`` joins several)."""
    found: dict[str, list[ast.AST]] = {}
    for node in ast.walk(function):
        if not isinstance(node, ast.If):
            continue
        tests = node.test.values if isinstance(node.test, ast.BoolOp) else [node.test]
        for test in tests:
            if (
                isinstance(test, ast.Compare)
                and isinstance(test.left, ast.Name)
                and test.left.id == "kind"
                and isinstance(test.comparators[0], ast.Constant)
            ):
                found.setdefault(test.comparators[0].value, []).extend(node.body)
    return found


def _subscripts(nodes: list[ast.AST], name: str) -> set[str]:
    return {
        node.slice.value
        for tree in nodes
        for node in ast.walk(tree)
        if isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id == name
        and isinstance(node.slice, ast.Constant)
    }


def test_the_rl_encoder_reads_only_what_the_schema_defines() -> None:
    """rl/incremental.py's TableEncoder.sync: the event types it branches on, the fields it
    reads in each branch (and in ``_kong``), and the values it compares them with."""
    from duyun.rl import incremental

    tree = ast.parse((ROOT / "src" / "duyun" / "rl" / "incremental.py").read_text())
    functions = {f.name: f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)}
    branches = _branches(functions["sync"])
    assert set(branches) >= {"discard", "pong", "kong", "payment", "win", "start"}
    for name, body in branches.items():
        assert name in TYPES, f"the encoder branches on an unknown event type {name}"
        reads = _subscripts(body, "event")
        assert reads <= set(_properties(name)), (name, reads - set(_properties(name)))
    kong = _properties("kong")
    assert _subscripts([functions["_kong"]], "event") <= set(kong)
    kinds = set(_branches(functions["_kong"])) | set(incremental._MELD_KIND_BY_NAME)
    assert kinds <= set(kong["kind"]["enum"])
    assert incremental._DISCARD_WIN in _properties("win")["how"]["enum"]


def test_every_event_the_round_builds_goes_through_its_typed_schema() -> None:
    """In round.py, leaving.py and actions.py every event literal (a dict with a "type") is
    typed: the argument of ``_logged`` (checked by mypy against the events' union) or the value
    of a variable annotated with its TypedDict, so mypy holds each field to engine/events.py."""
    engine = ROOT / "src" / "duyun" / "engine"
    untyped = []
    for name in ("round.py", "leaving.py", "actions.py"):
        tree = ast.parse((engine / name).read_text(encoding="utf-8"))
        typed: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "_logged":
                typed.update(id(arg) for arg in node.args)
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                typed.add(id(node.value))
        for node in ast.walk(tree):
            is_event = isinstance(node, ast.Dict) and any(
                isinstance(key, ast.Constant) and key.value == "type" for key in node.keys
            )
            if is_event and id(node) not in typed:
                untyped.append(f"{name}:{node.lineno}")
    assert not untyped, untyped
