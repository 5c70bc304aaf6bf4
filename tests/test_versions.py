"""One version, from one place: `floord/__init__.py`.

`floord --version` prints it (tests/test_installed.py checks the installed command), every
table's `daemon.started` records it, the .deb's `Version:` is read from the package it
packs, and CHANGELOG.md's sections agree with it: released versions newest first, and
`__version__` either the top released one or, while a release is being made (an
"Unreleased" section on top), the next one.
"""

from __future__ import annotations

import itertools
import json
import re
import shutil
import sqlite3
import subprocess
import sys
import tomllib
import zipfile
from datetime import date
from pathlib import Path

import pytest
import yaml

import floord
from floord.config.load import load_config
from floord.processes.daemon import Daemon

pytestmark = pytest.mark.system

ROOT = Path(__file__).resolve().parent.parent
VERSION_PY = ROOT / "scripts" / "deb" / "version.py"
_HEADING = re.compile(r"^## (.*)$", re.M)
_RELEASED = re.compile(r"\[(\d+)\.(\d+)\.(\d+)\] - (\d{4}-\d{2}-\d{2})")


def _release(version: str) -> tuple[int, ...]:
    found = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", version)
    assert found, f"{version!r}: a release is MAJOR.MINOR.PATCH"
    return tuple(int(n) for n in found.groups())


def changelog_sections() -> list[str]:
    return _HEADING.findall((ROOT / "CHANGELOG.md").read_text(encoding="utf-8"))


def test_the_changelog_has_released_versions_newest_first() -> None:
    sections = changelog_sections()
    unreleased = [s for s in sections if s == "[Unreleased]"]
    assert unreleased == [] or sections[0] == "[Unreleased]", sections
    released = []
    for heading in sections[len(unreleased) :]:
        found = _RELEASED.fullmatch(heading)
        assert found, f"CHANGELOG.md: `## {heading}` is not `## [X.Y.Z] - YYYY-MM-DD`"
        released.append((tuple(int(n) for n in found.groups()[:3]), date.fromisoformat(found[4])))
    assert released, "CHANGELOG.md has no released version"
    versions = [v for v, _ in released]
    assert versions == sorted(set(versions), reverse=True), "versions not newest first"
    days = [d for _, d in released]
    assert days == sorted(days, reverse=True), "release dates not newest first"
    top = versions[0]
    if unreleased:
        assert _release(floord.__version__) > top, (
            f"floord/__init__.py says {floord.__version__}, already released: "
            "a release in the making carries the next number"
        )
    else:
        assert _release(floord.__version__) == top, (
            f"floord/__init__.py says {floord.__version__}; CHANGELOG.md's latest is {top}"
        )


def test_the_wheel_takes_its_version_from_the_package() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "floord.__version__"}


def test_daemon_started_records_the_package_version(tmp_path: Path) -> None:
    body = yaml.safe_load((ROOT / "examples" / "box.yaml").read_text())
    body["journal"] = str(tmp_path / "journal.db")
    for op in body["operators"]:
        op["key_file"] = str(ROOT / "examples" / op["key_file"])
    config = tmp_path / "floord.yaml"
    config.write_text(yaml.safe_dump(body))
    daemon = Daemon(load_config(config))
    daemon.restore()
    daemon.journal.close()
    db = sqlite3.connect(tmp_path / "journal.db")
    try:
        rows = db.execute("SELECT stream, body FROM events ORDER BY stream, seq").fetchall()
    finally:
        db.close()
    started = {
        s: json.loads(b)["data"] for s, b in rows if json.loads(b)["type"] == "daemon.started"
    }
    assert set(started) == {t["id"] for t in body["tables"]}
    assert {d["version"] for d in started.values()} == {floord.__version__}


def _version_py(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(VERSION_PY), *args], capture_output=True, text=True, timeout=30
    )


def test_the_deb_script_reads_the_version_from_the_package_it_packs() -> None:
    script = (ROOT / "scripts" / "build-deb.sh").read_text(encoding="utf-8")
    # Set once, by the reader of the wheel's own floord/__init__.py; never typed in.
    assigned = re.findall(r"^\s*VERSION=(.*)$", script, re.M)
    assert len(assigned) == 1, assigned
    assert re.match(r'\$\("\$PYBIN" "\$SRC/scripts/deb/version\.py" "\$WHEEL"\)', assigned[0])
    assert re.search(r"^Version: \$VERSION$", script, re.M)


def test_the_version_is_read_from_a_wheel_and_from_the_tree(tmp_path: Path) -> None:
    # A wheel holds floord/__init__.py as packed: its version is the one read.
    wheel = tmp_path / "floord-9.9.9-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as packed:
        packed.writestr("floord/__init__.py", (ROOT / "floord" / "__init__.py").read_text())
    assert _version_py(str(wheel)).stdout.strip() == floord.__version__  # not the file name
    assert _version_py(str(ROOT)).stdout.strip() == floord.__version__
    other = tmp_path / "other.whl"
    with zipfile.ZipFile(other, "w") as packed:
        packed.writestr("floord/__init__.py", '"""x"""\n\n__version__ = "1.2.3rc4"\n')
    assert _version_py(str(other)).stdout.strip() == "1.2.3~rc4"
    with zipfile.ZipFile(tmp_path / "none.whl", "w") as packed:
        packed.writestr("floord/__init__.py", '"""no version"""\n')
    done = _version_py(str(tmp_path / "none.whl"))
    assert done.returncode == 1 and "no `__version__" in done.stderr and not done.stdout


@pytest.mark.parametrize(
    ("pep440", "debian"),
    [
        ("0.2.0", "0.2.0"),
        ("0.3.0rc1", "0.3.0~rc1"),
        ("0.3.0a2", "0.3.0~a2"),
        ("0.3.0.dev4", "0.3.0~dev4"),
        ("0.3.0rc1.dev2", "0.3.0~rc1~dev2"),
        ("0.3.0.post1", "0.3.0.post1"),
        ("1!2.0", "1:2.0"),
        ("0.3.0+box7", "0.3.0+box7"),
    ],
)
def test_a_pep440_version_in_debian_form(pep440: str, debian: str) -> None:
    sys.path.insert(0, str(VERSION_PY.parent))
    try:
        from version import debian_version  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(VERSION_PY.parent))
    assert debian_version(pep440) == debian


@pytest.mark.skipif(shutil.which("dpkg") is None, reason="no dpkg: not a Debian machine")
def test_dpkg_orders_the_debian_forms_as_pip_orders_the_versions() -> None:
    # Each before the next, by pip's (PEP 440) order.
    ordered = ["0.3.0~dev4", "0.3.0~rc1~dev2", "0.3.0~rc1", "0.3.0", "0.3.0.post1", "0.3.1"]
    for older, newer in itertools.pairwise(ordered):
        done = subprocess.run(["dpkg", "--compare-versions", older, "lt", newer], timeout=10)
        assert done.returncode == 0, f"dpkg sorts {older} after {newer}"
