"""The wheel and layout data against 58 Pa. Code § 531.1, § 531.4(e) and § 531.5."""

from __future__ import annotations

from itertools import pairwise

import pytest

from floord.contract import cite
from floord.engine.roulette.layout import (
    DOUBLE_ZERO_ORDER,
    SINGLE_ZERO_ORDER,
    colour,
    loses_even_money,
    offered_wagers,
    on_wheel,
    pocket_index,
    wheel_spec,
    winning_wagers,
)

pytestmark = pytest.mark.unit


def _won(kind: str, number: str) -> set[tuple[str, tuple[str, ...]]]:
    return {(w.name, w.numbers) for w in winning_wagers(kind, number)}


def test_single_zero_wheel_order_is_531_1_b() -> None:
    assert len(SINGLE_ZERO_ORDER) == 37
    assert set(SINGLE_ZERO_ORDER) == {str(n) for n in range(37)}
    assert SINGLE_ZERO_ORDER[:5] == ("0", "32", "15", "19", "4")
    assert SINGLE_ZERO_ORDER[-3:] == ("35", "3", "26")
    assert pocket_index("single_zero", "26") == 36
    assert wheel_spec("single_zero").layout_section == "531.1(b)"


def test_double_zero_wheel_order_is_531_1_c() -> None:
    assert len(DOUBLE_ZERO_ORDER) == 38
    assert set(DOUBLE_ZERO_ORDER) == {str(n) for n in range(37)} | {"00"}
    assert pocket_index("double_zero", "00") == 19
    assert pocket_index("double_zero_as_single", "00") == 19
    assert DOUBLE_ZERO_ORDER[-2:] == ("14", "2")
    assert wheel_spec("double_zero_as_single").layout_section == "531.1(d)"


@pytest.mark.parametrize("order", [SINGLE_ZERO_ORDER, DOUBLE_ZERO_ORDER])
def test_numbers_alternate_red_and_black_around_the_wheel(order: tuple[str, ...]) -> None:
    # § 531.1(b), (c): zeros green, 1-36 "colored alternately red and black".
    assert colour("0") == "green" and colour("00") == "green"
    for segment in (order[1:19], order[20:]) if "00" in order else (order[1:],):
        colours = [colour(n) for n in segment]
        assert all(a != b for a, b in pairwise(colours)), segment
    assert sum(colour(str(n)) == "red" for n in range(1, 37)) == 18


def test_on_wheel_rejects_what_the_wheel_cannot_produce() -> None:
    assert on_wheel("double_zero", "00") and not on_wheel("single_zero", "00")
    assert not on_wheel("single_zero", "37") and not on_wheel("single_zero", 17)
    with pytest.raises(ValueError, match="not a pocket"):
        winning_wagers("single_zero", "00")
    with pytest.raises(ValueError, match="unknown wheel kind"):
        wheel_spec("triple_zero")


def test_17_on_single_zero_wins_every_wager_holding_it() -> None:
    # 17 is in row 6 (16, 17, 18), the middle column, the second dozen, black, odd, 1-18.
    expected = {
        ("straight", ("17",)),
        ("split", ("14", "17")),
        ("split", ("16", "17")),
        ("split", ("17", "18")),
        ("split", ("17", "20")),
        ("three_numbers", ("16", "17", "18")),
        ("four_numbers", ("13", "14", "16", "17")),
        ("four_numbers", ("14", "15", "17", "18")),
        ("four_numbers", ("16", "17", "19", "20")),
        ("four_numbers", ("17", "18", "20", "21")),
        ("six_numbers", tuple(str(n) for n in range(13, 19))),
        ("six_numbers", tuple(str(n) for n in range(16, 22))),
        ("column", tuple(str(n) for n in range(2, 37, 3))),
        ("dozen", tuple(str(n) for n in range(13, 25))),
        ("black", tuple(str(n) for n in range(1, 37) if colour(str(n)) == "black")),
        ("odd", tuple(str(n) for n in range(1, 37, 2))),
        ("1-18", tuple(str(n) for n in range(1, 19))),
    }
    assert _won("single_zero", "17") == expected
    assert not loses_even_money("17")


