"""Wheel-integrity analytics for surveillance: pure tests over the results floord sees.

Nothing here does I/O or reads a clock: a watch is fed results and returns alerts, so the
same code runs inside the table's engine and in `floord report wheel` over the journal.
"""
