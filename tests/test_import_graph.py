"""No import circle between the package's modules (issue 34 item 5), counting the imports made
only for type checking: a circle hidden under ``TYPE_CHECKING`` is still two modules that
cannot be understood, tested or compiled one without the other.

The engine's satellites (leaving, explain, setup, inspection, determinize) read a round
through their own small protocols; the round copies and pickles itself. The server's table
(``server/tables``) is a pure state machine under an async shell, its modules in layers
(timers, inbox, seats, flow, effects, ending, state, table, manager). No circle is known: the
test fails if any appears.
"""

from __future__ import annotations

import ast
from pathlib import Path

from import_graph import cycles

SRC = Path(__file__).resolve().parents[1] / "src"

#: no circle is known: the server's table became one pure state machine (issue 34 item 1),
#: whose modules import only those below them
KNOWN: frozenset[str] = frozenset()


def _modules() -> dict[str, Path]:
    found = {}
    for path in SRC.rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports (anywhere in it: at the top, in functions,
    under ``TYPE_CHECKING``). A package's ``__init__`` is left out: importing a submodule
    runs it by Python's rules, which is no circle of the code's making."""
    modules = _modules()
    packages = {name for name, path in modules.items() if path.name == "__init__.py"}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        if name in packages:
            continue
        base = name.split(".")[:-1]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                wanted = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                stem = ".".join(base[: len(base) - node.level + 1]) if node.level else ""
                module = ".".join(p for p in (stem, node.module or "") if p)
                wanted = [module] + [f"{module}.{alias.name}" for alias in node.names]
            else:
                continue
            for target in wanted:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name and target not in packages:
                    targets.add(target)
        graph[name] = targets
    return graph


def _circles(graph: dict[str, set[str]]) -> list[set[str]]:
    return [set(circle) for circle in cycles(graph)]


def test_the_graph_is_read() -> None:
    graph = _graph()
    assert "duyun.engine.round" in graph["duyun.engine.determinize"]
    assert "duyun.engine.leaving" in graph["duyun.engine.round"]


def test_no_import_circle_but_the_known_one() -> None:
    circles = _circles(_graph())
    assert all(circle <= KNOWN for circle in circles), [sorted(c) for c in circles]


def test_the_engine_has_no_import_circle() -> None:
    circles = _circles(_graph())
    assert not [c for c in circles if any(m.startswith("duyun.engine") for m in c)]


def test_a_circle_is_found() -> None:
    """The search itself can fail: a made-up circle through TYPE_CHECKING is found."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _circles(graph) == [{"a", "b", "c"}]
