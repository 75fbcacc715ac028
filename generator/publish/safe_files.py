"""Link-safe file writes: nothing read from the working tree can make a write land elsewhere.

Every generated file, the swap journal, ``data/editions.yaml`` and the JSON Schemas are written by one
helper, :func:`write_file`: the folders on the way are opened with ``O_NOFOLLOW`` (a
symbolic link anywhere below the folder written into stops the write), the bytes go to a
new temporary file beside the target, and that file is renamed over the target, so a
reader sees the old file or the new one and a link at the target is replaced, never
written through. :func:`remove_file` and :func:`remove_tree` remove without following
links; :func:`check_output_folder` refuses an output folder the build could not replace.

Messages for the person building go to the ``gpu-guide`` logger (the command line prints
them on stderr); refusals are :class:`OutputError`, whose text says why and the fix.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import shutil
import stat
from pathlib import Path
from typing import Any

log = logging.getLogger("gpu-guide")

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class OutputError(Exception):
    """``docs/`` or ``site/`` cannot be written safely; nothing was changed. ``str()`` says why and the fix."""


def warn(message: str) -> None:
    """Tell the person building about something left alone or left behind (never silent)."""
    log.warning(message)


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


# --------------------------------------------------------------------------- writing and removing


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


def write_file(root: Path, rel: str, data: bytes, *, shown: str | None = None) -> None:
    """Write ``root/rel`` in one step, never following a symbolic link on the way or at ``rel``.

    The folders below ``root`` are opened (created when missing) with ``O_NOFOLLOW``; the
    bytes go to a new temporary file beside the target (``O_EXCL | O_NOFOLLOW``), which is
    then renamed over it. ``shown`` names the file in messages (default ``ROOT-NAME/rel``).
    Raises :class:`OutputError` saying why (a link on the way, a full disk), leaving nothing
    behind.
    """
    label = shown or f"{root.name}/{rel}"
    parts = rel.split("/")
    try:
        fds = _open_folders(root, parts[:-1], create=True)
    except OSError as exc:
        raise OutputError(f"cannot write {label}: {exc.strerror} at a folder on the way (a link?)") from None
    here, name = fds[-1], parts[-1]
    tmp = f".{name}.{os.getpid()}.tmp"
    try:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp, dir_fd=here)  # a leftover (or a planted link) goes; never written through
        out = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666, dir_fd=here)
        try:
            with os.fdopen(out, "wb") as fh:
                fh.write(data)
            os.rename(tmp, name, src_dir_fd=here, dst_dir_fd=here)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=here)
            raise
    except OSError as exc:
        raise OutputError(f"cannot write {label}: {exc.strerror or exc}") from None
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
