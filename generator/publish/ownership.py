"""Which files in ``docs/`` the generator owns, and what a write would change there.

The generator owns a file when it is listed in ``docs/.generated.json`` (the manifest of
the last build) or carries :data:`~generator.pages.render.MARKER`. Everything else in
``docs/`` is hand-written and is neither overwritten nor removed: a generated path that
collides with one is an error. A committed manifest is input like any other file, so its
entries must be relative paths inside ``docs/`` without ``..``, looked up without
following symbolic links; anything else is ignored with a warning, never deleted.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping
from pathlib import Path

from generator.data.problems import Problem
from generator.pages.render import MARKER
from generator.publish.safe_files import link_on_path, safe_relative, warn

MANIFEST = ".generated.json"


def _is_regular_file(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def is_marked(path: Path) -> bool:
    """True when a file's first bytes carry the generated marker."""
    try:
        with path.open("rb") as fh:
            return MARKER.encode() in fh.read(4096)
    except OSError:
        return False


def read_manifest(docs: Path) -> set[str]:
    """The generated files the last build listed, keeping only safe relative paths inside ``docs/``
    (see :func:`manifest_entries`)."""
    return manifest_entries(docs)[0]


def manifest_entries(docs: Path) -> tuple[set[str], dict[str, str]]:
    """The last build's manifest: (safe entries, {dropped entry: why}).

    A committed manifest is input like any other file, and a stale entry is deleted by the
    next build, so entries that could point elsewhere (absolute, ``..``, through a symbolic
    link) are dropped.
    """
    if link_on_path(docs, MANIFEST):
        return set(), {}  # plan() refuses a linked manifest; never read through it
    try:
        data = json.loads((docs / MANIFEST).read_text(encoding="utf-8"))
        entries = [p for p in data.get("files", []) if isinstance(p, str)]
    except (OSError, ValueError, AttributeError):
        return set(), {}
    owned: set[str] = set()
    dropped: dict[str, str] = {}
    for rel in entries:
        link = link_on_path(docs, rel) if safe_relative(rel) else None
        if not safe_relative(rel):
            dropped[rel] = "which is not a path inside docs/ (absolute or with '..'); ignored, nothing was deleted"
        elif link is not None:
            dropped[rel] = f"but docs/{link} is a symbolic link; ignored, nothing was deleted through it"
        else:
            owned.add(rel)
    return owned, dropped


def manifest_bytes(files: Mapping[str, bytes]) -> bytes:
    body = {"generator": "gpu-guide", "files": sorted(files)}
    return (json.dumps(body, ensure_ascii=False, indent=1, sort_keys=True) + "\n").encode()


def plan(docs: Path, files: Mapping[str, bytes]) -> tuple[list[str], list[str], list[Problem]]:
    """What a write would change: (changed or new paths, stale generated paths, conflicts).

    A conflict is a hand-written file in the way, or a symbolic link on the way to a
    generated file (writing there would change whatever the link points to).
    """
    owned, dropped = manifest_entries(docs)
    for rel, why in dropped.items():
        if rel not in files:  # a generated path behind a link is refused below instead
            warn(f"docs/{MANIFEST} lists {rel!r}, {why}")
    changed: list[str] = []
    conflicts: list[Problem] = []
    links: set[str] = set()
    for rel in [*sorted(files), MANIFEST]:
        if not safe_relative(rel):
            conflicts.append(Problem(f"docs/{rel}", 1, 1, "", "is not a path inside docs/; report this as a bug"))
            continue
        link = link_on_path(docs, rel)
        if link is not None and link not in links:
            links.add(link)
            conflicts.append(
                Problem(
                    f"docs/{link}",
                    1,
                    1,
                    "",
                    f"is a symbolic link, and the generator writes docs/{rel} there; it never writes through "
                    "links (the change would land outside docs/): replace the link with a real folder or file",
                )
            )
    for rel, data in sorted(files.items()):
        if not safe_relative(rel) or link_on_path(docs, rel) is not None:
            continue
        target = docs / rel
        if target.is_file():
            if rel not in owned and not is_marked(target):
                conflicts.append(
                    Problem(
                        f"docs/{rel}",
                        1,
                        1,
                        "",
                        "is hand-written (no generated marker) but the generator wants to write it; "
                        "rename or delete the hand-written file",
                    )
                )
                continue
            if target.read_bytes() == data:
                continue
        changed.append(rel)
    stale = sorted(rel for rel in owned - set(files) if rel != MANIFEST and _is_regular_file(docs / rel))
    return changed, stale, conflicts
