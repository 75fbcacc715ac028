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

Nothing read from the working tree is trusted to name a place to write or delete:

* manifest entries must be relative paths inside ``docs/`` without ``..``, and are looked
  up without following symbolic links; anything else is ignored with a warning (never
  deleted);
* a symbolic link on the way to a generated file (the file itself or a folder above it
  inside ``docs/``) stops the build before anything is written, and ``docs/`` or ``site/``
  being a link is refused: the build would otherwise write through the link, outside
  the project;
* files are written and removed relative to open folder descriptors with ``O_NOFOLLOW``,
  so even a link that appears during the build is never followed;
* the swap journal may only name this project's own staging folders
  (``.docs-staging-<pid>-*`` / ``.site-staging-<pid>-*`` directly in the project folder)
  and its ``docs``/``site``; other entries are ignored and reported.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import json
import os
import re
import shutil
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from generator.data.problems import Problem
from generator.pages.render import MARKER

MANIFEST = ".generated.json"

#: Journal of a two-folder swap in progress, in the folder that holds docs/ and site/.
JOURNAL = ".gpu-guide-swap.json"

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
#: The names :func:`stage_docs` gives its folders (``tempfile.mkdtemp`` suffixes are [a-z0-9_]).
_STAGING_NAME = re.compile(r"\.(docs|site)-staging-([0-9]+)-[a-z0-9_]+")


class OutputError(Exception):
    """``docs/`` or ``site/`` cannot be written safely; nothing was changed. ``str()`` says why and the fix."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM under ``serve``) during a write; ``message`` says what was really written."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def warn(message: str) -> None:
    """Tell the person building about something left alone or left behind (never silent)."""
    print(f"gpu-guide: warning: {message}", file=sys.stderr)


# --------------------------------------------------------------------------- paths


def safe_relative(rel: str) -> bool:
    """True for a plain relative path below a folder: no absolute path, ``..``, ``.``, empty part or NUL."""
    if not rel or "\0" in rel or "\\" in rel or rel.startswith("/"):
        return False
    return all(part not in ("", ".", "..") for part in rel.split("/"))


def link_on_path(root: Path, rel: str) -> str | None:
    """The first prefix of ``rel`` below ``root`` that is a symbolic link (looked up with lstat), or None."""
    current = root
    parts = rel.split("/")
    for i, part in enumerate(parts):
        current = current / part
        try:
            mode = os.lstat(current).st_mode
        except (FileNotFoundError, NotADirectoryError):
            return None
        if stat.S_ISLNK(mode):
            return "/".join(parts[: i + 1])
        if not stat.S_ISDIR(mode):
            return None
    return None


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


# --------------------------------------------------------------------------- manifest


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


# --------------------------------------------------------------------------- output folders


def check_output_folder(folder: Path) -> None:
    """Refuse an output folder the build cannot replace safely: a symbolic link, not a folder,
    or (with anything inside) not writable by the person building. Raises :class:`OutputError`."""
    name = folder.name
    try:
        st = os.lstat(folder)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode):
        raise OutputError(
            f"{name}/ is a symbolic link (to {os.readlink(folder)}); the build replaces {name}/ as a whole and "
            f"would leave the folder it points to stale: replace the link with a real folder"
        )
    if not stat.S_ISDIR(st.st_mode):
        raise OutputError(f"{name} is not a folder; move it away so the build can create {name}/")
    for here, dirs, _files in os.walk(folder, followlinks=False):
        if not os.access(here, os.W_OK | os.X_OK):
            mode = os.lstat(here).st_mode
            rel = Path(here).relative_to(folder.parent).as_posix()
            raise OutputError(
                f"{rel}/ is not writable by you (owner uid {os.lstat(here).st_uid}, mode {stat.S_IMODE(mode):04o}); "
                f"the build replaces {name}/ as a whole and must remove the old copy: make it writable "
                f"(chmod -R u+w {name}) or build as its owner"
            )
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(here, d))]


def check_project_folder(parent: Path) -> None:
    """The folder holding docs/ and site/ must take the staging folders, lock and journal."""
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(
            f"{parent} is not writable by you; the build writes its staging folders there before swapping "
            "them in: make the project folder writable or build as its owner"
        )


# --------------------------------------------------------------------------- staging


def stage_docs(docs: Path, files: Mapping[str, bytes]) -> Path:
    """Build the complete new ``docs/`` in a staging folder beside it and return that folder.

    The staging folder holds every hand-written file of ``docs/`` plus ``files``, minus
    generated files that are no longer produced. Nothing in ``docs/`` changes until
    :func:`swap_in`. Raises :class:`FileExistsError` naming hand-written files or symbolic
    links in the way, :class:`OutputError` when ``docs/`` itself cannot be replaced.
    """
    parent = docs.parent
    check_project_folder(parent)
    check_output_folder(docs)
    finish_swaps(parent)
    recover(docs)
    remove_dead_staging(parent)
    _changed, stale, conflicts = plan(docs, files)
    if conflicts:
        raise FileExistsError("\n".join(p.format() for p in conflicts))
    all_files = dict(files)
    all_files[MANIFEST] = manifest_bytes(files)
    staging = Path(tempfile.mkdtemp(prefix=f".docs-staging-{os.getpid()}-", dir=parent))
    try:
        if os.path.isdir(docs):
            os.chmod(staging, stat.S_IMODE(os.lstat(docs).st_mode))  # keep docs/'s own permissions
            shutil.copytree(docs, staging, dirs_exist_ok=True, symlinks=True, copy_function=_copy_regular)
        for rel in stale:
            remove_file(staging, rel)
        for rel, data in all_files.items():
            write_file(staging, rel, data)
    except BaseException:
        remove_tree(staging)
        raise
    return staging


def _copy_regular(src: str, dst: str) -> str:
    """copytree's copier: regular files only (a FIFO or device in docs/ would hang or leak the build)."""
    if not stat.S_ISREG(os.lstat(src).st_mode):
        raise OutputError(f"{src} is not a regular file, folder or link; remove it from docs/")
    return str(shutil.copy2(src, dst, follow_symlinks=False))


