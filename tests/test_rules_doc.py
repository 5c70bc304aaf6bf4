"""`docs/rules.md` lists every rule floord enforces with its test: keep it true.

Every test it names must exist, and every paragraph the engine cites must have a row.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULES = (ROOT / "docs" / "rules.md").read_text()


def test_every_test_the_rules_name_exists() -> None:
    named = set(re.findall(r"`([a-z0-9_]+\.py)::([A-Za-z0-9_]+)`", RULES))
    assert len(named) > 100, "the rules page names its tests as `file.py::test_name`"
    missing = []
    for file, name in sorted(named):
        path = ROOT / "tests" / file
        if not path.is_file() or not re.search(rf"^def {name}\(", path.read_text(), re.M):
            missing.append(f"{file}::{name}")
    assert not missing, f"docs/rules.md names tests that do not exist: {missing}"


def _paragraphs_named(rules: str) -> dict[str, set[str]]:
    """Section -> the first-level paragraphs the page names for it, reading the page's
    compact forms: `§ 549.10(a), (b), (c)`, `§ 571.11(a)-(f)`, `§§ 541.10(c), 543.10(c)`."""
    named: dict[str, set[str]] = {}
    for match in re.finditer(r"(\d{3}\.\d+)((?:\s*(?:\([a-z0-9]+\)|,|-|and|or)\s*)*)", rules):
        section, tail = match.group(1), match.group(2)
        letters = named.setdefault(section, set())
        # Only the first-level paragraph of each item: "(a)(1)" names (a).
        items = re.findall(r"(?:^|[,\s-]|and|or)\s*\(([a-z])\)", tail)
        letters.update(items)
        for low, high in re.findall(r"\(([a-z])\)\s*-\s*\(([a-z])\)", tail):
            letters.update(chr(c) for c in range(ord(low), ord(high) + 1))
    return named


def test_every_paragraph_the_engine_cites_has_a_row() -> None:
    # `cite("531.7(a)")` in code, and the sections the card games' rule tables hold.
    cited: set[str] = set()
    for path in (ROOT / "floord").rglob("*.py"):
        cited |= set(re.findall(r'"(5\d\d\.\d+(?:\([a-z0-9]+\))*)"', path.read_text()))
    assert len(cited) > 100
    # The Baccarat family's rows write "§ 54x.11" for §§ 541.11, 543.11 and 545.11.
    text = RULES.replace("\\", "")
    text = "\n".join(
        " ".join(line.replace("54x.", f"{chapter}.") for chapter in ("541", "543", "545"))
        if "54x." in line
        else line
        for line in text.splitlines()
    )
    named = _paragraphs_named(text)
    missing = []
    for citation in sorted(cited):
        section, _, rest = citation.partition("(")
        paragraph = rest[:1] if rest else None
        if section not in named or (paragraph and paragraph not in named[section]):
            missing.append(citation)
    assert not missing, f"paragraphs cited in code with no row in docs/rules.md: {missing}"
