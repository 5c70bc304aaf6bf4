"""docs/deployment.md cannot drift from the code it describes.

- Every line it quotes from the log or the command line (the "Logs" and "Troubleshooting"
  tables) is in floord's code, verbatim: each quoted piece (a `...` stands for what
  varies) is part of a string literal of `floord/` that is not a docstring, so an
  operator who greps the source for a line finds where it is made.
- Every `floord ...` command it shows, in a shell block or inline, parses with floord's
  own argument parser: no verb, sub-verb or flag it names is missing. (The shell blocks
  are also run, for every doc, by tests/test_docs_commands.py.)
- Its "Versions" table gives this version's journal schema as the journal writes it.
- Every reference to one of its sections, or docs/benchmarks.md's, from anywhere in the
  tree (`docs/deployment.md, "Logs"`) names a heading or a bold paragraph of that page.
"""

from __future__ import annotations

import ast
import fnmatch
import functools
import os
import re
import shlex
from pathlib import Path

import pytest

import floord
from floord.cli.main import _parser
from floord.journal.store import SCHEMA_VERSION

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "deployment.md"
TEXT = DOC.read_text(encoding="utf-8")
# A quoted piece shorter than this says too little to be looked for (a code such as
# `refused` is found in too many places to prove anything).
MIN_PIECE = 8
_CODE = re.compile(r"`([^`]+)`")
_ELLIPSIS = re.compile(r"\.\.\.|…")


def section(title: str) -> str:
    """The text of the `##` section `title`, up to the next `##` heading."""
    found = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", TEXT, re.S | re.M)
    assert found, f"docs/deployment.md has no section {title!r}"
    return found.group(1)


def table_column(text: str, column: int) -> list[str]:
    """The cells of `column` in the body rows of every table of `text`."""
    cells = []
    for line in text.splitlines():
        if not line.startswith("| ") or set(line) <= {"|", "-", " "}:
            continue
        row = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if len(row) > column:
            cells.append(row[column])
    return cells[1:] if cells else cells  # the header row


def quoted_lines() -> list[tuple[str, str]]:
    """(section, quoted text) for each line the Logs and Troubleshooting tables quote."""
    quoted = []
    for title, column in (("Logs", 0), ("Troubleshooting", 1)):
        for cell in table_column(section(title), column):
            quoted += [(title, q) for q in _CODE.findall(cell)]
    return quoted


def _literals(tree: ast.AST) -> list[str]:
    """Each string literal of a module (an f-string's literal parts each), docstrings and
    other bare string statements left out."""
    bare = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in bare
    ]


@functools.cache
def literals() -> list[str]:
    """Every string literal of floord/, docstrings left out: parsed once, on first use
    (not at collection, which every test worker does whichever tests it runs)."""
    return [
        text
        for path in sorted((ROOT / "floord").rglob("*.py"))
        for text in _literals(ast.parse(path.read_text(encoding="utf-8")))
    ]


QUOTED = quoted_lines()


def test_the_tables_quote_lines() -> None:
    sections = {title for title, _ in QUOTED}
    assert sections == {"Logs", "Troubleshooting"}
    texts = {text for _, text in QUOTED}
    for line in ("broker unreachable", "cannot open device", "journal disk full: table halted"):
        assert line in texts


@pytest.mark.parametrize(("where", "quoted"), QUOTED, ids=[q for _, q in QUOTED])
def test_a_quoted_line_is_in_the_code_verbatim(where: str, quoted: str) -> None:
    pieces = [p.strip() for p in _ELLIPSIS.split(quoted) if len(p.strip()) >= MIN_PIECE]
    assert pieces or len(quoted) < MIN_PIECE, quoted
    for piece in pieces:
        assert any(piece in literal for literal in literals()), (
            f"docs/deployment.md, {where!r}, quotes {quoted!r}: {piece!r} is in no string "
            "of floord/"
        )


def test_the_check_finds_a_line_the_code_does_not_have() -> None:
    assert not any("journal disk fulll" in literal for literal in literals())
    # A docstring is no log line.
    assert not any(literal.startswith("docs/deployment.md cannot drift") for literal in literals())


_BLOCK = re.compile(r"^```(?:sh|bash)\n(.*?)^```", re.S | re.M)
_FENCED = re.compile(r"^```.*?^```", re.S | re.M)


def _words(command: str) -> list[str] | None:
    """`floord ARGS...` as words, `sudo [-u USER]` dropped; None if not a floord command."""
    words = shlex.split(command, comments=True)
    if words[:1] == ["sudo"]:
        words = words[1:]
        if words[:1] == ["-u"]:
            words = words[2:]
    if words[:1] != ["floord"] or len(words) < 2 or not re.fullmatch(r"-?[a-z-]+", words[1]):
        return None  # `floord.service`, `floord run: cannot start:` (a line, not a command)
    return words


def doc_commands() -> list[tuple[str, str]]:
    """(kind, command) for every `floord` command of the page: each shell block's lines
    (`block`), and inline code that begins with `floord ` (`inline`; a synopsis's `[...]`
    kept as if given, a pipe's tail cut)."""
    found = set()
    for block in _BLOCK.finditer(TEXT):
        for line in re.sub(r"\\\n\s*", " ", block.group(1)).splitlines():
            for part in line.split("&&"):
                if (words := _words(part)) is not None:
                    found.add(("block", shlex.join(words)))
    lines = {text for _, text in QUOTED}
    for span in _CODE.findall(_FENCED.sub("", TEXT)):
        if not re.match(r"(sudo (-u \S+ )?)?floord ", span) or span in lines or ": " in span:
            continue  # not a command, or a line it writes (`floord starting`, `floord run: ...`)
        span = span.split(" | ")[0].replace("[", " ").replace("]", " ")
        words = _words(" ".join(w for w in span.split() if w != "..."))
        if words is not None:
            found.add(("inline", shlex.join(words)))
    return sorted(found)


