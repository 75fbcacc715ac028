"""``python -m generator`` is ``gpu-guide``."""

import sys

from generator.cli.main import main

sys.exit(main())
