"""`floord archive`: the floor's archive, every event of every stream stored once.

A subscriber of the floor's `events` and device `events` topics (one site or many) that
stores each envelope as received in PostgreSQL (or, for one box or the demo, a SQLite
file), checks each stream's hash chain as it stores, drops what it already holds and
fills what it missed with signed `replay` requests (docs/archive.md).
"""
