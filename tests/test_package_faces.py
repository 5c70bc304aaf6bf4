"""Every package of floord is used through its face: the modules other packages import.

import-linter's `protected` contracts in pyproject.toml name, per package, the modules
that are its own (no module outside the package may import them); its face is what is
left. Like the layers contract, the lists are exhaustive: a new module that no other
package imports must be named as the package's own, or this test fails, so a module
joins a package's face by a decision, not by an import someone added. The demo
(`floord_demo`), the drivers and the simulators are packages beside floord: what they
import of floord is on a face too.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import grimp
import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[1]
FACE_CONTRACT = " is used through its face; the rest is its own"


def _protected() -> dict[str, set[str]]:
    """Each package's own modules, as its contract names them."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    found: dict[str, set[str]] = {}
    for contract in config["tool"]["importlinter"]["contracts"]:
        if contract["name"].endswith(FACE_CONTRACT):
            package = contract["allowed_importers"][0]
            assert contract["type"] == "protected"
            assert contract["allowed_importers"] == [package, f"{package}.**"]
            assert contract.get("as_packages") is False
            found[package] = set(contract["protected_modules"])
    return found


def _packages(graph: grimp.ImportGraph) -> list[str]:
    tops = (m for m in graph.modules if m.count(".") == 1 and m.startswith("floord."))
    return sorted(m for m in tops if graph.find_children(m))


def _inside(package: str, importer: str) -> bool:
    return importer == package or importer.startswith(package + ".")


def test_each_packages_own_modules_are_named_and_none_is_imported_from_outside() -> None:
    graph = grimp.build_graph("floord", "floord_demo", "drivers", "simulators")
    protected = _protected()
    for package in _packages(graph):
        own = protected.get(package, set())
        for module in sorted(graph.find_descendants(package)):
            importers = graph.find_modules_that_directly_import(module)
            outside = sorted(i for i in importers if not _inside(package, i))
            if module in own:
                assert not outside, f"{module} is {package}'s own, yet {outside} import it"
            else:
                assert outside, (
                    f"{module}: no other package imports it; name it among {package}'s own "
                    "modules in its face contract (pyproject.toml), or import it from outside"
                )
        assert own <= set(graph.find_descendants(package)), own - graph.find_descendants(package)
