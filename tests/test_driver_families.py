"""Driver families are found through their entry points, floord's own as a plugin's, and a
plugin that cannot be used is named in one line.

A plugin here is a real distribution on `sys.path`: a `.dist-info` folder with its
`entry_points.txt` and a module holding its family, in the test's own folder, read by
importlib.metadata as an installed package would be.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

import drivers
import simulators
from floord.cli.main import main
from floord.driver_families import DriverFamilyError, family_profile_dirs, installed_families
from floord.profile_sources import ProfileShelf, profile_sources
from floord.profiles import PROFILES_DIR, ProfileError, available_profiles, load_profile

pytestmark = pytest.mark.unit

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.fixture
def fresh() -> Iterator[None]:
    """The families read again after the test's plugins went on the path, and after."""
    installed_families.cache_clear()
    yield
    installed_families.cache_clear()


def install(
    where: Path, dist: str, entries: dict[str, str], module: str = "", source: str = ""
) -> None:
    """A distribution `dist` 1.0 declaring `entries` (name -> object reference), with the
    module `module` holding `source`."""
    info = where / f"{dist}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    lines = "".join(f"{name} = {ref}\n" for name, ref in entries.items())
    (info / "entry_points.txt").write_text(f"[floord.driver_families]\n{lines}")
    if module:
        (where / f"{module}.py").write_text(source)


FAMILY = """
from pathlib import Path
from floord.driver_families import DriverFamily
FAMILY = DriverFamily(
    name={name!r}, drivers="drivers.flf1", simulators="simulators.flf1",
    profiles=Path({profiles!r}), protocols=("protocol.md",),
)
"""


def test_floords_own_families_are_found_through_the_entry_points() -> None:
    families = installed_families()
    assert {"cammegh_ss2", "flf1", "usb_shoe"} <= set(families)
    for name in ("cammegh_ss2", "flf1", "usb_shoe"):
        family = families[name]
        assert family.origin.startswith("floord "), family.origin
        assert f"entry point {name} = drivers.{name}.family:FAMILY" in family.origin
        assert (family.drivers, family.simulators) == (f"drivers.{name}", f"simulators.{name}")
        assert family.profiles == PROFILES_DIR
    # floord's packaged folder is the one every lookup ends with; no family adds it again.
    assert PROFILES_DIR not in family_profile_dirs(exclude=PROFILES_DIR)


def test_a_plugins_profiles_driver_and_simulator_are_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh: None
) -> None:
    profiles = tmp_path / "profiles"
    profiles.mkdir()
    raw = yaml.safe_load((PROFILES_DIR / "ref-wheel-sensor.yaml").read_text())
    raw |= {"model": "kit-wheel", "driver": "kit.wheel_sensor", "simulator": "kit.wheel_sensor"}
    (profiles / "kit-wheel.yaml").write_text(yaml.safe_dump(raw))
    source = FAMILY.format(name="kit", profiles=str(profiles))
    install(tmp_path, "kit_plugin", {"kit": "kit_family:FAMILY"}, "kit_family", source)
    monkeypatch.syspath_prepend(str(tmp_path))

    assert "kit-wheel" in available_profiles()
    profile = load_profile("kit-wheel")
    assert drivers.module_name(profile.driver) == "drivers.flf1.wheel_sensor"
    assert simulators.module_name(profile.simulator) == "simulators.flf1.wheel_sensor"
    assert family_profile_dirs(exclude=PROFILES_DIR) == [profiles]
    assert (
        installed_families()["kit"].origin == "kit_plugin 1.0, entry point kit = kit_family:FAMILY"
    )
    # floord's own profiles are still found after the plugin's folder.
    assert load_profile("cammegh-ss2").model == "cammegh-ss2"


