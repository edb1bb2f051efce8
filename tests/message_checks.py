"""Every message the server sends in a test is held to the published schema
(``duyun.server.schema``, issue 34 item 2): the server's websocket connections are watched
while a test runs, each distinct message is validated against the definition of its ``type``,
and the test fails at its end naming every message that did not fit.

Violations are collected, not raised, inside the server: an exception in ``send_text`` would
surface as a broken connection far from its cause."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from duyun.engine.events import EVENT_CLASSES, event_schema, event_types
from duyun.server.schema import message_schema, message_types

_SCHEMA = message_schema()
_EVENTS = event_schema()


def _validator(defs: dict[str, Any], name: str) -> Draft202012Validator:
    return Draft202012Validator({"$defs": defs, "$ref": f"#/$defs/{name}"})


def _without_event_lists(defs: dict[str, Any]) -> dict[str, Any]:
    """The message definitions with their lists of events left open: each event is checked
    on its own against its type's definition, which is what the published schema says (an
    event is one of the engine's), without trying all fifteen on every event -- jsonschema
    took 3 ms per ``events`` message and 150 ms per snapshot that way."""
    copied = copy.deepcopy(defs)
    for name in ("SnapshotMessage", "EventsMessage"):
        events = copied[name]["properties"]["events"]
        assert events["items"] == {
            "anyOf": [{"$ref": f"#/$defs/{cls.__name__}"} for cls in EVENT_CLASSES]
        }
        events["items"] = {"type": "object"}
    return copied


_MESSAGE_DEFS = _without_event_lists(_SCHEMA["$defs"])
_VALIDATORS = {
    name: _validator(_MESSAGE_DEFS, cls.__name__) for name, cls in message_types().items()
}
_EVENT_VALIDATORS = {
    name: _validator(_EVENTS["$defs"], cls.__name__) for name, cls in event_types().items()
}
#: texts already found valid: the same table message goes to many seats and tests, the same
#: event to every seat (and again in each snapshot)
_SEEN_VALID: set[int] = set()


def _remember(key: int) -> None:
    if len(_SEEN_VALID) > 500_000:
        _SEEN_VALID.clear()
    _SEEN_VALID.add(key)


def _event_problems(event: Any, where: str) -> list[str]:
    key = hash(json.dumps(event, sort_keys=True))
    if key in _SEEN_VALID:
        return []
    kind = event.get("type") if isinstance(event, dict) else None
    validator = _EVENT_VALIDATORS.get(kind) if isinstance(kind, str) else None
    if validator is None:
        return [f"{where}: an event of no known type {kind!r}"]
    found = [
        f"{where}/{'/'.join(map(str, error.absolute_path))}: {error.message[:300]}"
        for error in validator.iter_errors(event)
    ]
    if not found:
        _remember(key)
    return found


def problems_of(text: str) -> list[str]:
    """What is wrong with one message the server sent (nothing when it fits the schema)."""
    key = hash(text)
    if key in _SEEN_VALID:
        return []
    message: Any = json.loads(text)
    kind = message.get("type") if isinstance(message, dict) else None
    validator = _VALIDATORS.get(kind) if isinstance(kind, str) else None
    if validator is None:
        return [f"a message of no known type {kind!r}: {text[:200]}"]
    found = [
        f"{kind} at {'/'.join(map(str, error.absolute_path)) or '(top)'}: {error.message[:300]}"
        for error in validator.iter_errors(message)
    ]
    if kind in ("snapshot", "events") and isinstance(message.get("events"), list):
        for index, event in enumerate(message["events"]):
            found += _event_problems(event, f"{kind} at events/{index}")
    if not found:
        _remember(key)
    return found


@pytest.fixture(autouse=True)
def server_messages_fit_the_schema(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Watch every ``send_text`` of the server's connections during the test, and every
    ``table`` message as its connection's writer encodes it (those are queued as dicts, so
    that a newer one can replace one still waiting: ``ws.QueuedTable``)."""
    from duyun.server import ws

    problems: list[str] = []
    original = ws.Connection.send_text
    original_table = ws.QueuedTable.encoded

    def check(text: str) -> None:
        try:
            problems.extend(problems_of(text))
        except Exception as error:  # a check that breaks must not break the server under test
            problems.append(f"the schema check failed on {text[:200]!r}: {error!r}")

    def checked(self: Any, text: str) -> None:
        check(text)
        original(self, text)

    def checked_table(self: Any) -> str | None:
        text = original_table(self)
        if text is not None:
            check(text)
        return text

    monkeypatch.setattr(ws.Connection, "send_text", checked)
    monkeypatch.setattr(ws.QueuedTable, "encoded", checked_table)
    yield
    assert not problems, "server messages off the schema:\n" + "\n".join(problems[:20])
