"""The ``gpu-guide`` console script: imports the command line inside the Ctrl-C guard.

Importing the generator (pydantic models, YAML, Jinja) takes a moment; a Ctrl-C then would print a
Python traceback if the import happened outside :func:`generator.cli.main.main`'s handler. This
module imports nothing heavy at its top, so the guard covers the import too.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``gpu-guide``; exit 130 with one line when interrupted while it starts."""
    try:
        from generator.cli.main import main as run
    except KeyboardInterrupt:
        print("Interrupted; nothing was written.", file=sys.stderr)
        return 130
    return run(argv)
