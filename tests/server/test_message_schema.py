"""One schema for every server message (issue 34 item 2): the definitions in
``duyun.server.schema`` make a valid JSON Schema, every field is documented, docs/protocol.md
publishes exactly the generated schema, ``duyun schema --messages`` prints it, and the browser's
message readers (``static/js/main.js``) read only message types and fields it defines.

That every message the server really sends fits is checked by the suite itself: the autouse
fixture of ``message_checks`` validates each one in every server and browser test; the last
tests here make sure that check can fail.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from duyun.server.schema import message_schema, message_schema_text, message_types
from message_checks import problems_of

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = message_schema()
DEFS = SCHEMA["$defs"]
TYPES = {name: DEFS[cls.__name__] for name, cls in message_types().items()}
MAIN_JS = ROOT / "src" / "duyun" / "server" / "static" / "js" / "main.js"


def test_the_message_schema_is_a_valid_draft_2020_12_schema() -> None:
    Draft202012Validator.check_schema(SCHEMA)
    assert set(TYPES) == {
        "welcome",
        "table",
        "snapshot",
        "events",
        "prompt",
        "hand_end",
        "match_end",
        "reaction",
        "error",
        "redirect",
        "pong",
    }


def _undocumented(schema: Any, where: str) -> list[str]:
    """Properties of the server's own definitions without a description (the engine's event
    definitions are held to theirs by the event schema's tests)."""
    missing: list[str] = []
    for name, prop in schema.get("properties", {}).items():
        if name != "type" and "description" not in prop and "$ref" not in prop:
            missing.append(f"{where}.{name}")
    return missing


def test_every_field_of_every_message_is_documented() -> None:
    from duyun.engine.events import event_types

    event_defs = {cls.__name__ for cls in event_types().values()}
    missing = [
        field
        for name, definition in DEFS.items()
        if name not in event_defs
        for field in _undocumented(definition, name)
    ]
    assert not missing, missing
    assert all(DEFS[name]["description"] for name in DEFS)


def _published() -> str:
    text = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    section = text.split("### Server messages", 1)[1].split("\n### ", 1)[0]
    match = re.search(r"```json\n(.*?)```", section, re.DOTALL)
    assert match is not None, "docs/protocol.md: no JSON block in 'Server messages'"
    return match.group(1)


def test_docs_publish_the_generated_message_schema() -> None:
    """Regenerate with ``duyun schema --messages``."""
    assert _published() == message_schema_text()


def test_the_cli_prints_the_message_schema() -> None:
    from typer.testing import CliRunner

    from duyun.cli.main import app

    result = CliRunner().invoke(app, ["schema", "--messages"])
    assert result.exit_code == 0
    assert json.loads(result.output) == SCHEMA


def _cases(source: str) -> dict[str, str]:
    """The code of each ``case "X":`` of main.js's ``switch (msg.type)``."""
    start = source.index("switch (msg.type) {")
    depth, end = 1, start + len("switch (msg.type) {")
    while depth:
        depth += {"{": 1, "}": -1}.get(source[end], 0)
        end += 1
    body = source[start:end]
    pieces = re.split(r'\bcase "(\w+)":', body)
    return {pieces[i]: pieces[i + 1] for i in range(1, len(pieces) - 1, 2)}


def test_the_browser_reads_only_what_the_message_schema_defines() -> None:
    """main.js: every message type it handles is one the server sends, every ``msg.field``
    read in a type's case is a field of that message, and the VIEW fields ``readView`` reads
    are the VIEW's."""
    source = MAIN_JS.read_text(encoding="utf-8")
    cases = _cases(source)
    assert set(cases) <= set(TYPES), set(cases) - set(TYPES)
    assert {"welcome", "table", "snapshot", "events", "prompt", "hand_end", "match_end"} <= set(
        cases
    )
    for name, code in cases.items():
        reads = set(re.findall(r"\bmsg\??\.(\w+)", code)) - {"type"}
        assert reads <= set(TYPES[name]["properties"]), (
            name,
            reads - set(TYPES[name]["properties"]),
        )
    read_view = source.split("function readView(view) {", 1)[1].split("\n}\n", 1)[0]
    view_reads = set(re.findall(r"\bview\??\.(\w+)", read_view))
    assert view_reads and view_reads <= set(DEFS["ViewJson"]["properties"]), view_reads


@pytest.mark.parametrize(
    ("message", "complaint"),
    [
        ({"type": "pong"}, "'t' is a required property"),
        ({"type": "table", "table": None, "extra": 1}, "Additional properties"),
        ({"type": "error", "code": "x", "message": "y", "rid": 1.5}, "rid"),
        ({"type": "nothing"}, "no known type"),
        (
            {
                "type": "events",
                "hand_id": 3,
                "seq": 0,
                "events": [{"type": "draw", "seat": 9, "tile": "5p"}],
            },
            "events/0",
        ),
    ],
)
def test_a_message_off_the_schema_is_named(message: dict[str, Any], complaint: str) -> None:
    problems = problems_of(json.dumps(message))
    assert problems and any(complaint in p for p in problems), problems


def test_a_message_on_the_schema_passes() -> None:
    assert problems_of(json.dumps({"type": "pong", "t": 12})) == []
    assert problems_of(json.dumps({"type": "table", "table": None})) == []