def test_2_on_double_zero_wins_the_zero_groups_and_first_five() -> None:
    won = _won("double_zero", "2")
    assert ("split", ("0", "2")) in won and ("split", ("00", "2")) in won
    assert ("three_numbers", ("0", "1", "2")) in won
    assert ("three_numbers", ("0", "00", "2")) in won
    assert ("three_numbers", ("00", "2", "3")) in won
    assert ("first_five", ("0", "00", "1", "2", "3")) in won
    sections = {w.section for w in winning_wagers("double_zero", "2") if "00" in w.numbers}
    assert "531.4(e)(3)(i)" in sections and "531.4(e)(5)" in sections


def test_zero_on_single_zero() -> None:
    assert _won("single_zero", "0") == {
        ("straight", ("0",)),
        ("split", ("0", "1")),
        ("split", ("0", "2")),
        ("split", ("0", "3")),
        ("three_numbers", ("0", "1", "2")),
    }
    assert loses_even_money("0")


def test_double_zero_on_double_zero() -> None:
    assert _won("double_zero", "00") == {
        ("straight", ("00",)),
        ("split", ("0", "00")),
        ("split", ("00", "2")),
        ("split", ("00", "3")),
        ("three_numbers", ("0", "00", "2")),
        ("three_numbers", ("00", "2", "3")),
        ("first_five", ("0", "00", "1", "2", "3")),
    }
    assert loses_even_money("00")


def test_double_zero_as_single_offers_no_wager_on_00() -> None:
    # § 531.1(d)(1): the 00 wager area is covered.
    assert not any("00" in w.numbers for w in offered_wagers("double_zero_as_single"))
    assert winning_wagers("double_zero_as_single", "00") == []
    assert _won("double_zero_as_single", "0") == {
        ("straight", ("0",)),
        ("split", ("0", "1")),
        ("split", ("0", "2")),
        ("three_numbers", ("0", "1", "2")),
    }
    assert wheel_spec("double_zero_as_single").even_money_section == "531.5(c)(3)"


@pytest.mark.parametrize("kind", ["single_zero", "double_zero", "double_zero_as_single"])
def test_odds_and_citations_are_531_5_a_and_531_4_e(kind: str) -> None:
    minimum = {
        "straight": "35 to 1",
        "split": "17 to 1",
        "three_numbers": "11 to 1",
        "four_numbers": "8 to 1",
        "first_five": "6 to 1",
        "six_numbers": "5 to 1",
        "column": "2 to 1",
        "dozen": "2 to 1",
    }
    for wager in offered_wagers(kind):
        body = wager.to_dict()
        assert body["odds"] == minimum.get(wager.name, "1 to 1")
        assert body["rule"].startswith(cite("531.4(e)"))
        assert len(wager.numbers) == {"straight": 1, "split": 2, "three_numbers": 3}.get(
            wager.name, len(wager.numbers)
        )


@pytest.mark.parametrize("kind", ["single_zero", "double_zero"])
def test_every_number_is_in_one_column_dozen_and_even_money_group(kind: str) -> None:
    for n in range(1, 37):
        names = [w.name for w in winning_wagers(kind, str(n))]
        for each in ("straight", "column", "dozen"):
            assert names.count(each) == 1
        assert sum(names.count(x) for x in ("red", "black")) == 1
        assert sum(names.count(x) for x in ("odd", "even")) == 1
        assert sum(names.count(x) for x in ("1-18", "19-36")) == 1
    for zero in wheel_spec(kind).zeros_offered:
        names = {w.name for w in winning_wagers(kind, zero)}
        assert not names & {"column", "dozen", "red", "black", "odd", "even", "1-18", "19-36"}


def test_double_zero_layout_offers_every_wager_kind_of_531_4_e() -> None:
    names = {w.name for w in offered_wagers("double_zero")}
    assert names == {
        "straight", "split", "three_numbers", "four_numbers", "first_five", "six_numbers",
        "column", "dozen", "red", "black", "odd", "even", "1-18", "19-36",
    }  # fmt: skip
    counts = {n: sum(w.name == n for w in offered_wagers("double_zero")) for n in names}
    assert counts["straight"] == 38
    assert counts["split"] == 24 + 33 + 5  # across, down, and 0-1, 0-2, 00-2, 00-3, 0-00
    assert counts["three_numbers"] == 12 + 3
    assert counts["four_numbers"] == 22
    assert counts["six_numbers"] == 11
    assert "first_five" not in {w.name for w in offered_wagers("single_zero")}
