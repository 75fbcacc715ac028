"""``gpu-guide serve``: MkDocs' live preview plus regeneration when data/ or templates/ change.

MkDocs watches docs/ and reloads the browser; this loop watches the generator's own
inputs and rewrites docs/ (without building site/) whenever one of them changes. A
data error is printed and the last good pages stay up. Each rewrite takes the project's
write lock, so a ``gpu-guide build`` run meanwhile waits instead of mixing its pages in.

The preview is incremental: a rewrite writes only the files whose bytes changed (the others
keep their modification times, :func:`generator.publish.swap.stage_docs`), and MkDocs runs
as ``mkdocs serve --dirty``, which rebuilds only pages newer than their built copy. A one-price
edit changes about a dozen of the 240 pages, so MkDocs rebuilds those, not the site. The
navigation stays right because the gpu-guide plugin gives every nav entry its page's title.
The generator side is incremental too: ``serve`` holds one :class:`generator.pipeline.Warm` for
its lifetime, so an edit re-parses only the data files whose bytes changed, reuses the engine's
sizings and the calibration run while the rules and GPUs are unchanged, and renders again only
the pages whose context changed; the bytes are those of a fresh build (tests/test_serve_warm.py).
What a dirty build cannot see, a change to the theme (``templates/overrides``) or to
``mkdocs.yml``, touches every page so that the next rebuild is complete.

The MkDocs child runs in its own process group; Ctrl-C (SIGINT) or SIGTERM to ``serve``
stops that whole group before ``serve`` exits, so no preview is left holding the port.
A port already in use is an error (exit 1) before anything is written.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

from generator.data.problems import DataError, render
from generator.pipeline import Project, Warm, build
from generator.publish.safe_files import OutputError
from generator.publish.swap import Interrupted

#: seconds between looks at the watched files (a look is a few hundred stat calls, about 2 ms)
POLL = 0.1
#: seconds between MkDocs' own looks at docs/ (its default, 0.5 s, was a quarter of a one-price edit's
#: wait on average; a look at docs/ is about 3 ms of the child's time)
MKDOCS_POLL = 0.1


def _snapshot(folders: list[Path]) -> dict[Path, float]:
    found: dict[Path, float] = {}
    for f in folders:
        if f.is_file():
            found[f] = f.stat().st_mtime
        elif f.exists():
            found.update((p, p.stat().st_mtime) for p in f.rglob("*") if p.is_file())
    return found


def _touch_pages(docs: Path) -> None:
    """Mark every page newer than its built copy, so MkDocs' next dirty rebuild is a full one."""
    for page in docs.rglob("*.md"):
        if page.is_file() and not page.is_symlink():
            with contextlib.suppress(OSError):
                os.utime(page)  # to the current time


def _regenerate(project: Project, warm: Warm) -> None:
    try:
        gen = build(project, site=False, warm=warm)
        if gen.warnings:
            print(render(gen.warnings), file=sys.stderr)
        print(f"gpu-guide: regenerated {len(gen.files)} files", file=sys.stderr)
        _settle_heap()
    except DataError as exc:
        print(render(exc.problems), file=sys.stderr)
        print("gpu-guide: data problems; the preview keeps the last good pages", file=sys.stderr)
    except (OutputError, FileExistsError) as exc:
        print(str(exc), file=sys.stderr)
        print("gpu-guide: docs/ was not rewritten; the preview keeps the last good pages", file=sys.stderr)


def _settle_heap() -> None:
    """Collect this generation's garbage, then freeze what is left (the memos ``Warm`` keeps) out of
    the garbage collector's sight, so the next regeneration's collections scan only what it makes.

    Without it, each full collection during a regeneration walks every kept sizing, plan and page
    (a few million objects): a price edit's regeneration took 2.5 s of CPU, 1.85 s with it
    (README, "Preview"). Called after docs/ is written, while MkDocs rebuilds in its own process.
    Unfreezing first lets the memos' dropped entries be collected too, so nothing leaks."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def parse_address(dev_addr: str) -> tuple[str, int] | None:
    """``HOST:PORT`` (IPv6 hosts in brackets) as (host, port), or None when malformed."""
    host, sep, port = dev_addr.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        return None
    try:
        host.encode("idna")  # what getaddrinfo does first; "x..y" has an empty label
    except UnicodeError:
        return None
    return host, int(port)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (the system's pick), for a preview or a test server."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def port_problem(host: str, port: int) -> str | None:
    """Why MkDocs could not listen on ``host:port`` (e.g. "Address already in use"), or None."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        return exc.strerror or str(exc)
    except UnicodeError:  # "x..y": an empty label is no host name at all
        return f"{host!r} is not a host name"
    family, kind, proto, _name, address = infos[0]
    with socket.socket(family, kind, proto) as sock:
        # MkDocs' server sets SO_REUSEADDR too, so a port in TIME_WAIT is not "busy" for it either.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(address)
        except OSError as exc:
            return exc.strerror or str(exc)
    return None


