"""Running ``duyun`` in-process and checking its errors, for the CLI tests in any folder.

Like :mod:`scenario_helpers`, it sits in ``tests/`` itself, which pytest puts on ``sys.path``
because ``tests/conftest.py`` lives here: tests/cli/ and tests/server/ both import it.
"""

from __future__ import annotations

import io
import sys

from duyun.cli.common import MESSAGE_LIMIT
from duyun.cli.main import main


class _Stdin(io.TextIOWrapper):
    """A text stdin over bytes, like the real one (``.buffer`` holds the raw bytes)."""


def run(args: list[str], stdin: bytes = b"") -> tuple[int, str, str]:
    """Run ``duyun ARGS`` in-process with ``stdin``; returns (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    old = sys.stdin, sys.stdout, sys.stderr
    sys.stdin = _Stdin(io.BytesIO(stdin), encoding="utf-8")
    sys.stdout, sys.stderr = out, err
    try:
        main(args)
        status = 0
    except SystemExit as exit_:
        status = exit_.code if isinstance(exit_.code, int) else 1
    finally:
        sys.stdin, sys.stdout, sys.stderr = old
    return status, out.getvalue(), err.getvalue()


def assert_clean_error(status: int, stderr: str, *named: str) -> str:
    """Exit 2, one line starting ``error:``, naming each of ``named``, no traceback."""
    assert status == 2, stderr
    assert "Traceback" not in stderr
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    line = lines[0]
    assert line.startswith("error: ")
    for word in named:
        assert word in line, (word, line)
    assert len(line) <= len("error: ") + MESSAGE_LIMIT
    return line
