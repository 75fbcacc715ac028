"""``python -m generator`` is ``gpu-guide``."""

import sys

from generator.cli import main

sys.exit(main())
