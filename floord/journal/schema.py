"""The journal's tables, as `CREATE ... IF NOT EXISTS` (schema version 3; the published
watermarks' table is `floord.journal.watermark.SCHEMA`).

`streams` holds each stream's chain head, `pruned` the anchor of a stream whose oldest
events were pruned, `events` every event as stored (its `published` flag is kept for
readers of the file that know only it: see `floord.journal.watermark`; the partial index
`events_unpublished` that older versions kept on it is dropped when a file is opened,
since `watermark.retire_unpublished_index`), `snapshots` each
table's engine state chained to its stream, and `command_ids` the operator commands'
ids already used. docs/journal.md describes each.
"""

SCHEMA = """
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
