"""How the server tests' players answer a prompt, shared by the tests that play whole matches
over the protocol (``test_bloody``) and through the pure table machine (``test_table_state``):
deterministic, so a seeded deal plays the same match every run."""

from __future__ import annotations

from typing import Any


def win_pass_else_last_discard(prompt: dict[str, Any]) -> dict[str, Any]:
    """Win when offered, pass a claim, else the last legal discard."""
    legal = prompt["legal"]
    for wanted in ("hu", "pass"):
        for action in legal:
            if action["action"] == wanted:
                return dict(action)
    return dict([a for a in legal if a["action"] == "discard"][-1])
