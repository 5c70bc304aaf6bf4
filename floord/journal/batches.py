"""The batch sizes on the way from a device's frame to its event on the broker: one
source, `PUBLISH_WINDOW`, and the sizes that must fit around it computed from it.

The path: the runner takes up to `INPUTS_PER_COMMIT` inputs through the engine as one
group and commits them in one transaction (`floord.table.bus`); the commit hands its
rows to the link's feed (`floord.journal.feed`, at most `FEED_LIMIT` rows), and the link
publishes them at QoS 1 in batches of `PUBLISH_WINDOW`, each waiting for its PUBACKs
before the next (`floord.mqtt.outbox`); a link that must read the journal instead (the
start, a backlog, a gap in the feed) reads one batch at a time (`JOURNAL_READ_LIMIT`).
These sizes only make the path fast; none is a promise of the record: an overflowed
feed sends the link back to the journal, which holds everything.

- `PUBLISH_WINDOW` (100), the source: the QoS 1 messages a link keeps in flight, one
  batch. Large enough that the broker's PUBACKs come back while the batch is still being
  written (a loopback or LAN round trip is far shorter than writing a hundred events),
  small enough that what a lost connection sends again is short.
- `JOURNAL_READ_LIMIT`: a read of the journal gives one batch, no more than it publishes
  before the next look at the feed.
- `FEED_LIMIT`: several batches' rows (`FEED_WINDOWS`), so a link busy with one batch
  finds the next commits in its feed, not dropped.
- `INPUTS_PER_COMMIT`: a whole group's rows fit in the feed beside two batches the link
  has not taken yet (an input stores about `ROWS_PER_INPUT` rows: the device's event and
  the table's). Larger, a burst read in one go (a whole pty buffer) would overflow the
  feed and be read back from the disk, and nothing of it would go out before its long
  commit ends; smaller, the fsyncs an input pays grow.

`floord.journal.shared_commit.MOST` (writes that share one transaction) is not among
them: it counts the writes of different tables queued together, not rows of one path,
and bounds what one failed COMMIT undoes (floord's own policy).
"""

from __future__ import annotations

PUBLISH_WINDOW = 100

JOURNAL_READ_LIMIT = PUBLISH_WINDOW

FEED_WINDOWS = 10
FEED_LIMIT = FEED_WINDOWS * PUBLISH_WINDOW

ROWS_PER_INPUT = 2
INPUTS_PER_COMMIT = (FEED_LIMIT - 2 * PUBLISH_WINDOW) // ROWS_PER_INPUT
