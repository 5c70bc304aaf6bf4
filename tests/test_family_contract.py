"""The device protocol contract, held for every installed driver family alike: floord's
own (`cammegh_ss2`, `flf1`, `usb_shoe`) and any plugin installed beside it
(tests/test_plugins_system.py runs this file in a venv with the example plugin).

A family is whole (its driver package imports, its protocol is written down), its
simulators never import its drivers (nor the reverse: a decoding bug cannot hide in
both), each of its drivers turns any bytes at all into contract events without raising,
and the events of its golden frames carry the payloads docs/contract.md documents.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
from pathlib import Path

import pytest
from contract_doc import documented_payloads
from families_support import is_floords_own, profile_names, protocol_documents
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_device_catalogue import golden_of

import drivers
from floord.adapters.local import load_driver
from floord.contract import EVENT_TYPES, EventType
from floord.driver_families import installed_families
from floord.events import DeviceEvent, DeviceReply, Outgoing
from floord.profiles import load_profile

pytestmark = pytest.mark.unit

FAMILIES = sorted(installed_families())
PROFILES = profile_names()
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
RAW_LIMIT = 80


def _files(package: str) -> list[Path]:
    spec = importlib.util.find_spec(package)
    assert spec is not None and spec.submodule_search_locations, f"{package}: not a package"
    return sorted(p for where in spec.submodule_search_locations for p in Path(where).rglob("*.py"))


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def _under(name: str, package: str) -> bool:
    return name == package or name.startswith(f"{package}.")


@pytest.mark.parametrize("name", FAMILIES)
def test_each_family_is_whole(name: str) -> None:
    family = installed_families()[name]
    importlib.import_module(family.drivers)
    assert family.profiles is not None and family.profiles.is_dir(), family.profiles
    # Declared, its scenarios are installed (package data), or `floord sim` lists nothing.
    assert family.scenarios is None or family.scenarios.is_dir(), family.scenarios
    documents = protocol_documents(family)
    # floord's SS2 family reads the vendor's published guide, not floord's to ship.
    assert documents or (is_floords_own(family) and name == "cammegh_ss2"), family.origin
    for document in documents:
        assert document.is_file(), f"{family.origin}: no protocol document {document}"
    assert name in {n.split(".", 1)[0] for n in _driver_names()}, f"{name}: no profile"


def _driver_names() -> list[str]:
    return [drivers.RENAMED.get(p, p) for p in (load_profile(n).driver for n in PROFILES)]


@pytest.mark.parametrize("name", FAMILIES)
def test_a_familys_simulators_and_drivers_never_import_each_other(name: str) -> None:
    """Nor floord's own of the other side: a plugin's twin is no more a driver's client."""
    family = installed_families()[name]
    assert family.simulators is not None, f"{family.origin}: every family ships its twin"
    for package, forbidden in (
        (family.simulators, (family.drivers, "drivers")),
        (family.drivers, (family.simulators, "simulators")),
    ):
        for path in _files(package):
            imported = [m for m in _imports(path) if any(_under(m, f) for f in forbidden)]
            assert not imported, f"{path} imports {imported}"


def _check(outputs: list[object]) -> None:
    for out in outputs:
        if isinstance(out, DeviceReply | Outgoing):
            continue
        assert isinstance(out, DeviceEvent), out
        assert out.type in EVENT_TYPES, out
        if out.type == EventType.DEVICE_PROTOCOL_ERROR:
            raw = out.data["raw"]
            assert out.data["reason"] and isinstance(raw, str), out
            assert len(raw) <= RAW_LIMIT and raw.isprintable(), raw


@pytest.mark.parametrize("name", PROFILES)
def test_any_bytes_become_contract_events_never_an_exception(name: str) -> None:
    profile = load_profile(name)
    options, golden = golden_of(profile)

    @FUZZ
    @given(st.lists(st.binary(max_size=120), max_size=8), st.integers(0, len(golden)))
    def feed(chunks: list[bytes], at: int) -> None:
        driver = load_driver(profile, options)
        stream = [data for _, data, _ in golden]
        stream[at:at] = chunks  # garbage among valid frames
        for n, data in enumerate(stream):
            _check(list(driver.feed(data, n * 0.1)))

    feed()


@pytest.mark.parametrize("name", PROFILES)
def test_the_golden_events_carry_the_documented_payloads(name: str) -> None:
    profile = load_profile(name)
    options, golden = golden_of(profile)
    driver = load_driver(profile, options)
    documented = documented_payloads()
    for now, data, _ in golden:
        for out in driver.feed(data, now):
            if not isinstance(out, DeviceEvent):
                continue
            payload = documented[out.type]
            keys = set(out.data)
            assert keys <= payload.keys, (out.type, sorted(keys - payload.keys))
            assert payload.required <= keys, (out.type, sorted(payload.required - keys))
