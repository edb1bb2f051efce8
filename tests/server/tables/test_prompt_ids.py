"""Prompt ids (docs/protocol.md, ``act``'s ``prompt``): each prompt of a process has its own,
and a restarted process (or the one that adopts a match) does not count through the same
numbers again, so an answer resent after a reconnect cannot name a new prompt by chance."""

from __future__ import annotations

import subprocess
import sys

from duyun.server.tables.seats import PROMPT_ID_SPAN, Prompt, first_prompt_id

FIRST_ID = "from duyun.server.tables.seats import Prompt; print(Prompt('turn', [], 0.0).id)"


def test_prompts_of_one_process_have_ids_one_apart() -> None:
    ids = [Prompt("turn", [], 0.0).id for _ in range(5)]
    assert ids == list(range(ids[0], ids[0] + 5))
    assert 1 <= ids[0] <= PROMPT_ID_SPAN + 10_000_000  # far inside a JSON number's 2**53


def test_each_process_starts_its_prompt_ids_somewhere_else() -> None:
    starts = {first_prompt_id() for _ in range(20)}
    assert len(starts) == 20 and all(1 <= start <= PROMPT_ID_SPAN for start in starts)
    firsts = [
        int(
            subprocess.run(
                [sys.executable, "-c", FIRST_ID], capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(2)
    ]
    assert firsts[0] != firsts[1]  # counted from 1, both would be 1
