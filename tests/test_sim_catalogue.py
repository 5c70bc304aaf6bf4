"""The scenarios and the example rig config ship with the simulators (package data), so
`floord sim --scenario NAME` and the rig's example work outside a source checkout; a
path still works and wins over a name. tests/test_installed.py runs both from an
installed wheel."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from floord.cli.main import main
from simulators.catalogue import example_rig_config, find_scenario, scenario_names
from simulators.scenario import ScenarioError

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[1]
PACKAGED = ROOT / "simulators" / "scenarios"


def test_every_scenario_file_is_named() -> None:
    assert scenario_names() == sorted(p.stem for p in PACKAGED.glob("*.yaml"))
    assert {"fair", "faults", "shoe-normal", "shuffler-faults"} <= set(scenario_names())


@pytest.mark.parametrize("text", ["shoe-normal", "shoe-normal.yaml"])
def test_a_name_finds_the_packaged_scenario(text: str) -> None:
    assert find_scenario(text).resolve() == (PACKAGED / "shoe-normal.yaml").resolve()


def test_a_path_wins_over_a_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rig's own `fair.yaml` in the working folder is played, not the packaged one."""
    own = tmp_path / "fair.yaml"
    own.write_text("pockets: 38\n")
    monkeypatch.chdir(tmp_path)
    assert find_scenario("fair.yaml") == Path("fair.yaml")
    assert find_scenario(str(own)) == own


def test_an_unknown_name_lists_the_packaged_ones() -> None:
    with pytest.raises(ScenarioError) as caught:
        find_scenario("flaky-wheel")
    assert "flaky-wheel: a scenario file or the name of a shipped scenario expected" in str(
        caught.value
    )
    assert "shoe-normal" in str(caught.value)
    with pytest.raises(ScenarioError, match="found no such file"):
        find_scenario("no/such/file.yaml")


def test_sim_list_names_the_scenarios_and_the_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "--list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in out[: len(scenario_names())]] == scenario_names()
    assert out[-1] == f"example rig config: {example_rig_config()}"


def test_sim_refuses_an_unknown_scenario_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "cammegh-ss2", "--pty", "--scenario", "flaky-wheel"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("floord sim: flaky-wheel: a scenario file")


def test_the_example_rig_config_checks_where_a_rig_puts_it(tmp_path: Path) -> None:
    """Copied to a rig's /etc/floord (here a temporary folder) with its two keys, the
    packaged example is a config `floord check` accepts, and it says it is a rig."""
    config = tmp_path / "floord.yaml"
    shutil.copy(example_rig_config(), config)
    body = yaml.safe_load(config.read_text())
    assert body["rig"] is True
    (tmp_path / "keys").mkdir()
    for op in body["operators"]:
        (tmp_path / op["key_file"]).write_text(f"a key of {op['id']}\n")
    body["journal"] = str(tmp_path / "journal.db")
    config.write_text(yaml.safe_dump(body))
    assert main(["check", "-c", str(config)]) == 0
