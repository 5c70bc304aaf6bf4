"""floord's example driver family: the LW/1 roulette wheel result reporter.

Three parts that never import each other's package: `driver/` (bytes in, events out),
`simulator/` (the device's twin on the same bytes) and the files: `protocol.md`, the
profiles in `profiles/` and the golden frames floord's catalogue tests feed the driver.
`family.py` names them for floord (the entry point in pyproject.toml).
"""
