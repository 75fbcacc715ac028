"""One writer at a time: the lock every command that writes ``docs/``, ``site/`` or ``data/`` takes.

``build``, each of ``serve``'s rebuilds and ``edition`` hold an exclusive ``flock`` on
``.gpu-guide.lock`` in the project folder from before staging until the staging folders
are cleaned up. A second writer waits (the caller's ``wait``: the command line's
``GPU_GUIDE_LOCK_WAIT`` seconds, default 60), then gives up naming the process that holds the lock; without the lock two builds could
leave ``docs/`` from one data set and ``site/`` from another.

The lock belongs to the open file, so it is released when its holder exits for any
reason (even SIGKILL); the file itself stays (it is git-ignored) and only carries the
holder's process id for the message.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path

from generator.publish.safe_files import OutputError, log

LOCK_FILE = ".gpu-guide.lock"
#: Seconds a second writer waits for the first unless the operator says (``GPU_GUIDE_LOCK_WAIT``,
#: read by the command line).
DEFAULT_WAIT = 60.0

#: Locks this process holds (project folder -> depth), so nested writers do not wait on themselves.
_held: dict[Path, int] = {}


class LockBusy(OutputError):
    """Another process held the lock for the whole wait."""

    def __init__(self, root: Path, holder: int | None, waited: float):
        who = f"gpu-guide process {holder}" if holder else "another gpu-guide process"
        waiting = f"gave up after waiting {waited:g} s: " if waited > 0 else ""
        super().__init__(f"{waiting}{who} is writing docs/ and site/ in {root}; try again when it has finished")
        self.holder = holder


@contextlib.contextmanager
def write_lock(root: Path, wait: float) -> Iterator[None]:
    """Hold the project's write lock for the block; raise :class:`LockBusy` after ``wait`` seconds."""
    key = root.resolve()
    if key in _held:
        _held[key] += 1
        try:
            yield
        finally:
            _held[key] -= 1
        return
    limit = wait
    fd = _open(root / LOCK_FILE)
    try:
        if not _try_lock(fd):
            holder = _holder(fd)
            who = f"gpu-guide process {holder}" if holder else "another gpu-guide process"
            if limit > 0:
                log.info(f"waiting up to {limit:g} s for {who}, which is writing docs/ and site/ …")
            deadline = time.monotonic() + limit
            while not _try_lock(fd):
                if time.monotonic() >= deadline:
                    raise LockBusy(root, _holder(fd) or holder, limit)
                time.sleep(0.1)
        with contextlib.suppress(OSError):  # a lock file we may only read still locks
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        _held[key] = 1
        try:
            yield
        finally:
            del _held[key]
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
    finally:
        os.close(fd)  # releases the lock


def _open(path: Path) -> int:
    flags = os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        return os.open(path, os.O_RDWR | flags, 0o644)
    except PermissionError as denied:
        try:  # someone else's lock file that we may only read still locks
            return os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            raise OutputError(
                f"cannot create the lock file {path}: {denied.strerror}; the project folder must be writable by you"
            ) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OutputError(
                f"{path.name} is a symbolic link; delete it (the build keeps its lock file there)"
            ) from None
        raise OutputError(f"cannot open the lock file {path}: {exc.strerror}") from None


def _try_lock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _holder(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None
