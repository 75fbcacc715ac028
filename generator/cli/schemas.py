"""``make schemas`` (``python -m generator.cli.schemas``): write the data files' JSON Schemas
(:mod:`generator.data.schemas`) under data/schemas/, through the one link-safe write helper
(:func:`generator.publish.safe_files.write_file`); ``--check`` writes nothing and exits 1 when one
is missing or stale."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from generator.data.datafiles import DATA_FILES
from generator.data.schemas import schema_files, stale_schemas
from generator.publish.safe_files import OutputError, write_file


def write_schemas(root: Path) -> list[str]:
    """Write every schema under ``root`` that is missing or stale; return the paths written.
    A symbolic link on the way stops the write (:class:`OutputError`); one at a schema is replaced."""
    files = schema_files()
    changed = stale_schemas(root)
    for rel in changed:
        write_file(root, rel, files[rel], shown=rel)
    return changed


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
    try:
        changed = write_schemas(args.root)
    except OutputError as exc:
        print(
            f"{exc}\nAborted: the schemas already written stay; fix it and run `make schemas` again.", file=sys.stderr
        )
        return 1
    if changed:
        print(f"Wrote {len(changed)} of {len(DATA_FILES)} JSON Schemas: {', '.join(changed)}")
    else:
        print(f"All {len(DATA_FILES)} JSON Schemas were already current.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
