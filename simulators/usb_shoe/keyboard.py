"""What a keyboard-wedge shoe types: each card's code, then Enter, as HID boot reports.

A shoe that wedges as a keyboard sends a card as the keystrokes of its code on a US
layout, each key pressed in a report of its own and released in the next (HID 1.11,
boot keyboard reports of 8 bytes); a script of lines says what the simulated shoe
types and when. Kept apart from the pyusb backend so that a test or a scenario can
build the reports and the script without a USB device.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from floord.profiles import DeviceProfile

ENTER = 0x28
LEFT_SHIFT = 0x02
IDLE = bytes(8)


def keystroke(char: str) -> tuple[int, int]:
    """The (modifier, usage id) that types `char` on a US keyboard: letters and digits."""
    if "a" <= char <= "z":
        return 0, 0x04 + ord(char) - ord("a")
    if "A" <= char <= "Z":
        return LEFT_SHIFT, 0x04 + ord(char) - ord("A")
    if char == "0":
        return 0, 0x27
    if "1" <= char <= "9":
        return 0, 0x1E + ord(char) - ord("1")
    raise ValueError(f"a shoe types letters and digits, not {char!r}")


def type_line(text: str) -> list[bytes]:
    """The boot reports of typing `text` and Enter: each key down, then all keys up."""
    reports = []
    for modifier, usage in [*(keystroke(c) for c in text), (0, ENTER)]:
        reports.append(bytes([modifier, 0, usage, 0, 0, 0, 0, 0]))
        reports.append(IDLE)
    return reports


@dataclass(frozen=True)
class Typed:
    """One line the shoe types `after_s` seconds after the previous one (or the claim)."""

    text: str
    after_s: float = 0.0


def card_script(profile: DeviceProfile, cards: Iterable[str], interval_s: float) -> list[Typed]:
    """Draw `cards` ("AS", "TH") one every `interval_s`, typed as the profile's codes."""
    codes = {card: code for code, card in profile.quirks["card_codes"].items()}
    script = []
    for card in cards:
        if card not in codes:
            raise ValueError(f"profile {profile.model}: no code for card {card!r}")
        script.append(Typed(codes[card], interval_s))
    return script