def serve(project: Project, dev_addr: str) -> int:
    address = parse_address(dev_addr)
    if address is None:
        print(f"gpu-guide serve: --dev-addr must be HOST:PORT, e.g. 127.0.0.1:8000; got {dev_addr!r}", file=sys.stderr)
        return 2
    problem = port_problem(*address)
    if problem is not None:
        print(
            f"gpu-guide serve: cannot listen on {dev_addr}: {problem}. Is another preview still running? "
            "Stop it, or pass --dev-addr with another port.",
            file=sys.stderr,
        )
        return 1
    proc: subprocess.Popen[bytes] | None = None
    with _sigterm_as_interrupt():
        try:
            warm = Warm()  # kept between edits: only what an edit changes is computed again
            _regenerate(project, warm)
            watched = [project.data, project.templates / "pages", project.templates / "partials"]
            theme = [project.templates / "overrides", project.config]
            proc = subprocess.Popen(
                [sys.executable, "-c", _CHILD, "serve", "--dirty", "--dev-addr", dev_addr, "-f", str(project.config)],
                cwd=project.root,
                env={**os.environ, "GPU_GUIDE_SERVE_PID": str(os.getpid()), "GPU_GUIDE_SERVE_POLL": str(MKDOCS_POLL)},
                start_new_session=True,  # its own process group: stopped as a whole below
            )
            seen, seen_theme = _snapshot(watched), _snapshot(theme)
            while proc.poll() is None:
                time.sleep(POLL)
                now, now_theme = _snapshot(watched), _snapshot(theme)
                if now_theme != seen_theme:
                    seen_theme = now_theme
                    _touch_pages(project.docs)
                if now != seen:
                    seen = now
                    _regenerate(project, warm)
        except KeyboardInterrupt as exc:
            if proc is not None:
                _stop(proc)
            said = f"; {exc.message}" if isinstance(exc, Interrupted) else ""
            print(f"gpu-guide serve: stopped{said}", file=sys.stderr)
            return 0
        except BaseException:
            if proc is not None:
                _stop(proc)
            raise
    assert proc is not None
    if proc.returncode != 0:
        print(f"gpu-guide serve: mkdocs serve stopped with exit status {proc.returncode} (see above)", file=sys.stderr)
        return 1
    return 0


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM stops ``serve`` the way Ctrl-C does (the child is stopped, staging cleaned)."""

    def handler(_sig: int, _frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop the MkDocs child and everything it started (its process group), then reap it."""
    with _ignoring_interrupts():
        for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 10.0)):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, sig)
            try:
                proc.wait(timeout=wait)
                return
            except subprocess.TimeoutExpired:
                continue


#: The MkDocs child's first lines: ask Linux for SIGTERM when ``serve`` dies (even by SIGKILL), so a
#: killed ``serve`` does not leave a preview holding the port, and let SIGTERM stop it the way Ctrl-C
#: stops plain ``mkdocs serve``, which then removes its temporary build folder.
#:
#: Only the first SIGTERM counts: Linux sends the parent-death signal once for every thread of
#: ``serve`` the child is handed to as the threads die, so a killed ``serve`` with two threads
#: sends two. A second KeyboardInterrupt raised while MkDocs was removing its folder left the
#: folder half removed (tests/test_serve.py: 3 in 40 runs on a loaded machine).
_CHILD_SIGNALS = """\
import ctypes, ctypes.util, os, signal, sys
libc = ctypes.util.find_library("c")
if libc and sys.platform.startswith("linux"):
    ctypes.CDLL(libc).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    if os.getppid() != int(os.environ.get("GPU_GUIDE_SERVE_PID", "0")):
        sys.exit(0)  # serve died before the request took effect
def _stop(_sig, _frame):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the shutdown below must run to its end
    raise KeyboardInterrupt  # as Ctrl-C does: mkdocs serve then removes its temporary site folder
signal.signal(signal.SIGTERM, _stop)
"""

#: ``mkdocs`` in the child, after :data:`_CHILD_SIGNALS`. Its live-reload server looks at docs/
#: every :data:`MKDOCS_POLL` seconds (``polling_interval``, which MkDocs' command line does not offer).
_CHILD_MKDOCS = """\
import mkdocs.commands.serve as _serve
class _Prompt(_serve.LiveReloadServer):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("polling_interval", float(os.environ.get("GPU_GUIDE_SERVE_POLL", "0.5")))
        super().__init__(*args, **kwargs)
_serve.LiveReloadServer = _Prompt
from mkdocs.__main__ import cli
sys.argv[0] = "mkdocs"
cli()
"""
_CHILD = _CHILD_SIGNALS + _CHILD_MKDOCS


@contextlib.contextmanager
def _ignoring_interrupts() -> Iterator[None]:
    """A second Ctrl-C while the child is being stopped must not leave it running."""
    previous = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
