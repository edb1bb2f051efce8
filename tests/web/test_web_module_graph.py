"""The browser client's modules import each other without a circle.

A circle (a view importing the controller that imports the view) works in browsers only while
nothing reads an import during module evaluation, and makes the load order matter; the shared
state and hooks live in ``js/core.js`` so the graph stays acyclic. This reads the static
``import ... from "./x.js"`` lines, so it needs neither a browser nor Node.
"""

from __future__ import annotations

import re
from pathlib import Path

import duyun.server

JS = Path(duyun.server.__file__).parent / "static" / "js"

# `import {...} from "./x.js"`, `import x from './x.js'`, `export {...} from "./x.js"`,
# `import "./x.js"`, spread over lines or not (dynamic `import()` is not a static edge)
IMPORT = re.compile(
    r"""^\s*(?:import|export)\b[^;'"]*?(?:\bfrom\s*)?["'](\./[\w.-]+\.js)["']""",
    re.MULTILINE | re.DOTALL,
)


def import_graph(folder: Path) -> dict[str, list[str]]:
    """Each module's name mapped to the local modules it imports."""
    graph: dict[str, list[str]] = {}
    for path in sorted(folder.glob("*.js")):
        targets = [m.removeprefix("./") for m in IMPORT.findall(path.read_text(encoding="utf-8"))]
        graph[path.name] = targets
    return graph


def find_cycle(graph: dict[str, list[str]]) -> list[str] | None:
    """One import circle as a path ``[a, b, ..., a]``, or None when the graph is acyclic."""
    done: set[str] = set()
    stack: list[str] = []
    on_stack: set[str] = set()

    def visit(node: str) -> list[str] | None:
        if node in on_stack:
            return [*stack[stack.index(node) :], node]
        if node in done:
            return None
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, []):
            found = visit(nxt)
            if found:
                return found
        stack.pop()
        on_stack.discard(node)
        done.add(node)
        return None

    for start in graph:
        found = visit(start)
        if found:
            return found
    return None


def test_import_parser_reads_the_forms_the_client_uses() -> None:
    text = (
        'import { a, b } from "./one.js";\n'
        "import {\n  c,\n  d,\n} from './two.js';\n"
        'export { e } from "./three.js";\n'
        'import "./four.js";\n'
        "const lazy = await import('./five.js');\n"
    )
    assert [m.removeprefix("./") for m in IMPORT.findall(text)] == [
        "one.js",
        "two.js",
        "three.js",
        "four.js",
    ]


def test_find_cycle_reports_a_circle_and_accepts_a_tree() -> None:
    assert find_cycle({"main.js": ["lobby.js"], "lobby.js": ["main.js"]}) == [
        "main.js",
        "lobby.js",
        "main.js",
    ]
    assert find_cycle({"main.js": ["lobby.js", "core.js"], "lobby.js": ["core.js"]}) is None


def test_every_local_import_names_a_module_that_exists() -> None:
    graph = import_graph(JS)
    assert "main.js" in graph and "core.js" in graph
    missing = {(src, dst) for src, dsts in graph.items() for dst in dsts if dst not in graph}
    assert not missing


def test_client_modules_import_each_other_without_a_circle() -> None:
    cycle = find_cycle(import_graph(JS))
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


def test_views_do_not_import_the_controller() -> None:
    graph = import_graph(JS)
    importers = sorted(name for name, targets in graph.items() if "main.js" in targets)
    assert importers == []
