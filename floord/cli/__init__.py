"""The `floord` command line: the entry point and one module per verb."""
