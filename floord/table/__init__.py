"""One table at run time: its bus, its runner, its live surveillance."""
