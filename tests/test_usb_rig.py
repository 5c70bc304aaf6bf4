"""The rig port `usb://sim:<scenario-file>`: the unchanged transport opens the simulated
shoe a scenario file describes, through `open_transport` as the daemon does; a bad file
or port is a clear error, at config load and at open."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
import yaml

from drivers.usb_shoe.hid_wedge_shoe import HidWedgeShoeDriver
from floord.config.load import ConfigError, load_config
from floord.contract import EventType
from floord.events import DeviceEvent
from floord.profiles import SerialSettings, load_profile
from floord.transport.stream import TransportError, open_transport
from simulators.usb_shoe.backend import ScenarioError, scenario_backend

pytestmark = pytest.mark.unit

PROFILE = load_profile("ref-usb-shoe")
SETTINGS = SerialSettings(baudrate=9600, bytesize=8, parity="N", stopbits=1, flow_control="none")


def scenario(tmp_path: Path, body: dict) -> Path:
    path = tmp_path / f"shoe-{time.monotonic_ns()}.yaml"
    path.write_text(yaml.safe_dump(body))
    return path


async def cards_through_the_daemon_path(port: str, count: int) -> tuple[list, list[str]]:
    """Open `port` as the adapter does; identity and the first `count` cards drawn."""
    driver = HidWedgeShoeDriver(PROFILE)
    transport = await open_transport(port, SETTINGS, 5.0)
    outputs: list = []
    try:
        while sum(isinstance(o, DeviceEvent) for o in outputs) < count:
            data = await asyncio.wait_for(transport.read(), 5.0)
            assert data, "the link closed"
            outputs += driver.feed(data, time.monotonic())
    finally:
        await transport.close()
    replies = [o for o in outputs if not isinstance(o, DeviceEvent)]
    events = [o for o in outputs if isinstance(o, DeviceEvent)]
    assert all(e.type == EventType.SHOE_CARD_DRAWN for e in events), events
    return replies, [e.data["card"] for e in events]


def test_the_rig_port_plays_the_scenario_through_the_unchanged_transport(tmp_path) -> None:
    path = scenario(
        tmp_path,
        {
            "profile": "ref-usb-shoe",
            "serial_number": "RIG-9",
            "interval_s": 0.05,
            "steps": [{"wait": 0.1}, {"draw": ["TS", "AH"]}, {"draw": ["9D"]}],
        },
    )
    replies, cards = asyncio.run(cards_through_the_daemon_path(f"usb://sim:{path}", 3))
    assert cards == ["TS", "AH", "9D"]
    [record] = replies  # the descriptor record, sent unasked on open
    identified = HidWedgeShoeDriver(PROFILE).identity({"identify": record})
    assert identified.type == EventType.DEVICE_IDENTIFIED
    assert identified.data["serial"] == "RIG-9"


def test_each_open_plays_the_scenario_from_its_start(tmp_path) -> None:
    path = scenario(tmp_path, {"profile": "ref-usb-shoe", "steps": [{"draw": ["KC"]}]})
    for _ in range(2):
        _, cards = asyncio.run(cards_through_the_daemon_path(f"usb://sim:{path}", 1))
        assert cards == ["KC"]


def test_a_typed_line_goes_out_as_written(tmp_path) -> None:
    path = scenario(tmp_path, {"profile": "ref-usb-shoe", "steps": [{"type": "ZZ9"}]})
    sim = scenario_backend(path)
    assert [line.text for line in sim._script] == ["ZZ9"]


@pytest.mark.parametrize(
    ("body", "fault"),
    [
        ({"profile": "ref-usb-shoe", "steps": [{"draw": ["XX"]}]}, "no code for card 'XX'"),
        ({"profile": "ref-usb-shoe", "steps": [{"wait": 1, "draw": ["AS"]}]}, "exactly one"),
        ({"profile": "ref-usb-shoe", "steps": [{"type": "A-S"}]}, "letters and digits"),
        ({"profile": "ref-usb-shoe", "speed": 2}, "speed"),
        ({"profile": "no-such-shoe"}, "not found"),
        ({"profile": "ref-shoe-recognition"}, "not a keyboard-wedge shoe"),
    ],
)
def test_a_bad_scenario_is_a_clear_error(tmp_path, body, fault) -> None:
    path = scenario(tmp_path, body)
    with pytest.raises(ScenarioError, match=str(path)) as caught:
        scenario_backend(path)
    assert fault in str(caught.value)
    with pytest.raises(TransportError, match=fault):
        asyncio.run(open_transport(f"usb://sim:{path}", SETTINGS, 5.0))


def test_a_relative_or_missing_scenario_is_refused_at_open(tmp_path) -> None:
    with pytest.raises(TransportError, match="absolute path"):
        asyncio.run(open_transport("usb://sim:shoe.yaml", SETTINGS, 5.0))
    with pytest.raises(TransportError, match="readable YAML"):
        asyncio.run(open_transport(f"usb://sim:{tmp_path / 'none.yaml'}", SETTINGS, 5.0))


def _config(tmp_path: Path, port: str, rig: bool = True) -> Path:
    (tmp_path / "fp.key").write_text("secret\n")
    body = {
        "site": "s1",
        "rig": rig,
        "broker": {"url": "mqtt://127.0.0.1:1883", "topic_prefix": "floor/v1"},
        "journal": str(tmp_path / "j.db"),
        "operators": [{"id": "FP-1", "role": "floorperson", "key_file": "fp.key"}],
        "tables": [
            {
                "id": "BA-01",
                "game": "baccarat",
                "devices": [{"id": "shoe", "profile": "ref-usb-shoe", "port": port}],
            }
        ],
    }
    path = tmp_path / "floord.yaml"
    path.write_text(yaml.safe_dump(body))
    return path


def test_a_box_without_the_rigs_package_is_told_so_at_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """floord reaches the rig's backend by name: its absence is the port's error, no
    ImportError's traceback."""
    import floord.transport.usb as usb

    monkeypatch.setattr(usb, "RIG_BACKEND", "simulators.no_such_backend")
    path = scenario(tmp_path, {"profile": "ref-usb-shoe", "steps": []})
    with pytest.raises(TransportError, match="device simulators are not installed"):
        asyncio.run(open_transport(f"usb://sim:{path}", SETTINGS, 5.0))


def test_config_takes_the_rig_port_only_with_an_existing_absolute_file(tmp_path) -> None:
    path = scenario(tmp_path, {"profile": "ref-usb-shoe"})
    loaded = load_config(_config(tmp_path, f"usb://sim:{path}"))
    assert loaded.config.tables[0].devices[0].port == f"usb://sim:{path}"
    for port in ("usb://sim:shoe.yaml", f"usb://sim:{tmp_path / 'none.yaml'}"):
        with pytest.raises(ConfigError, match=r"devices\.0\.port: usb://sim:<absolute path"):
            load_config(_config(tmp_path, port))