def _open_folders(root: Path, parts: list[str], *, create: bool) -> list[int]:
    """File descriptors of ``root`` and each folder in ``parts`` below it, opened without following links."""
    fds = [os.open(root, _DIR_FLAGS)]
    try:
        for part in parts:
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o777, dir_fd=fds[-1])
            fds.append(os.open(part, _DIR_FLAGS, dir_fd=fds[-1]))
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise
    return fds


def write_file(root: Path, rel: str, data: bytes) -> None:
    """Write ``root/rel`` as a new file; no symbolic link on the way (or at ``rel``) is ever followed."""
    parts = rel.split("/")
    try:
        fds = _open_folders(root, parts[:-1], create=True)
    except OSError as exc:
        raise OutputError(f"cannot write docs/{rel}: {exc.strerror} at a folder on the way (a link?)") from None
    try:
        try:
            os.unlink(parts[-1], dir_fd=fds[-1])  # the old copy (or a link) goes; it is never written through
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise OutputError(f"cannot replace docs/{rel}: {exc.strerror}") from None
        out = os.open(
            parts[-1], os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666, dir_fd=fds[-1]
        )
        with os.fdopen(out, "wb") as fh:
            fh.write(data)
    finally:
        for fd in fds:
            os.close(fd)


def remove_file(root: Path, rel: str) -> None:
    """Remove the file ``root/rel`` and the folders it leaves empty, never following a link."""
    parts = rel.split("/")
    try:
        fds = _open_folders(root, parts[:-1], create=False)
    except OSError as exc:
        if exc.errno not in (errno.ENOENT, errno.ENOTDIR):
            warn(f"left the stale docs/{rel} in place: {exc.strerror} at a folder on the way")
        return
    try:
        try:
            os.unlink(parts[-1], dir_fd=fds[-1])
        except FileNotFoundError:
            return
        except OSError as exc:
            warn(f"left the stale docs/{rel} in place: {exc.strerror}")
            return
        for i in range(len(parts) - 1, 0, -1):  # fds[i] is the folder parts[i - 1], inside fds[i - 1]
            if os.listdir(fds[i]):
                break
            os.rmdir(parts[i - 1], dir_fd=fds[i - 1])
    finally:
        for fd in fds:
            os.close(fd)


def remove_tree(folder: Path) -> bool:
    """Remove a staging folder; a folder that cannot be removed is reported, never left silently."""
    if not os.path.lexists(folder):
        return True
    failures: list[str] = []

    def failed(_func: Any, path: str, exc_info: Any) -> None:
        failures.append(f"{path}: {getattr(exc_info[1], 'strerror', None) or exc_info[1]}")

    if os.path.islink(folder):
        os.unlink(folder)
        return True
    shutil.rmtree(folder, onerror=failed)
    if os.path.lexists(folder):
        first = failures[0] if failures else "unknown reason"
        warn(f"could not remove the staging folder {folder.name} ({first}); delete it by hand")
        return False
    return True


# --------------------------------------------------------------------------- swapping


def swap_in(new: Path, target: Path) -> None:
    """Make ``new`` live at ``target``; the old content ends up at ``new`` (to be removed)."""
    if not os.path.lexists(target):
        os.rename(new, target)
        new.mkdir()
        return
    if _exchange(new, target):
        return
    # Fallback: two renames, with a sidecar that recover() understands.
    old = target.with_name(f".{target.name}-old")
    if os.path.islink(old):
        os.unlink(old)
    else:
        shutil.rmtree(old, ignore_errors=True)
    os.rename(target, old)
    os.rename(new, target)
    os.rename(old, new)


def site_stage_for(docs_stage: Path, site: Path) -> Path:
    """The site staging folder that belongs with a docs staging folder (same pid and suffix)."""
    return site.with_name(docs_stage.name.replace(".docs-staging-", ".site-staging-", 1))


