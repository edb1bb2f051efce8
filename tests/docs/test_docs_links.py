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
