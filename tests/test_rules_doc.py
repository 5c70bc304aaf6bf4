"""`docs/rules.md` lists every rule floord enforces with its test: keep it true.

Every test it names must exist, every paragraph the engine cites must have a row, every
row cites sections and paragraphs the seeds hold (or says the seeds only refer to them),
and no row that enforces a rule lacks a test.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from floord.engine.carnival.rules import CHAPTERS, CITES, rule_of

pytestmark = pytest.mark.unit

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
    # The carnival games' citations are built from their chapter and a paragraph key.
    cited |= {
        citation.removeprefix("58 Pa. Code § ")
        for game in CHAPTERS
        for key in CITES
        if (citation := rule_of(game, key)) is not None
    }
    # The rows write "§ 54x.11" for §§ 541.11, 543.11 and 545.11, "§ 55x.5(f)" for the six
    # carnival chapters' (f).
    text = "\n".join(
        " ".join(expand_shorthands(line)) for line in RULES.replace("\\", "").splitlines()
    )
    named = _paragraphs_named(text)
    missing = []
    for citation in sorted(cited):
        section, _, rest = citation.partition("(")
        paragraph = rest[:1] if rest else None
        if section not in named or (paragraph and paragraph not in named[section]):
            missing.append(citation)
    assert not missing, f"paragraphs cited in code with no row in docs/rules.md: {missing}"


# ----- every row's citations are paragraphs the seeds hold -------------------------------

# The seeds beside the checkout (`../shared/seeds`), or where FLOORD_SEEDS says.
SEEDS = Path(os.environ.get("FLOORD_SEEDS") or ROOT.parent / "shared" / "seeds")
# The doc's shorthands: `§ 54x.4(a)` is chapters 541, 543 and 545's; `§ 55x.5(f)` the
# carnival games' six chapters.
SHORTHANDS = {
    "54x.": ("541", "543", "545"),
    "55x.": ("555", "557", "559", "561", "563", "565"),
}
# A citation the seeds refer to without containing it is written so in the row:
# `§ 541.11 (referred to, not in the seeds)`.
REFERRED = "(referred to, not in the seeds)"
# A section's heading (`§ 531.5. Payout odds.`, after a table of contents too); a
# paragraph's start (`(b) When Roulette ...`, after a payout table too). The text is the
# Bulletin's, so headings and paragraphs do not always begin a line.
HEADING = re.compile(r"§\s*(\d{3}\.\d+)\.\s+[A-Z]")
ELLIPSIS = re.compile(r"\*\s+\*\s+\*")
PARAGRAPH = re.compile(r"(?:^|\s)\(([a-z])\)\s+(?=[A-Z'\"‘“§(0-9])", re.M)


def seed_sections() -> dict[str, set[str]]:
    """Section -> its first-level paragraph letters, over every seed file. A letter counts
    only in order (a, b, c, ...), so a subparagraph (i) of (d) is not taken for (i); an
    amendment's ellipsis (`*  *  *`) may skip letters."""
    found: dict[str, set[str]] = {}
    for path in sorted(SEEDS.glob("*.txt")):
        text = path.read_text()
        heads = list(HEADING.finditer(text))
        for head, following in zip(heads, [*heads[1:], None], strict=True):
            body = text[head.end() : following.start() if following else len(text)]
            letters = found.setdefault(head.group(1), set())
            expected, skipped = "a", False
            for m in re.finditer(rf"{ELLIPSIS.pattern}|{PARAGRAPH.pattern}", body, re.M):
                letter = m.group(1)
                if letter is None:
                    skipped = True
                elif letter == expected or letter in letters or (skipped and letter > expected):
                    letters.add(letter)
                    expected, skipped = chr(ord(letter) + 1), False
    return found


def expand_shorthands(cell: str) -> list[str]:
    """The cell once per chapter a shorthand stands for (or as it is, without one)."""
    for short, chapters in SHORTHANDS.items():
        if short in cell:
            return [
                variant
                for chapter in chapters
                for variant in expand_shorthands(cell.replace(short, f"{chapter}."))
            ]
    return [cell]


CITATION = re.compile(
    r"(\d{3})\.(\d+)(?:\s*[-–—]\s*(?:\1\.)?(\d+))?((?:\s*(?:\([a-z0-9]+\)|,|-|–|and|or)\s*)*)"
)


