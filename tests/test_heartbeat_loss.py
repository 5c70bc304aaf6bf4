"""FLF/1 heartbeat loss: the profile's `timeouts.heartbeat_loss_beats` (default 3).

One late beat (a 0.5 s hiccup: a busy box, a USB hub resetting) must not halt a card
table; three missed beats must; the profile changes the threshold and its schema
refuses a nonsense one. The driver is fed in virtual time (the `now` of each read).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from drivers.flf1.card_reader import CardReaderDriver
from drivers.flf1.codec import encode_frame
from floord.contract import EventType
from floord.events import DeviceEvent
from floord.profiles import (
    PROFILES_DIR,
    DeviceProfile,
    ProfileError,
    available_profiles,
    load_profile,
)

pytestmark = pytest.mark.unit

READER = load_profile("ref-card-reader")


def with_beats(beats: Any) -> dict[str, Any]:
    raw = yaml.safe_load((PROFILES_DIR / "ref-card-reader.yaml").read_text())
    raw["timeouts"]["heartbeat_loss_beats"] = beats
    return raw


def losses(profile: DeviceProfile, times: list[float]) -> list[DeviceEvent]:
    """The heartbeat losses reported when the device's HBT frames arrive at `times`."""
    driver = CardReaderDriver(profile)
    out: list[DeviceEvent] = []
    for seq, at in enumerate(times):
        for item in driver.feed(encode_frame(seq, "HBT", (), "crc16-ccitt"), at):
            if isinstance(item, DeviceEvent):
                out.append(item)
    assert all(e.type == EventType.DEVICE_HEARTBEAT_LOST for e in out)
    return out


def test_the_default_is_three_beats_in_every_flf1_profile() -> None:
    assert READER.timeouts.heartbeat_loss_beats == 3
    for name in available_profiles():
        assert load_profile(name).timeouts.heartbeat_loss_beats == 3


def test_a_half_second_hiccup_is_not_a_loss() -> None:
    # Beats every second; one comes 0.5 s late, the next on time again.
    assert losses(READER, [0.0, 1.0, 2.5, 3.0, 4.0]) == []
    # Even two beats missed in a row (2.5 s) are no loss.
    assert losses(READER, [0.0, 1.0, 3.5, 4.5]) == []


def test_three_missed_beats_are_a_loss() -> None:
    (lost,) = losses(READER, [0.0, 1.0, 4.5, 5.5])
    assert lost.data == {"missed": 3}
    (lost,) = losses(READER, [0.0, 10.0])
    assert lost.data == {"missed": 9}


def test_the_profile_sets_the_threshold() -> None:
    strict = DeviceProfile.model_validate(with_beats(1))
    assert losses(strict, [0.0, 1.0, 2.5]) == [
        DeviceEvent(EventType.DEVICE_HEARTBEAT_LOST, {"missed": 1})
    ]
    lenient = DeviceProfile.model_validate(with_beats(5))
    assert losses(lenient, [0.0, 4.5]) == []
    assert [e.data for e in losses(lenient, [0.0, 5.5])] == [{"missed": 5}]


@pytest.mark.parametrize("beats", [0, -1, 61, 2.5, "3", True, None])
def test_the_profile_schema_refuses_a_bad_threshold(tmp_path: Path, beats: Any) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(with_beats(beats)))
    with pytest.raises(ProfileError) as caught:
        load_profile(str(path))
    assert f"{path}: timeouts.heartbeat_loss_beats: " in str(caught.value)


@pytest.mark.parametrize(
    ("key", "value"),
    [("interval_s", 0), ("interval_s", True), ("kinds", 0), ("fault_after", 0), ("sample", 1)],
)
def test_the_profile_schema_refuses_a_bad_protocol_error_policy(
    tmp_path: Path, key: str, value: Any
) -> None:
    raw = with_beats(3)
    raw["protocol_errors"] = {key: value}
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(raw))
    with pytest.raises(ProfileError) as caught:
        load_profile(str(path))
    assert f"{path}: protocol_errors.{key}: " in str(caught.value)
