"""The MkDocs plugin ``gpu-guide``: the guarantees every way of building gets.

Registered in ``mkdocs.yml`` (``plugins: - gpu-guide``) through the package's
``mkdocs.plugins`` entry point, so ``gpu-guide build``, ``gpu-guide serve``, plain
``mkdocs build`` and ``mkdocs serve`` all:

* check the operator's site settings (:mod:`generator.publish.site_config`): a production
  build (``production: true``, e.g. ``GPU_GUIDE_PRODUCTION=true``) refuses the
  placeholder domain and malformed settings;
* expand nav entries written as a pattern (``scenarios/*.md``) into the matching pages,
  in the order their front matter's ``nav_order`` gives (the data's order), so adding a
  scenario needs no edit to ``mkdocs.yml``; entries without a title get their page's
  front-matter ``title`` (what MkDocs would show anyway), so a dirty rebuild in ``gpu-guide
  serve``, which reads only the changed pages, still names every page in the navigation;
* make front matter descriptions safe inside a quoted HTML attribute: Material writes
  ``<meta name="description" content="{{ page.meta.description }}">`` unescaped;
* fail the build when a generated page arrives without its parsed front matter (its
  title and description would be lost and the header shown as text);
* hold the project's write lock (:mod:`generator.publish.lock`) for a plain ``mkdocs
  build`` or ``gh-deploy``, which write ``site/`` in place: while ``gpu-guide build``,
  ``serve`` or ``edition`` holds it, MkDocs refuses instead of mixing two data sets into
  ``site/``. (``gpu-guide build`` already holds it, so its own MkDocs run goes ahead;
  ``mkdocs serve`` builds into a temporary folder and needs none.)
* keep the theme's compiled templates for the life of the process (:class:`CompiledTemplates`):
  ``mkdocs serve`` makes a new Jinja environment for every rebuild and would compile Material's
  31 templates again each time, a quarter of a one-page dirty rebuild;
* write the calculator's scripts as one file, ``javascripts/calculator.bundle.js``
  (:mod:`generator.publish.bundle`), when the docs have ``javascripts/calculator.js``.
"""

from __future__ import annotations

import contextlib
import fnmatch
import logging
from pathlib import Path
from typing import Any

import jinja2
import yaml
from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from generator.data.problems import Severity
from generator.pages.render import MARKER
from generator.publish.bundle import BUNDLE, ENTRY, BundleError, bundle
from generator.publish.css import without_comments
from generator.publish.lock import write_lock
from generator.publish.safe_files import OutputError
from generator.publish.site_config import check_settings

log = logging.getLogger("mkdocs.plugins.gpu-guide")


class GpuGuideConfig(Config):
    production = config_options.Type(bool, default=False)


#: MkDocs commands that write ``site_dir`` in place, and so take the write lock.
WRITING_COMMANDS = ("build", "gh-deploy")


