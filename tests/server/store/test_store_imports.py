"""The store package imports downwards only (issue 22 item 3): no module of it imports another
that imports it back, nor anything of the server above it, so the store can be read, tested
and replaced on its own. A cycle hidden inside a function (a late import) counts as well: that
is how the store and the old ``server/auth.py`` used to import each other.

The import graph is read from the source (every ``import`` statement, at any depth), so the
order in which modules happen to be loaded cannot hide a cycle; each module is also imported
alone in a fresh interpreter.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest

import duyun.server
import duyun.server.store
from import_graph import cycles

SERVER = Path(duyun.server.__file__).parent
STORE = "duyun.server.store"


def module_name(path: Path) -> str:
    parts = path.relative_to(SERVER.parent.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def server_modules() -> dict[str, Path]:
    """Every module of ``duyun.server`` (migrations are scripts Alembic loads, not imports)."""
    found = {}
    for path in sorted(SERVER.rglob("*.py")):
        if "migrations" not in path.relative_to(SERVER).parts:
            found[module_name(path)] = path
    return found


def imports_of(name: str, path: Path, known: Iterable[str]) -> set[str]:
    """The modules of ``known`` that ``name`` imports anywhere in its source. ``from p import
    x`` is an import of ``p.x`` when that is a module and of ``p`` (its ``__init__``) when
    ``x`` is a name defined there."""
    modules = set(known)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                targets.append(sub if sub in modules else base)
        for target in targets:
            while target and target not in modules:  # `import a.b.c`: the deepest module
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def server_graph() -> dict[str, set[str]]:
    modules = server_modules()
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def store_modules() -> list[str]:
    return sorted(name for name in server_modules() if name.startswith(STORE))


def test_the_cycle_finder_finds_a_cycle_and_reads_from_imports_as_modules() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set(), "c": {"a", "b"}}) == []
    store = server_graph()
    # `from duyun.server.store import auth` names the module; `... import Store` the package
    assert f"{STORE}.auth" in store[f"{STORE}.base"]
    assert f"{STORE}.store" in store[STORE]
    assert f"{STORE}.cluster" in store[STORE]


def test_no_import_cycle_inside_the_store_or_through_the_rest_of_the_server() -> None:
    graph = server_graph()
    through_store = [c for c in cycles(graph) if any(m.startswith(STORE) for m in c)]
    assert through_store == [], f"import cycles through the store: {through_store}"


def test_the_store_imports_nothing_of_the_server_above_it() -> None:
    graph = server_graph()
    upward = {
        name: sorted(m for m in graph[name] if not m.startswith(STORE))
        for name in store_modules()
        if any(not m.startswith(STORE) for m in graph[name])
    }
    assert upward == {}


def test_the_store_modules_stay_small_enough_to_read() -> None:
    sizes = {
        name: len(server_modules()[name].read_text(encoding="utf-8").splitlines())
        for name in store_modules()
    }
    assert {name: n for name, n in sizes.items() if n > 460} == {}


@pytest.mark.parametrize("module", store_modules())
def test_each_store_module_imports_alone_in_a_fresh_interpreter(module: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", f"import {module}"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_package_and_the_old_module_export_what_they_did() -> None:
    from duyun.server.store import base, database, store

    assert sorted(duyun.server.store.__all__) == [
        "Account",
        "AccountError",
        "AccountKind",
        "AlreadyClaimedError",
        "AuditReport",
        "AuthError",
        "BiggestWin",
        "Board",
        "BoardEntry",
        "BonusKind",
        "BonusRefused",
        "BonusState",
        "CoinRow",
        "ConflictError",
        "Economy",
        "HandLog",
        "HandRecord",
        "HouseReport",
        "Lease",
        "LeaseLostError",
        "LiveHand",
        "LiveMatch",
        "MatchRecord",
        "MatchSpec",
        "NotEligibleError",
        "NotFoundError",
        "Profile",
        "RateLimitedError",
        "RatingChange",
        "RatingPoint",
        "SeatSpec",
        "SettledHand",
        "Store",
        "StoreConfig",
        "StoreError",
        "StoredReview",
    ]
    assert all(hasattr(duyun.server.store, name) for name in duyun.server.store.__all__)
    # code written against duyun.server.store.store when it held everything keeps working
    assert store.normalize_url is database.normalize_url
    assert store.alembic_config is database.alembic_config
    assert store.MAX_ID == base.MAX_ID == 2**31 - 1
    assert store.Store is duyun.server.store.Store


def test_docs_name_the_module_of_every_store_method() -> None:
    """docs/deploy.md "Store API" lists each module's methods; a method moved or added
    without the table following fails here."""
    from duyun.server.store import Store

    deploy = Path(__file__).parents[3] / "docs" / "deploy.md"
    listed: dict[str, set[str]] = {}
    for line in deploy.read_text(encoding="utf-8").splitlines():
        cells = line.split("|")
        if len(cells) > 3 and cells[1].strip().startswith("`") and ".py`" in cells[1]:
            words = {w.split("(")[0] for w in cells[2].split("`")[1::2]}
            for module in cells[1].split("`")[1::2]:
                listed[module] = words
    public = {
        name: next(c for c in Store.__mro__ if name in vars(c)).__module__.rpartition(".")[2]
        for name in dir(Store)
        if not name.startswith("_")
    }
    wrong = {
        name: module
        for name, module in public.items()
        if name not in listed.get(f"{module}.py", ())
    }
    assert wrong == {}, f"methods the deploy.md table does not list under their module: {wrong}"
