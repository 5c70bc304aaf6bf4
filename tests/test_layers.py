"""The layers of DEVELOPERS.md, enforced: import-linter's contracts, and an allow-list.

import-linter forbids named modules; the allow-list below also catches a driver or a
simulator importing a floord module that does not exist yet when the contract was
written.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grimp
import pytest

pytestmark = pytest.mark.system

ROOT = Path(__file__).resolve().parents[1]
# The shared types, and the bottom layer's readers of outside YAML and its error lines
# (they import nothing of floord); the installed driver families (imports nothing of
# floord) and where profiles come from (the families and the profiles alone): a
# simulator finds its profile and its family's scenarios as `floord run` finds them.
SHARED_TYPES = {
    "floord",
    "floord.contract",
    "floord.events",
    "floord.profiles",
    "floord.yaml_files",
    "floord.problem_lines",
    "floord.driver_families",
    "floord.profile_sources",
}


def test_import_linter_contracts_are_kept() -> None:
    lint = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run([str(lint)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "broken" in done.stdout and "0 broken" in done.stdout


def _floord_imports_of(package: str) -> set[tuple[str, str]]:
    graph = grimp.build_graph(package, "floord")
    found = set()
    for module in graph.find_children(package) | {package}:
        for imported in graph.find_modules_directly_imported_by(module):
            if imported == "floord" or imported.startswith("floord."):
                found.add((module, imported))
    return found


def test_drivers_and_simulators_import_only_shared_types() -> None:
    for package in ("drivers", "simulators"):
        wrong = {(m, i) for m, i in _floord_imports_of(package) if i not in SHARED_TYPES}
        assert not wrong, f"{package} may import only {sorted(SHARED_TYPES)}: {sorted(wrong)}"


def test_simulators_never_import_drivers() -> None:
    graph = grimp.build_graph("simulators", "drivers")
    assert not graph.chain_exists(importer="simulators", imported="drivers", as_packages=True)


def test_floord_never_imports_the_rigs_packages() -> None:
    """The demo and the simulators ship in `floord-rig`, not on a table box: floord reaches
    them by module name once found installed, never by an import, direct or through
    another module."""
    graph = grimp.build_graph("floord", "floord_demo", "simulators")
    for rig in ("simulators", "floord_demo"):
        assert not graph.chain_exists(importer="floord", imported=rig, as_packages=True), rig
