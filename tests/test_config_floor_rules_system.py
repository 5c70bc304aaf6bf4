"""`floord check`, run as its own process, names a missing floor rules file and refuses
it. The other floor-rule checks are in `test_config_floor_rules.py`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from test_config_floor_rules import _floor

from floord.config.load import ConfigError, load_config

pytestmark = pytest.mark.system


def test_a_missing_floor_rules_file_is_named_and_check_refuses_it(tmp_path: Path) -> None:
    path = _floor(tmp_path, ("BA-01", "baccarat", {}), floor_rules="nowhere.yaml")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert caught.value.problems == [
        f"{tmp_path / 'nowhere.yaml'}: (file): a readable YAML file expected, found: "
        "No such file or directory"
    ]
    done = subprocess.run(
        [sys.executable, "-m", "floord", "check", "-c", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode != 0
    assert "nowhere.yaml: (file): a readable YAML file expected" in done.stderr + done.stdout
    assert "Traceback" not in done.stderr
