"""``python -m claude_sync "prompt"``: the command line (see ``claude_sync._cli``)."""

import sys

from ._cli.shell import main

if __name__ == "__main__":
    sys.exit(main())
