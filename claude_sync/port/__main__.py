"""``python -m claude_sync.port [-w | --check] [--diff] [-v] PATH…``: see ``claude_sync.port.cli``.

A file-size limit (``ulimit -f``) would end the process with ``SIGXFSZ`` in the middle of a
write, leaving its temporary file behind; the signal is ignored so that the write fails with
``EFBIG`` instead, the temporary file is removed and the file is reported as not written.
"""

import signal
import sys

from .cli import main

if hasattr(signal, "SIGXFSZ"):
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
sys.exit(main())
