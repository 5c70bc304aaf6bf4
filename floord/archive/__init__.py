"""The floor's archive: every event of every table box, kept in one database
(PostgreSQL, or a SQLite file), and read back by the floor's reports (`reader.py`)."""