def cited_paragraphs(cell: str) -> set[tuple[str, str | None]]:
    """(section, first-level letter or None) for every citation in a row's citation cell,
    reading `§ 549.10(a), (b)`, `§ 571.11(a)-(f)`, `§ 551.9-551.11` and the shorthands."""
    out: set[tuple[str, str | None]] = set()
    for text in expand_shorthands(cell.replace("\\", "")):
        for m in CITATION.finditer(text):
            chapter, low, high, tail = m.group(1), int(m.group(2)), m.group(3), m.group(4)
            sections = [f"{chapter}.{n}" for n in range(low, int(high or low) + 1)]
            letters: set[str] = set(re.findall(r"(?:^|[,\s-]|and|or)\s*\(([a-z])\)", tail))
            for a, b in re.findall(r"\(([a-z])\)\s*[-–—]\s*\(([a-z])\)", tail):
                letters.update(chr(c) for c in range(ord(a), ord(b) + 1))
            for section in sections:
                out |= {(section, letter) for letter in letters} or {(section, None)}
    return out


def regulation_rows() -> list[list[str]]:
    """The cells of every row of a table whose first column is `Citation`."""
    rows: list[list[str]] = []
    in_table = False
    for line in RULES.splitlines():
        if not line.startswith("|"):
            in_table = False
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0] == "Citation":
            in_table = True
        elif in_table and not set(cells[0]) <= set("-: "):
            rows.append(cells)
    return rows


def test_the_seed_reading_finds_sections_and_their_paragraphs() -> None:
    assert len(list(SEEDS.glob("*.txt"))) == 3, f"the three rulemakings in {SEEDS}"
    seeds = seed_sections()
    assert seeds["531.7"] == {"a", "b", "c", "d"}
    assert seeds["549.16"] == set("abcdefghijk")  # (i) and (j) after (h): in order
    assert seeds["555.4"] == {"a", "b", "c", "d", "e"}
    assert seeds["561.5"] == set("abcdefg")
    assert "i" not in seeds["555.5"]  # § 555.5(d)(1)(i) is no first-level paragraph
    assert cited_paragraphs("§ 55x.5(f), § 561.5(g)") >= {("555.5", "f"), ("565.5", "f")}
    assert cited_paragraphs("§ 571.11(a)-(c)") == {("571.11", x) for x in "abc"}
    assert cited_paragraphs("§ 551.9-551.11") == {(f"551.{n}", None) for n in (9, 10, 11)}
    assert seeds["541.13"] == {"d"}  # amended after an ellipsis
    assert referred_sections(f"§ 54x.11 {REFERRED}, § 54x.10(c)") == {"541.11", "543.11", "545.11"}
    assert cited_paragraphs("§ 549.16(e), (g), (i) (the record)") == {("549.16", x) for x in "egi"}


def referred_sections(cell: str) -> set[str]:
    """The sections a cell says the seeds refer to without containing: each citation
    written just before the `REFERRED` note."""
    pieces = cell.split(REFERRED)
    return {
        section
        for piece in pieces[:-1]
        for section, _ in cited_paragraphs("§" + piece.rsplit("§", 1)[-1])
    }


def test_every_row_cites_paragraphs_the_seeds_hold() -> None:
    seeds = seed_sections()
    seed_text = "\n".join(p.read_text() for p in SEEDS.glob("*.txt"))
    rows = regulation_rows()
    assert len(rows) > 100
    wrong = []
    for cells in rows:
        cell = cells[0]
        referred = referred_sections(cell)
        for section, letter in sorted(cited_paragraphs(cell), key=str):
            if section in referred:
                # Said to be referred to, not contained: the seeds must say so too.
                if section in seeds or not re.search(rf"\b{re.escape(section)}\b", seed_text):
                    wrong.append(f"{cell}: {section} is not just referred to in the seeds")
            elif section not in seeds:
                wrong.append(f"{cell}: no § {section} in the seeds")
            elif letter is not None and letter not in seeds[section]:
                wrong.append(f"{cell}: § {section} has no ({letter}) in the seeds")
    assert not wrong, "docs/rules.md cites what the seeds do not hold:\n" + "\n".join(wrong)


def test_no_enforced_row_lacks_a_test() -> None:
    """A row whose Test is "—" must say it is not enforced, or only recorded."""
    lacking = [
        cells[0]
        for cells in regulation_rows()
        if cells[-1] in ("—", "-", "")
        and not re.match(r"`?(not enforced|recorded)", cells[2], re.I)
    ]
    assert not lacking, f"rows that enforce a rule but name no test: {lacking}"
