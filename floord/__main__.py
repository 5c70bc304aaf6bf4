"""`python -m floord` is the `floord` command."""

import sys

from floord.cli.main import main

sys.exit(main())
