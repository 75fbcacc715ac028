"""Run ``mkdocs build --strict`` in-process into a staging folder.

MkDocs empties ``site_dir`` before writing, so building in place would leave a
half-written site if the build failed or was killed. The caller builds into a fresh
staging folder and swaps it in (see :func:`generator.output.swap_in`).

``SOURCE_DATE_EPOCH`` is set from the data's as-of date so the sitemap and the gzip
headers MkDocs writes do not depend on the build clock.
"""

from __future__ import annotations

import calendar
import datetime as dt
import logging
import os
from pathlib import Path


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


def build_site(config_file: Path, docs_dir: Path, out_dir: Path, as_of: dt.date) -> None:
    """Build ``docs_dir`` with ``config_file`` into ``out_dir`` in strict mode."""
    # Imported here: MkDocs and its plugins take a second to import, and `check`,
    # `estimate` and the unit tests never need them.
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort, MkDocsException

    os.environ["SOURCE_DATE_EPOCH"] = str(epoch_for(as_of))
    _quiet_jieba()
    handler = _Collect()
    logger = logging.getLogger("mkdocs")
    logger.addHandler(handler)
    try:
        config = load_config(str(config_file), docs_dir=str(docs_dir), site_dir=str(out_dir), strict=True)
        config.plugins["gpu-guide-meta"] = _attribute_safe_meta()
        config.plugins.on_startup(command="build", dirty=False)
        try:
            build(config)
        finally:
            config.plugins.on_shutdown()
    except (Abort, MkDocsException, OSError) as exc:
        raise SiteBuildError(handler.messages + [f"mkdocs: {exc}"]) from None
    finally:
        logger.removeHandler(handler)


def _attribute_safe_meta():  # type: ignore[no-untyped-def]
    """A plugin that makes front matter descriptions safe inside a quoted attribute.

    Material writes ``<meta name="description" content="{{ page.meta.description }}">``
    without escaping, so a ``"`` in a description (from a scenario summary, say, or a
    hand-written page) would end the attribute and let the rest become attributes.
    Generated front matter is already free of ``<``, ``>`` and ``&``
    (:func:`generator.escape.yaml_str`); quotes become character references here, for
    every page.
    """
    from mkdocs.plugins import BasePlugin

    class AttributeSafeMeta(BasePlugin):  # type: ignore[type-arg]
        def on_page_markdown(self, markdown, page, config, files):  # type: ignore[no-untyped-def]
            value = page.meta.get("description")
            if isinstance(value, str):
                page.meta["description"] = value.replace('"', "&quot;").replace("'", "&#39;")
            return markdown

    return AttributeSafeMeta()


def _quiet_jieba() -> None:
    """jieba (Chinese search segmentation) logs its dictionary loading at DEBUG to stderr."""
    try:
        import jieba
    except ImportError:  # search then falls back to MkDocs' own segmentation
        return
    jieba.setLogLevel(logging.WARNING)
