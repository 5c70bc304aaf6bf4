"""The SQLite journal: the store, its hash chain, migrations, the audit."""
