"""The version read from a built wheel and from the tree (a subprocess each), and dpkg's
ordering of the Debian forms against pip's. The pure version rules are in
`test_versions.py`.
"""

from __future__ import annotations

import itertools
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from test_versions import ROOT, VERSION_PY

import floord

pytestmark = pytest.mark.system


def _version_py(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(VERSION_PY), *args], capture_output=True, text=True, timeout=30
    )


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


@pytest.mark.skipif(shutil.which("dpkg") is None, reason="no dpkg: not a Debian machine")
def test_dpkg_orders_the_debian_forms_as_pip_orders_the_versions() -> None:
    # Each before the next, by pip's (PEP 440) order.
    ordered = ["0.3.0~dev4", "0.3.0~rc1~dev2", "0.3.0~rc1", "0.3.0", "0.3.0.post1", "0.3.1"]
    for older, newer in itertools.pairwise(ordered):
        done = subprocess.run(["dpkg", "--compare-versions", older, "lt", newer], timeout=10)
        assert done.returncode == 0, f"dpkg sorts {older} after {newer}"
