"""`floord report floor`: a floor's tables, dealers, halts, alerts, inspections, deck
receipts and procedure violations over a period, computed from the tables' events.

The computation takes any iterable of envelopes (an archive's, or journals' read back
by `sources.py`), so the same figures come from either; every figure is defined in
docs/reports.md by the events it is counted from.
"""