def swap_all(pairs: list[tuple[Path, Path]]) -> None:
    """:func:`swap_in` each ``(new, target)``: all of them or, as far as a kill allows, none.

    The journal is written once every ``new`` folder is complete; a kill after that is
    finished by :func:`finish_swaps` at the next build. An exception part-way swaps the
    done ones back before it propagates. Ctrl-C and SIGTERM wait until the swaps are done
    (see :func:`deferred_signals`), so an interruption never leaves a mix.
    """
    if not pairs:
        return
    parent = pairs[0][1].parent
    journal = parent / JOURNAL
    body = [[str(new), str(target), new.stat().st_ino] for new, target in pairs]
    _write_journal(journal, json.dumps({"pairs": body}).encode())
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


def _write_journal(journal: Path, data: bytes) -> None:
    tmp = journal.with_name(f"{JOURNAL}.{os.getpid()}.tmp")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)  # a leftover (or a planted link) goes; never written through
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    os.replace(tmp, journal)


@contextlib.contextmanager
def deferred_signals() -> Iterator[None]:
    """Hold Ctrl-C (SIGINT) and SIGTERM until the block ends, then deliver them.

    Used around the swaps: they take microseconds, and finishing them means an
    interruption leaves either the old or the new docs/ and site/, never one of each.
    Outside the main thread (where handlers cannot be set) the block runs as is.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []
    previous = {sig: signal.signal(sig, lambda s, _f: pending.append(s)) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for number in dict.fromkeys(pending):
            signal.raise_signal(number)


def _journal_pairs(parent: Path, raw: Any) -> list[tuple[Path, Path, int, int]] | None:
    """The journal's ``(new, target, inode, pid)`` entries that name this project's own folders;
    None when the journal is not a list of pairs at all. Other entries are reported and dropped."""
    if not isinstance(raw, dict) or not isinstance(raw.get("pairs"), list):
        return None
    out = []
    for entry in raw["pairs"]:
        ok = (
            isinstance(entry, list)
            and len(entry) == 3
            and isinstance(entry[0], str)
            and isinstance(entry[1], str)
            and isinstance(entry[2], int)
        )
        name = os.path.basename(entry[0]) if ok else ""
        found = _STAGING_NAME.fullmatch(name) if ok else None
        if (
            not ok
            or found is None
            or os.path.dirname(entry[0]) != str(parent)
            or entry[1] != str(parent / found.group(1))
        ):
            warn(
                f"{JOURNAL} names {json.dumps(entry)[:200]}, not this project's own staging folder and "
                "docs/ or site/; ignored"
            )
            continue
        out.append((Path(entry[0]), Path(entry[1]), entry[2], int(found.group(2))))
    return out


def finish_swaps(parent: Path) -> None:
    """Complete a :func:`swap_all` that a kill interrupted: every target gets its new folder.

    Only pairs naming this project's own staging folders and its ``docs``/``site`` are
    acted on. A journal of a process that is still running is left alone and the build
    refused: that process is in the middle of its swaps.
    """
    journal = parent / JOURNAL
    if not os.path.lexists(journal):
        return
    try:
        if os.path.islink(journal):
            raise ValueError("a link")
        with journal.open("rb") as fh:
            raw = json.loads(fh.read(1 << 16))
    except (OSError, ValueError):
        raw = None
    pairs = _journal_pairs(parent, raw)
    if pairs is None:
        warn(f"{JOURNAL} is not a swap journal this generator wrote; removed it without acting on it")
        journal.unlink(missing_ok=True)
        return
    live = sorted({pid for *_rest, pid in pairs if pid != os.getpid() and _alive(pid)})
    if live:
        raise OutputError(
            f"process {live[0]} is in the middle of swapping in a new docs/ and site/ (see {JOURNAL}); wait for "
            f"it to finish. If no gpu-guide process {live[0]} is running, delete {JOURNAL} and build again"
        )
    for new, target, inode, _pid in pairs:
        recover(target)
        if os.path.islink(target):
            continue  # refused by check_output_folder; never swap a link away
        if os.path.lexists(target) and os.lstat(target).st_ino == inode:
            continue  # this one was swapped before the kill
        if not os.path.islink(new) and new.is_dir() and new.stat().st_ino == inode:
            swap_in(new, target)
    journal.unlink(missing_ok=True)


def remove_dead_staging(parent: Path) -> None:
    """Remove staging folders whose build is gone (killed), keeping any a live build uses."""
    for folder in sorted(parent.glob(".*-staging-*")):
        found = _STAGING_NAME.fullmatch(folder.name)
        if found is None:
            continue
        if os.path.islink(folder) or not folder.is_dir():
            warn(f"left {folder.name} alone: it is named like a staging folder but is not a folder")
            continue
        pid = int(found.group(2))
        if pid != os.getpid() and _alive(pid):
            continue
        remove_tree(folder)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    except OverflowError:
        return False  # no process has that id
    return True


def recover(target: Path) -> None:
    """Repair a swap interrupted between its two renames (fallback path only)."""
    old = target.with_name(f".{target.name}-old")
    if not os.path.lexists(old):
        return
    if os.path.islink(old):
        warn(f"left {old.name} alone: a symbolic link where the build keeps its swap sidecar")
    elif not os.path.lexists(target):
        os.rename(old, target)
    else:
        remove_tree(old)


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
