"""One version, from one place: `floord/__init__.py`.

`floord --version` prints it (tests/test_installed.py checks the installed command), every
table's `daemon.started` records it, the .deb's `Version:` is read from the package it
packs, and CHANGELOG.md's sections agree with it: released versions newest first, and
`__version__` either the top released one or, while a release is being made (an
"Unreleased" section on top), the next one.
"""

from __future__ import annotations

import json
import re
import sqlite3
import sys
import tomllib
from datetime import date
from pathlib import Path

import pytest
import yaml
from table_turns import restore

import floord
from floord.config.load import load_config
from floord.processes.daemon import Daemon

pytestmark = pytest.mark.unit

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
    restore(daemon)
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


def test_the_deb_script_reads_the_version_from_the_package_it_packs() -> None:
    script = (ROOT / "scripts" / "build-deb.sh").read_text(encoding="utf-8")
    # Set once, by the reader of the wheel's own floord/__init__.py; never typed in.
    assigned = re.findall(r"^\s*VERSION=(.*)$", script, re.M)
    assert len(assigned) == 1, assigned
    assert re.match(r'\$\("\$PYBIN" "\$SRC/scripts/deb/version\.py" "\$WHEEL"\)', assigned[0])
    assert re.search(r"^Version: \$VERSION$", script, re.M)


def test_the_deb_scripts_control_texts_run_no_command() -> None:
    # An unquoted here-document expands `...` and $(...): a control text that named a
    # command in backticks ran it at build time (`floord demo`, which never returns, on
    # a machine where floord is on the PATH).
    script = (ROOT / "scripts" / "build-deb.sh").read_text(encoding="utf-8")
    bodies = re.findall(r"<<EOF\n(.*?)^EOF$", script, re.S | re.M)
    assert len(bodies) == 2
    for body in bodies:
        assert "`" not in body and "$(" not in body, body


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