@pytest.mark.parametrize(
    ("ref", "source", "fault"),
    [
        ("gone_family:FAMILY", "", "failed to load: ModuleNotFoundError: No module named"),
        ("raises:FAMILY", "raise RuntimeError('no licence key')", "RuntimeError: no licence"),
        ("wrong_type:FAMILY", "FAMILY = 'flf1'", "a floord.driver_families.DriverFamily expected"),
        (
            "misnamed:FAMILY",
            FAMILY.format(name="other", profiles="/nonexistent"),
            "the family calls itself 'other'",
        ),
    ],
)
def test_a_plugin_that_cannot_be_used_is_named_by_every_profile_lookup(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    fresh: None,
    ref: str,
    source: str,
    fault: str,
) -> None:
    install(tmp_path, "broken_plugin", {"broken": ref}, ref.split(":")[0] if source else "", source)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ProfileError) as raised:
        load_profile("cammegh-ss2")
    message = str(raised.value)
    assert message.startswith(
        f"driver family plugin 'broken' (broken_plugin 1.0, entry point broken = {ref})"
    )
    assert fault in message
    assert "\n" not in message


def test_two_plugins_of_one_family_name_are_refused_naming_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh: None
) -> None:
    for n in (1, 2):
        where = tmp_path / str(n)
        source = FAMILY.format(name="twin", profiles=str(tmp_path))
        install(where, f"twin_{n}", {"twin": f"twin_family_{n}:FAMILY"}, f"twin_family_{n}", source)
        monkeypatch.syspath_prepend(str(where))
    with pytest.raises(
        DriverFamilyError, match=r"declared twice: by twin_1 1\.0.* and by twin_2 1\.0"
    ):
        installed_families()


def test_a_driver_of_no_installed_family_names_the_families() -> None:
    with pytest.raises(ValueError) as raised:
        drivers.module_name("acme.wheel")
    assert str(raised.value) == (
        "driver: <family>.<module> of an installed driver family expected (families: "
        f"{', '.join(installed_families())}), found 'acme.wheel'"
    )


def test_a_copied_profile_of_a_family_folder_is_still_the_family_s(tmp_path: Path) -> None:
    """A profile given by path (a site's copy) names its driver the same way."""
    copy = tmp_path / "my-wheel.yaml"
    shutil.copy(PROFILES_DIR / "cammegh-ss2.yaml", copy)
    profile = load_profile(str(copy))
    assert drivers.module_name(profile.driver) == "drivers.cammegh_ss2.driver"


def test_check_and_run_name_the_plugin_that_fails_in_one_line_a_device(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fresh: None
) -> None:
    install(tmp_path, "broken_plugin", {"broken": "not_there:FAMILY"})
    monkeypatch.syspath_prepend(str(tmp_path))
    shutil.copytree(EXAMPLES / "keys", tmp_path / "keys")
    config = tmp_path / "floord.yaml"
    text = (EXAMPLES / "box.yaml").read_text(encoding="utf-8")
    config.write_text(text.replace("/var/lib/floord/journal.db", "journal.db"))
    plugin = (
        "driver family plugin 'broken' (broken_plugin 1.0, entry point broken = "
        "not_there:FAMILY) failed to load: ModuleNotFoundError: No module named 'not_there'"
    )
    expected = [
        f"{config}: tables.{t}.devices.{d}.profile: a usable device profile expected, "
        f"found: {plugin}"
        for t, d in ((0, 0), (1, 0), (1, 1), (1, 2))
    ]
    assert main(["check", "-c", str(config)]) == 1
    assert capsys.readouterr().out.splitlines() == expected
    assert main(["run", "-c", str(config)]) == 1
    assert capsys.readouterr().err.splitlines() == expected


def test_check_refuses_a_profile_whose_family_is_not_installed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The example plugin's profile on a box without the plugin: its driver is named."""
    profile = EXAMPLES / "linewheel" / "floord_linewheel" / "profiles" / "linewheel-rw1.yaml"
    shutil.copytree(EXAMPLES / "keys", tmp_path / "keys")
    config = tmp_path / "floord.yaml"
    text = (EXAMPLES / "box.yaml").read_text(encoding="utf-8")
    text = text.replace("/var/lib/floord/journal.db", "journal.db")
    config.write_text(text.replace("profile: cammegh-ss2", f"profile: {profile}", 1))
    families = ", ".join(installed_families())
    assert main(["check", "-c", str(config)]) == 1
    refused = [line for line in capsys.readouterr().out.splitlines() if "warning" not in line]
    assert refused == [
        f"{config}: tables.0.devices.0.profile: a profile its driver accepts expected, found: "
        f"driver: <family>.<module> of an installed driver family expected (families: "
        f"{families}), found 'linewheel.wheel'"
    ]


