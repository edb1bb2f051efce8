"""Where a ``duyun serve`` process's CPU went, from a py-spy profile (issue 33 item 3).

Record one process while ``benchmarks/load.py`` plays on it, in py-spy's raw (collapsed
stacks) format, then summarise it:

    py-spy record --pid PID --rate 100 --nonblocking --threads --format raw -o raw.txt \\
        --duration 32
    python benchmarks/pyspy_summary.py raw.txt

The shares are of the *busy* samples: a sample whose innermost frame waits (the event loop's
epoll, the database thread's queue, a lock, a PostgreSQL reply, an idle pool worker) is left
out, because on a machine whose cores are taken py-spy finds such a thread runnable and counts
it. Each busy sample goes to the first group its stack matches, in the order of ``GROUPS``
(a store call's SQL counts as that store call, its hand-off back to the loop as a hand-off);
then the functions with the most samples of their own, and with the most samples under them.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

#: innermost frames that wait rather than work
WAITS = (
    "EpollSelector.select",
    "Condition.wait",
    "Connection.wait (psycopg",
    "_worker (concurrent/futures/thread.py:81)",
    "Queue.get (queue.py:171)",
    # the SQLite database thread as the innermost frame: waiting for a token on its C
    # SimpleQueue (the calls it runs are frames under it)
    "DatabaseThread._run (",
)

#: (group, any of these in the stack), first match wins
GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("store: the writer's batch (append_events_many)", ("append_events_many",)),
    (
        "store: hello (session_of; before: verify_token, live_match_of)",
        ("session_of", "verify_token", "live_match_of"),
    ),
    ("store: a match's start (create_match, start_hand)", ("create_match", "start_hand")),
    ("store: other calls", ("/store/", "sqlalchemy/", "psycopg/")),
    (
        "hand-offs between the loop and database threads",
        (
            "call_soon_threadsafe",
            "Condition.notify",
            "ThreadPoolExecutor.submit",
            "DatabaseThread._push",
            "Handback.",
        ),
    ),
    ("JSON", ("json/",)),
    (
        "websocket frames and socket writes",
        ("websockets/", "Transport.write", "send_text", "Connection.writer"),
    ),
    ("message parsing (pydantic)", ("pydantic", "server/protocol.py")),
    ("tables, engine, bots", ("/tables/", "/engine/", "/bots/", "/analysis/")),
    ("asyncio's loop", ("asyncio/", "selectors.py")),
)

_NOISE = re.compile(r"/[^ ()]*/(site-packages|python3\.\d+|src)/")
_LINE = re.compile(r":\d+\)$")
#: frames every sample of a thread has: left out of the cumulative list
_OUTER = (
    "typer",
    "click",
    "<module>",
    "cli/main.py",
    "_bootstrap",
    "Thread.run",
    "run_forever",
    "run_until_complete",
    "runners.py",
    "_compat.py",
    "uvicorn/server.py",
    "cli/serve.py",
)


def summarise(path: Path, top: int) -> str:
    own: Counter[str] = Counter()
    under: Counter[str] = Counter()
    groups: Counter[str] = Counter()
    total = busy = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack:
            continue
        samples = int(count)
        total += samples
        frames = [_NOISE.sub("", frame) for frame in stack.split(";")[1:]]  # [0]: the thread
        if not frames or any(wait in frames[-1] for wait in WAITS):
            continue
        busy += samples
        joined = ";".join(frames)
        group = next((name for name, marks in GROUPS if any(m in joined for m in marks)), "other")
        groups[group] += samples
        own[_LINE.sub(")", frames[-1])] += samples
        for frame in {_LINE.sub(")", f) for f in frames}:
            if not any(outer in frame for outer in _OUTER):
                under[frame] += samples
    if not busy:
        return f"{path}: no busy samples"
    lines = [f"{path}: {total} samples, {busy} busy ({100 * busy / total:.0f}%)", "groups:"]
    lines += [f"  {100 * n / busy:5.1f}%  {name}" for name, n in groups.most_common()]
    lines.append("own time:")
    lines += [f"  {100 * n / busy:5.1f}%  {name}" for name, n in own.most_common(top)]
    lines.append("cumulative:")
    lines += [f"  {100 * n / busy:5.1f}%  {name}" for name, n in under.most_common(top)]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("profile", type=Path, help="py-spy record --format raw output")
    parser.add_argument("--top", type=int, default=20)
    args = parser.parse_args()
    print(summarise(args.profile, args.top))


if __name__ == "__main__":
    main()
