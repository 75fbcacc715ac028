"""Write generated files into ``docs/`` atomically, never touching hand-written ones.

The generator owns a file when it is listed in ``docs/.generated.json`` (the
manifest of the last build) or carries :data:`MARKER`. Everything else in ``docs/`` is
hand-written and is neither overwritten nor removed: a generated path that collides
with one is an error.

A write builds the complete new ``docs/`` in a staging folder beside it and swaps the
two folders in one ``renameat2(RENAME_EXCHANGE)`` call, so a build killed at any
moment leaves either the old ``docs/`` or the new one, never a mix. Where the kernel
lacks that call, two renames are used and :func:`recover` repairs an interrupted swap.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

from generator.problems import Problem

#: Present in every generated text file, near the top.
MARKER = "gpu-guide: generated file, do not edit"
MANIFEST = ".generated.json"

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def is_marked(path: Path) -> bool:
    """True when a file's first bytes carry the generated marker."""
    try:
        with path.open("rb") as fh:
            return MARKER.encode() in fh.read(4096)
    except OSError:
        return False


def read_manifest(docs: Path) -> set[str]:
    try:
        data = json.loads((docs / MANIFEST).read_text(encoding="utf-8"))
        return {p for p in data.get("files", []) if isinstance(p, str)}
    except (OSError, ValueError, AttributeError):
        return set()


def manifest_bytes(files: Mapping[str, bytes]) -> bytes:
    body = {"generator": "gpu-guide", "files": sorted(files)}
    return (json.dumps(body, ensure_ascii=False, indent=1, sort_keys=True) + "\n").encode()


def plan(docs: Path, files: Mapping[str, bytes]) -> tuple[list[str], list[str], list[Problem]]:
    """What a write would change: (changed or new paths, stale generated paths, conflicts)."""
    owned = read_manifest(docs)
    changed: list[str] = []
    conflicts: list[Problem] = []
    for rel, data in sorted(files.items()):
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
    stale = sorted(
        rel for rel in owned - set(files) if (docs / rel).is_file() and rel != MANIFEST
    )
    return changed, stale, conflicts


def stage_docs(docs: Path, files: Mapping[str, bytes]) -> Path:
    """Build the complete new ``docs/`` in a staging folder beside it and return that folder.

    The staging folder holds every hand-written file of ``docs/`` plus ``files``, minus
    generated files that are no longer produced. Nothing in ``docs/`` changes until
    :func:`swap_in`. Raises :class:`FileExistsError` naming hand-written files in the way.
    """
    recover(docs)
    _changed, stale, conflicts = plan(docs, files)
    if conflicts:
        raise FileExistsError("\n".join(p.format() for p in conflicts))
    all_files = dict(files)
    all_files[MANIFEST] = manifest_bytes(files)
    staging = Path(tempfile.mkdtemp(prefix=".docs-staging-", dir=docs.parent))
    try:
        if docs.exists():
            shutil.copytree(docs, staging, dirs_exist_ok=True, symlinks=True)
        for rel in stale:
            (staging / rel).unlink(missing_ok=True)
            _prune_empty(staging, (staging / rel).parent)
        for rel, data in all_files.items():
            target = staging / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return staging


def _prune_empty(root: Path, folder: Path) -> None:
    while folder != root and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent


def swap_in(new: Path, target: Path) -> None:
    """Make ``new`` live at ``target``; the old content ends up at ``new`` (to be removed)."""
    if not target.exists():
        os.rename(new, target)
        new.mkdir()
        return
    if _exchange(new, target):
        return
    # Fallback: two renames, with a sidecar that recover() understands.
    old = target.with_name(f".{target.name}-old")
    shutil.rmtree(old, ignore_errors=True)
    os.rename(target, old)
    os.rename(new, target)
    os.rename(old, new)


def recover(target: Path) -> None:
    """Repair a swap interrupted between its two renames (fallback path only)."""
    old = target.with_name(f".{target.name}-old")
    if old.exists() and not target.exists():
        os.rename(old, target)
    elif old.exists():
        shutil.rmtree(old, ignore_errors=True)


def _exchange(a: Path, b: Path) -> bool:
    """Atomically exchange two paths with renameat2(2); False when unsupported."""
    libc_name = ctypes.util.find_library("c")
    if not libc_name:
        return False
    libc = ctypes.CDLL(libc_name, use_errno=True)
    fn = getattr(libc, "renameat2", None)
    if fn is None:
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    rc = fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    return rc == 0
