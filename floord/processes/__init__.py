"""The processes a box runs: the daemon and a remote device adapter."""
