"""Reading a YAML file floord takes from outside: a config, a device profile, a scenario.

One reader so that every such file fails the same way, in one line naming the file and,
for a syntax error, the line and column as YAML counts them (from 1):
`FILE: line L, column C: valid YAML expected, found ...`. PyYAML's own text names the
string it parsed (`<unicode string>`), not the file, and spreads over five lines.

The reader also refuses a key given twice in one mapping, which YAML's safe loader
silently resolves to the last one: an operator's second `role:` line, or a second
`wheel:` under a table's rules, must be an error to read, not a choice made quietly.

The files floord ships (its device profiles) are parsed by libyaml, PyYAML's C parser,
where PyYAML has it: they are read at every start and by most tests, and the pure-Python
parser is about eleven times slower. The two build a document with the same safe
constructor and resolver, but their parsers do not take quite the same texts (libyaml
takes a tab after `key:`, a `?` inside a flow scalar, a bare `!` as an empty text). So
every other file (a config, a site's profile, a scenario) is read by the pure-Python
parser alone, and the tests read each shipped file with both and find the same
document. A shipped file libyaml refuses is read again by the pure-Python
parser, whose error the message is made from.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.nodes import MappingNode, Node

# PyYAML problems that an engineer meets by mistyping a config, and what usually causes them.
_HINTS = (
    ("that cannot start any token", "a tab: YAML indents with spaces only"),
    ("<block end>", "check the indentation here, or a quote left open above"),
    ("mapping values are not allowed here", "check the indentation, or quote a value holding ': '"),
    ("unexpected end of stream", "a quote or bracket opened and never closed"),
)


class YamlFileError(ValueError):
    """A file that is not readable YAML; the message is one line naming the file."""


class _DuplicateKey(ConstructorError):
    def __init__(self, key: object, first: Node, again: Node) -> None:
        super().__init__(
            "while constructing a mapping", first.start_mark, "duplicate key", again.start_mark
        )
        self.key = key


class _UniqueKeys(SafeConstructor):
    """The safe constructor, refusing a key that a mapping already holds."""

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, Node] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue  # `<<: *base`: the keys it merges may be overridden here
            key = self.construct_object(key_node, deep=True)
            try:
                first = seen.get(key)
            except TypeError:  # an unhashable key: the base class says so in its words
                break
            if first is not None:
                raise _DuplicateKey(key, first, key_node)
            seen[key] = key_node
        return super().construct_mapping(node, deep=deep)


class _UniqueKeyLoader(_UniqueKeys, yaml.SafeLoader):
    """The pure-Python safe loader, refusing a key given twice: the reference for errors."""


# libyaml's safe loader, refusing a key given twice; None where PyYAML was built without
# libyaml (it has no `CSafeLoader` then): the pure-Python loader reads every file.
_FAST_LOADER: type[yaml.CSafeLoader] | None = None
if yaml.__with_libyaml__:

    class _FastUniqueKeyLoader(_UniqueKeys, yaml.CSafeLoader):
        """libyaml's safe loader, refusing a key given twice."""

    _FAST_LOADER = _FastUniqueKeyLoader


def _document(text: str, shipped: bool) -> Any:
    """The text's YAML document: by libyaml for a shipped file where PyYAML has it; an
    error as the pure-Python parser gives it."""
    if shipped and _FAST_LOADER is not None:
        try:
            return yaml.load(text, Loader=_FAST_LOADER)
        except (yaml.YAMLError, RecursionError):
            pass  # read again below, for the error in the reference parser's words
    return yaml.load(text, Loader=_UniqueKeyLoader)  # a SafeLoader: builds no objects


def read_yaml(path: Path, *, shipped: bool = False) -> Any:
    """The file's YAML document (None for an empty file), or `YamlFileError`. `shipped`:
    a file floord ships, which the tests read with both parsers (see above)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise YamlFileError(
            f"{path}: (file): a readable YAML file expected, found: {exc.strerror or exc}"
        ) from exc
    except UnicodeDecodeError as exc:
        raise YamlFileError(
            f"{path}: (file): UTF-8 text expected, found byte {exc.object[exc.start]:#04x} "
            f"at offset {exc.start}"
        ) from exc
    try:
        return _document(text, shipped)
    except yaml.YAMLError as exc:
        raise YamlFileError(yaml_problem(path, text, exc)) from exc
    except RecursionError as exc:
        raise YamlFileError(
            f"{path}: (file): YAML of a usable depth expected, found collections nested "
            f"too deep to read"
        ) from exc


def top_found(document: Any) -> str:
    """What a file holds where a mapping was expected: an empty file, a list, a text..."""
    if document is None:
        return "an empty file"
    names = {list: "a list", str: "a single text", int: "a number", float: "a number"}
    return names.get(type(document), type(document).__name__)


def _at(mark: Any) -> str:
    return f"line {mark.line + 1}, column {mark.column + 1}"


def yaml_problem(path: Path, text: str, exc: yaml.YAMLError) -> str:
    """One line for a YAML error: where it is, what YAML expected, what it found."""
    if isinstance(exc, _DuplicateKey) and exc.problem_mark and exc.context_mark:
        return (
            f"{path}: {_at(exc.problem_mark)}: each key once in a mapping expected, found "
            f"{exc.key!r} again (first at {_at(exc.context_mark)})"
        )
    if isinstance(exc, yaml.reader.ReaderError):
        # A character YAML does not read: its position is an offset in the text.
        line = text.count("\n", 0, exc.position) + 1
        column = exc.position - (text.rfind("\n", 0, exc.position) + 1) + 1
        char = exc.character
        found = f"byte {char!r}" if isinstance(char, bytes) else f"character U+{char:04X}"
        where = f"line {line}, column {column}"
        return f"{path}: {where}: YAML text expected, found {found} ({exc.reason})"
    if not isinstance(exc, yaml.MarkedYAMLError) or exc.problem_mark is None:
        return f"{path}: (file): valid YAML expected, found: {' '.join(str(exc).split())}"
    problem = exc.problem or ""
    found = problem if problem.startswith("found ") else f"found a syntax error: {problem}"
    notes = []
    if exc.context and exc.context_mark is not None:
        notes.append(f"{exc.context} at {_at(exc.context_mark)}")
    notes += [hint for words, hint in _HINTS if words in problem]
    more = f" ({'; '.join(notes)})" if notes else ""
    return f"{path}: {_at(exc.problem_mark)}: valid YAML expected, {found.rstrip(': ')}{more}"
