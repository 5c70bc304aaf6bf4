"""The floor's archive: every event of every table box, kept once in one database
(PostgreSQL, or a SQLite file), and read back by the floor's reports (`reader.py`).

`floord archive` (`service.py`) subscribes to the floor's `events` and device `events`
topics (one site or many), stores each envelope as received, checks each stream's hash
chain as it stores, drops what it already holds and fills what it missed with signed
`replay` requests (docs/archive.md).
"""