COMMANDS = doc_commands()


def test_the_page_shows_commands() -> None:
    verbs = {shlex.split(c)[1] for _, c in COMMANDS}
    assert {"check", "run", "journal", "cmd", "status", "udev"} <= verbs, verbs
    assert any(c.startswith("floord journal copy --db") for k, c in COMMANDS if k == "block")
    for verb in ("backup --db", "restore "):
        assert any(c.startswith(f"floord journal {verb}") for k, c in COMMANDS if k == "block")


def _parse_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str | None:
    """floord's parser's error for `argv`, or None when it parses (or asks for help)."""
    try:
        _parser().parse_args(argv)
    except SystemExit as exc:
        return None if exc.code == 0 else capsys.readouterr().err.strip().splitlines()[-1]
    return None


def _completed(argv: list[str], error: str) -> list[str] | None:
    """`argv` with what `error` says is missing filled in, or None if it is not that."""
    if found := re.search(r"the following arguments are required: (.+)$", error):
        added = []
        for name in found.group(1).split(", "):
            added += [name.split("/")[0], "X"] if name.startswith("-") else ["X"]
        return argv + added
    if found := re.search(r"one of the arguments (\S+) .* is required", error):
        return [*argv, found.group(1).split("/")[0], "X"]
    if "expected one argument" in error:
        return [*argv, "X"]
    if found := re.search(r"invalid \w+ value: '([A-Z_]+)'", error):  # a synopsis's `S`
        return [("1" if w == found.group(1) else w) for w in argv]
    return None


@pytest.mark.parametrize(("kind", "command"), COMMANDS, ids=[c for _, c in COMMANDS])
def test_a_command_of_the_page_parses(
    kind: str, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = shlex.split(command)[1:]
    error = _parse_error(argv, capsys)
    if kind == "block":
        assert error is None, f"`{command}`: {error}"
        return
    # Inline text may name a command without what it requires (`floord run`, `floord
    # report wheel --png`): that is filled in, and everything it does name must parse.
    for _ in range(8):
        if error is None:
            return
        completed = _completed(argv, error)
        if completed is None:
            break
        argv, error = completed, _parse_error(completed, capsys)
    # Only a verb group named without its verb (`floord journal`) stops here: its verb
    # filled in is refused, and what the text named was all found.
    assert error is not None and "invalid choice: 'X'" in error, f"`{command}`: {error}"


def test_the_versions_table_gives_this_versions_journal_schema() -> None:
    rows = {}
    for line in section("Versions").splitlines():
        found = re.match(r"\| (\d+\.\d+\.\d+\S*) \| (\d+) \|", line)
        if found:
            rows[found.group(1)] = int(found.group(2))
    assert rows.get(floord.__version__) == SCHEMA_VERSION, rows
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    for version in rows:
        assert version == floord.__version__ or f"## [{version}]" in changelog, version


_REFERENCE = re.compile(r"(deployment|benchmarks)\.md`?,\s+\"([^\"]+)\"")
_SOURCES = ("*.md", "*.py", "*.sh", "*.service", "*.conf", "*.rules", "Makefile")
_SKIP = {".venv", ".git", "build", "dist", "node_modules"}


def _sources() -> list[Path]:
    """The tree's files of `_SOURCES`' kinds, kind by kind, each kind's in order. The walk
    never enters a folder of `_SKIP`: a venv alone holds thousands of files, and walking
    it took most of this module's second of collection in every worker."""
    kinds: list[list[Path]] = [[] for _ in _SOURCES]
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in _SKIP]
        for name in files:
            for kind, pattern in enumerate(_SOURCES):
                if fnmatch.fnmatchcase(name, pattern):
                    kinds[kind].append(Path(folder) / name)
    return [path for paths in kinds for path in sorted(paths)]


def section_references() -> list[tuple[str, str, str]]:
    """(file, page, title) for every reference to a section of those pages in the tree."""
    found = []
    for path in _sources():
        text = re.sub(r"\s*\n\s*(#\s*)?", " ", path.read_text(encoding="utf-8"))
        for page, title in _REFERENCE.findall(text):
            found.append((str(path.relative_to(ROOT)), page, title))
    return found


def _anchors(page: str) -> list[str]:
    """What a reference may name on `page`: its headings and its bold paragraph leads."""
    text = (ROOT / "docs" / f"{page}.md").read_text(encoding="utf-8")
    bold = [" ".join(b.split()) for b in re.findall(r"\*\*([^*]+)\*\*", text)]
    return re.findall(r"^#+ (.+)$", text, re.M) + bold


REFERENCES = section_references()


def test_the_tree_refers_to_sections() -> None:
    assert ("deployment", "Logs") in {(p, t) for _, p, t in REFERENCES}


@pytest.mark.parametrize(("where", "page", "title"), REFERENCES)
def test_a_section_reference_names_a_section(where: str, page: str, title: str) -> None:
    anchors = _anchors(page)
    assert any(a.startswith(title) for a in anchors), (
        f'{where} refers to docs/{page}.md, "{title}": no such heading or bold paragraph'
    )
