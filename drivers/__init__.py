"""Device drivers: bytes in, typed events out, commands out. No I/O, no game rules."""
