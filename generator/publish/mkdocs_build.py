"""Run ``mkdocs build --strict`` in-process into a staging folder.

MkDocs empties ``site_dir`` before writing, so building in place would leave a
half-written site if the build failed or was killed. The caller builds into a fresh
staging folder and swaps it in (see :func:`generator.publish.swap.swap_in`).

``SOURCE_DATE_EPOCH`` is set from the data's as-of date for the duration of the build
(and restored afterwards) so the sitemap and the gzip headers MkDocs writes do not depend
on the build clock. The ``gpu-guide`` plugin in ``mkdocs.yml`` does the escaping and
checks (:mod:`generator.publish.plugin`); ``production`` turns on the strict site checks.
"""

from __future__ import annotations

import calendar
import contextlib
import datetime as dt
import logging
import os
from collections.abc import Iterator
from pathlib import Path

from generator.publish.search_index import SearchIndexError, index_site


class SiteBuildError(Exception):
    """MkDocs refused to build; ``messages`` holds its warnings and errors."""

    def __init__(self, messages: list[str]):
        super().__init__("mkdocs build failed")
        self.messages = messages


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(f"mkdocs: {record.levelname.lower()}: {record.getMessage()}")


def epoch_for(day: dt.date) -> int:
    """Seconds since 1970 at midnight UTC of ``day``."""
    return calendar.timegm(day.timetuple())


@contextlib.contextmanager
def environment_variable(name: str, value: str) -> Iterator[None]:
    """Set an environment variable for the duration of a block, then restore it exactly."""
    before = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = before


def build_site(config_file: Path, docs_dir: Path, out_dir: Path, as_of: dt.date, *, production: bool = False) -> None:
    """Build ``docs_dir`` with ``config_file`` into ``out_dir`` in strict mode, then index it for search."""
    # Imported here: MkDocs and its plugins take a second to import, and `check`,
    # `estimate` and the unit tests never need them.
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort, MkDocsException

    handler = _Collect()
    logger = logging.getLogger("mkdocs")
    logger.addHandler(handler)
    try:
        with environment_variable("SOURCE_DATE_EPOCH", str(epoch_for(as_of))):
            config = load_config(str(config_file), docs_dir=str(docs_dir), site_dir=str(out_dir), strict=True)
            plugin = config.plugins.get("gpu-guide")
            if plugin is None:
                raise SiteBuildError([f"{config_file.name}: plugins must list gpu-guide (escaping and checks)"])
            if production:
                plugin.config.production = True
            config.plugins.on_startup(command="build", dirty=False)
            try:
                build(config)
            finally:
                config.plugins.on_shutdown()
        index_site(out_dir)  # Pagefind over the finished HTML (generator.publish.search_index)
    except (Abort, MkDocsException, OSError) as exc:
        raise SiteBuildError(handler.messages + [f"mkdocs: {exc}"]) from None
    except SearchIndexError as exc:
        raise SiteBuildError([str(exc)]) from None
    finally:
        logger.removeHandler(handler)
