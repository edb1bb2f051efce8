"""Every rule number cited in the repository resolves in docs/rules.md (issue 22 item 4).

Code comments, test names, docs, benchmarks and the browser client cite rules as ``R17`` or
``R52-R57``. The rule book is docs/rules.md; a citation of a number it lacks, or of a number it
lists as holding no rule, points nowhere, so these tests name the file and line of each.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RULES_MD = ROOT / "docs" / "rules.md"
RULE_COUNT = 57

# Where rules are cited: the package (its browser client included), tests, docs, benchmarks
# and examples, plus the top-level README and Makefile.
CITING_DIRS = ("src", "tests", "docs", "benchmarks", "examples")
CITING_FILES = ("README.md", "Makefile")
TEXT_SUFFIXES = {".py", ".md", ".js", ".html", ".css", ".json", ".toml", ".txt", ".mako", ".cfg"}
SKIP_DIRS = {"__pycache__", ".venv", "node_modules", ".hypothesis", ".pytest_cache"}

# R17, R52-R57, R52–R57, R5-26; not R2D2-like words (a letter or digit right before or after)
CITATION = re.compile(r"(?<![A-Za-z0-9_])R(\d{1,2})(?:\s?[-–]\s?R?(\d{1,2}))?(?![0-9A-Za-z])")
HEADING = re.compile(r"^#{2,4} R(\d+)\. \S")
ANCHOR = re.compile(r'<a id="r(\d+)"></a>')
UNUSED_LINE = re.compile(r"^(\d+(?:, \d+)*)\.$")
LINK = re.compile(r"rules\.md#([A-Za-z0-9_-]+)")


def _rules_text() -> str:
    return RULES_MD.read_text(encoding="utf-8")


def _headings(text: str) -> list[int]:
    return [int(m.group(1)) for line in text.splitlines() if (m := HEADING.match(line))]


def _unused(text: str) -> list[int]:
    """The numbers listed under "Numbers without a rule" (the section's one list line)."""
    section = text.split("## Numbers without a rule", 1)[1]
    lists = [m.group(1) for line in section.splitlines() if (m := UNUSED_LINE.match(line))]
    assert len(lists) == 1, "the section holds one line listing the free numbers"
    return [int(n) for n in lists[0].split(", ")]


def _citing_files() -> list[Path]:
    found = [ROOT / name for name in CITING_FILES if (ROOT / name).is_file()]
    for top in CITING_DIRS:
        for path in sorted((ROOT / top).rglob("*")):
            if SKIP_DIRS & set(path.relative_to(ROOT).parts) or not path.is_file():
                continue
            if path.suffix in TEXT_SUFFIXES and ".egg-info" not in str(path):
                found.append(path)
    return found


def _citations() -> list[tuple[str, int, int]]:
    """(file:line, first number, last number) of every citation outside docs/rules.md."""
    found = []
    for path in _citing_files():
        if path == RULES_MD:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            for match in CITATION.finditer(line):
                first = int(match.group(1))
                last = int(match.group(2)) if match.group(2) else first
                found.append((f"{path.relative_to(ROOT)}:{number}", first, last))
    return found


def test_rules_md_has_every_number_from_r1_to_r57_once() -> None:
    """A heading (and its anchor) per rule; the free numbers listed once; together 1..57."""
    text = _rules_text()
    headings = _headings(text)
    anchors = [int(n) for n in ANCHOR.findall(text)]
    unused = _unused(text)
    assert len(headings) == len(set(headings)), "a rule heading appears twice"
    assert sorted(anchors) == sorted(headings), "every rule heading has its anchor r<N>"
    assert not set(headings) & set(unused), "a number is both a rule and free"
    assert sorted(headings + unused) == list(range(1, RULE_COUNT + 1))


def test_rules_md_anchor_precedes_its_heading() -> None:
    """``docs/rules.md#r17`` lands on the heading of R17, not on the rule before it."""
    lines = _rules_text().splitlines()
    for index, line in enumerate(lines):
        if match := HEADING.match(line):
            assert lines[index - 1] == f'<a id="r{match.group(1)}"></a>', line


def test_every_cited_rule_number_is_a_rule_of_docs_rules_md() -> None:
    rules = set(_headings(_rules_text()))
    citations = _citations()
    assert len(citations) > 500, "the scan found the citations (the tree cites rules widely)"
    unresolved = [
        f"{where}: R{first}" + (f"-R{last}" if last != first else "")
        for where, first, last in citations
        if first not in rules or last not in rules or last < first
    ]
    assert unresolved == [], "rule citations that docs/rules.md lacks:\n" + "\n".join(unresolved)


def test_the_browser_client_is_scanned() -> None:
    """The client cites rules too (its comments); a scan that missed it would prove nothing."""
    static = ROOT / "src" / "duyun" / "server" / "static"
    scanned = {path for path in _citing_files() if static in path.parents}
    assert any(path.suffix == ".js" for path in scanned)


def test_links_into_docs_rules_md_resolve() -> None:
    """Links such as ``docs/rules.md#r17`` or a section's slug point at something that exists."""
    text = _rules_text()
    anchors = {f"r{n}" for n in ANCHOR.findall(text)}
    slugs = {
        re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
        for line in text.splitlines()
        if line.startswith("#")
    }
    broken = [f"docs/rules.md: #{target}" for target in re.findall(r"\]\(#([^)]+)\)", text)]
    broken = [link for link in broken if link.split("#")[1] not in anchors | slugs]
    for path in _citing_files():
        if path.suffix not in {".md", ".py", ".js", ".html"}:
            continue
        for target in LINK.findall(path.read_text(encoding="utf-8", errors="replace")):
            if target not in anchors and target not in slugs:
                broken.append(f"{path.relative_to(ROOT)}: rules.md#{target}")
    assert broken == []


def test_docs_point_to_docs_rules_md_not_outside_the_repository() -> None:
    """The rule book is in the repository; nothing refers to the rules page outside it."""
    # spelled in pieces so that this file does not match itself
    names = ("RULES" + ".md", ".." + "/shared")
    outside = []
    for path in _citing_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            if any(name in line for name in names):
                outside.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert outside == []
