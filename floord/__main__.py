"""`python -m floord` is the `floord` command."""

import sys

from floord.cli import main

sys.exit(main())
