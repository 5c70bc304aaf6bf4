"""An adapter process takes ten messages a window from its `cmd` topic and counts the
rest (`floord.adapters.command_budget`)."""

from __future__ import annotations

import pytest

from floord.adapters.command_budget import COMMANDS_A_WINDOW, WINDOW_S, CommandBudget

pytestmark = pytest.mark.unit


def test_ten_a_window_are_taken_the_rest_counted_until_asked() -> None:
    now = [50.0]
    budget = CommandBudget(lambda: now[0])
    assert budget.window_left() == 0.0  # no window yet
    assert [budget.take() for _ in range(COMMANDS_A_WINDOW)] == [True] * COMMANDS_A_WINDOW
    now[0] = 52.5
    assert [budget.take() for _ in range(7)] == [False] * 7
    assert budget.window_left() == pytest.approx(WINDOW_S - 2.5)
    assert budget.take_dropped() == 7
    assert budget.take_dropped() == 0  # reset once read
    now[0] = 50.0 + WINDOW_S  # a new window: ten more
    assert budget.take() is True
    assert budget.window_left() == pytest.approx(WINDOW_S)


def test_a_window_starts_at_the_first_message_after_the_last_ended() -> None:
    now = [0.0]
    budget = CommandBudget(lambda: now[0], window_s=1.0, per_window=2)
    assert (budget.take(), budget.take(), budget.take()) == (True, True, False)
    now[0] = 5.0  # long after: a window of its own from here
    assert (budget.take(), budget.take(), budget.take()) == (True, True, False)
    now[0] = 5.99
    assert budget.take() is False
    now[0] = 6.0
    assert budget.take() is True
    assert budget.dropped == 3
