"""``python -m claude_sync.port [-w | --check] [--diff] [-v] PATH…``: see ``claude_sync.port.cli``."""

import sys

from .cli import main

sys.exit(main())
