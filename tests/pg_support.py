"""Test support: a real PostgreSQL server in a temporary folder (bench/local_postgres.py,
shared with the load bench), and the mark of the tests that need one: skipped, saying
why, where PostgreSQL or psycopg is not installed (scripts/ensure-test-tools.sh installs
Debian's postgresql with apt-get when run as root, as CI does).
"""

from __future__ import annotations

import pytest

from bench.local_postgres import Postgres, why_not

__all__ = ["Postgres", "requires_postgres"]

requires_postgres = pytest.mark.skipif(why_not() is not None, reason=why_not() or "")
