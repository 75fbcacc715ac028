"""``make schemas`` (``python -m generator.cli.schemas``): write the data files' JSON Schemas
(:mod:`generator.data.schemas`) under data/schemas/; ``--check`` writes nothing and exits 1
when one is missing or stale."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from generator.data.datafiles import DATA_FILES
from generator.data.schemas import stale_schemas, write_schemas


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m generator.cli.schemas", description="Write data/schemas/*.schema.json from the record models."
    )
    p.add_argument("--root", type=Path, default=Path.cwd(), help="project folder (default: current folder)")
    p.add_argument("--check", action="store_true", help="write nothing; exit 1 if a schema is missing or stale")
    args = p.parse_args(argv)
    if args.check:
        stale = stale_schemas(args.root)
        if stale:
            print("Stale JSON Schemas (run `make schemas` and commit):", file=sys.stderr)
            for rel in stale:
                print(f"  {rel}", file=sys.stderr)
            return 1
        print(f"OK: {len(DATA_FILES)} JSON Schemas current.")
        return 0
    changed = write_schemas(args.root)
    if changed:
        print(f"Wrote {len(changed)} of {len(DATA_FILES)} JSON Schemas: {', '.join(changed)}")
    else:
        print(f"All {len(DATA_FILES)} JSON Schemas were already current.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
