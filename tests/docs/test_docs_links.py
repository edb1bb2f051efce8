"""Links between the README and the docs resolve (issue 22 items 4 and 7).

The rule book (docs/rules.md) and the strength diary (docs/research/) are reached through
links from the other pages, and sections move between files; a link to a file or a heading
that is no longer there is caught here instead of by a reader.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"```.*?```", re.S)


def _anchors(page: Path) -> set[str]:
    """GitHub's heading slugs (lower case, punctuation dropped, spaces to hyphens) and ids."""
    text = page.read_text(encoding="utf-8")
    slugs = {
        re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
        for line in FENCE.sub("", text).splitlines()
        if line.startswith("#")
    }
    return slugs | set(re.findall(r'<a id="([^"]+)"', text))


def test_the_pages_are_found() -> None:
    names = {page.relative_to(ROOT).as_posix() for page in PAGES}
    assert {"README.md", "docs/rules.md", "docs/research/strong-bot.md"} <= names


def test_relative_links_reach_an_existing_file_and_heading() -> None:
    broken = []
    for page in PAGES:
        text = FENCE.sub("", page.read_text(encoding="utf-8"))
        for target in LINK.findall(text):
            if re.match(r"[a-z]+:", target):  # https:, mailto: ...
                continue
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            where = f"{page.relative_to(ROOT)}: {target}"
            if not dest.exists():
                broken.append(f"{where} (no such file)")
            elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
                broken.append(f"{where} (no such heading)")
    assert broken == []


def test_simulate_and_the_strength_diary_link_both_ways() -> None:
    simulate = (ROOT / "docs" / "simulate.md").read_text(encoding="utf-8")
    diary = (ROOT / "docs" / "research" / "strong-bot.md").read_text(encoding="utf-8")
    assert "](research/strong-bot.md" in simulate
    assert "](../simulate.md" in diary


#: how a citation of a document outside the repository looks (the team's design notes, the
#: shared folder beside the checkout): the idea belongs in the code's own docs instead
OUTSIDE = re.compile(r"\bDESIGN\b|DESIGN\.md|\.\./shared\b")


def test_nothing_cites_a_document_outside_the_repository() -> None:
    """Every citation in code, tests, tools and docs resolves inside the repository (issue 34
    item 5): a reader of a clone has nothing else."""
    here = Path(__file__).resolve()
    files = [
        path
        for folder in ("src", "tests", "tools", "benchmarks", "docs")
        for path in (ROOT / folder).rglob("*")
        if path.suffix in {".py", ".md", ".js", ".toml", ".css", ".html"} and path.resolve() != here
    ]
    cited = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in files
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert len(files) > 300 and not cited, cited
