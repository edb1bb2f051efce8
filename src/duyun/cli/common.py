"""What every sub-command shares: reading input safely, one-line errors, settlement tables.

Every command of ``duyun`` reads input nobody controls (a file, stdin, a saved log) and must
answer bad input the same way: exit status 2 and one short line on standard error naming what
is wrong, never a traceback. The machinery for that lives here, once:

* :func:`fail` prints ``error: <message>`` as a single line, written straight to the stream
  (Rich would wrap it at the console width and cut the line into pieces) with any echoed input
  already cut by :func:`cut`;
* :func:`read_text` reads a file or ``-`` (stdin) as UTF-8 and names a missing file, a
  directory, a permission problem or binary / non-UTF-8 content;
* :func:`parse_json` and :func:`parse_jsonl` parse strict JSON: ``NaN``/``Infinity`` (not
  JSON, but accepted by Python), nesting deeper than any real input, and numbers too long for
  Python are errors with a line and column, not exceptions from inside the parser.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import typer
from rich.table import Table

from duyun.engine.ledger import Payment
from duyun.engine.replay import ReplayError, check_match_links, split_hands

EXIT_BAD_INPUT = 2
#: Echoed input longer than this is cut (a 10 MB wall string is not an error message).
ECHO_LIMIT = 40
#: A whole error message longer than this is cut in its middle (engine messages quote input).
MESSAGE_LIMIT = 300
#: Deeper JSON than this is refused before Python's recursion limit is anywhere near.
MAX_JSON_DEPTH = 64


class InputFileError(ValueError):
    """Input that cannot be read or parsed; the message names the source and the problem."""


def cut(value: object, limit: int = ECHO_LIMIT) -> str:
    """``repr`` of an echoed value, cut to ``limit`` characters with its full length said."""
    text = repr(value)
    text = " ".join(text.split())  # an echo never spans lines
    if len(text) <= limit:
        return text
    return f"{text[: max(1, limit - 4)]}… ({len(text)} characters)"


_LONG_QUOTED = re.compile("'[^'\\n]{%s,}'|\"[^\"\\n]{%s,}\"".replace("%s", str(ECHO_LIMIT)))


def _cut_quoted(match: re.Match[str]) -> str:
    quoted = match.group(0)
    return f"{quoted[: ECHO_LIMIT - 4]}…{quoted[0]} ({len(quoted) - 2} characters)"


def one_line(message: str, limit: int = MESSAGE_LIMIT) -> str:
    """A message as one line: line breaks and runs of blanks collapsed, every quoted echo of
    input longer than :data:`ECHO_LIMIT` cut (messages from the library quote input whole),
    and the middle of a message still longer than ``limit`` replaced by a count."""
    text = _LONG_QUOTED.sub(_cut_quoted, " ".join(message.split()))
    if len(text) <= limit:
        return text
    tail = text[-40:]
    marker = f" …[{len(text)} characters in all]… "
    head = text[: max(0, limit - len(tail) - len(marker))]
    return f"{head}{marker}{tail}"


def fail(message: str) -> NoReturn:
    """Print ``error: <message>`` as one line on standard error and exit with status 2.

    Written with a plain ``write`` rather than a Rich console: Rich breaks long lines at the
    console width (80 columns when not a terminal), which turns one message into several.
    """
    stream = sys.stderr
    stream.write(f"error: {one_line(message)}\n")
    stream.flush()
    raise typer.Exit(EXIT_BAD_INPUT)


SERVER_MODULES: tuple[str, ...] = (
    # what the `server` extra installs and the server imports (pyproject.toml); pydantic is
    # in the extra too, but recent Typer releases depend on it, so it is no sign of the extra
    "fastapi",
    "uvicorn",
    "websockets",
    "sqlalchemy",
    "alembic",
    "argon2",
    "itsdangerous",
    "psycopg",
    "prometheus_client",
    "orjson",
)


def require_server_extra(command: str) -> None:
    """Exit with one line when the ``server`` extra is missing.

    ``pip install duyun`` leaves the web stack out, so that the engine, bots and simulation
    install without it; ``duyun serve`` and ``duyun admin`` would otherwise die on an
    ImportError traceback deep inside the server package. ``find_spec`` only looks the modules
    up, so nothing heavy is imported here.
    """
    for name in SERVER_MODULES:
        try:
            missing = importlib.util.find_spec(name) is None
        except (ImportError, ValueError):  # a parent package missing, or sys.modules[name] None
            missing = True
        if missing:
            fail(f"duyun {command} needs the server extra: pip install 'duyun[server]'")


def source_name(path: Path | str) -> str:
    """How an input is named in messages: ``stdin`` for ``-``, else the path as given."""
    return "stdin" if str(path) == "-" else str(path)


def read_bytes(path: Path | str) -> bytes:
    """The bytes of a file, or of stdin for ``-``; :class:`InputFileError` when unreadable."""
    name = source_name(path)
    if str(path) == "-":
        stream = getattr(sys.stdin, "buffer", None)
        try:
            if stream is not None:
                return bytes(stream.read())
            return str(sys.stdin.read()).encode("utf-8", "surrogateescape")
        except OSError as error:
            raise InputFileError(f"cannot read stdin: {error.strerror or error}") from None
    file = Path(path)
    try:
        return file.read_bytes()
    except FileNotFoundError:
        raise InputFileError(f"cannot read {name}: no such file") from None
    except IsADirectoryError:
        raise InputFileError(f"cannot read {name}: it is a directory, not a file") from None
    except PermissionError:
        raise InputFileError(f"cannot read {name}: permission denied") from None
    except OSError as error:
        if file.is_dir():
            raise InputFileError(f"cannot read {name}: it is a directory, not a file") from None
        raise InputFileError(f"cannot read {name}: {error.strerror or error}") from None


def decode_utf8(data: bytes, name: str) -> str:
    """UTF-8 text (a leading BOM dropped); binary or other encodings are named as such."""
    if b"\x00" in data:
        raise InputFileError(f"{name} is a binary file, not UTF-8 text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise InputFileError(
            f"{name} is not UTF-8 text (byte 0x{data[error.start]:02x} on line {line})"
        ) from None


def read_text(path: Path | str) -> str:
    """A file (or ``-`` for stdin) as UTF-8 text, with a clear :class:`InputFileError`."""
    return decode_utf8(read_bytes(path), source_name(path))


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _depth(text: str) -> int:
    """Deepest nesting of brackets outside strings: checked before parsing, so a hostile
    input of a million ``[`` cannot reach the parser's recursion."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def parse_json(text: str, name: str) -> Any:
    """Strict JSON (no NaN/Infinity, at most :data:`MAX_JSON_DEPTH` deep), or an error
    naming ``name`` with the line and column."""
    if _depth(text) > MAX_JSON_DEPTH:
        raise InputFileError(f"{name}: JSON nested more than {MAX_JSON_DEPTH} levels deep")
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as error:
        raise InputFileError(
            f"{name}: not valid JSON ({error.msg} at line {error.lineno} column {error.colno})"
        ) from None
    except (ValueError, RecursionError) as error:
        # NaN/Infinity, or an integer longer than Python converts (sys.int_info)
        raise InputFileError(f"{name}: not valid JSON ({one_line(str(error), 120)})") from None


def parse_jsonl(text: str, name: str) -> list[dict[str, Any]]:
    """JSON Lines of objects with a ``type`` (event logs); blank lines are skipped."""
    events: list[dict[str, Any]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            event = parse_json(line, f"{name} line {number}")
        except InputFileError as error:
            raise InputFileError(str(error).replace(" at line 1 column", " at column")) from None
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            raise InputFileError(
                f"{name} line {number}: an event is a JSON object with a string 'type', "
                f"got {cut(line.strip(), 40)}"
            )
        events.append(event)
    if not events:
        raise InputFileError(f"{name}: no events (the log is empty)")
    return events


def read_json(path: Path | str) -> Any:
    """Read and parse one JSON document, failing (exit 2) with a one-line message."""
    try:
        return parse_json(read_text(path), source_name(path))
    except InputFileError as error:
        fail(str(error))


def read_jsonl(path: Path | str) -> list[dict[str, Any]]:
    """Read and parse an event log, failing (exit 2) with a one-line message."""
    try:
        return parse_jsonl(read_text(path), source_name(path))
    except InputFileError as error:
        fail(str(error))


def check_writable_file(path: Path, option: str) -> None:
    """Fail (exit 2) before any work when ``path`` cannot be written as a file: a directory,
    a missing or read-only folder. The file itself is not created here."""
    if path.is_dir():
        fail(f"{option} {path}: it is a directory, not a file")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        fail(f"{option} {path}: folder {parent} does not exist")
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        fail(f"{option} {path}: permission denied")


def check_writable_dir(path: Path, option: str) -> None:
    """Fail (exit 2) before any work when ``path`` cannot become a writable folder."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        fail(f"{option} {path}: it is a file, not a folder")
    except OSError as error:
        fail(f"{option} {path}: cannot create the folder ({error.strerror or error})")
    if not os.access(path, os.W_OK):
        fail(f"{option} {path}: permission denied")


def settlement_table(payments: Sequence[Payment], totals: Sequence[int], stake: int = 1) -> Table:
    """Who paid whom, fan, reason, points (and coins when a stake is set)."""
    table = Table(title="Settlement", show_lines=False)
    for column in ("payer", "payee", "fan", "points", "rule", "reason"):
        table.add_column(column, justify="right" if column in ("fan", "points") else "left")
    if stake != 1:
        table.add_column("coins", justify="right")
    for row in payments:
        cells = [
            str(row.payer),
            str(row.payee),
            str(row.fan),
            str(row.points),
            row.rule,
            row.reason,
        ]
        if stake != 1:
            cells.append(str(row.points * stake))
        table.add_row(*cells)
    table.caption = "net: " + ", ".join(f"seat {i} {t:+d}" for i, t in enumerate(totals))
    return table


#: what odd input can raise from deep in the engine's readers; the last line of defence, so
#: that no log, however odd, ends in a traceback
ODD_INPUT = (TypeError, KeyError, IndexError, AttributeError, ValueError, RecursionError)


def read_hands(path: Path | str, hand: int | None = None) -> list[list[dict[str, Any]]]:
    """The hands of an event log (a match's hands must all be there, in order), or only hand
    ``hand`` (1 = first) of them; fails (exit 2) with a one-line message naming the input."""
    name = source_name(path)
    try:
        hands = split_hands(read_jsonl(path))
        check_match_links(hands)
    except ReplayError as error:
        fail(f"{name}: {error}")
    except ODD_INPUT as error:
        fail(f"{name}: not a valid log ({type(error).__name__}: {error})")
    if hand is not None:
        if not 1 <= hand <= len(hands):
            fail(f"--hand {hand}: the file holds {len(hands)} hand(s)")
        hands = [hands[hand - 1]]
    return hands
