"""A private folder for jieba's dictionary cache.

The search plugin segments Chinese with jieba, which caches its parsed dictionary as
``jieba.cache`` in ``tempfile.gettempdir()`` (``/tmp``) and loads that file on the next run
if it exists. On a shared machine another user can put a file there first and so decide
how this site's search index splits words (or make the build fail). Before the search
plugin runs (:meth:`generator.publish.plugin.GpuGuidePlugin.on_config`), jieba is pointed
at a folder only this user can write: ``$XDG_CACHE_HOME/gpu-guide/jieba`` (default
``~/.cache/gpu-guide/jieba``), mode 0700, or, when that cannot be had safely, a fresh
0700 temporary folder for this process.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import shutil
import stat
import tempfile
from pathlib import Path

_chosen: list[Path] = []


def private_jieba_cache() -> Path | None:
    """Point jieba's cache at a private folder (once per process) and quieten its logging.

    Returns the folder, or None when jieba is not installed (search then falls back to
    MkDocs' own segmentation and nothing is cached).
    """
    try:
        import jieba
    except ImportError:
        return None
    jieba.setLogLevel(logging.WARNING)  # it logs its dictionary loading at DEBUG to stderr
    if not _chosen:
        _chosen.append(_user_cache() or _process_folder())
    jieba.dt.tmp_dir = str(_chosen[0])
    return _chosen[0]


def cache_home() -> Path:
    """``$XDG_CACHE_HOME`` when set to an absolute path, else ``~/.cache``."""
    raw = os.environ.get("XDG_CACHE_HOME", "")
    return Path(raw) if os.path.isabs(raw) else Path.home() / ".cache"


def _user_cache() -> Path | None:
    """``cache_home()/gpu-guide/jieba`` if it is (or can be made) a 0700 folder of ours, no link on the way."""
    try:
        folder = cache_home() / "gpu-guide" / "jieba"
        folder.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=0o700)
        for part in (folder.parent, folder):
            st = os.lstat(part)
            if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
                return None
            if st.st_mode & 0o022:  # others could swap the cache file: close the folder
                os.chmod(part, 0o700)
    except (OSError, RuntimeError):  # no home, read-only home, …
        return None
    return folder


def _process_folder() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="gpu-guide-jieba-"))  # 0700, created for us alone
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder
