"""Makes ``app`` importable from the tests (the example is a folder, not a package)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
