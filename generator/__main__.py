"""``python -m generator`` is ``gpu-guide``."""

import sys

from generator.cli.entry import main

sys.exit(main())
