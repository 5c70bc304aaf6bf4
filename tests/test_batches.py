"""The record path's batch sizes (floord.journal.batches): one source, the rest computed
from it, and every place on the path using them rather than a number of its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from mqtt_link_support import append

from floord.adapters import link as adapter_link
from floord.journal import batches, feed
from floord.journal.store import Journal
from floord.mqtt import link as table_link
from floord.mqtt import outbox, retained
from floord.table import bus

pytestmark = pytest.mark.unit


def test_a_groups_rows_fit_in_the_feed_beside_two_batches_not_taken() -> None:
    rows = batches.INPUTS_PER_COMMIT * batches.ROWS_PER_INPUT
    assert rows + 2 * batches.PUBLISH_WINDOW <= batches.FEED_LIMIT
    # The largest group that fits: one input more would not.
    assert rows + batches.ROWS_PER_INPUT + 2 * batches.PUBLISH_WINDOW > batches.FEED_LIMIT
    assert batches.FEED_LIMIT == batches.FEED_WINDOWS * batches.PUBLISH_WINDOW
    assert batches.JOURNAL_READ_LIMIT == batches.PUBLISH_WINDOW


def test_the_path_uses_the_computed_sizes() -> None:
    assert table_link.DEFAULT_WINDOW == batches.PUBLISH_WINDOW
    assert adapter_link.WINDOW == batches.PUBLISH_WINDOW
    assert feed.FEED_LIMIT == batches.FEED_LIMIT
    assert feed.Feed(["s"])._rows.maxlen == batches.FEED_LIMIT
    assert bus.GROUP_LIMIT == batches.INPUTS_PER_COMMIT


def test_a_read_of_the_journal_gives_one_batch(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.db")
    try:
        append(journal, "t1", batches.JOURNAL_READ_LIMIT + 5)
        rows = journal.unpublished(["t1"])
        assert [seq for _, seq, _ in rows] == list(range(1, batches.JOURNAL_READ_LIMIT + 1))
    finally:
        journal.close()


def test_acknowledgements_are_written_at_the_retained_states_pace() -> None:
    assert outbox.ACKS_WRITTEN_AFTER_S == retained.RETAINED_EVERY_S
