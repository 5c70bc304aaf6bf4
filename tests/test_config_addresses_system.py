"""`floord check`, run as its own process under `setpriv`, refuses a journal folder the
service user cannot write. The config's other address checks are in
`test_config_addresses.py`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from test_config_addresses import _body

pytestmark = pytest.mark.system


def _without_root_override() -> list[str]:
    """Root writes anywhere: as root, the check runs without the capabilities that
    override file modes (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH), as an ordinary user."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv (util-linux) to drop CAP_DAC_OVERRIDE")
    caps = "-dac_override,-dac_read_search"
    return [setpriv, f"--bounding-set={caps}", f"--inh-caps={caps}"]


def test_check_refuses_an_unwritable_journal_folder(tmp_path: Path) -> None:
    ro = tmp_path / "ro"
    ro.mkdir(mode=0o555)
    config = tmp_path / "floord.yaml"
    config.write_text(yaml.safe_dump(_body(tmp_path, journal="ro/journal.db")))
    run = [*_without_root_override(), sys.executable, "-m", "floord", "check", "-c", str(config)]
    try:
        done = subprocess.run(run, capture_output=True, text=True, timeout=60)
    finally:
        ro.chmod(0o755)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.strip() == (
        f"{config}: journal: a folder floord can write expected, found {str(ro)!r} (not writable)"
    )
