"""The running shuffle watch (`floord.analytics.shuffle_watch`): a slug is caught while
it is dealt, once a shoe; a false shuffle and unshuffled new decks when the shoe ends;
the sides of a double shoe kept apart; what is not a card ignored; a copy of the watch
shares the shoes that ended."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bench.shuffle_models import fair, false_shuffle, new_decks
from floord.analytics.shuffle_stats import longest_common_run
from floord.analytics.shuffle_watch import (
    CLUMPING,
    CORRELATION,
    LONGEST_SHOE,
    SLUG,
    ShuffleSetup,
    ShuffleWatch,
)
from floord.engine.core.copies import deep_copy

pytestmark = pytest.mark.unit

SETUP = ShuffleSetup()


def deal(
    watch: ShuffleWatch, stack: list[str], dealt: int, side: str | None = None
) -> list[dict[str, Any]]:
    alerts = watch.on_event("shoe.loaded", {"side": side, "cards": len(stack)})
    for card in stack[:dealt]:
        alerts += watch.on_event("shoe.card_drawn", {"card": card, "side": side, "count": 1})
    return alerts


def fair_history(watch: ShuffleWatch, rng: random.Random, shoes: int) -> list[str]:
    stack = new_decks(6)
    for _ in range(shoes):
        stack = fair(stack, rng)
        assert deal(watch, stack, 234) == []
    return stack


def test_a_slug_alerts_while_it_is_dealt_once_and_names_the_run() -> None:
    rng = random.Random(11)
    watch = ShuffleWatch(SETUP)
    stack = fair_history(watch, rng, 4)
    run = stack[100:112]
    rest = stack[:100] + stack[112:]
    rng.shuffle(rest)
    slugged = rest[:50] + run + rest[50:]
    alerts = deal(watch, slugged, 61)  # the slug's 11 first cards dealt
    assert [a["test"] for a in alerts] == [SLUG]
    slug = alerts[0]
    assert slug["shoe"] == 5 and slug["compared"] == [1, 2, 3, 4]
    assert slug["run"]["shoe"] == 4 and slug["run"]["at"] == 51
    assert slug["run"]["at_earlier"] == 101
    assert slug["run"]["cards"] == run[: slug["statistic"]]
    assert SETUP.min_slug <= slug["statistic"] <= 11 and slug["p_value"] < SETUP.level_slug
    more = [watch.on_event("shoe.card_drawn", {"card": c}) for c in slugged[61:234]]
    assert all(m == [] for m in more), "once a shoe"
    # The live run is the longest common run the brute force finds.
    shoe = watch.open[None]
    assert shoe.best[0] == longest_common_run(stack[:234], slugged[:234])[0]


def test_a_false_shuffle_alerts_slug_at_once_and_correlation_when_the_shoe_ends() -> None:
    rng = random.Random(12)
    watch = ShuffleWatch(SETUP)
    stack = fair_history(watch, rng, 3)
    kept = false_shuffle(stack, rng)
    alerts = deal(watch, kept, 234)
    assert [a["test"] for a in alerts] == [SLUG]
    assert alerts[0]["cards"] <= 20, "a kept order is caught within the first cards"
    ended = watch.empty(None)
    assert [a["test"] for a in ended] == [CORRELATION]
    found = ended[0]
    assert found["against"] == "previous_shoe" and found["compared"] == [3]
    assert found["pairs"]["observed"] > 150 > 40 > found["pairs"]["expected"]
    assert found["p_value"] < 1e-30


def test_new_decks_barely_shuffled_alert_correlation_and_clumping() -> None:
    watch = ShuffleWatch(SETUP)
    rng = random.Random(13)
    decks = new_decks(6)
    stack = decks[150:] + decks[:150]  # only cut
    assert [a["test"] for a in deal(watch, stack, 234)] == []
    ended = watch.empty(None)
    assert {a["test"] for a in ended} == {CORRELATION, CLUMPING}
    correlation = next(a for a in ended if a["test"] == CORRELATION)
    assert correlation["against"] == "new_deck_order" and correlation["compared"] == []
    clumping = next(a for a in ended if a["test"] == CLUMPING)
    assert clumping["suits"]["observed"] > 200 and clumping["p_value"] < 1e-10
    # A fair shoe after them raises nothing.
    assert deal(watch, fair(stack, rng), 234) + watch.empty(None) == []


def test_the_sides_of_a_double_shoe_are_shoes_of_their_own() -> None:
    rng = random.Random(14)
    watch = ShuffleWatch(SETUP)
    left, right = fair(new_decks(2), rng), fair(new_decks(2), rng)
    assert deal(watch, left, 80, "left") + deal(watch, right, 80, "right") == []
    assert deal(watch, fair(right, rng), 80, "right") == []  # ends right's first shoe
    # Left's stack kept as it was: compared with left's last, not right's.
    alerts = deal(watch, left, 80, "left") + watch.empty("left")
    assert [a["test"] for a in alerts] == [SLUG, CORRELATION]
    assert alerts[0]["side"] == "left" and alerts[0]["run"]["shoe"] == 1
    assert alerts[0]["compared"] == [2, 1], "the earlier shoes of both sides, as they ended"
    assert alerts[1]["shoe"] == 4 and alerts[1]["compared"] == [1]
    assert alerts[1]["against"] == "previous_shoe"
    assert watch.shoes == 4 and sorted(watch.open) == ["right"]


def test_what_is_not_a_card_is_not_counted() -> None:
    watch = ShuffleWatch(SETUP)
    watch.on_event("shoe.loaded", {})
    for card in (None, "", "1S", "XX", 7, "as"):
        assert watch.on_event("shoe.card_drawn", {"card": card}) == []
    assert watch.open[None].cards == ["AS"]
    assert watch.on_event("shoe.cutting_card", {"count": 3}) == []


@pytest.mark.parametrize(
    ("kwargs", "says"),
    [
        ({"level_slug": 0}, "level_slug must be a number strictly between 0 and 1"),
        ({"level_clumping": True}, "level_clumping must be a number"),
        ({"min_slug": 1}, "min_slug must be an integer of at least 2"),
        ({"history": 0}, "history must be an integer of at least 1"),
        ({"min_cards": 5}, "min_cards must be an integer of at least 10"),
    ],
)
def test_a_setup_out_of_range_is_refused(kwargs: dict[str, Any], says: str) -> None:
    with pytest.raises(ValueError, match=says):
        ShuffleSetup(**kwargs)


def test_a_copy_shares_the_shoes_that_ended_and_copies_the_one_being_dealt() -> None:
    rng = random.Random(15)
    watch = ShuffleWatch(SETUP)
    fair_history(watch, rng, 2)
    watch.on_event("shoe.loaded", {})
    watch.on_event("shoe.card_drawn", {"card": "AS"})
    copy = deep_copy(watch)
    assert copy.history[0] is watch.history[0]
    assert copy.open[None].earlier is watch.open[None].earlier
    copy.on_event("shoe.card_drawn", {"card": "KD"})
    assert watch.open[None].cards == ["AS"] and copy.open[None].cards == ["AS", "KD"]


def test_a_shoe_never_loaded_again_ends_at_the_most_cards_one_stack_holds() -> None:
    """A continuous shuffler (or a lost `shoe.loaded`): the reads are cut into shoes."""
    rng = random.Random(16)
    watch = ShuffleWatch(SETUP)
    cards = fair(new_decks(8), rng) + fair(new_decks(8), rng)
    watch.on_event("shoe.loaded", {})
    for card in cards[:LONGEST_SHOE]:
        watch.on_event("shoe.card_drawn", {"card": card})
    assert watch.shoes == 1 and len(watch.open[None].cards) == LONGEST_SHOE
    watch.on_event("shoe.card_drawn", {"card": cards[LONGEST_SHOE]})
    assert watch.shoes == 2 and [s.number for s in watch.history] == [1]
    assert watch.open[None].cards == [cards[LONGEST_SHOE]]


def test_a_saved_watch_goes_on_as_one_that_never_stopped() -> None:
    """`floord.analytics.shuffle_state`: a double shoe whose left side began before the
    right's last shoes ended (so its earlier shoes are no longer the history), saved
    mid-shoe and taken up, deals the rest to the same alerts and state as the watch that
    never stopped: the slug of shoe 2's cards that it deals after the save included."""
    from floord.analytics.shuffle_state import load_shuffle, shuffle_state

    rng = random.Random(7)
    live = ShuffleWatch(ShuffleSetup(history=2))
    stack = fair_history(live, rng, 2)
    live.on_event("shoe.empty", {"side": None})  # shoe 2 ends: the history is 1 and 2
    rest = stack[:100] + stack[112:]
    rng.shuffle(rest)
    left = rest[:80] + stack[100:112] + rest[80:]  # shoe 2's cards 101 to 112, kept
    assert deal(live, left, 60, side="L") == []  # begins against shoes 1 and 2
    for _ in range(2):  # the right side ends two shoes: the history moves on
        stack = fair(stack, rng)
        deal(live, stack, 200, side="R")
        live.on_event("shoe.empty", {"side": "R"})
    saved = shuffle_state(live)
    assert [d["number"] for d in saved["history"]] != [
        d["number"] for d in saved["open"][0]["earlier"]
    ]
    resumed = ShuffleWatch(ShuffleSetup(history=2))
    load_shuffle(resumed, saved)
    assert shuffle_state(resumed) == saved

    def rest(watch: ShuffleWatch) -> list[dict[str, Any]]:
        alerts = []
        for card in left[60:200]:
            alerts += watch.on_event("shoe.card_drawn", {"card": card, "side": "L"})
        return alerts + watch.on_event("shoe.empty", {"side": "L"})

    from_live, from_resumed = rest(live), rest(resumed)
    assert from_resumed == from_live
    assert [a["test"] for a in from_live][:1] == [SLUG] and from_live[0]["run"]["shoe"] == 2
    assert shuffle_state(resumed) == shuffle_state(live)


@pytest.mark.parametrize(
    "change",
    [
        lambda s: {**s, "shoes": -1},
        lambda s: {**s, "history": s["history"] * 3},
        lambda s: {**s, "open": s["open"] * 2},
        lambda s: {**s, "open": [{**s["open"][0], "cards": [1, 2]}]},
    ],
)
def test_a_saved_shuffle_watch_that_does_not_fit_changes_nothing(change: Any) -> None:
    from floord.analytics.shuffle_state import load_shuffle, shuffle_state

    watch = ShuffleWatch(ShuffleSetup(history=2))
    stack = fair_history(watch, random.Random(3), 3)
    deal(watch, stack, 30)
    before = shuffle_state(watch)
    with pytest.raises(ValueError):
        load_shuffle(watch, change(before))
    assert shuffle_state(watch) == before
