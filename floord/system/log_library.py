"""structlog, imported without rich: a daemon's memory and start are its own.

structlog imports rich at its own import wherever rich is installed (the console's
extra brings it), only to offer rich's tracebacks to its console renderer; that is 67
modules, about 30 ms and 4 MiB of a `floord run` that never draws a console. So rich is
hidden while structlog is imported (a `None` in `sys.modules` makes an import of it
fail, as on a table box, where it is not installed) and shown again at once: the
console imports it as usual later. floord's console renderer names its traceback
formatter itself (`floord.system.logs`), so logs read the same with or without rich.
Import structlog from here, before anything else imports it.
"""

from __future__ import annotations

import sys

_HIDE = "rich" not in sys.modules and "structlog" not in sys.modules
if _HIDE:
    sys.modules["rich"] = None  # type: ignore[assignment]
try:
    import structlog as structlog
finally:
    if _HIDE:
        del sys.modules["rich"]

__all__ = ["structlog"]
