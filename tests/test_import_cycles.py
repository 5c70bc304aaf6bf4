"""No import cycles among product modules (floord, drivers, simulators).

A cycle hides which module depends on which, so the layers cannot be read off the tree;
the import-linter contracts see packages, this test sees every module, type-checking
imports included.
"""

from __future__ import annotations

import grimp
import pytest

pytestmark = pytest.mark.unit

PACKAGES = ("floord", "drivers", "simulators")


def _cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in graph.find_modules_directly_imported_by(module):
            if imported.split(".")[0] not in PACKAGES:
                continue
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph.modules):
        if module.split(".")[0] in PACKAGES and module not in index:
            visit(module)
    return found


def test_no_import_cycle_among_product_modules() -> None:
    graph = grimp.build_graph(*PACKAGES)
    cycles = _cycles(graph)
    assert not cycles, f"modules that import each other in a loop: {cycles}"


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = grimp.ImportGraph()
    for module in ("floord.a", "floord.b", "floord.c"):
        graph.add_module(module)
    graph.add_import(importer="floord.a", imported="floord.b")
    graph.add_import(importer="floord.b", imported="floord.c")
    graph.add_import(importer="floord.c", imported="floord.a")
    assert _cycles(graph) == [["floord.a", "floord.b", "floord.c"]]
