"""The journal's tables, as `CREATE ... IF NOT EXISTS` (schema version 3; the published
watermarks' table is `floord.journal.watermark.SCHEMA`).

`streams` holds each stream's chain head, `pruned` the anchor of a stream whose oldest
events were pruned, `events` every event as stored (its `published` flag is kept for
readers of the file that know only it: see `floord.journal.watermark`; the partial index
`events_unpublished` that older versions kept on it is dropped when a file is opened,
since `watermark.retire_unpublished_index`), `snapshots` each
table's engine state chained to its stream, and `command_ids` the operator commands'
ids already used; `events_latches` indexes the latched halts and their lifting.
docs/journal.md describes each.
"""

# The table streams' `table.halted` and `table.resumed` events, found without reading
# every body (`floord.journal.integrity.last_latch`). Partial: an entry for those events
# only, its condition (the JSON guarded as every reader guards it) evaluated on each
# insert. The start check compares this text with the one the file holds, so an index
# made again under another condition is not taken.
LATCH_INDEX = "events_latches"
LATCH_INDEX_SQL = (
    f"CREATE INDEX IF NOT EXISTS {LATCH_INDEX} ON events (stream, seq) WHERE "
    "CASE WHEN json_valid(body) THEN json_extract(body, '$.type') END "
    "IN ('table.halted', 'table.resumed')"
)

SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS streams (
    stream TEXT PRIMARY KEY,
    last_seq INTEGER NOT NULL,
    last_hash TEXT
);
CREATE TABLE IF NOT EXISTS pruned (
    stream TEXT PRIMARY KEY,
    up_to_seq INTEGER NOT NULL,
    last_hash TEXT NOT NULL,
    pruned_before TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    stream TEXT NOT NULL,
    seq INTEGER NOT NULL,
    body TEXT NOT NULL,
    published INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (stream, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snapshots (
    table_id TEXT PRIMARY KEY,
    state TEXT NOT NULL,
    after_seq INTEGER,
    after_hash TEXT,
    hash TEXT
);
CREATE TABLE IF NOT EXISTS command_ids (
    id TEXT PRIMARY KEY,
    ts TEXT NOT NULL
);
"""
    + LATCH_INDEX_SQL
    + ";\n"
)
