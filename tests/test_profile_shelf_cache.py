"""A box's profile shelf parses each profile file once, and never serves one stale.

Eight tables of one wheel model open the same profile for the config's checks and again
for each device the daemon starts; the shelf keeps each profile as it was parsed and
checked, by the SHA-256 of its file and of the file it overrides. A file changed since
is parsed and checked again: its new contents drive the device, and an override that
now removes a capability of the profile it replaces is refused.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from floord import profile_sources
from floord.profile_sources import PACKAGED, SITE, ProfileShelf, ProfileSource
from floord.profiles import PROFILES_DIR, ProfileError

pytestmark = pytest.mark.unit

SHOE = "ref-shoe-recognition"


def _packaged(**quirks: Any) -> dict[str, Any]:
    body: dict[str, Any] = yaml.safe_load((PROFILES_DIR / f"{SHOE}.yaml").read_text())
    body["quirks"] = {**body["quirks"], **quirks}
    return body


def _write(folder: Path, body: dict[str, Any]) -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / f"{SHOE}.yaml"
    path.write_text(yaml.safe_dump(body, sort_keys=False))
    return path


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The files the shelf parses, in order."""
    seen: list[Path] = []
    real = profile_sources.load_strict_yaml

    def counted(path: Path, model: Any, error: type[Exception]) -> Any:
        seen.append(path)
        return real(path, model, error)

    monkeypatch.setattr(profile_sources, "load_strict_yaml", counted)
    return seen


def test_a_profile_opened_again_is_not_parsed_again(parses: list[Path]) -> None:
    shelf = ProfileShelf((ProfileSource(PACKAGED, PROFILES_DIR),))
    first = shelf.open(SHOE)
    assert [shelf.open(SHOE) for _ in range(15)] == [first] * 15
    assert shelf.load(SHOE) is first.profile
    assert parses == [PROFILES_DIR / f"{SHOE}.yaml"]


def test_a_changed_file_is_parsed_again_and_drives_the_device(
    tmp_path: Path, parses: list[Path]
) -> None:
    path = _write(tmp_path, _packaged())
    shelf = ProfileShelf((ProfileSource(SITE, tmp_path),))
    before = shelf.open(SHOE)
    tuned = _packaged()
    tuned["protocol_errors"] = {"interval_s": 10.0, "kinds": 4, "fault_after": 6}
    _write(tmp_path, tuned)
    after = shelf.open(SHOE)
    assert (
        after.profile.protocol_errors.fault_after == 6 != before.profile.protocol_errors.fault_after
    )
    assert after.sha256 != before.sha256
    assert parses == [path, path]


def test_a_file_broken_since_is_refused_not_served_from_before(tmp_path: Path) -> None:
    path = _write(tmp_path, _packaged())
    shelf = ProfileShelf((ProfileSource(SITE, tmp_path),))
    shelf.open(SHOE)
    path.write_text(path.read_text().replace("spec:", "spek:"))
    with pytest.raises(ProfileError):
        shelf.open(SHOE)


def test_an_override_is_checked_again_when_the_profile_under_it_changes(tmp_path: Path) -> None:
    site, plugin = tmp_path / "site", tmp_path / "plugin"
    _write(site, _packaged(recognition=False))
    _write(plugin, _packaged(recognition=False))
    shelf = ProfileShelf((ProfileSource(SITE, site), ProfileSource("plugin:acme", plugin)))
    assert not shelf.open(SHOE).profile.reports_cards
    # The profile under it gains a capability the override does not have: refused now.
    _write(plugin, _packaged(recognition=True))
    with pytest.raises(ProfileError, match=r"quirks\.recognition"):
        shelf.open(SHOE)