def test_a_profile_two_families_ship_is_refused_naming_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh: None
) -> None:
    profiles = tmp_path / "profiles"
    profiles.mkdir()
    shutil.copy(PROFILES_DIR / "cammegh-ss2.yaml", profiles / "cammegh-ss2.yaml")
    source = FAMILY.format(name="kit", profiles=str(profiles))
    install(tmp_path, "kit_plugin", {"kit": "kit_twin_family:FAMILY"}, "kit_twin_family", source)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ProfileError) as raised:
        load_profile("cammegh-ss2")
    assert str(raised.value) == (
        f"profile 'cammegh-ss2' is shipped twice, by {profiles / 'cammegh-ss2.yaml'} and by "
        f"{PROFILES_DIR / 'cammegh-ss2.yaml'}: a driver family may not replace another's "
        "profile; uninstall one, or give the profile by path"
    )
    # Every other name is still found.
    assert load_profile("ref-wheel-sensor").model == "ref-wheel-sensor"


def test_a_plugins_profiles_are_on_the_boxs_shelf_between_the_sites_and_floords(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh: None
) -> None:
    profiles = tmp_path / "profiles"
    profiles.mkdir()
    raw = yaml.safe_load((PROFILES_DIR / "ref-wheel-sensor.yaml").read_text())
    raw |= {"model": "kit-wheel", "driver": "kit.wheel_sensor", "simulator": "kit.wheel_sensor"}
    (profiles / "kit-wheel.yaml").write_text(yaml.safe_dump(raw))
    source = FAMILY.format(name="kit", profiles=str(profiles))
    install(tmp_path, "kit_plugin", {"kit": "kit_shelf_family:FAMILY"}, "kit_shelf_family", source)
    monkeypatch.syspath_prepend(str(tmp_path))
    site = tmp_path / "site"
    site.mkdir()
    raw["timeouts"]["silence_s"] = 4.5
    (site / "kit-wheel.yaml").write_text(yaml.safe_dump(raw))

    shipped = ProfileShelf(profile_sources(None)).open("kit-wheel")
    assert (shipped.origin, shipped.path, shipped.overrides) == (
        "plugin",
        profiles / "kit-wheel.yaml",
        None,
    )
    # A site's profile replaces the plugin's, held to it as to a packaged one.
    tuned = ProfileShelf(profile_sources(site)).open("kit-wheel")
    assert (tuned.origin, tuned.overrides) == ("site", profiles / "kit-wheel.yaml")
    assert tuned.profile.timeouts.silence_s == 4.5
    assert [s.origin for s in profile_sources(site)] == ["site", "plugin", "packaged"]


def test_the_shelf_names_a_broken_plugin_and_a_profile_shipped_twice(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    fresh: None,
) -> None:
    profiles = tmp_path / "profiles"
    profiles.mkdir()
    shutil.copy(PROFILES_DIR / "cammegh-ss2.yaml", profiles / "cammegh-ss2.yaml")
    source = FAMILY.format(name="kit", profiles=str(profiles))
    install(
        tmp_path / "a", "kit_plugin", {"kit": "kit_dup_family:FAMILY"}, "kit_dup_family", source
    )
    monkeypatch.syspath_prepend(str(tmp_path / "a"))
    with pytest.raises(ProfileError, match=r"^profile 'cammegh-ss2' is shipped twice, by "):
        ProfileShelf(profile_sources(None)).open("cammegh-ss2")

    install(tmp_path / "b", "broken_plugin", {"broken": "not_there:FAMILY"})
    monkeypatch.syspath_prepend(str(tmp_path / "b"))
    installed_families.cache_clear()
    with pytest.raises(ProfileError, match=r"^driver family plugin 'broken' "):
        ProfileShelf(profile_sources(None)).open("ref-wheel-sensor")
    assert main(["profiles", "list"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("floord profiles: driver family plugin 'broken'")
