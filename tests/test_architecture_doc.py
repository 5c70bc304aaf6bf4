"""docs/architecture.md names only what exists, and places every package of floord.

The tree and the layer table are the map a newcomer reads first; a renamed or removed
module must not leave them pointing at nothing, and a new package must be placed.
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
TOPS = (
    "floord/",
    "floord_demo/",
    "drivers/",
    "simulators/",
    "device_profiles/",
    "docs/",
    "tests/",
    "systemd/",
)


def _defines(path: Path, name: str) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        defines = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        if defines and node.name == name:
            return True
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return True
    return False


def test_every_path_in_backquotes_exists() -> None:
    missing = []
    for token in re.findall(r"`([^`\s]+)`", DOC):
        if not token.startswith(TOPS) or "<" in token:
            continue
        path, _, name = token.partition(":")
        if not (ROOT / path).exists() or (name and not _defines(ROOT / path, name)):
            missing.append(token)
    assert not missing, f"docs/architecture.md names what does not exist: {missing}"


def _tree_block() -> list[str]:
    section = DOC.split("## The tree", 1)[1]
    return section.split("```", 2)[1].strip("\n").splitlines()


def test_every_folder_and_file_of_the_tree_exists() -> None:
    missing = []
    parents: list[tuple[int, str]] = []
    for line in _tree_block():
        indent = len(line) - len(line.lstrip(" "))
        names, _, comment = line.strip().partition("  ")
        while parents and parents[-1][0] >= indent:
            parents.pop()
        base = parents[-1][1] if parents else ""
        folders = [n for n in names.split() if n.endswith("/")]
        for folder in folders:
            if not (ROOT / base / folder).is_dir():
                missing.append(base + folder)
        if len(folders) == 1:
            base = base + folders[0]
            parents.append((indent, base))
        for file in re.findall(r"\b(\w+\.py)\b", comment):
            if not (ROOT / base / file).is_file():
                missing.append(base + file)
    assert not missing, f"the tree in docs/architecture.md names what does not exist: {missing}"


def test_the_layer_table_places_every_layer_of_floord() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    (floord,) = [c for c in contracts if c["type"] == "layers" and c["containers"] == ["floord"]]
    table = DOC.split("## Layers and the only allowed imports", 1)[1].split("\n## ", 1)[0]
    unplaced = []
    for layer in floord["layers"]:
        for name in (n.strip() for n in layer.split("|")):
            path = f"floord/{name}/" if (ROOT / "floord" / name).is_dir() else f"floord/{name}.py"
            if f"`{path}`" not in table:
                unplaced.append(path)
    assert not unplaced, f"layers the table of docs/architecture.md does not show: {unplaced}"
