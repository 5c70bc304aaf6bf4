"""Site profiles: the sources in order, an override found before the packaged profile, the
hash the record keeps, and an override that removes a capability refused by `floord
check` (so by `run`), by `floord profiles check`, and shown by `floord profiles list`.

The daemon running on a site profile, end to end, is `test_site_profiles_system.py`.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
import yaml

from floord import profile_sources
from floord.cli.main import main
from floord.config.load import ConfigError, load_config
from floord.profile_sources import PACKAGED, SITE, ProfileShelf, ProfileSource
from floord.profile_sources import profile_sources as sources_of
from floord.profiles import PROFILES_DIR, ProfileError, ProfileNotFound

pytestmark = pytest.mark.unit

SHOE = "ref-shoe-recognition"


def packaged(name: str) -> dict[str, Any]:
    body: dict[str, Any] = yaml.safe_load((PROFILES_DIR / f"{name}.yaml").read_text())
    return body


def site_profile(site: Path, name: str, body: dict[str, Any]) -> Path:
    site.mkdir(exist_ok=True)
    path = site / f"{name}.yaml"
    path.write_text(yaml.safe_dump(body, sort_keys=False))
    return path


def tuned(name: str = SHOE, **quirks: Any) -> dict[str, Any]:
    """The packaged profile with a tighter protocol-error budget and these quirks."""
    body = packaged(name)
    body["protocol_errors"] = {"interval_s": 10.0, "kinds": 4, "fault_after": 6}
    body["quirks"] = {**body["quirks"], **quirks}
    return body


def test_the_site_comes_first_then_the_plugins_then_the_packaged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plugin = ProfileSource("plugin:acme", tmp_path / "acme")
    monkeypatch.setattr(profile_sources, "plugin_sources", lambda: [plugin])
    assert sources_of(tmp_path) == (
        ProfileSource(SITE, tmp_path),
        plugin,
        ProfileSource(PACKAGED, PROFILES_DIR),
    )
    assert sources_of(None) == (plugin, ProfileSource(PACKAGED, PROFILES_DIR))


def test_the_debs_directory_is_the_site_when_the_config_names_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(profile_sources, "DEFAULT_SITE_DIR", tmp_path / "absent")
    assert profile_sources.site_directory(None) is None
    monkeypatch.setattr(profile_sources, "DEFAULT_SITE_DIR", tmp_path)
    assert profile_sources.site_directory(None) == tmp_path
    assert profile_sources.site_directory(tmp_path / "own") == tmp_path / "own"


def test_a_site_profile_overrides_the_packaged_one_of_its_name(tmp_path: Path) -> None:
    path = site_profile(tmp_path, SHOE, tuned())
    shelf = ProfileShelf(sources_of(tmp_path))
    found = shelf.open(SHOE)
    assert (found.origin, found.path, found.overrides) == (
        SITE,
        path,
        PROFILES_DIR / f"{SHOE}.yaml",
    )
    assert found.profile.protocol_errors.fault_after == 6
    assert found.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert found.record() == {
        "name": SHOE,
        "model": SHOE,
        "origin": SITE,
        "path": str(path),
        "sha256": found.sha256,
        "overrides": str(PROFILES_DIR / f"{SHOE}.yaml"),
    }
    reader = shelf.open("ref-card-reader")
    assert (reader.origin, reader.overrides) == (PACKAGED, None)
    # Without the site, the packaged profile and its own budget.
    assert ProfileShelf.packaged().load(SHOE).protocol_errors.fault_after == 30


def test_a_profile_named_by_its_path_is_that_file_and_replaces_nothing(tmp_path: Path) -> None:
    """A config may name a file (`profile: ./shoe.yaml`): no override, no name rule."""
    path = site_profile(tmp_path, "my-shoe", tuned(recognition=False))
    found = ProfileShelf(sources_of(None)).open(str(path))
    assert (found.name, found.origin, found.overrides) == ("my-shoe", "file", None)
    assert found.record()["path"] == str(path) and not found.profile.reports_cards


def test_a_site_profile_of_a_new_name_adds_a_model(tmp_path: Path) -> None:
    body = tuned()
    body["model"] = "acme-shoe"
    site_profile(tmp_path, "acme-shoe", body)
    shelf = ProfileShelf(sources_of(tmp_path))
    assert "acme-shoe" in shelf.names() and SHOE in shelf.names()
    assert shelf.open("acme-shoe").overrides is None


def test_a_name_on_no_shelf_lists_the_names_known(tmp_path: Path) -> None:
    site_profile(tmp_path, "acme-shoe", {**tuned(), "model": "acme-shoe"})
    with pytest.raises(ProfileNotFound) as raised:
        ProfileShelf(sources_of(tmp_path)).open("acme-sho")
    assert "acme-shoe" in raised.value.known and "did you mean 'acme-shoe'" in str(raised.value)


@pytest.mark.parametrize(
    ("name", "change", "key", "expected", "found"),
    [
        (SHOE, {"quirks": {"recognition": False}}, "quirks.recognition", "true", "false"),
        ("ref-shoe-double", {"quirks": {"double": False}}, "quirks.double", "true", "false"),
        (
            "ref-card-reader-xv",
            {"drop": "exposes_value"},
            "quirks.exposes_value",
            "true",
            "no such key",
        ),
        ("ref-dice-tracker", {"quirks": {"dice": 3}}, "quirks.dice", "2", "3"),
        ("ref-dice-tracker", {"quirks": {"die_ids": False}}, "quirks.die_ids", "true", "false"),
        (
            "ref-big-six",
            {"quirks": {"sections": False, "angle": True}},
            "quirks.sections",
            "true",
            "false",
        ),
    ],
)
def test_an_override_that_removes_a_capability_is_refused(
    tmp_path: Path, name: str, change: dict[str, Any], key: str, expected: str, found: str
) -> None:
    body = packaged(name)
    body["quirks"] = {**body["quirks"], **change.get("quirks", {})}
    body["quirks"].pop(change.get("drop", ""), None)
    path = site_profile(tmp_path, name, body)
    with pytest.raises(ProfileError) as raised:
        ProfileShelf(sources_of(tmp_path)).open(name)
    assert f"{path}: {key}: {expected} expected (the profile it overrides, " in str(raised.value)
    assert str(raised.value).endswith(f"found {found}")


def test_an_override_of_another_family_is_refused(tmp_path: Path) -> None:
    body = packaged("ref-card-reader")
    body["model"] = SHOE
    path = site_profile(tmp_path, SHOE, body)
    with pytest.raises(ProfileError, match="family: 'dealing_shoe' expected") as raised:
        ProfileShelf(sources_of(tmp_path)).open(SHOE)
    assert str(path) in str(raised.value)


def test_an_override_may_add_a_capability_and_tune_any_setting(tmp_path: Path) -> None:
    body = tuned("ref-shoe-manual", recognition=True)
    body["timeouts"]["heartbeat_loss_beats"] = 5
    site_profile(tmp_path, "ref-shoe-manual", body)
    profile = ProfileShelf(sources_of(tmp_path)).load("ref-shoe-manual")
    assert profile.reports_cards and profile.timeouts.heartbeat_loss_beats == 5


def test_a_site_profile_must_be_named_after_its_model(tmp_path: Path) -> None:
    path = site_profile(tmp_path, "acme-shoe", tuned())
    with pytest.raises(ProfileError, match=r"model: 'acme-shoe' expected \(the file's name"):
        ProfileShelf(sources_of(tmp_path)).open("acme-shoe")
    assert str(path) in str(ProfileShelf(sources_of(tmp_path)).listing()[0][2])


def test_a_site_profile_is_held_to_the_schema(tmp_path: Path) -> None:
    body = tuned()
    body["timeouts"]["silence_secs"] = 3.0
    path = site_profile(tmp_path, SHOE, body)
    with pytest.raises(ProfileError, match=f"{path}: timeouts.silence_secs"):
        ProfileShelf(sources_of(tmp_path)).open(SHOE)


# --- the box's config: `site_profiles`, and `floord check` refusing what `run` refuses


def box(tmp: Path, **extra: Any) -> Path:
    (tmp / "fp.key").write_text("floorperson secret\n")
    body = {
        "site": "casino-1",
        "broker": {"url": "mqtt://127.0.0.1:1"},
        "journal": "journal.db",
        **extra,
        "operators": [{"id": "FP-1001", "role": "floorperson", "key_file": "fp.key"}],
        "tables": [
            {
                "id": "BJ-01",
                "game": "blackjack",
                "rules": {"decks": 6},
                "devices": [
                    {"id": "reader", "profile": "ref-card-reader", "port": "socket://127.0.0.1:1"},
                    {"id": "shoe", "profile": SHOE, "port": "socket://127.0.0.1:2"},
                ],
            }
        ],
    }
    path = tmp / "floord.yaml"
    path.write_text(yaml.safe_dump(body, sort_keys=False))
    return path


def test_the_configs_site_profiles_drive_its_devices(tmp_path: Path) -> None:
    site_profile(tmp_path / "profiles", SHOE, tuned())
    loaded = load_config(box(tmp_path, site_profiles="profiles"))
    assert loaded.profiles.sources[0] == ProfileSource(SITE, tmp_path / "profiles")
    assert loaded.profiles.load(SHOE).protocol_errors.fault_after == 6


def test_check_refuses_a_site_directory_that_is_not_there(tmp_path: Path) -> None:
    path = box(tmp_path, site_profiles="no-such-dir")
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    assert raised.value.problems == [
        f"{path}: site_profiles: a directory of device profiles expected, "
        "found 'no-such-dir' (no such directory)"
    ]


def test_check_refuses_an_override_removing_what_the_table_uses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    site = site_profile(tmp_path / "profiles", SHOE, tuned(recognition=False))
    path = box(tmp_path, site_profiles="profiles")
    assert main(["check", "-c", str(path)]) == 1
    [line] = capsys.readouterr().out.splitlines()
    assert line.startswith(
        f"{path}: tables.0.devices.1.profile: a usable device profile expected, found: "
        f"{site}: quirks.recognition: true expected (the profile it overrides, "
    )
    assert line.endswith("an override may not remove a capability), found false")


# --- `floord profiles list` and `floord profiles check FILE`


def test_profiles_check_passes_a_tuned_override_and_says_what_it_replaces(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = site_profile(tmp_path, SHOE, tuned())
    assert main(["profiles", "check", str(path), "--site", str(tmp_path / "empty")]) == 1
    assert "a directory of profiles expected" in capsys.readouterr().err
    assert main(["profiles", "check", str(path)]) == 0
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert capsys.readouterr().out == (
        f"{path}: ok: {SHOE} (dealing_shoe), overrides {PROFILES_DIR / f'{SHOE}.yaml'}, "
        f"sha256 {digest}\n"
    )


def test_profiles_check_refuses_a_removed_capability_and_a_driver_refusal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    weak = site_profile(tmp_path / "a", SHOE, tuned(recognition=False))
    assert main(["profiles", "check", str(weak)]) == 1
    assert f"{weak}: quirks.recognition: true expected" in capsys.readouterr().out
    # A quirk the driver does not know: the driver, built with it, refuses it.
    odd = site_profile(tmp_path / "b", SHOE, tuned(recogniton=True))
    assert main(["profiles", "check", str(odd)]) == 1
    [line] = capsys.readouterr().out.splitlines()
    assert line.startswith(f"{odd}: driver: a driver that accepts this profile expected, found ")
    assert "recogniton" in line


def test_profiles_list_says_where_each_comes_from(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = site_profile(tmp_path / "profiles", SHOE, tuned())
    config = box(tmp_path, site_profiles="profiles")
    assert main(["profiles", "list", "-c", str(config)]) == 0
    out = capsys.readouterr().out
    block = out.split(f"{SHOE} ", 1)[1].split("\nref-", 1)[0]
    assert block.split()[:3] == [SITE, SHOE, "(dealing_shoe)"]
    assert f"overrides {PROFILES_DIR / f'{SHOE}.yaml'}" in block
    assert f"sha256 {hashlib.sha256(path.read_bytes()).hexdigest()}" in block
    assert f"{path}\n" in block
    assert f"site: {tmp_path / 'profiles'}" in out and f"packaged: {PROFILES_DIR}" in out
    # A broken site profile is listed, with why it cannot be used, and the exit says so.
    site_profile(tmp_path / "profiles", SHOE, tuned(recognition=False))
    assert main(["profiles", "list", "-c", str(config)]) == 1
    assert "quirks.recognition: true expected" in capsys.readouterr().out
