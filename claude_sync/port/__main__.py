"""``python -m claude_sync.port FILE…``: see ``claude_sync.port.cli``."""

import sys

from .cli import main

sys.exit(main())
