"""Every message the server sends in a test is held to the published schema
(``duyun.server.schema``, issue 34 item 2): the server's websocket connections are watched
while a test runs, each distinct message is validated against the definition of its ``type``,
and the test fails at its end naming every message that did not fit.

Violations are collected, not raised, inside the server: an exception in ``send_text`` would
surface as a broken connection far from its cause."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from duyun.server.schema import message_schema, message_types

_SCHEMA = message_schema()
_VALIDATORS = {
    name: Draft202012Validator({"$defs": _SCHEMA["$defs"], "$ref": f"#/$defs/{cls.__name__}"})
    for name, cls in message_types().items()
}
#: texts already found valid: the same table message goes to many seats and tests
_SEEN_VALID: set[int] = set()


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
    if not found:
        if len(_SEEN_VALID) > 200_000:
            _SEEN_VALID.clear()
        _SEEN_VALID.add(key)
    return found


@pytest.fixture(autouse=True)
def server_messages_fit_the_schema(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Watch every ``send_text`` of the server's connections during the test."""
    from duyun.server import ws

    problems: list[str] = []
    original = ws.Connection.send_text

    def checked(self: Any, text: str) -> None:
        try:
            problems.extend(problems_of(text))
        except Exception as error:  # a check that breaks must not break the server under test
            problems.append(f"the schema check failed on {text[:200]!r}: {error!r}")
        original(self, text)

    monkeypatch.setattr(ws.Connection, "send_text", checked)
    yield
    assert not problems, "server messages off the schema:\n" + "\n".join(problems[:20])
