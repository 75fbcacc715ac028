"""Write generated files into ``docs/`` atomically, never touching hand-written ones.

The generator owns a file when it is listed in ``docs/.generated.json`` (the
manifest of the last build) or carries :data:`MARKER`. Everything else in ``docs/`` is
hand-written and is neither overwritten nor removed: a generated path that collides
with one is an error.

A write builds the complete new ``docs/`` in a staging folder beside it and swaps the
two folders in one ``renameat2(RENAME_EXCHANGE)`` call, so a build killed at any
moment leaves either the old ``docs/`` or the new one, never a mix. Where the kernel
lacks that call, two renames are used and :func:`recover` repairs an interrupted swap.

``docs/`` and ``site/`` are two folders, so no single call swaps both. :func:`swap_all`
writes a journal naming both complete staging folders before the first swap; a build
killed between the two swaps is finished by the next build (:func:`finish_swaps`), and
one interrupted by an exception is rolled back. Staging folders carry the builder's
process id, so folders left by a killed build are removed by the next one.
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

from generator.data.problems import Problem
from generator.pages.render import MARKER

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
    stale = sorted(rel for rel in owned - set(files) if (docs / rel).is_file() and rel != MANIFEST)
    return changed, stale, conflicts


def stage_docs(docs: Path, files: Mapping[str, bytes]) -> Path:
    """Build the complete new ``docs/`` in a staging folder beside it and return that folder.

    The staging folder holds every hand-written file of ``docs/`` plus ``files``, minus
    generated files that are no longer produced. Nothing in ``docs/`` changes until
    :func:`swap_in`. Raises :class:`FileExistsError` naming hand-written files in the way.
    """
    finish_swaps(docs.parent)
    recover(docs)
    remove_dead_staging(docs.parent)
    _changed, stale, conflicts = plan(docs, files)
    if conflicts:
        raise FileExistsError("\n".join(p.format() for p in conflicts))
    all_files = dict(files)
    all_files[MANIFEST] = manifest_bytes(files)
    staging = Path(tempfile.mkdtemp(prefix=f".docs-staging-{os.getpid()}-", dir=docs.parent))
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


#: Journal of a two-folder swap in progress, in the folder that holds docs/ and site/.
JOURNAL = ".gpu-guide-swap.json"


def site_stage_for(docs_stage: Path, site: Path) -> Path:
    """The site staging folder that belongs with a docs staging folder (same pid and suffix)."""
    return site.with_name(docs_stage.name.replace(".docs-staging-", ".site-staging-", 1))


def swap_all(pairs: list[tuple[Path, Path]]) -> None:
    """:func:`swap_in` each ``(new, target)``: all of them or, as far as a kill allows, none.

    The journal is written once every ``new`` folder is complete; a kill after that is
    finished by :func:`finish_swaps` at the next build. An exception part-way (Ctrl-C)
    swaps the done ones back before it propagates.
    """
    if not pairs:
        return
    parent = pairs[0][1].parent
    journal = parent / JOURNAL
    body = [[str(new), str(target), new.stat().st_ino] for new, target in pairs]
    tmp = journal.with_name(f"{JOURNAL}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"pairs": body}), encoding="utf-8")
    os.replace(tmp, journal)
    done: list[tuple[Path, Path]] = []
    try:
        for new, target in pairs:
            swap_in(new, target)
            done.append((new, target))
    except BaseException:
        for new, target in reversed(done):
            if new.exists() and any(new.iterdir()):
                swap_in(new, target)  # exchange back: the old content is in ``new``
        journal.unlink(missing_ok=True)
        raise
    journal.unlink(missing_ok=True)


def finish_swaps(parent: Path) -> None:
    """Complete a :func:`swap_all` that a kill interrupted: every target gets its new folder."""
    journal = parent / JOURNAL
    try:
        pairs = json.loads(journal.read_text(encoding="utf-8"))["pairs"]
    except FileNotFoundError:
        return
    except (OSError, ValueError, KeyError, TypeError):
        journal.unlink(missing_ok=True)  # unreadable: nothing can be finished from it
        return
    for new_name, target_name, inode in pairs:
        new, target = Path(new_name), Path(target_name)
        recover(target)
        if target.exists() and target.stat().st_ino == inode:
            continue  # this one was swapped before the kill
        if new.is_dir() and new.stat().st_ino == inode:
            swap_in(new, target)
    journal.unlink(missing_ok=True)


def remove_dead_staging(parent: Path) -> None:
    """Remove staging folders whose build is gone (killed), keeping any a live build uses."""
    for folder in parent.glob(".*-staging-*"):
        if not folder.name.startswith((".docs-staging-", ".site-staging-")) or not folder.is_dir():
            continue
        pid = folder.name.split("-staging-", 1)[1].split("-", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and _alive(int(pid)):
            continue
        shutil.rmtree(folder, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


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
    return bool(rc == 0)
