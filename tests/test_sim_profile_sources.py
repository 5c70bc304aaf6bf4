"""`floord sim PROFILE` and `floord capture --profile NAME` look the profile up where
`floord run` does: the site directory (`--profiles DIR`, a config's `site_profiles` with
`-c`, else `/etc/floord/profiles` when it exists), the driver plugins', the packaged ones.
A rig that tunes a model simulates and captures the model its daemon drives.

Each case stops before a port is opened (a profile refused, a scenario or a port that
does not exist), so which file was read shows in what is refused and why;
tests/test_sim_profile_sources_system.py runs a site profile's simulator and captures it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from floord import profile_sources
from floord.cli.main import main
from floord.profiles import PROFILES_DIR

pytestmark = pytest.mark.unit

XV = "ref-card-reader-xv"
NEW = "site-reader"


def packaged(name: str) -> dict[str, Any]:
    body: dict[str, Any] = yaml.safe_load((PROFILES_DIR / f"{name}.yaml").read_text())
    return body


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A site directory with a new model (`site-reader`) and an override of the hole-card
    reader that drops its capability; the .deb's default directory absent."""
    monkeypatch.setattr(profile_sources, "DEFAULT_SITE_DIR", tmp_path / "no-such-dir")
    folder = tmp_path / "profiles"
    folder.mkdir()
    new = {**packaged("ref-card-reader"), "model": NEW}
    (folder / f"{NEW}.yaml").write_text(yaml.safe_dump(new))
    weak = packaged(XV)
    weak["quirks"] = {**weak["quirks"], "exposes_value": False}
    (folder / f"{XV}.yaml").write_text(yaml.safe_dump(weak))
    return folder


def _config(tmp_path: Path, site: Path) -> Path:
    """A config naming the site directory relative to itself, as a box's does."""
    config = tmp_path / "floord.yaml"
    config.write_text(yaml.safe_dump({"site_profiles": site.name}))
    return config


def _err(capsys: pytest.CaptureFixture[str]) -> str:
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def test_sim_finds_a_site_model_in_the_directory_given(
    site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sim = ["sim", NEW, "--pty", "--scenario", "no-such-scenario"]
    assert main(sim) == 2
    assert f"profile {NEW!r} not found" in _err(capsys)
    # With the site directory, the profile is found: what stops it is the scenario.
    assert main([*sim, "--profiles", str(site)]) == 2
    assert _err(capsys).startswith("floord sim: no-such-scenario: a scenario file")


def test_sim_reads_the_site_directory_a_config_names(
    site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(tmp_path, site)
    assert main(["sim", NEW, "--pty", "-c", str(config), "--scenario", "no-such-scenario"]) == 2
    assert _err(capsys).startswith("floord sim: no-such-scenario: a scenario file")


def test_sim_reads_the_debs_site_directory_by_default(
    site: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(profile_sources, "DEFAULT_SITE_DIR", site)
    assert main(["sim", NEW, "--pty", "--scenario", "no-such-scenario"]) == 2
    assert _err(capsys).startswith("floord sim: no-such-scenario: a scenario file")


def test_sim_plays_the_site_override_not_the_packaged_profile(
    site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The override wins over floord's file, and is held to it as `floord run` holds it."""
    assert main(["sim", XV, "--pty", "--profiles", str(site), "--scenario", "nope"]) == 2
    line = _err(capsys)
    assert line.startswith(f"floord sim: {site / f'{XV}.yaml'}: quirks.exposes_value: true"), line
    # Without the site directory the packaged profile is read: the scenario stops it.
    assert main(["sim", XV, "--pty", "--scenario", "nope"]) == 2
    assert _err(capsys).startswith("floord sim: nope: a scenario file")


def test_sim_refuses_a_site_directory_that_is_not_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "missing"
    assert main(["sim", NEW, "--pty", "--profiles", str(missing)]) == 2
    assert _err(capsys) == f"floord sim: {missing}: a directory of profiles expected"
    config = tmp_path / "floord.yaml"
    config.write_text("site_profiles: [one, two]\n")
    assert main(["sim", NEW, "--pty", "-c", str(config)]) == 2
    assert _err(capsys) == (
        f"floord sim: {config}: site_profiles: a directory expected, found ['one', 'two']"
    )


def test_capture_takes_the_serial_settings_of_the_site_profile(
    site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "capture.jsonl"
    port = str(tmp_path / "no-such-port")
    capture = ["capture", "--port", port, "--profile", NEW, "--out", str(out)]
    assert main(capture) == 2
    assert f"profile {NEW!r} not found" in _err(capsys)
    # Found in the site directory: the port is what fails (exit 1), not the profile.
    assert main([*capture, "--profiles", str(site)]) == 1
    assert "no-such-port" in _err(capsys)
    assert main([*capture, "-c", str(_config(tmp_path, site))]) == 1
    assert "no-such-port" in _err(capsys)
    weak = ["capture", "--port", port, "--profile", XV, "--out", str(out)]
    assert main([*weak, "--profiles", str(site)]) == 2
    assert "quirks.exposes_value: true expected" in _err(capsys)