class GpuGuidePlugin(BasePlugin[GpuGuideConfig]):
    def __init__(self) -> None:
        self._command = ""
        self._lock: contextlib.ExitStack | None = None

    def on_startup(self, *, command: str, dirty: bool) -> None:
        self._command = command
        if dirty:
            # `gpu-guide serve` runs `mkdocs serve --dirty` (only changed pages are rebuilt). MkDocs
            # warns on every dirty build that the navigation may be inaccurate, which strict mode
            # turns into a failed build; the navigation is right here (every nav entry carries its
            # page's title, see expand_nav), so that one warning is dropped and strict stays on
            # for every other warning.
            logging.getLogger("mkdocs.commands.build").addFilter(_without_dirty_notice)

    def on_shutdown(self) -> None:
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        if self._command in WRITING_COMMANDS and self._lock is None:
            self._take_lock(Path(config.config_file_path or "mkdocs.yml").resolve().parent)
        raw = {"site_url": config.site_url, "extra": dict(config.extra)}
        path = Path(config.config_file_path or "mkdocs.yml")
        text = path.read_text(encoding="utf-8") if path.is_file() else ""
        settings, problems = check_settings(raw, text, path.name, production=self.config.production)
        for p in problems:
            if p.severity is Severity.warning:
                log.info(p.format())  # info, not warning: a local strict build may use the placeholder
        errors = [p for p in problems if p.severity is Severity.error]
        if errors or settings is None:
            raise PluginError("\n".join(p.format() for p in errors))
        config.extra["operator"] = {
            "icp": settings.icp,
            "analytics_script": settings.analytics_script,
            "contact_text": settings.contact_text,
            "contact_url": settings.contact_url,
        }
        if config.nav is not None:
            config.nav = expand_nav(config.nav, Path(config.docs_dir))
        return config

    def on_env(self, env: jinja2.Environment, *, config: MkDocsConfig, files: Files) -> jinja2.Environment:
        env.bytecode_cache = COMPILED
        return env

    def on_page_markdown(self, markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        if MARKER in markdown[:4096]:
            raise PluginError(
                f"{page.file.src_uri}: the generated front matter did not parse, so the page would lose its "
                "title and show its header as text; rebuild with `gpu-guide build` and report this"
            )
        value = page.meta.get("description")
        if isinstance(value, str):
            page.meta["description"] = value.replace('"', "&quot;").replace("'", "&#39;")
        return markdown

    def _take_lock(self, root: Path) -> None:
        stack = contextlib.ExitStack()
        try:
            stack.enter_context(write_lock(root, wait=0))
        except OutputError as exc:
            raise PluginError(f"{exc} (`mkdocs build` does not wait; nothing was written)") from None
        self._lock = stack

    def on_post_build(self, config: MkDocsConfig) -> None:
        for sheet in config.extra_css:  # the site's own stylesheets, without their comments (publish/css.py)
            path = Path(config.site_dir) / str(sheet)
            if "://" not in str(sheet) and path.is_file():
                text = path.read_text(encoding="utf-8")
                bare = without_comments(text)
                if bare != text:  # a dirty rebuild that did not copy the sheet again finds it done
                    path.write_text(bare, encoding="utf-8")
        entry = Path(config.docs_dir) / ENTRY
        if not entry.is_file():
            return
        try:
            text = bundle(entry)
        except BundleError as exc:
            raise PluginError(f"calculator bundle: {exc}") from None
        out = Path(config.site_dir) / BUNDLE
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")


class CompiledTemplates(jinja2.BytecodeCache):
    """Compiled Jinja templates in memory, by template and source checksum (Jinja's bytecode cache).

    One per process: MkDocs makes a new environment and plugin for every build, and ``mkdocs serve``
    builds again on every change. Jinja stores each template's checksum with its code and compiles
    again when the source differs, so an edited theme template is never served stale."""

    def __init__(self) -> None:
        self._held: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        held = self._held.get(bucket.key)
        if held is not None:
            bucket.bytecode_from_string(held)  # resets the bucket when the checksum differs

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self._held[bucket.key] = bucket.bytecode_to_string()


#: the process's compiled templates (see :class:`CompiledTemplates`)
COMPILED = CompiledTemplates()


def _without_dirty_notice(record: logging.LogRecord) -> bool:
    """Log filter: False for MkDocs' "A 'dirty' build is being performed" warning only."""
    return not str(record.msg).startswith("A 'dirty' build is being performed")


def expand_nav(nav: Any, docs_dir: Path) -> Any:
    """Replace entries containing ``*`` with the docs pages they match, ordered by ``nav_order``
    in their front matter (then by path), skipping pages the nav already lists."""
    listed = set(_listed(nav))

    def walk(items: Any) -> Any:
        if isinstance(items, list):
            out: list[Any] = []
            for item in items:
                if isinstance(item, str) and "*" in item:
                    out.extend(_titled(p, docs_dir) for p in _matches(item, docs_dir) if p not in listed)
                elif isinstance(item, str):
                    out.append(_titled(item, docs_dir))
                else:
                    out.append(walk(item))
            return out
        if isinstance(items, dict):
            return {k: walk(v) for k, v in items.items()}
        return items

    return walk(nav)


def _listed(nav: Any) -> list[str]:
    if isinstance(nav, str):
        return [] if "*" in nav else [nav]
    if isinstance(nav, list):
        return [p for item in nav for p in _listed(item)]
    if isinstance(nav, dict):
        return [p for v in nav.values() for p in _listed(v)]
    return []


def _matches(pattern: str, docs_dir: Path) -> list[str]:
    found = []
    for path in docs_dir.rglob("*.md"):
        if path.is_symlink() or not path.is_file():
            continue
        rel = path.relative_to(docs_dir).as_posix()
        if fnmatch.fnmatchcase(rel, pattern):
            found.append((_nav_order(path), rel))
    return [rel for _order, rel in sorted(found)]


def _front_matter(path: Path) -> dict[str, Any]:
    """A page's YAML front matter (empty when it has none or it does not parse)."""
    try:
        with path.open(encoding="utf-8", errors="replace") as fh:
            if fh.readline().rstrip("\n") != "---":
                return {}
            lines = []
            for line in fh:
                if line.rstrip("\n") == "---":
                    break
                lines.append(line)
    except OSError:
        return {}
    try:
        meta = yaml.safe_load("".join(lines))
    except yaml.YAMLError:
        return {}
    return meta if isinstance(meta, dict) else {}


def _nav_order(path: Path) -> float:
    """``nav_order: N`` from a page's front matter; pages without one go last."""
    value = _front_matter(path).get("nav_order")
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else float("inf")


def _titled(rel: str, docs_dir: Path) -> Any:
    """``{title: rel}`` with the page's front-matter title, or ``rel`` itself when it has none."""
    path = docs_dir / rel
    title = _front_matter(path).get("title") if path.is_file() and not path.is_symlink() else None
    return {title: rel} if isinstance(title, str) and title else rel
