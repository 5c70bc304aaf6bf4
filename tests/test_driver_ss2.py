"""The Cammegh SS2 driver against hand-written golden frames and the reference's facts.

Golden cases live in tests/golden/ss2/*.txt (format at the top of each file): real-looking
byte sequences with the exact events and replies each read must give. Every case is also
replayed with each read split at every byte position, because a serial port may cut a
line anywhere and the events must not depend on where.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from drivers.cammegh_ss2 import driver as cammegh_ss2
from drivers.cammegh_ss2.driver import Ss2Driver
from drivers.text import escape_raw
from floord.contract import EventType
from floord.events import DeviceCommand, DeviceEvent, DeviceReply, Request
from floord.profiles import DeviceProfile, load_profile

pytestmark = pytest.mark.unit

GOLDEN_DIR = Path(__file__).resolve().parent / "golden" / "ss2"
Output = DeviceEvent | DeviceReply


@dataclass
class Step:
    now: float
    data: bytes
    expected: list[Output] = field(default_factory=list)


@dataclass
class Case:
    name: str
    pockets: int
    steps: list[Step] = field(default_factory=list)


def _expected(body: str) -> Output:
    kind, rest = body.split(" ", 1)
    if kind == "reply":
        prefix, text = rest.split(" ", 1)
        return DeviceReply(prefix=prefix, text=json.loads(text))
    return DeviceEvent(EventType(kind), json.loads(rest))


def load_cases(path: Path) -> list[Case]:
    """Read one golden file; a line it cannot read is an error naming file and line."""
    cases: list[Case] = []
    for number, line in enumerate(path.read_text(encoding="ascii").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        if line.startswith("=== "):
            name, pockets = line[4:].split(" pockets=")
            cases.append(Case(name=name.strip(), pockets=int(pockets)))
        elif line.startswith("> "):
            now, literal = line[2:].split(" ", 1)
            data = ast.literal_eval(literal)
            if not isinstance(data, bytes):
                raise ValueError(f"{path.name}:{number}: a bytes literal expected")
            cases[-1].steps.append(Step(now=float(now), data=data))
        elif line.startswith("< "):
            cases[-1].steps[-1].expected.append(_expected(line[2:]))
        else:
            raise ValueError(f"{path.name}:{number}: cannot read {line!r}")
    return cases


def golden_cases() -> list[Case]:
    return [case for path in sorted(GOLDEN_DIR.glob("*.txt")) for case in load_cases(path)]


CASES = golden_cases()
PROFILE = load_profile("cammegh-ss2")


def make(pockets: int = 37, profile: DeviceProfile = PROFILE) -> Ss2Driver:
    return Ss2Driver(profile, pockets)


def run_case(case: Case, chunking) -> list[list[Output]]:
    """Feed every step (cut into chunks by `chunking(step_index, data)`); outputs per step."""
    driver = make(case.pockets)
    outputs = []
    for index, step in enumerate(case.steps):
        got: list[Output] = []
        for chunk in chunking(index, step.data):
            got.extend(driver.feed(chunk, step.now))
        outputs.append(got)
    return outputs


def whole(_index: int, data: bytes) -> list[bytes]:
    return [data]


def test_golden_files_hold_the_cases_the_brief_asks_for() -> None:
    names = {case.name for case in CASES}
    assert {
        "full_cycle",
        "same_direction_in_state_3",
        "failed_launch_past_grace",
        "failed_launch_within_grace",
        "ball_not_detected_past_grace",
        "ball_not_detected_within_grace",
        "state_7",
        "component_fault_flag",
        "double_zero_on_single_zero_wheel",
        "double_zero_on_double_zero_wheel",
        "cut_status_tail",
        "cut_frames",
        "malformed_command_replies",
        "replies_interleaved_with_status",
    } <= names
    assert len(names) == len(CASES), "golden case names must be unique"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_golden_case(case: Case) -> None:
    outputs = run_case(case, whole)
    for step, got in zip(case.steps, outputs, strict=True):
        assert got == step.expected, f"{case.name} at now={step.now}: {step.data!r}"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_golden_case_split_at_every_position(case: Case) -> None:
    expected = [step.expected for step in case.steps]
    for index, step in enumerate(case.steps):
        for cut in range(1, len(step.data)):

            def split(i: int, data: bytes, index=index, cut=cut) -> list[bytes]:
                return [data[:cut], data[cut:]] if i == index else [data]

            assert run_case(case, split) == expected, f"{case.name}: step {index} cut at {cut}"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_golden_case_one_byte_at_a_time(case: Case) -> None:
    def bytewise(_i: int, data: bytes) -> list[bytes]:
        return [data[i : i + 1] for i in range(len(data))]

    assert run_case(case, bytewise) == [step.expected for step in case.steps]


def test_whole_stream_split_anywhere_matches_one_feed() -> None:
    stream = b"".join(
        step.data
        for case in CASES
        if case.name in ("full_cycle", "replies_interleaved_with_status", "cut_frames")
        for step in case.steps
    )
    reference = make().feed(stream, 1.0)
    assert any(isinstance(o, DeviceEvent) for o in reference)
    assert any(isinstance(o, DeviceReply) for o in reference)
    for cut in range(1, len(stream)):
        driver = make()
        got = driver.feed(stream[:cut], 1.0) + driver.feed(stream[cut:], 1.0)
        assert got == reference, f"cut at {cut}"


EXPECTED_REQUESTS = {
    "status": (b"*X\r\n", "*X"),
    "respin": (b"*R\r\n", "*R"),
    "identify": (b"*V\r\n", "*V"),
    "firmware": (b"*S\r\n", "*S"),
    "pockets": (b"*T Z\r\n", "*T"),
    "settings": (b"*O\r\n", "*O"),
    "self_test": (b"*F\r\n", "*F"),
    "start_cw": (b"*u 1\r\n", "*u"),
    "start_ccw": (b"*u 3\r\n", "*u"),
    "status_on": (b"*q 1\r\n", "*q"),
    "status_off": (b"*q 0\r\n", "*q"),
    "power_on": (b"*P 1\r\n", "*P"),
    "power_off": (b"*P 0\r\n", "*P"),
}


def test_commands_are_exactly_the_briefs() -> None:
    assert frozenset(EXPECTED_REQUESTS) == Ss2Driver.COMMANDS
    assert cammegh_ss2.DRIVER is Ss2Driver


@pytest.mark.parametrize("name", sorted(EXPECTED_REQUESTS))
def test_encode_every_command(name: str) -> None:
    payload, prefix = EXPECTED_REQUESTS[name]
    timeout = 300.0 if name == "self_test" else PROFILE.timeouts.reply_s
    request = make().encode(DeviceCommand(device="wheel", name=name))
    assert request == Request(name=name, payload=payload, reply_prefix=prefix, timeout_s=timeout)


def test_reply_timeout_follows_the_profile() -> None:
    timeouts = PROFILE.timeouts.model_copy(update={"reply_s": 7.5})
    profile = PROFILE.model_copy(update={"timeouts": timeouts})
    assert make(profile=profile).encode(DeviceCommand("w", "respin")).timeout_s == 7.5
    assert make(profile=profile).encode(DeviceCommand("w", "self_test")).timeout_s == 300.0


def test_encode_unknown_command_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match="'spin_faster'") as info:
        make().encode(DeviceCommand(device="wheel", name="spin_faster"))
    for name in EXPECTED_REQUESTS:
        assert name in str(info.value)


def test_encode_refuses_arguments() -> None:
    with pytest.raises(ValueError, match="no arguments"):
        make().encode(DeviceCommand(device="wheel", name="respin", args={"x": 1}))


def test_status_frame_answers_a_status_poll_after_its_events() -> None:
    driver = make()
    driver.feed(b"*X;6;010;23;0;000;0\r\n", 0.0)
    driver.encode(DeviceCommand("wheel", "status"))
    frame = "*X;1;011;23;0;154;0"
    got = driver.feed(frame.encode() + b"\r\n", 0.5)
    assert got == [
        DeviceEvent(
            EventType.WHEEL_GAME_STARTED,
            {"spin": 11, "state": 1, "rotor_direction": "cw", "rotor_rpm": 15.4},
        ),
        DeviceReply(prefix="*X", text=frame),
    ]
    assert driver.feed(frame.encode() + b"\r\n", 1.0) == []


def test_each_status_poll_gets_one_frame_and_a_bad_frame_answers_none() -> None:
    driver = make()
    driver.encode(DeviceCommand("wheel", "status"))
    driver.encode(DeviceCommand("wheel", "status"))
    got = driver.feed(b"*X;6;010;23;0;0\r\n*X;6;010;23;0;000;0\r\n*X;6;010;23;0;000;0\r\n", 0.0)
    assert [type(o).__name__ for o in got] == ["DeviceEvent", "DeviceReply", "DeviceReply"]
    assert got[0].type == EventType.DEVICE_PROTOCOL_ERROR
    assert driver.feed(b"*X;6;010;23;0;000;0\r\n", 0.5) == []


def test_handshake_asks_version_then_pockets() -> None:
    requests = make().handshake()
    assert [(r.name, r.payload, r.reply_prefix) for r in requests] == [
        ("identify", b"*V\r\n", "*V"),
        ("pockets", b"*T Z\r\n", "*T"),
    ]
    assert all(r.timeout_s == PROFILE.timeouts.reply_s for r in requests)


VERSION = "*V V2.50 Cammegh / Syoptic - SlingShot 2 Roulette Wheel (c) 03/12/18"


def replies(version: str = VERSION, pockets: str = "*T z 37") -> dict[str, DeviceReply]:
    return {"identify": DeviceReply("*V", version), "pockets": DeviceReply("*T", pockets)}


def test_identity_from_the_real_replies() -> None:
    assert make().identity(replies()) == DeviceEvent(
        EventType.DEVICE_IDENTIFIED,
        {
            "maker": "Cammegh",
            "model": "cammegh-ss2",
            "firmware": "V2.50",
            "version_text": "V2.50 Cammegh / Syoptic - SlingShot 2 Roulette Wheel (c) 03/12/18",
            "pockets": 37,
            "serial": None,
        },
    )
    assert make(38).identity(replies(pockets="*T z 38")).data["pockets"] == 38
    # Another pocket count than the table's is reported as it is; the engine judges it.
    assert make(37).identity(replies(pockets="*T z 38")).data["pockets"] == 38


def test_identity_replies_decoded_by_feed_identify_the_wheel() -> None:
    driver = make()
    got = driver.feed(VERSION.encode() + b"\r\n*X;6;010;23;0;000;0\r\n*T z 37\r\n", 0.0)
    by_prefix = {o.prefix: o for o in got if isinstance(o, DeviceReply)}
    event = driver.identity({"identify": by_prefix["*V"], "pockets": by_prefix["*T"]})
    assert event.type == EventType.DEVICE_IDENTIFIED


@pytest.mark.parametrize(
    ("given", "reason"),
    [
        (replies(pockets="*T z 41"), "the wheel reports 41 pockets, not 37 to 40"),
        (replies(pockets="*T Z 37"), "malformed *T z reply"),
        (replies(pockets="*T z"), "malformed *T z reply"),
        (replies(version="*V V2.50"), "malformed *V reply"),
        (replies(version="*V 2.50 Cammegh"), "malformed *V reply"),
        (replies(version="*V V2.50 Acme wheel"), "the *V reply does not name Cammegh"),
        ({"pockets": DeviceReply("*T", "*T z 37")}, "no reply to 'identify' (*V)"),
        ({"identify": DeviceReply("*V", VERSION)}, "no reply to 'pockets' (*T)"),
        (
            {"identify": DeviceReply("NO", "*  NO"), "pockets": DeviceReply("*T", "*T z 37")},
            "reply to 'identify' has prefix 'NO', not '*V'",
        ),
    ],
)
def test_identity_refuses_what_it_cannot_read(given: dict, reason: str) -> None:
    event = make().identity(given)
    assert event.type == EventType.DEVICE_PROTOCOL_ERROR
    assert event.data["reason"] == reason
    assert len(event.data["raw"]) <= 80


def test_reset_forgets_a_partial_line_and_the_game() -> None:
    driver = make()
    assert driver.feed(b"*X;3;011;23;0;160;0\r\n*X;4;01", 0.0) == []
    driver.reset()
    # The partial frame is gone, and a state-4 frame is now the first: no transition.
    assert driver.feed(b"*X;4;011;23;0;161;0\r\n", 0.5) == []
    assert driver.feed(b"17\r\n", 0.6)[0].data == {"spin": 11, "number": "17", "origin": "line"}


def test_reset_ends_an_overlong_discard_and_forgets_status_polls() -> None:
    driver = make()
    driver.encode(DeviceCommand("wheel", "status"))
    assert len(driver.feed(b"Z" * (driver.line_limit + 1), 0.0)) == 1
    driver.reset()
    assert driver.feed(b"*X;6;010;23;0;000;0\r\n", 0.5) == []


def test_same_game_replayed_after_reset_gives_the_same_events() -> None:
    case = next(c for c in CASES if c.name == "full_cycle")
    driver = make()
    first = [driver.feed(step.data, step.now) for step in case.steps]
    driver.reset()
    assert [driver.feed(step.data, step.now) for step in case.steps] == first


def test_first_frame_in_state_3_with_failed_launch_times_grace_from_that_frame() -> None:
    driver = make()
    frame = b"*X;3;060;17;8;160;0\r\n"
    assert [e.data["persistent"] for e in driver.feed(frame, 10.0)] == [False]
    assert driver.feed(frame, 12.9) == []
    assert [e.data["persistent"] for e in driver.feed(frame, 13.0)] == [True]


@pytest.mark.parametrize("pockets", [36, 41, 0])
def test_unsupported_pocket_count_is_refused(pockets: int) -> None:
    with pytest.raises(ValueError, match="pockets"):
        make(pockets)


@pytest.mark.parametrize(
    "key",
    [
        "failed_launch_grace_s",
        "ball_not_detected_grace_s",
        "ball_not_detected_grace_frames",
        "max_line_length",
        "cut_status_tails",
    ],
)
def test_profile_without_a_needed_quirk_is_refused(key: str) -> None:
    quirks = {k: v for k, v in PROFILE.quirks.items() if k != key}
    with pytest.raises(ValueError, match=key):
        make(profile=PROFILE.model_copy(update={"quirks": quirks}))


def test_profile_quirk_of_the_wrong_type_is_refused() -> None:
    quirks = dict(PROFILE.quirks, ball_not_detected_grace_frames="ten")
    with pytest.raises(ValueError, match="ball_not_detected_grace_frames"):
        make(profile=PROFILE.model_copy(update={"quirks": quirks}))


def test_protocol_error_raw_is_escaped_and_at_most_80_characters() -> None:
    assert escape_raw(b"a\\b\r\n\t\x00\x7f\xff") == "a\\\\b\\r\\n\\t\\x00\\x7f\\xff"
    cut = escape_raw(b"\xff" * 100)
    assert cut == "\\xff" * 20
    (event,) = make().feed(b"\x01" * 50 + b"\r\n", 0.0)
    assert event.data["raw"] == "\\x01" * 20


def test_line_limit_is_the_profiles_but_holds_the_version_reply() -> None:
    limit = make().line_limit
    assert limit == max(PROFILE.quirks["max_line_length"], len(VERSION) + 1)
    bigger = PROFILE.model_copy(update={"quirks": dict(PROFILE.quirks, max_line_length=200)})
    assert make(profile=bigger).line_limit == 200


def test_overlong_line_is_one_error_then_resync_at_the_next_lf() -> None:
    driver = make()
    limit = driver.line_limit
    expected_error = DeviceEvent(
        EventType.DEVICE_PROTOCOL_ERROR,
        {"reason": f"line longer than {limit} bytes", "raw": ("A" * (limit + 1))[:80]},
    )
    # Noise with no LF: reported once, as soon as it passes the limit.
    assert driver.feed(b"A" * (limit + 30), 0.0) == [expected_error]
    # Everything up to the next LF is dropped, even what looks like a frame.
    assert driver.feed(b"B" * 300 + b"*X;1;0", 0.1) == []
    assert driver.feed(b"11;23;0;154;0\r\n*X;1;011;23;0;154;0\r\n", 0.2) == []
    assert driver.feed(b"*X;2;012;23;0;158;0\r\n", 0.3) == [
        DeviceEvent(
            EventType.WHEEL_GAME_STARTED,
            {"spin": 12, "state": 2, "rotor_direction": "cw", "rotor_rpm": 15.8},
        )
    ]


def test_overlong_line_is_the_same_error_however_it_arrives() -> None:
    limit = make().line_limit
    stream = b"*X;6;010;23;0;000;0\r\n" + b"C" * (limit + 5) + b"\r\n*R OK\r\n"
    reference = make().feed(stream, 0.0)
    assert [getattr(o, "type", None) for o in reference] == [
        EventType.DEVICE_PROTOCOL_ERROR,
        None,
    ]
    for cut in range(1, len(stream)):
        driver = make()
        assert driver.feed(stream[:cut], 0.0) + driver.feed(stream[cut:], 0.0) == reference


def test_line_exactly_at_the_limit_is_read() -> None:
    driver = make()
    limit = driver.line_limit
    reply = b"*T s " + b"1" * (limit - len(b"*T s ") - 1) + b"\r"
    assert len(reply) == limit
    (got,) = driver.feed(reply + b"\n", 0.0)
    assert got == DeviceReply(prefix="*T", text=reply[:-1].decode())
