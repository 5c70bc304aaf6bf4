"""A Big Six table's layout and devices, validated by `floord check` (58 Pa. Code § 533.1)."""

from __future__ import annotations

from pathlib import Path

import pytest
from config_support import config_problems

from floord.engine.big_six.layout import CLASS_COUNTS, ORDER_533_1_B, read_layout

pytestmark = pytest.mark.unit

BIG_SIX = {"id": "bigsix", "profile": "ref-big-six", "port": "/dev/ttyUSB4"}
WHEEL = {"id": "wheel", "profile": "cammegh-ss2", "port": "/dev/ttyUSB0"}
THEMES = {"cherry": "$1", "lemon": "$2", "plum": "$5", "bell": "$10", "seven": "$20",
          "star": "flag", "clown": "joker"}  # fmt: skip
THEMED = [{c: s for s, c in THEMES.items()}[c] for c in ORDER_533_1_B]


def check(tmp_path: Path, rules: dict | None = None, devices: list | None = None) -> list[str]:
    table = {"id": "B6", "game": "big_six", "devices": devices or [BIG_SIX]}
    if rules is not None:
        table["rules"] = rules
    return config_problems(tmp_path, [table])


def test_the_default_layout_is_533_1_b_with_the_counts_of_533_1_a() -> None:
    layout = read_layout(None, None)
    assert len(layout.sections) == 54 and layout.sections[0].symbol == "joker"
    assert layout.sections[27].symbol == "flag"
    for pay_class, count in CLASS_COUNTS.items():
        assert sum(s.pay_class == pay_class for s in layout.sections) == count
    assert CLASS_COUNTS == {"$1": 23, "$2": 15, "$5": 8, "$10": 4, "$20": 2, "flag": 1, "joker": 1}


def test_default_and_themed_layouts_pass(tmp_path: Path) -> None:
    assert check(tmp_path) == []
    assert check(tmp_path, {"layout": THEMED, "symbols": THEMES}) == []


def test_a_layout_with_wrong_counts_is_refused_citing_533_1_a(tmp_path: Path) -> None:
    layout = list(ORDER_533_1_B)
    layout[1] = "$2"  # one $1 fewer, one $2 more
    problems = "\n".join(check(tmp_path, {"layout": layout}))
    assert (
        "tables.0.rules: layout: 23 section(s) of $1 expected (58 Pa. Code § 533.1(a))" in problems
    )
    assert "15 section(s) of $2 expected" in problems
    short = "\n".join(check(tmp_path, {"layout": layout[:53]}))
    assert "54 sections expected (58 Pa. Code § 533.1(a)), found 53" in short


def test_a_layout_out_of_order_is_refused_citing_533_1_b(tmp_path: Path) -> None:
    layout = list(ORDER_533_1_B)
    layout[1], layout[2] = layout[2], layout[1]
    problems = "\n".join(check(tmp_path, {"layout": layout}))
    assert "58 Pa. Code § 533.1(b)" in problems and "section 1 is '$2'" in problems


def test_themed_symbols_must_map_to_pay_classes_533_1_c(tmp_path: Path) -> None:
    unmapped = "\n".join(check(tmp_path, {"layout": THEMED}))
    assert "mapped in symbols (58 Pa. Code § 533.1(c))" in unmapped
    wrong = "\n".join(check(tmp_path, {"layout": THEMED, "symbols": {**THEMES, "bell": "$50"}}))
    assert "symbols.bell: one of $1, $2, $5, $10, $20, flag, joker expected" in wrong
    two = dict(THEMES, apple="$1")
    layout = list(THEMED)
    layout[1] = "apple"
    doubled = "\n".join(check(tmp_path, {"layout": layout, "symbols": two}))
    assert "one symbol per pay class" in doubled and "533.1(g)(2)" in doubled
    unused = "\n".join(check(tmp_path, {"symbols": {"kiwi": "$1"}}))
    assert "unused ['kiwi']" in unused


@pytest.mark.parametrize(
    ("devices", "wanted"),
    [([{**BIG_SIX, "id": "a"}, {**BIG_SIX, "id": "b"}],
      "exactly one big six wheel device expected, found 2"),
     ([WHEEL], "tables.0.devices.0: a big six wheel's profile on a big six table expected"),
     ([BIG_SIX, WHEEL], "tables.0.devices.1: a big six wheel's profile on a big six table "
                        "expected, found device 'wheel' of profile 'cammegh-ss2' "
                        "(roulette_wheel)")],
)  # fmt: skip
def test_exactly_one_big_six_wheel(tmp_path: Path, devices: list, wanted: str) -> None:
    assert wanted in "\n".join(check(tmp_path, devices=devices))
