"""Which modules the install compiles with mypyc (``setup.py``), and a guard against running
stale compiled code.

A compiled module (``round.cpython-311-x86_64-linux-gnu.so``) sits beside its source and is
imported in its place. After the source changes -- an edit, a ``git pull`` -- the old compiled
code would go on running, silently: the build records a digest of every compiled source
(``_compiled_sources.json``) and :func:`check_compiled` refuses to start when a source no
longer matches, saying how to rebuild. This module imports nothing of the package:
``setup.py`` runs it as a file (importing the package would run this check against the very
modules being rebuilt).
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import json
from pathlib import Path

# The hot path of the engine and of every bot and environment step: dealing, legal actions,
# applying actions, settlement, the win/shanten/waits tables, and the bots' hand evaluator
# and expected-value arithmetic (the bot classes stay interpreted: experiments subclass them).
# Modules that check the types of values from outside (tiles, hands, actions, rules) stay
# interpreted: a compiled function checks its argument types itself, with its own messages,
# before ours could.
COMPILED_MODULES: tuple[str, ...] = (
    "duyun.analysis._tables",
    "duyun.analysis.shanten",
    "duyun.analysis.waits",
    "duyun.analysis.win",
    "duyun.bots.evaluation",
    "duyun.bots.expectation",
    "duyun.bots.rollout",
    "duyun.engine.ledger",
    "duyun.engine.phases",
    "duyun.engine.round",
    "duyun.engine.settlement",
    "duyun.engine.shapes",
    "duyun.rl.incremental",
)

DIGESTS_FILE = "_compiled_sources.json"
_PACKAGE = Path(__file__).resolve().parent


class StaleBuildError(ImportError):
    """A compiled module was built from a different version of its source."""


def _source(name: str) -> Path:
    return _PACKAGE.joinpath(*name.split(".")[1:]).with_suffix(".py")


def source_digest(path: Path) -> str:
    return hashlib.blake2b(path.read_bytes(), digest_size=16).hexdigest()


def compiled_modules() -> tuple[str, ...]:
    """The modules of :data:`COMPILED_MODULES` that run compiled in this install."""
    found = []
    for name in COMPILED_MODULES:
        source = _source(name)
        stem = source.with_suffix("")
        if any(
            stem.with_name(stem.name + suffix).exists()
            for suffix in importlib.machinery.EXTENSION_SUFFIXES
        ):
            found.append(name)
    return tuple(found)


def record_digests() -> None:
    """Write the digests of the sources being compiled (called by ``setup.py``)."""
    digests = {name: source_digest(_source(name)) for name in COMPILED_MODULES}
    (_PACKAGE / DIGESTS_FILE).write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n")


def check_compiled() -> None:
    """Raise :class:`StaleBuildError` if a compiled module no longer matches its source."""
    compiled = compiled_modules()
    if not compiled:
        return
    try:
        digests = json.loads((_PACKAGE / DIGESTS_FILE).read_text())
    except (OSError, ValueError):
        digests = {}
    stale = [  # an install without the sources (a wheel may leave them out) has nothing to check
        name
        for name in compiled
        if _source(name).exists() and digests.get(name) != source_digest(_source(name))
    ]
    if stale:
        raise StaleBuildError(
            f"duyun: the compiled module(s) {', '.join(stale)} no longer match their source "
            f"files (edited or updated since the build). Rebuild with `make build` (or "
            f"`pip install -e .`), or remove the compiled modules with `make pure`."
        )
